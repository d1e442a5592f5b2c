# 1. using `evaluation`
model.fit(x_train, y_train, batch_size=batch_size, nb_epoch=5, validation_split=0.1, show_accuracy=True)
score = model.evaluate(x_test, y_test, batch_size=batch_size)
print('Test score:', score)

# 2. using `accuracy`
classes = model.predict_classes(x_test, batch_size=batch_size)
acc = np_utils.accuracy(classes, y_test)
print('Test accuracy:', acc)
