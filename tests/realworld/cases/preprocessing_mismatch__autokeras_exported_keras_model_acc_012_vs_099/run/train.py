clf.load_searcher().load_best_model().produce_keras_model().save('my_model.h5')
