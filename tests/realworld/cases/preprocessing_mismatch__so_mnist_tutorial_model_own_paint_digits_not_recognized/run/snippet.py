import cv2
import numpy as np
import tensorflow as tf
# My own data
model = tf.keras.models.load_model("handwritten.model")
img = cv2.imread("Digits/digit11.png")
gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
img_flat = gray.reshape(28, 28)
prediction = model.predict(np.expand_dims(img_flat, axis=0))
print(f"This digit is probably a {np.argmax(prediction)}")
# MNIST Data
prediction = model.predict(np.expand_dims(x_train[27], axis=0))
print(f"This digit is probably a {np.argmax(prediction)}")
