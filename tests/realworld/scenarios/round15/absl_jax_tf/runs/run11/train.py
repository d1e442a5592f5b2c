"""Fraud-score model with in-graph feature standardisation."""
from absl import app
from absl import flags
from absl import logging
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

flags.DEFINE_integer('num_examples', 2561, 'Examples in the export.')
flags.DEFINE_integer('batch_size', 64, 'Batch size.')
flags.DEFINE_integer('epochs', 10, 'Epochs.')
flags.DEFINE_float('learning_rate', 3e-3, 'Learning rate.')
flags.DEFINE_integer('log_every', 8, 'Log every n steps.')
FLAGS = flags.FLAGS


def load_transactions(n, seed=4):
  rng = np.random.RandomState(seed)
  y = (rng.rand(n) < 0.3).astype(np.int64)
  amount = np.exp(rng.normal(3 + 0.8 * y, 1.0))
  hour = (rng.normal(14 - 6 * y, 4) % 24)
  dist_km = np.abs(rng.normal(5 + 20 * y, 10))
  n_prev = rng.poisson(8 - 5 * y)
  velocity = rng.gamma(2 + 2 * y, 1.0)
  x = np.stack([amount, hour, dist_km, n_prev, velocity, rng.randn(n), rng.randn(n)], 1)
  return x.astype(np.float32), y


class Standardize(nn.Module):
  """Standardises each feature with the statistics of the current batch."""

  def forward(self, x):
    mean = x.mean(dim=0, keepdim=True)
    std = x.std(dim=0, keepdim=True)
    return (x - mean) / (std + 1e-6)


def main(_):
  torch.set_num_threads(1)
  torch.manual_seed(4)
  x, y = load_transactions(FLAGS.num_examples)
  n_eval = FLAGS.num_examples // 5
  x_eval, y_eval = torch.tensor(x[:n_eval]), torch.tensor(y[:n_eval])
  x_train, y_train = torch.tensor(x[n_eval:]), torch.tensor(y[n_eval:])
  logging.info('train: %d examples, eval: %d examples, positive rate %.3f',
               len(x_train), len(x_eval), y.mean())

  model = nn.Sequential(Standardize(), nn.Linear(7, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                        nn.Linear(64, 2))
  opt = torch.optim.Adam(model.parameters(), lr=FLAGS.learning_rate)
  step = 0
  for epoch in range(1, FLAGS.epochs + 1):
    perm = torch.randperm(len(x_train))
    for i in range(0, len(x_train), FLAGS.batch_size):
      idx = perm[i:i + FLAGS.batch_size]
      loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
      opt.zero_grad()
      loss.backward()
      opt.step()
      step += 1
      if step % FLAGS.log_every == 0:
        logging.info('[%d] train_loss=%.4f', step, loss.item())
    with torch.no_grad():
      logits = model(x_eval)
      eval_loss = F.cross_entropy(logits, y_eval).item()
      acc = (logits.argmax(1) == y_eval).float().mean().item()
    logging.info('[%d] epoch=%d eval_loss=%.4f eval_accuracy=%.4f', step, epoch, eval_loss, acc)


if __name__ == '__main__':
  app.run(main)
