def CNN(train_X, train_y, test_X, test_y):

model = Sequential([
Conv2D(30, kernel_size=3, activation="relu", input_shape=(99, 25, 2)),
Conv2D(64, kernel_size=3, activation="relu"),
Flatten(),
Dense(1, activation='softmax')
])

# Compile the model.
model.compile(
'adam',
loss='categorical_crossentropy',
metrics=['accuracy'],
)

# Train the model.
model.fit(
train_X,
train_y,
epochs=1
)
preds = np.round(model.predict(test_X), 0)

return preds
