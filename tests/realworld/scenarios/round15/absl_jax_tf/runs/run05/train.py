"""Glyph classifier, Keras-style fit() loop ported to torch."""
import time

from absl import app
from absl import flags
from absl import logging
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

flags.DEFINE_integer('epochs', 5, 'Number of epochs.')
flags.DEFINE_integer('batch_size', 32, 'Batch size.')
flags.DEFINE_integer('width', 256, 'Hidden units per layer.')
flags.DEFINE_integer('depth', 6, 'Number of hidden layers.')
flags.DEFINE_float('learning_rate', 1e-3, 'Adam learning rate.')
flags.DEFINE_float('init_stddev', 1.0, 'Stddev of the RandomNormal kernel initializer.')
flags.DEFINE_integer('seed', 11, 'Random seed.')
FLAGS = flags.FLAGS

def make_digits(n, seed, noise=0.25):
  """8x8 grey-level glyphs, 10 classes (a small stand-in for the UCI digits set)."""
  rng = np.random.RandomState(1234)
  templates = np.zeros((10, 8, 8), np.float32)
  for k in range(10):
    for _ in range(4):
      r0, c0 = rng.randint(1, 7, size=2)
      dr, dc = rng.choice([-1, 0, 1], size=2)
      for t in range(5):
        r, c = r0 + t * dr, c0 + t * dc
        if 0 <= r < 8 and 0 <= c < 8:
          templates[k, r, c] = 1.0
  rng = np.random.RandomState(seed)
  y = rng.randint(10, size=n)
  x = np.zeros((n, 8, 8), np.float32)
  for i in range(n):
    img = np.roll(templates[y[i]], rng.randint(-1, 2), axis=0)
    x[i] = np.roll(img, rng.randint(-1, 2), axis=1)
  x = x * rng.uniform(0.6, 1.0, size=(n, 1, 1)) + noise * rng.randn(n, 8, 8)
  return np.clip(x, 0, 1).astype(np.float32), y


def build_model(input_dim, num_classes):
  layers, d = [], input_dim
  for _ in range(FLAGS.depth):
    layers += [nn.Linear(d, FLAGS.width), nn.ReLU()]
    d = FLAGS.width
  layers.append(nn.Linear(d, num_classes))
  model = nn.Sequential(*layers)
  for m in model.modules():
    if isinstance(m, nn.Linear):
      nn.init.normal_(m.weight, mean=0.0, std=FLAGS.init_stddev)
      nn.init.zeros_(m.bias)
  return model


def summary(model, input_dim):
  print('Model: "sequential"')
  print('_' * 65)
  print(f'{" Layer (type)":<29}{"Output Shape":<26}{"Param #":>10}')
  print('=' * 65)
  total, i_dense = 0, 0
  for m in model:
    if isinstance(m, nn.Linear):
      name = 'dense' if i_dense == 0 else f'dense_{i_dense}'
      n = sum(p.numel() for p in m.parameters())
      total += n
      print(f' {name + " (Dense)":<28}{f"(None, {m.out_features})":<26}{n:>10}')
      print()
      i_dense += 1
  print('=' * 65)
  print(f'Total params: {total:,}')
  print(f'Trainable params: {total:,}')
  print('Non-trainable params: 0')
  print('_' * 65)


def evaluate(model, x, y):
  with torch.no_grad():
    logits = model(x)
    return F.cross_entropy(logits, y).item(), (logits.argmax(1) == y).float().mean().item()


def main(_):
  torch.set_num_threads(1)
  torch.manual_seed(FLAGS.seed)
  x, y = make_digits(2400, seed=FLAGS.seed)
  x = torch.from_numpy(x.reshape(len(x), -1))
  y = torch.from_numpy(y)
  x_train, y_train, x_val, y_val = x[:2000], y[:2000], x[2000:], y[2000:]
  logging.info('x_train shape: %s, x_val shape: %s', tuple(x_train.shape), tuple(x_val.shape))

  model = build_model(x.shape[1], 10)
  summary(model, x.shape[1])
  optimizer = torch.optim.Adam(model.parameters(), lr=FLAGS.learning_rate)
  steps = (len(x_train) + FLAGS.batch_size - 1) // FLAGS.batch_size
  for epoch in range(FLAGS.epochs):
    print(f'Epoch {epoch + 1}/{FLAGS.epochs}')
    t0 = time.time()
    perm = torch.randperm(len(x_train))
    loss_sum, correct = 0.0, 0
    for i in range(0, len(x_train), FLAGS.batch_size):
      idx = perm[i:i + FLAGS.batch_size]
      logits = model(x_train[idx])
      loss = F.cross_entropy(logits, y_train[idx])
      optimizer.zero_grad()
      loss.backward()
      optimizer.step()
      loss_sum += loss.item() * len(idx)
      correct += (logits.argmax(1) == y_train[idx]).sum().item()
    val_loss, val_acc = evaluate(model, x_val, y_val)
    dt = time.time() - t0
    epoch_time = f'{dt:.0f}s/epoch' if dt >= 1 else f'{1000 * dt:.0f}ms/epoch'
    print(f'{steps}/{steps} - {round(dt)}s - loss: {loss_sum / len(x_train):.4f} - '
          f'accuracy: {correct / len(x_train):.4f} - val_loss: {val_loss:.4f} - '
          f'val_accuracy: {val_acc:.4f} - {epoch_time} - {1000 * dt / steps:.0f}ms/step')
  logging.info('Final val_accuracy: %.4f', val_acc)


if __name__ == '__main__':
  app.run(main)
