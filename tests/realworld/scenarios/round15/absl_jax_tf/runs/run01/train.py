"""Trains an MLP classifier on the synthetic tabular benchmark."""
import math
import os
import time

from absl import app
from absl import flags
from absl import logging
from ml_collections import config_flags
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

_WORKDIR = flags.DEFINE_string('workdir', None, 'Where to write checkpoints.')
_CONFIG = config_flags.DEFINE_config_file('config', 'config.py', 'Training config.')


def write_scalars(step, scalars):
  logging.info('[%d] %s', step, ', '.join(f'{k}={v}' for k, v in sorted(scalars.items())))


def make_dataset(cfg):
  rng = np.random.RandomState(cfg.seed)
  n_informative = 10
  centers = rng.randn(cfg.num_classes, n_informative)
  mixing = rng.randn(n_informative, cfg.num_features) / np.sqrt(n_informative)
  y = rng.randint(cfg.num_classes, size=cfg.num_examples)
  x = (centers[y] + 0.8 * rng.randn(cfg.num_examples, n_informative)) @ mixing
  x += 0.3 * rng.randn(*x.shape)
  n_eval = int(cfg.num_examples * cfg.eval_fraction)
  x_train, y_train = x[n_eval:], y[n_eval:]
  x_eval, y_eval = x[:n_eval], y[:n_eval]
  mean, std = x_train.mean(0), x_train.std(0)
  to_t = lambda a: torch.tensor(a, dtype=torch.float32)
  return ((to_t((x_train - mean) / std), torch.tensor(y_train)),
          (to_t((x_eval - mean) / std), torch.tensor(y_eval)))


class MLP(nn.Module):

  def __init__(self, in_dim, hidden_dims, num_classes, dropout_rate):
    super().__init__()
    layers = []
    for h in hidden_dims:
      layers += [nn.Linear(in_dim, h), nn.ReLU(), nn.Dropout(dropout_rate)]
      in_dim = h
    layers.append(nn.Linear(in_dim, num_classes))
    self.net = nn.Sequential(*layers)

  def forward(self, x):
    return self.net(x)


def evaluate(model, x, y):
  model.eval()
  with torch.no_grad():
    logits = model(x)
    loss = F.cross_entropy(logits, y).item()
    acc = (logits.argmax(-1) == y).float().mean().item()
  model.train()
  return {'eval_loss': loss, 'eval_accuracy': acc}


def main(argv):
  del argv
  torch.set_num_threads(1)
  cfg = _CONFIG.value
  workdir = _WORKDIR.value
  os.makedirs(workdir, exist_ok=True)
  torch.manual_seed(cfg.seed)

  (x_train, y_train), (x_eval, y_eval) = make_dataset(cfg)
  logging.info('train examples: %d, eval examples: %d', len(x_train), len(x_eval))

  model = MLP(cfg.num_features, cfg.hidden_dims, cfg.num_classes, cfg.dropout_rate)
  num_params = sum(p.numel() for p in model.parameters())
  logging.info('Model has %d parameters.', num_params)

  steps_per_epoch = math.ceil(len(x_train) / cfg.batch_size)
  total_steps = steps_per_epoch * cfg.num_epochs
  optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.learning_rate,
                                weight_decay=cfg.weight_decay)

  def lr_lambda(step):
    if step < cfg.warmup_steps:
      return (step + 1) / cfg.warmup_steps
    progress = (step - cfg.warmup_steps) / max(1, total_steps - cfg.warmup_steps)
    return 0.5 * (1.0 + math.cos(math.pi * progress))

  scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
  logging.info('Starting training loop at step 1 (%d steps).', total_steps)

  step = 0
  window_loss, window_correct, window_count = 0.0, 0, 0
  t0 = time.time()
  for epoch in range(cfg.num_epochs):
    perm = torch.randperm(len(x_train))
    for i in range(0, len(x_train), cfg.batch_size):
      idx = perm[i:i + cfg.batch_size]
      xb, yb = x_train[idx], y_train[idx]
      logits = model(xb)
      loss = F.cross_entropy(logits, yb)
      optimizer.zero_grad()
      loss.backward()
      optimizer.step()
      lr = scheduler.get_last_lr()[0]
      scheduler.step()
      step += 1

      window_loss += loss.item() * len(idx)
      window_correct += (logits.argmax(-1) == yb).sum().item()
      window_count += len(idx)
      if step % cfg.log_every_steps == 0:
        write_scalars(step, {
            'train_loss': window_loss / window_count,
            'train_accuracy': window_correct / window_count,
            'learning_rate': lr,
        })
        if step % (4 * cfg.log_every_steps) == 0:
          write_scalars(step, {'steps_per_sec': round(step / (time.time() - t0), 2)})
        window_loss, window_correct, window_count = 0.0, 0, 0

    write_scalars(step, evaluate(model, x_eval, y_eval))
    if (epoch + 1) % 4 == 0 or epoch + 1 == cfg.num_epochs:
      path = os.path.join(workdir, f'checkpoint_{step}')
      torch.save(model.state_dict(), path)
      logging.info('Saved checkpoint at step %d to %s', step, path)
  logging.info('Finished training at step %d.', step)


if __name__ == '__main__':
  flags.mark_flags_as_required(['workdir'])
  app.run(main)
