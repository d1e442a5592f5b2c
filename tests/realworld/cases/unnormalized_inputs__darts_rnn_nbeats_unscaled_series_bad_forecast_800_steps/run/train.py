# My model training code:
# For RNN

model = RNNModel(input_chunk_length=16, output_chunk_length=12)
model.fit(train)
prediction = model.predict(800)

Series.plot(label = 'actual')
prediction.plot(label = 'forecast', lw = 3)
plt.legend()

# -------------
# For NBEATS

model = NBEATSModel(input_chunk_length=16, output_chunk_length=12)
model.fit(train)
prediction = model.predict(800)

Series.plot(label = 'actual')
prediction.plot(label = 'forecast', lw = 3)
plt.legend()
