vame.train_model(config)
