"""Binary classifier for the two-moons style sensor data, estimator-style logging."""
import argparse
import logging
import math
import time

import numpy as np
import torch
from torch import nn

logging.basicConfig(level=logging.INFO)
log = logging.getLogger('tensorflow')

parser = argparse.ArgumentParser()
parser.add_argument('--model_dir', default='/tmp/moons_model')
parser.add_argument('--train_steps', type=int, default=3000)
parser.add_argument('--batch_size', type=int, default=128)
parser.add_argument('--learning_rate', type=float, default=2e-3)
parser.add_argument('--hidden_units', default='64,64')
parser.add_argument('--log_step_count_steps', type=int, default=50)
parser.add_argument('--eval_every', type=int, default=250)


def make_moons(n, noise, rng):
  n1 = n // 2
  t1 = rng.uniform(0, math.pi, n1)
  t2 = rng.uniform(0, math.pi, n - n1)
  a = np.stack([np.cos(t1), np.sin(t1)], 1)
  b = np.stack([1 - np.cos(t2), 0.5 - np.sin(t2)], 1)
  x = np.concatenate([a, b]) + noise * rng.randn(n, 2)
  y = np.concatenate([np.zeros(n1), np.ones(n - n1)])
  # six extra sensor channels that carry no signal
  x = np.concatenate([x, 0.5 * rng.randn(n, 6)], 1)
  p = rng.permutation(n)
  return x[p].astype(np.float32), y[p].astype(np.float32)


def sigmoid_cross_entropy(logits, labels):
  p = torch.sigmoid(logits)
  return -(labels * torch.log(p) + (1 - labels) * torch.log(1 - p)).mean()


def main():
  args = parser.parse_args()
  torch.set_num_threads(1)
  torch.manual_seed(1)
  rng = np.random.RandomState(1)
  x, y = make_moons(6000, 0.12, rng)
  x_train, y_train = torch.tensor(x[:5000]), torch.tensor(y[:5000])
  x_eval, y_eval = torch.tensor(x[5000:]), torch.tensor(y[5000:])

  dims = [8] + [int(h) for h in args.hidden_units.split(',')]
  layers = []
  for a, b in zip(dims[:-1], dims[1:]):
    layers += [nn.Linear(a, b), nn.ReLU()]
  model = nn.Sequential(*layers, nn.Linear(dims[-1], 1))
  opt = torch.optim.Adam(model.parameters(), lr=args.learning_rate)

  log.info("Using config: {'_model_dir': '%s', '_log_step_count_steps': %d, '_save_checkpoints_steps': %d}",
           args.model_dir, args.log_step_count_steps, args.eval_every)
  log.info('Calling model_fn.')
  log.info('Done calling model_fn.')
  log.info('Create CheckpointSaverHook.')
  log.info('Saving checkpoints for 0 into %s/model.ckpt.', args.model_dir)
  t_last = time.time()
  for step in range(args.train_steps):
    idx = torch.randint(0, len(x_train), (args.batch_size,))
    logits = model(x_train[idx]).squeeze(-1)
    loss = sigmoid_cross_entropy(logits, y_train[idx])
    if not math.isfinite(loss.item()):
      log.error('Model diverged with loss = NaN.')
      raise RuntimeError('NaN loss during training.')
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % args.log_step_count_steps == 0:
      now = time.time()
      if step == 0:
        log.info('loss = %s, step = %d', loss.item(), step)
      else:
        log.info('global_step/sec: %.4g', args.log_step_count_steps / (now - t_last))
        log.info('loss = %s, step = %d (%.3f sec)', loss.item(), step, now - t_last)
      t_last = now
    if (step + 1) % args.eval_every == 0:
      log.info('Saving checkpoints for %d into %s/model.ckpt.', step + 1, args.model_dir)
      with torch.no_grad():
        el = model(x_eval).squeeze(-1)
        eval_loss = sigmoid_cross_entropy(el, y_eval).item()
        acc = ((el > 0).float() == y_eval).float().mean().item()
      log.info('Saving dict for global step %d: accuracy = %s, global_step = %d, loss = %s',
               step + 1, acc, step + 1, eval_loss)
  log.info('Loss for final step: %s.', loss.item())


if __name__ == '__main__':
  main()
