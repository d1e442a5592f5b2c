"""Hyperparameters for the tabular MLP baseline."""

import ml_collections


def get_config():
  """Returns the default config."""
  config = ml_collections.ConfigDict()
  config.seed = 42

  # Data.
  config.num_examples = 6000
  config.eval_fraction = 0.2
  config.num_features = 24
  config.num_classes = 6

  # Model.
  config.hidden_dims = (128, 128)
  config.dropout_rate = 0.1

  # Optimization.
  config.batch_size = 64
  config.num_epochs = 12
  config.learning_rate = 2e-3
  config.warmup_steps = 150
  config.weight_decay = 1e-4

  config.log_every_steps = 50
  return config
