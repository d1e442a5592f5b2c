import ml_collections


def get_config():
  config = ml_collections.ConfigDict()
  config.seed = 5
  config.data_path = 'data/building_energy.csv'
  config.target = 'energy_kwh'
  config.val_fraction = 0.15

  config.hidden = (128, 64)
  config.batch_size = 64
  config.num_epochs = 15
  config.learning_rate = 3e-3
  config.log_every_steps = 10
  return config
