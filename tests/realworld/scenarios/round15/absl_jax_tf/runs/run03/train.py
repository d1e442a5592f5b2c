"""Small convnet on 8x8 glyph images."""
from absl import app
from absl import flags
from absl import logging
from ml_collections import config_flags
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

FLAGS = flags.FLAGS
_CONFIG = config_flags.DEFINE_config_file('config', 'config.py')

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


class ConvNet(nn.Module):

  def __init__(self, channels, num_classes=10):
    super().__init__()
    c1, c2 = channels
    self.conv1 = nn.Conv2d(1, c1, 3, padding=1)
    self.conv2 = nn.Conv2d(c1, c2, 3, padding=1)
    self.head = nn.Linear(c2 * 4 * 4, num_classes)

  def forward(self, x):
    x = F.relu(self.conv1(x))
    x = F.max_pool2d(F.relu(self.conv2(x)), 2)
    return self.head(x.flatten(1))


def run_eval(model, x, y):
  model.eval()
  with torch.no_grad():
    logits = model(x)
    loss = F.cross_entropy(logits, y).item()
    acc = (logits.argmax(1) == y).float().mean().item()
  model.train()
  return loss, acc


def main(_):
  torch.set_num_threads(1)
  config = _CONFIG.value
  torch.manual_seed(config.seed)
  x, y = make_digits(config.num_train + config.num_val, seed=config.seed)
  x = torch.from_numpy(x).unsqueeze(1)
  y = torch.from_numpy(y)
  x_train, y_train = x[:config.num_train], y[:config.num_train]
  x_val, y_val = x[config.num_train:], y[config.num_train:]

  model = ConvNet(config.channels)
  optimizer = torch.optim.SGD(model.parameters(), lr=config.learning_rate,
                              momentum=config.momentum)
  scheduler = torch.optim.lr_scheduler.StepLR(
      optimizer, step_size=config.lr_decay_epochs, gamma=config.lr_decay_factor)

  step = 0
  for epoch in range(1, config.num_epochs + 1):
    perm = torch.randperm(config.num_train)
    total_loss, total_correct = 0.0, 0
    for i in range(0, config.num_train, config.batch_size):
      idx = perm[i:i + config.batch_size]
      logits = model(x_train[idx])
      loss = F.cross_entropy(logits, y_train[idx])
      optimizer.zero_grad()
      loss.backward()
      optimizer.step()
      scheduler.step()
      step += 1
      total_loss += loss.item() * len(idx)
      total_correct += (logits.argmax(1) == y_train[idx]).sum().item()
      if step % config.log_every == 0:
        logging.info('[%d] loss=%.4f, lr=%.3e', step, loss.item(), scheduler.get_last_lr()[0])
    val_loss, val_acc = run_eval(model, x_val, y_val)
    logging.info('epoch %d/%d: train_loss=%.4f train_acc=%.4f val_loss=%.4f val_acc=%.4f',
                 epoch, config.num_epochs, total_loss / config.num_train,
                 total_correct / config.num_train, val_loss, val_acc)


if __name__ == '__main__':
  app.run(main)
