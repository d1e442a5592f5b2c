import numpy as np
import tensorflow as tf
from tensorflow import keras

# Data
x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
y = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]

# Define the model
model = Sequential()
model.add(Dense(units=1, input_shape=(1,)))
model.compile(optimizer=tf.keras.optimizers.RMSprop(learning_rate=0.005), loss='mse')

model.fit(x,y, epochs=100, verbose=0)

x1=[11,12,13]
predy= model.predict(x1)

print(predy)
