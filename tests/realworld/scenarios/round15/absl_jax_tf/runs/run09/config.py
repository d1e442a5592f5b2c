"""Small-data assay classifier."""
import ml_collections


def get_config():
  config = ml_collections.ConfigDict()
  config.seed = 17
  config.num_train = 240
  config.num_eval = 2000
  config.num_features = 48

  config.model = ml_collections.ConfigDict()
  config.model.hidden = (512, 256)
  config.model.dropout = 0.0

  config.optimizer = 'adam'
  config.learning_rate = 1e-3
  config.weight_decay = 0.0
  config.batch_size = 32
  config.num_epochs = 200
  return config
