import ml_collections


def get_config():
  config = ml_collections.ConfigDict()
  config.seed = 3
  config.num_train = 1500
  config.num_val = 500

  config.channels = (16, 32)
  config.batch_size = 32
  config.num_epochs = 40

  config.learning_rate = 0.05
  config.momentum = 0.9
  # Step decay: multiply the learning rate by lr_decay_factor every lr_decay_epochs epochs.
  config.lr_decay_epochs = 30
  config.lr_decay_factor = 0.1
  config.log_every = 25
  return config
