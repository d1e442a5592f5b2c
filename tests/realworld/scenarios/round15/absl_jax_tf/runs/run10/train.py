"""Deep fully-connected classifier for the glyph data."""
from absl import app
from absl import flags
from absl import logging
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

_NUM_LAYERS = flags.DEFINE_integer('num_layers', 16, 'Hidden layers.')
_WIDTH = flags.DEFINE_integer('width', 64, 'Hidden width.')
_LR = flags.DEFINE_float('lr', 0.05, 'Learning rate.')
_MOMENTUM = flags.DEFINE_float('momentum', 0.9, 'SGD momentum.')
_EPOCHS = flags.DEFINE_integer('epochs', 30, 'Training epochs.')
_BATCH = flags.DEFINE_integer('batch_size', 64, 'Batch size.')
_LOG_EVERY = flags.DEFINE_integer('log_every', 100, 'Steps between logs.')

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


class DeepNet(nn.Module):

  def __init__(self, in_dim, width, depth, n_out):
    super().__init__()
    dims = [in_dim] + [width] * depth
    self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
    self.out = nn.Linear(width, n_out)

  def forward(self, x):
    for layer in self.hidden:
      x = torch.sigmoid(layer(x))
    return self.out(x)


def main(_):
  torch.set_num_threads(1)
  torch.manual_seed(0)
  x, y = make_digits(3000, seed=8)
  x = torch.from_numpy(x.reshape(len(x), -1))
  y = torch.from_numpy(y)
  x_tr, y_tr, x_te, y_te = x[:2500], y[:2500], x[2500:], y[2500:]
  model = DeepNet(64, _WIDTH.value, _NUM_LAYERS.value, 10)
  opt = torch.optim.SGD(model.parameters(), lr=_LR.value, momentum=_MOMENTUM.value)
  logging.info('DeepNet: %d hidden layers of width %d, %d params', _NUM_LAYERS.value, _WIDTH.value,
               sum(p.numel() for p in model.parameters()))
  step = 0
  for epoch in range(_EPOCHS.value):
    perm = torch.randperm(len(x_tr))
    for i in range(0, len(x_tr), _BATCH.value):
      idx = perm[i:i + _BATCH.value]
      loss = F.cross_entropy(model(x_tr[idx]), y_tr[idx])
      opt.zero_grad()
      loss.backward()
      opt.step()
      step += 1
      if step % _LOG_EVERY.value == 0:
        norms = [layer.weight.grad.norm().item() for layer in model.hidden]
        norms.append(model.out.weight.grad.norm().item())
        total = float(np.sqrt(sum(n * n for n in norms)))
        logging.info('[%d] loss=%.4f, grad_norm=%.4e', step, loss.item(), total)
        logging.info('[%d] %s', step, ', '.join(
            f'grad_norm/layer_{j:02d}={n:.3e}' for j, n in enumerate(norms)))
    with torch.no_grad():
      logits = model(x_te)
      acc = (logits.argmax(1) == y_te).float().mean().item()
      test_loss = F.cross_entropy(logits, y_te).item()
    logging.info('epoch %d: test_loss=%.4f test_accuracy=%.4f', epoch + 1, test_loss, acc)


if __name__ == '__main__':
  app.run(main)
