import numpy as np
from keras.models import Sequential
from keras.layers import Dense, Dropout

x_train = np.random.randint(2, size=(1000,2))
y_train = np.array([[ 1 if x[0] != x[1] else 0] for x in x_train])

x_test = np.random.randint(2, size=(100,2))
y_test = np.array([[ 1 if x[0] != x[1] else 0] for x in x_test])

model = Sequential()
model.add(Dense(2, input_dim=2, activation="sigmoid"))
model.add(Dense(1, activation="sigmoid"))
model.compile(loss='binary_crossentropy',
              optimizer='rmsprop',
              metrics=['binary_accuracy'])

model.fit(x_train, y_train, batch_size=4,epochs=100, verbose=1)

score = model.evaluate(x_test, y_test, verbose=0)
print(score)

print(model.predict(np.array([[1,1],[1,0],[0,1],[0,0]])))
