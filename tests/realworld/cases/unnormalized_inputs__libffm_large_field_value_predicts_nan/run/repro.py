X = [[(0, 0, 1), (1, 18, 1), (40, 40, 32)],
     [(0, 0, 1), (1, 18, 1), (40, 40, 300)],
     [(0, 0, 1), (1, 4, 1), (40, 40, 100)]]

y = [1, 1, 0]

ffm_data = ffm.FFMData(X, y)

model = ffm.FFM(eta=0.205, lam=0.0001, k=4)
model.init_model(ffm_data)
model.iteration(ffm_data)
y_pred = model.predict(ffm_data)
print(y_pred)
