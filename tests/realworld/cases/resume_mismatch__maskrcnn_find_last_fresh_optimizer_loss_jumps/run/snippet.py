model.load_weights(model.find_last(),by_name=True) 
model.train(train, test, learning_rate=train_config.LEARNING_RATE / 10 , epochs=60, layers='all')
