best_model.save('./best_model')
best_model.evaluate(test_images, test_labels)

loaded_model = keras.models.load_model('./best_model')
loaded_model.evaluate(test_images, test_labels)
