"""Config for the cumulative-load sequence regressor."""
import ml_collections


def get_config():
  config = ml_collections.ConfigDict()
  config.seed = 0

  config.data = ml_collections.ConfigDict()
  config.data.seq_len = 120
  config.data.target_scale = 0.05
  config.data.num_eval = 512

  config.model = ml_collections.ConfigDict()
  config.model.cell = 'rnn'
  config.model.nonlinearity = 'relu'
  config.model.hidden_size = 64

  config.batch_size = 32
  config.num_train_steps = 1200
  config.learning_rate = 1e-3
  config.momentum = 0.9
  config.grad_clip_norm = 0.0

  config.log_every_steps = 10
  config.eval_every_steps = 100
  return config
