#!/usr/bin/env python
"""Builds the benchmark run folders under ./runs by really training small torch models on CPU.

Every run is a self-contained user script (kept below as a string) that is executed in a scratch
directory with a fixed seed; its combined stdout/stderr becomes the run's log. For about half of the
runs the script itself is shipped as runs/<name>/train.py. Ground truth goes to ./truth.json.

Usage: python gen.py [--only run04,run07] [--keep-scratch]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS_DIR = HERE / 'runs'
SCRATCH = HERE / '_scratch'
PY = sys.executable

# Minimal stand-in for the ml_collections pieces the scripts use (ConfigDict + config_flags).
# It only lives in the scratch dir so the shipped scripts look like they would on a machine with
# ml_collections installed.
ML_COLLECTIONS_INIT = '''
class ConfigDict(dict):
  def __getattr__(self, k):
    try:
      return self[k]
    except KeyError as e:
      raise AttributeError(k) from e
  def __setattr__(self, k, v):
    self[k] = v
'''
ML_COLLECTIONS_FLAGS = '''
import importlib.util
from absl import flags

class _ConfigFlagHolder:
  def __init__(self, name):
    self._name = name
    self._cache = None
  @property
  def value(self):
    if self._cache is None:
      path = flags.FLAGS[self._name].value
      spec = importlib.util.spec_from_file_location('config_module', path)
      mod = importlib.util.module_from_spec(spec)
      spec.loader.exec_module(mod)
      self._cache = mod.get_config()
    return self._cache

def DEFINE_config_file(name, default=None, help_string='path to config file'):
  flags.DEFINE_string(name, default, help_string)
  return _ConfigFlagHolder(name)
'''

RUNS = []


def run(**kw):
  RUNS.append(kw)

# ----------------------------------------------------------------------------------------------
# run01: healthy, converges well. absl + clu-style scalars, ml_collections config, train.py shipped.
# ----------------------------------------------------------------------------------------------
RUN01_CONFIG = '''"""Hyperparameters for the tabular MLP baseline."""

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
'''

RUN01_TRAIN = r'''"""Trains an MLP classifier on the synthetic tabular benchmark."""
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
'''

run(name='run01', truth='healthy',
    symptom='Is this run OK? Want a sanity check before I scale it up to the real dataset.',
    how='No fault: 2x128 MLP with dropout, AdamW 2e-3, linear warm-up + cosine decay stepped per '
        'batch, standardized synthetic tabular data (6 classes).',
    script=RUN01_TRAIN, script_name='train.py', ship_script=True,
    files={'config.py': RUN01_CONFIG},
    argv=['--config=config.py', '--workdir={scratch}/workdir'],
    log_name='train.log', alias='/home/priya/code/tabular_mlp')

# ----------------------------------------------------------------------------------------------
# run02: lr_too_high. TF-estimator style log, gin config, script not shipped.
# ----------------------------------------------------------------------------------------------
RUN02_GIN = '''# DNN classifier on the churn-segments features.
train.model_dir = '/data/exp/segments_dnn'
train.batch_size = 64
train.train_steps = 630
train.eval_every_steps = 105
train.log_every_steps = 15

DNNClassifier.hidden_units = [256, 256]
DNNClassifier.n_classes = 8
DNNClassifier.activation_fn = 'relu'

train.optimizer = 'Momentum'
train.learning_rate = 0.4
train.momentum = 0.9
'''

GIN_PARSER = r'''
import ast
import re


def parse_gin(path):
  """Reads `scope.name = value` bindings from a gin file."""
  bindings = {}
  with open(path) as f:
    lines = f.read().splitlines()
  for raw in lines:
    line = raw.split('#', 1)[0].strip()
    if not line or line.startswith('import') or line.startswith('include'):
      continue
    key, value = [s.strip() for s in line.split('=', 1)]
    try:
      bindings[key] = ast.literal_eval(value)
    except (ValueError, SyntaxError):
      bindings[key] = value
  return bindings
'''

RUN02_SCRIPT = r'''"""DNN classifier for customer segments (estimator-style logging)."""
import logging
import math
import os
import sys
import time

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
''' + GIN_PARSER + r'''

logging.basicConfig(level=logging.INFO)
tf_logging = logging.getLogger('tensorflow')


def make_data(seed=7):
  rng = np.random.RandomState(seed)
  n, d, k, n_inf = 5000, 32, 8, 12
  centers = rng.randn(k, n_inf) * 0.6
  mixing = rng.randn(n_inf, d) / np.sqrt(n_inf)
  y = rng.randint(k, size=n)
  x = (centers[y] + rng.randn(n, n_inf)) @ mixing + 0.3 * rng.randn(n, d)
  x = ((x - x.mean(0)) / x.std(0)).astype(np.float32)
  return (torch.tensor(x[:4000]), torch.tensor(y[:4000])), (torch.tensor(x[4000:]), torch.tensor(y[4000:]))


class DNNClassifier(nn.Module):

  def __init__(self, in_dim, hidden_units, n_classes):
    super().__init__()
    layers = []
    for h in hidden_units:
      layers += [nn.Linear(in_dim, h), nn.ReLU()]
      in_dim = h
    layers.append(nn.Linear(in_dim, n_classes))
    self.net = nn.Sequential(*layers)

  def forward(self, x):
    return self.net(x)


def main():
  cfg = parse_gin(sys.argv[1])
  torch.set_num_threads(1)
  torch.manual_seed(0)
  model_dir = cfg['train.model_dir']
  (x, y), (xe, ye) = make_data()
  tf_logging.info("Using config: {'_model_dir': '%s', '_tf_random_seed': 0, '_save_summary_steps': 100, "
                  "'_save_checkpoints_steps': %d, '_keep_checkpoint_max': 5, '_log_step_count_steps': %d}",
                  model_dir, cfg['train.eval_every_steps'], cfg['train.log_every_steps'])
  model = DNNClassifier(x.shape[1], cfg['DNNClassifier.hidden_units'], cfg['DNNClassifier.n_classes'])
  opt = torch.optim.SGD(model.parameters(), lr=cfg['train.learning_rate'], momentum=cfg['train.momentum'])
  tf_logging.info('Calling model_fn.')
  tf_logging.info('Done calling model_fn.')
  tf_logging.info('Saving checkpoints for 0 into %s/model.ckpt.', model_dir)

  bs = cfg['train.batch_size']
  steps = cfg['train.train_steps']
  log_every = cfg['train.log_every_steps']
  step = 0
  t_last = time.time()
  perm = torch.randperm(len(x))
  pos = 0
  while step < steps:
    if pos + bs > len(x):
      perm, pos = torch.randperm(len(x)), 0
    idx = perm[pos:pos + bs]
    pos += bs
    logits = model(x[idx])
    loss = F.cross_entropy(logits, y[idx])
    opt.zero_grad()
    loss.backward()
    grad_norm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
    opt.step()
    if step % log_every == 0:
      now = time.time()
      if step == 0:
        tf_logging.info('loss = %s, step = %d', loss.item(), step)
        tf_logging.info('grad_norm = %s, learning_rate = %s', grad_norm, opt.param_groups[0]['lr'])
      else:
        tf_logging.info('global_step/sec: %.4g', log_every / (now - t_last))
        tf_logging.info('loss = %s, step = %d (%.3f sec)', loss.item(), step, now - t_last)
        tf_logging.info('grad_norm = %s, learning_rate = %s (%.3f sec)', grad_norm,
                        opt.param_groups[0]['lr'], now - t_last)
      t_last = now
    step += 1
    if step % cfg['train.eval_every_steps'] == 0 or step == steps:
      tf_logging.info('Saving checkpoints for %d into %s/model.ckpt.', step, model_dir)
      tf_logging.info('Starting evaluation at %s', time.strftime('%Y-%m-%dT%H:%M:%S'))
      model.eval()
      with torch.no_grad():
        el = model(xe)
        eval_loss = F.cross_entropy(el, ye).item()
        acc = (el.argmax(-1) == ye).float().mean().item()
      model.train()
      tf_logging.info('Evaluation [16/16]')
      tf_logging.info('Finished evaluation at %s', time.strftime('%Y-%m-%d-%H:%M:%S'))
      tf_logging.info('Saving dict for global step %d: accuracy = %s, average_loss = %s, global_step = %d, loss = %s',
                      step, acc, eval_loss, step, eval_loss)
  tf_logging.info('Loss for final step: %s.', loss.item())


if __name__ == '__main__':
  main()
'''

run(name='run02', truth='lr_too_high',
    symptom='Loss dropped for the first few dozen steps and then crept back up to where it started; '
            'eval accuracy ends up near chance.',
    how='SGD with momentum 0.9 at learning_rate 0.4 (a sane value here is ~0.05) on a 2x256 MLP, '
        'set in the gin file.',
    script=RUN02_SCRIPT, script_name='train_dnn.py', ship_script=False,
    files={'segments_dnn.gin': RUN02_GIN},
    argv=['segments_dnn.gin'],
    log_name='output.log', alias='/data/exp/segments_dnn/src')

# ----------------------------------------------------------------------------------------------
# run03: lr_schedule_bug. absl logs, ml_collections config, train.py shipped.
# ----------------------------------------------------------------------------------------------
DIGITS_DATA = r'''
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
'''

RUN03_CONFIG = '''import ml_collections


def get_config():
  config = ml_collections.ConfigDict()
  config.seed = 3
  config.num_train = 1500
  config.num_val = 500

  config.channels = (16, 32)
  config.batch_size = 32
  config.num_epochs = 40

  config.learning_rate = 0.05
  config.momentum = 0.9
  # Step decay: multiply the learning rate by lr_decay_factor every lr_decay_epochs epochs.
  config.lr_decay_epochs = 30
  config.lr_decay_factor = 0.1
  config.log_every = 25
  return config
'''

RUN03_TRAIN = r'''"""Small convnet on 8x8 glyph images."""
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
''' + DIGITS_DATA + r'''

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
'''

run(name='run03', truth='lr_schedule_bug',
    symptom='Val accuracy gets to about 80% in the first two epochs and then does not move at all; '
            'the numbers are identical epoch after epoch.',
    how='StepLR(step_size=lr_decay_epochs=30, gamma=0.1) is meant per epoch but scheduler.step() is '
        'called every batch (47 batches/epoch): lr 0.05 -> 5e-3 at step 30 -> 5e-4 at step 60 -> '
        '5e-7 by step 150 and 5e-64 at the end; training is frozen from epoch 3 on.',
    script=RUN03_TRAIN, script_name='train.py', ship_script=True,
    files={'config.py': RUN03_CONFIG},
    argv=['--config=config.py'],
    log_name='train.log', alias='/home/tkowalski/glyphs')

# ----------------------------------------------------------------------------------------------
# run04: exploding_gradients. absl + clu-style scalars, ml_collections config, script not shipped.
# ----------------------------------------------------------------------------------------------
RUN04_CONFIG = '''"""Config for the cumulative-load sequence regressor."""
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
'''

RUN04_SCRIPT = r'''"""Sequence regressor: predicts the running cumulative load at every time step."""
from absl import app
from absl import flags
from absl import logging
from ml_collections import config_flags
import numpy as np
import torch
from torch import nn

_CONFIG = config_flags.DEFINE_config_file('config', None, 'Path to config.')
_WORKDIR = flags.DEFINE_string('workdir', None, 'Work dir.')


class MetricWriter:

  def write_scalars(self, step, scalars):
    logging.info('[%d] %s', step, ', '.join(f'{k}={v}' for k, v in sorted(scalars.items())))


class SeqRegressor(nn.Module):

  def __init__(self, cfg):
    super().__init__()
    self.rnn = nn.RNN(1, cfg.hidden_size, batch_first=True, nonlinearity=cfg.nonlinearity)
    self.out = nn.Linear(cfg.hidden_size, 1)

  def forward(self, x):
    h, _ = self.rnn(x)
    return self.out(h).squeeze(-1)


def batch(gen, n, cfg):
  x = torch.rand(n, cfg.seq_len, 1, generator=gen)
  y = x.squeeze(-1).cumsum(1) * cfg.target_scale
  return x, y


def main(argv):
  del argv
  torch.set_num_threads(1)
  config = _CONFIG.value
  torch.manual_seed(config.seed)
  writer = MetricWriter()
  train_gen = torch.Generator().manual_seed(config.seed + 1)
  eval_x, eval_y = batch(torch.Generator().manual_seed(12345), config.data.num_eval, config.data)

  model = SeqRegressor(config.model)
  opt = torch.optim.SGD(model.parameters(), lr=config.learning_rate, momentum=config.momentum)
  logging.info('Parameter count: %d', sum(p.numel() for p in model.parameters()))
  logging.info('Starting training loop at step 1.')

  losses, norms = [], []
  for step in range(1, config.num_train_steps + 1):
    x, y = batch(train_gen, config.batch_size, config.data)
    loss = ((model(x) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    grad_norm = torch.sqrt(sum((p.grad.detach() ** 2).sum() for p in model.parameters()))
    if config.grad_clip_norm > 0:
      nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip_norm)
    opt.step()
    losses.append(loss.item())
    norms.append(grad_norm.item())

    if step % config.log_every_steps == 0:
      writer.write_scalars(step, {
          'train_loss': float(np.mean(losses)),
          'grad_norm': float(np.mean(norms)),
          'learning_rate': config.learning_rate,
      })
      losses, norms = [], []
    if step % config.eval_every_steps == 0:
      with torch.no_grad():
        pred = model(eval_x)
        writer.write_scalars(step, {
            'eval_mse': ((pred - eval_y) ** 2).mean().item(),
            'eval_mae': (pred - eval_y).abs().mean().item(),
        })
  logging.info('Done.')


if __name__ == '__main__':
  app.run(main)
'''

run(name='run04', truth='exploding_gradients',
    symptom='The loss finally started dropping around step 600, then suddenly shot up around step 690; '
            'after that it sits back on the old plateau and the RNN never learns again.',
    how='ReLU vanilla RNN over 120 steps, SGD+momentum, gradient clipping disabled (grad_clip_norm=0.0): '
        'as the recurrent gain passes 1 the gradient norm grows by orders of magnitude and one huge '
        'update wrecks the model.',
    script=RUN04_SCRIPT, script_name='main.py', ship_script=False,
    files={'config.py': RUN04_CONFIG},
    argv=['--config=config.py', '--workdir={scratch}/wd'],
    log_name='train.log', alias='/home/akim/seqload')

# ----------------------------------------------------------------------------------------------
# run05: bad_initialization. Keras-style (TF2) output under absl, train.py shipped, flags only.
# ----------------------------------------------------------------------------------------------
RUN05_TRAIN = r'''"""Glyph classifier, Keras-style fit() loop ported to torch."""
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
''' + DIGITS_DATA + r'''

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
'''

run(name='run05', truth='bad_initialization',
    symptom='Loss is in the millions in epoch 1 and val_loss is still ~300k at the end even though '
            'accuracy goes up; val accuracy is way below what this data should give.',
    how='6x256 ReLU MLP whose Linear weights are all drawn from N(0, 1.0) (init_stddev=1.0 instead of '
        'a fan-in scaled init): activations grow ~11x per layer, logits are ~1e5 at step 0.',
    script=RUN05_TRAIN, script_name='train.py', ship_script=True,
    files={},
    argv=['--epochs=5', '--init_stddev=1.0'],
    log_name='stdout.txt', alias='/home/rgarcia/glyph_mlp')

# ----------------------------------------------------------------------------------------------
# run06: numerical_instability. TF-estimator style log, train.py shipped.
# ----------------------------------------------------------------------------------------------
RUN06_TRAIN = r'''"""Binary classifier for the two-moons style sensor data, estimator-style logging."""
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
'''

run(name='run06', truth='numerical_instability',
    symptom='Training was going great (eval accuracy ~100%) and then crashed with "NaN loss during '
            'training" out of nowhere.',
    how='Hand-written sigmoid cross-entropy, -(y*log(sigmoid(z)) + (1-y)*log(1-sigmoid(z))): once the '
        'model is confident, sigmoid(z) rounds to exactly 1.0 in float32 and 0*log(0) = NaN.',
    script=RUN06_TRAIN, script_name='train.py', ship_script=True,
    files={},
    argv=['--model_dir=/tmp/moons_model'],
    log_name='train_log.txt', alias='/home/ssato/moons')

# ----------------------------------------------------------------------------------------------
# run07: nan_in_data. absl logs, ml_collections config, the CSV is shipped, script not shipped.
# ----------------------------------------------------------------------------------------------
def make_energy_csv(path):
  """Building-energy style table; two cells of 'outdoor_humidity' are blank (sensor dropout)."""
  import numpy as np
  import pandas as pd
  rng = np.random.RandomState(2024)
  n = 4000
  df = pd.DataFrame({
      'floor_area_m2': rng.uniform(80, 2400, n).round(1),
      'n_floors': rng.randint(1, 9, n),
      'year_built': rng.randint(1950, 2021, n),
      'outdoor_temp_c': rng.normal(12, 8, n).round(2),
      'outdoor_humidity': rng.uniform(20, 95, n).round(1),
      'occupancy': rng.randint(0, 300, n),
      'hvac_setpoint_c': rng.normal(21, 1.2, n).round(2),
      'window_ratio': rng.uniform(0.1, 0.6, n).round(3),
      'insulation_u': rng.uniform(0.15, 1.8, n).round(3),
      'hour': rng.randint(0, 24, n),
  })
  load = (0.012 * df.floor_area_m2 * (1 + 0.4 * df.insulation_u)
          + 0.8 * np.abs(df.outdoor_temp_c - df.hvac_setpoint_c) * df.n_floors
          + 0.05 * df.occupancy + 6 * np.sin(df.hour / 24 * 2 * np.pi)
          + 0.03 * df.outdoor_humidity + 3 * rng.randn(n))
  df['energy_kwh'] = load.round(3)
  bad_rows = [235, 2949]
  df['outdoor_humidity'] = df['outdoor_humidity'].astype(object)
  for r in bad_rows:
    df.loc[r, 'outdoor_humidity'] = ''
  df.to_csv(path, index=False)


RUN07_CONFIG = '''import ml_collections


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
'''

RUN07_SCRIPT = r'''"""Regression MLP for building energy load."""
from absl import app
from absl import flags
from absl import logging
from ml_collections import config_flags
import numpy as np
import pandas as pd
import torch
from torch import nn

_CONFIG = config_flags.DEFINE_config_file('config', 'config.py')


def load_data(cfg):
  df = pd.read_csv(cfg.data_path)
  logging.info('Loaded %d rows x %d columns from %s', len(df), df.shape[1], cfg.data_path)
  feats = [c for c in df.columns if c != cfg.target]
  x = df[feats].to_numpy(np.float32)
  y = df[cfg.target].to_numpy(np.float32)
  rng = np.random.RandomState(cfg.seed)
  perm = rng.permutation(len(df))
  n_val = int(len(df) * cfg.val_fraction)
  val, tr = perm[:n_val], perm[n_val:]
  mu, sd = np.nanmean(x[tr], 0), np.nanstd(x[tr], 0)
  y_mu, y_sd = y[tr].mean(), y[tr].std()
  norm = lambda a: torch.tensor((a - mu) / sd)
  return ((norm(x[tr]), torch.tensor((y[tr] - y_mu) / y_sd)),
          (norm(x[val]), torch.tensor((y[val] - y_mu) / y_sd)), y_sd)


def main(_):
  torch.set_num_threads(1)
  cfg = _CONFIG.value
  torch.manual_seed(cfg.seed)
  (x_tr, y_tr), (x_val, y_val), y_sd = load_data(cfg)
  logging.info('train=%d val=%d features=%d', len(x_tr), len(x_val), x_tr.shape[1])

  dims = [x_tr.shape[1], *cfg.hidden]
  layers = []
  for a, b in zip(dims[:-1], dims[1:]):
    layers += [nn.Linear(a, b), nn.GELU()]
  model = nn.Sequential(*layers, nn.Linear(dims[-1], 1))
  opt = torch.optim.Adam(model.parameters(), lr=cfg.learning_rate)

  step = 0
  window = []
  for epoch in range(cfg.num_epochs):
    perm = torch.randperm(len(x_tr))
    for i in range(0, len(x_tr), cfg.batch_size):
      idx = perm[i:i + cfg.batch_size]
      pred = model(x_tr[idx]).squeeze(-1)
      loss = nn.functional.mse_loss(pred, y_tr[idx])
      opt.zero_grad()
      loss.backward()
      opt.step()
      step += 1
      window.append(loss.item())
      if step % cfg.log_every_steps == 0:
        logging.info('[%d] train/mse=%.5f, train/lr=%g', step, float(np.mean(window)), cfg.learning_rate)
        window = []
    with torch.no_grad():
      pv = model(x_val).squeeze(-1)
      mse = nn.functional.mse_loss(pv, y_val).item()
      mae_kwh = (pv - y_val).abs().mean().item() * y_sd
    logging.info('[%d] val/mse=%.5f, val/mae_kwh=%.3f (epoch %d)', step, mse, mae_kwh, epoch + 1)


if __name__ == '__main__':
  app.run(main)
'''

run(name='run07', truth='nan_in_data',
    symptom='Loss looks normal for the first ~30 steps, then goes to nan and everything is nan from then on, '
            'including validation.',
    how='Two rows of data/building_energy.csv have an empty outdoor_humidity cell; pandas reads them as '
        'NaN, nanmean/nanstd normalisation keeps them NaN, and the first training batch that contains '
        'one of those rows turns the loss (and then the weights) into NaN.',
    script=RUN07_SCRIPT, script_name='train_energy.py', ship_script=False,
    files={'config.py': RUN07_CONFIG},
    data={'data/building_energy.csv': make_energy_csv},
    argv=['--config=config.py'],
    log_name='train.log', alias='/srv/ml/energy_load')

# ----------------------------------------------------------------------------------------------
# run08: optimizer_misconfigured. absl logs, gin config, script not shipped.
# ----------------------------------------------------------------------------------------------
RUN08_GIN = '''# Ported from the TF1 ranking baseline.
import trainer

trainer.train.num_steps = 2000
trainer.train.batch_size = 128
trainer.train.eval_every = 200
trainer.train.log_every = 50

trainer.MLP.hidden = [256, 128]
trainer.MLP.dropout = 0.0

trainer.adam.learning_rate = 1e-3
trainer.adam.beta1 = 0.9
trainer.adam.beta2 = 0.999
trainer.adam.epsilon = 1.0
trainer.adam.weight_decay = 0.0
'''

RUN08_SCRIPT = r'''"""Click-bucket classifier trainer (gin configured)."""
import sys

from absl import app
from absl import logging
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
''' + GIN_PARSER + r'''

def make_data(seed=21):
  rng = np.random.RandomState(seed)
  n, d, k, n_inf = 12000, 40, 5, 16
  centers = rng.randn(k, n_inf) * 0.9
  mixing = rng.randn(n_inf, d) / np.sqrt(n_inf)
  y = rng.randint(k, size=n)
  x = (centers[y] + rng.randn(n, n_inf)) @ mixing + 0.3 * rng.randn(n, d)
  x = ((x - x.mean(0)) / x.std(0)).astype(np.float32)
  return (torch.tensor(x[:10000]), torch.tensor(y[:10000])), (torch.tensor(x[10000:]), torch.tensor(y[10000:]))


def main(argv):
  gin_file = argv[1]
  cfg = parse_gin(gin_file)
  logging.info('Gin bindings from %s:', gin_file)
  for k, v in cfg.items():
    logging.info('  %s = %r', k, v)
  torch.set_num_threads(1)
  torch.manual_seed(0)
  (x, y), (xe, ye) = make_data()
  dims = [x.shape[1]] + list(cfg['trainer.MLP.hidden'])
  layers = []
  for a, b in zip(dims[:-1], dims[1:]):
    layers += [nn.Linear(a, b), nn.ReLU(), nn.Dropout(cfg['trainer.MLP.dropout'])]
  model = nn.Sequential(*layers, nn.Linear(dims[-1], 5))
  opt = torch.optim.Adam(model.parameters(), lr=cfg['trainer.adam.learning_rate'],
                         betas=(cfg['trainer.adam.beta1'], cfg['trainer.adam.beta2']),
                         eps=cfg['trainer.adam.epsilon'], weight_decay=cfg['trainer.adam.weight_decay'])
  bs = cfg['trainer.train.batch_size']
  losses, accs, gnorms = [], [], []
  gen = torch.Generator().manual_seed(0)
  for step in range(1, cfg['trainer.train.num_steps'] + 1):
    idx = torch.randint(0, len(x), (bs,), generator=gen)
    logits = model(x[idx])
    loss = F.cross_entropy(logits, y[idx])
    opt.zero_grad()
    loss.backward()
    gnorms.append(torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item())
    opt.step()
    losses.append(loss.item())
    accs.append((logits.argmax(1) == y[idx]).float().mean().item())
    if step % cfg['trainer.train.log_every'] == 0:
      logging.info('step %d: loss=%.4f accuracy=%.4f grad_norm=%.4f lr=%g', step, np.mean(losses),
                   np.mean(accs), np.mean(gnorms), opt.param_groups[0]['lr'])
      losses, accs, gnorms = [], [], []
    if step % cfg['trainer.train.eval_every'] == 0:
      model.eval()
      with torch.no_grad():
        el = model(xe)
        logging.info('eval @ step %d: loss=%.4f accuracy=%.4f', step, F.cross_entropy(el, ye).item(),
                     (el.argmax(1) == ye).float().mean().item())
      model.train()


if __name__ == '__main__':
  app.run(main)
'''

run(name='run08', truth='optimizer_misconfigured',
    symptom='Training is painfully slow: after 2000 steps accuracy is still creeping up, the TF1 '
            'version of this model was done in a few hundred steps with the same learning rate.',
    how='Adam epsilon = 1.0 in the gin file (default 1e-8): per-element gradients are ~1e-3..1e-2, so '
        'the denominator sqrt(v)+eps is ~1 and Adam degenerates into plain SGD with lr 1e-3. With '
        'eps=1e-8 the same script reaches 0.94 eval accuracy by step 200.',
    script=RUN08_SCRIPT, script_name='trainer.py', ship_script=False,
    files={'ranking_mlp.gin': RUN08_GIN},
    argv=['ranking_mlp.gin'],
    log_name='trainer.INFO.log', alias='/home/dnguyen/ranking')

# ----------------------------------------------------------------------------------------------
# run09: overfitting. clu-style scalars, ml_collections config, script not shipped.
# ----------------------------------------------------------------------------------------------
RUN09_CONFIG = '''"""Small-data assay classifier."""
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
'''

RUN09_SCRIPT = r'''"""Trainer for the assay activity classifier."""
from absl import app
from absl import flags
from absl import logging
from ml_collections import config_flags
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

_CONFIG = config_flags.DEFINE_config_file('config')
_WORKDIR = flags.DEFINE_string('workdir', None, 'Output directory.')


def write_scalars(step, scalars):
  logging.info('[%d] %s', step, ', '.join(f'{k}={v}' for k, v in sorted(scalars.items())))


def make_split(cfg):
  rng = np.random.RandomState(cfg.seed)
  n = cfg.num_train + cfg.num_eval
  n_inf = 8
  w = rng.randn(n_inf, 3)
  z = rng.randn(n, n_inf)
  y = np.argmax(z @ w + 0.8 * rng.randn(n, 3), 1)
  mixing = rng.randn(n_inf, cfg.num_features) / np.sqrt(n_inf)
  x = (z @ mixing + 0.5 * rng.randn(n, cfg.num_features)).astype(np.float32)
  t = lambda a: torch.tensor(a)
  return (t(x[:cfg.num_train]), t(y[:cfg.num_train])), (t(x[cfg.num_train:]), t(y[cfg.num_train:]))


def main(_):
  torch.set_num_threads(1)
  cfg = _CONFIG.value
  torch.manual_seed(cfg.seed)
  (x, y), (xe, ye) = make_split(cfg)
  logging.info('num_train=%d num_eval=%d', len(x), len(xe))
  dims = [cfg.num_features, *cfg.model.hidden]
  layers = []
  for a, b in zip(dims[:-1], dims[1:]):
    layers += [nn.Linear(a, b), nn.ReLU(), nn.Dropout(cfg.model.dropout)]
  model = nn.Sequential(*layers, nn.Linear(dims[-1], 3))
  opt = torch.optim.Adam(model.parameters(), lr=cfg.learning_rate, weight_decay=cfg.weight_decay)
  step = 0
  for epoch in range(1, cfg.num_epochs + 1):
    perm = torch.randperm(len(x))
    tl, tc = 0.0, 0
    for i in range(0, len(x), cfg.batch_size):
      idx = perm[i:i + cfg.batch_size]
      logits = model(x[idx])
      loss = F.cross_entropy(logits, y[idx])
      opt.zero_grad()
      loss.backward()
      opt.step()
      step += 1
      tl += loss.item() * len(idx)
      tc += (logits.argmax(1) == y[idx]).sum().item()
    model.eval()
    with torch.no_grad():
      el = model(xe)
      eval_loss = F.cross_entropy(el, ye).item()
      eval_acc = (el.argmax(1) == ye).float().mean().item()
    model.train()
    write_scalars(step, {'train_loss': tl / len(x), 'train_accuracy': tc / len(x)})
    write_scalars(step, {'eval_loss': eval_loss, 'eval_accuracy': eval_acc})
    if epoch % 50 == 0:
      logging.info('Saved checkpoint for epoch %d at step %d.', epoch, step)


if __name__ == '__main__':
  app.run(main)
'''

run(name='run09', truth='overfitting',
    symptom='Eval loss goes down for the first few epochs and then climbs for the rest of the run while '
            'the train loss keeps dropping to zero.',
    how='512-256 MLP (~160k params) trained 200 epochs on 240 examples with no dropout, no weight '
        'decay and no early stopping.',
    script=RUN09_SCRIPT, script_name='assay_train.py', ship_script=False,
    files={'config.py': RUN09_CONFIG},
    argv=['--config=config.py', '--workdir={scratch}/wd'],
    log_name='log.txt', alias='/home/lbaptiste/assay')

# ----------------------------------------------------------------------------------------------
# run10: vanishing_gradients. absl logs with per-layer grad norms, train.py shipped, flags only.
# ----------------------------------------------------------------------------------------------
RUN10_TRAIN = r'''"""Deep fully-connected classifier for the glyph data."""
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
''' + DIGITS_DATA + r'''

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
'''

run(name='run10', truth='vanishing_gradients',
    symptom='Loss sits at 2.30 for all 30 epochs and test accuracy stays around 10%, it never starts '
            'learning.',
    how='16 hidden layers of width 64 with sigmoid activations and no normalisation/residuals '
        '(default PyTorch init): the gradient shrinks ~5-10x per layer, so the first layers get '
        'gradients ~1e-14 while only the output layer learns the class prior.',
    script=RUN10_TRAIN, script_name='train.py', ship_script=True,
    files={},
    argv=['--num_layers=16', '--epochs=30'],
    log_name='train.log', alias='/home/mfischer/deepnet')

# ----------------------------------------------------------------------------------------------
# run11: zero_variance_statistic. absl logs (warning in stderr), train.py shipped.
# ----------------------------------------------------------------------------------------------
RUN11_TRAIN = r'''"""Fraud-score model with in-graph feature standardisation."""
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
'''

run(name='run11', truth='zero_variance_statistic',
    symptom='Train loss looks fine for the first ~30 steps, then it is nan for the rest of the run and '
            'eval loss is nan from the very first eval.',
    how='The model standardises features with per-batch mean/std; the training set has 2049 = 32*64+1 '
        'examples and the loader keeps the last partial batch, so every epoch ends with a batch of 1 '
        'where x.std(0) is NaN (torch warns "std(): degrees of freedom is <= 0"); the +1e-6 guard does '
        'not help and the NaN poisons the weights.',
    script=RUN11_TRAIN, script_name='train.py', ship_script=True,
    files={},
    argv=['--epochs=10'],
    log_name='train.log', alias='/home/opetrov/fraud')

# ----------------------------------------------------------------------------------------------
# run12: healthy but noisy/slow. TF-estimator style log, gin config, script not shipped.
# ----------------------------------------------------------------------------------------------
RUN12_GIN = '''# Stroke-orientation classifier (noisy 16x16 sensor crops).
train.model_dir = '/mnt/exp/strokes_cnn'
train.train_steps = 3000
train.batch_size = 16
train.log_step_count_steps = 100
train.save_checkpoints_steps = 500
train.eval_batches = 25

ConvClassifier.filters = [16, 32]
ConvClassifier.dropout_rate = 0.3

train.learning_rate = 0.005
train.momentum = 0.9
train.input_noise_stddev = 0.5
'''

RUN12_SCRIPT = r'''"""Stroke classifier on noisy crops (estimator-style logging)."""
import logging
import sys
import time

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
''' + GIN_PARSER + r'''

logging.basicConfig(level=logging.INFO)
tf_logging = logging.getLogger('tensorflow')


def make_strokes(n, noise, rng):
  x = np.zeros((n, 1, 16, 16), np.float32)
  y = rng.randint(4, size=n)
  for i in range(n):
    r, c = rng.randint(3, 13, size=2)
    length = rng.randint(4, 8)
    for t in range(length):
      dr, dc = [(0, 1), (1, 0), (1, 1), (1, -1)][y[i]]
      rr, cc = r - 2 + t * dr, c - 2 * dc + t * dc
      if 0 <= rr < 16 and 0 <= cc < 16:
        x[i, 0, rr, cc] = 1.0
  x += noise * rng.randn(*x.shape).astype(np.float32)
  return torch.tensor(x), torch.tensor(y)


class ConvClassifier(nn.Module):

  def __init__(self, filters, dropout_rate):
    super().__init__()
    f1, f2 = filters
    self.c1 = nn.Conv2d(1, f1, 3, padding=1)
    self.c2 = nn.Conv2d(f1, f2, 3, padding=1)
    self.drop = nn.Dropout(dropout_rate)
    self.fc = nn.Linear(f2 * 4 * 4, 4)

  def forward(self, x):
    x = F.max_pool2d(F.relu(self.c1(x)), 2)
    x = F.max_pool2d(F.relu(self.c2(x)), 2)
    return self.fc(self.drop(x.flatten(1)))


def main():
  cfg = parse_gin(sys.argv[1])
  torch.set_num_threads(1)
  torch.manual_seed(3)
  rng = np.random.RandomState(3)
  noise = cfg['train.input_noise_stddev']
  x, y = make_strokes(6000, noise, rng)
  xe, ye = make_strokes(cfg['train.eval_batches'] * 32, noise, rng)
  model_dir = cfg['train.model_dir']
  model = ConvClassifier(cfg['ConvClassifier.filters'], cfg['ConvClassifier.dropout_rate'])
  opt = torch.optim.SGD(model.parameters(), lr=cfg['train.learning_rate'], momentum=cfg['train.momentum'])
  tf_logging.info("Using config: {'_model_dir': '%s', '_save_checkpoints_steps': %d, "
                  "'_log_step_count_steps': %d, '_tf_random_seed': 3}", model_dir,
                  cfg['train.save_checkpoints_steps'], cfg['train.log_step_count_steps'])
  tf_logging.info('Calling model_fn.')
  tf_logging.info('Done calling model_fn.')
  tf_logging.info('Saving checkpoints for 0 into %s/model.ckpt.', model_dir)
  bs = cfg['train.batch_size']
  every = cfg['train.log_step_count_steps']
  t_last = time.time()
  gen = torch.Generator().manual_seed(3)
  for step in range(cfg['train.train_steps']):
    idx = torch.randint(0, len(x), (bs,), generator=gen)
    loss = F.cross_entropy(model(x[idx]), y[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % every == 0:
      now = time.time()
      if step == 0:
        tf_logging.info('loss = %s, step = %d', loss.item(), step)
      else:
        tf_logging.info('global_step/sec: %.4g', every / (now - t_last))
        tf_logging.info('loss = %s, step = %d (%.3f sec)', loss.item(), step, now - t_last)
      t_last = now
    if (step + 1) % cfg['train.save_checkpoints_steps'] == 0:
      gs = step + 1
      tf_logging.info('Saving checkpoints for %d into %s/model.ckpt.', gs, model_dir)
      tf_logging.info('Calling model_fn.')
      tf_logging.info('Done calling model_fn.')
      tf_logging.info('Starting evaluation at %s', time.strftime('%Y-%m-%dT%H:%M:%S'))
      model.eval()
      with torch.no_grad():
        logits = model(xe)
        el = F.cross_entropy(logits, ye).item()
        acc = (logits.argmax(1) == ye).float().mean().item()
      model.train()
      n_eval = cfg['train.eval_batches']
      for b in (n_eval // 10, n_eval // 5, n_eval // 2, n_eval):
        tf_logging.info('Evaluation [%d/%d]', b, n_eval)
      tf_logging.info('Finished evaluation at %s', time.strftime('%Y-%m-%d-%H:%M:%S'))
      tf_logging.info('Saving dict for global step %d: accuracy = %s, global_step = %d, loss = %s',
                      gs, acc, gs, el)
  tf_logging.info('Loss for final step: %s.', loss.item())


if __name__ == '__main__':
  main()
'''

run(name='run12', truth='healthy',
    symptom='Is this run ok? The training loss jumps around a lot from one log line to the next.',
    how='No fault: small CNN with dropout, SGD+momentum lr 0.005, batch 16, on very noisy 16x16 crops; '
        'the logged loss is a single 16-example batch so it is noisy, but eval accuracy improves steadily.',
    script=RUN12_SCRIPT, script_name='train_strokes.py', ship_script=False,
    files={'strokes_cnn.gin': RUN12_GIN},
    argv=['strokes_cnn.gin'],
    log_name='estimator.log', alias='/mnt/exp/strokes_cnn/src')


# ----------------------------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------------------------
def execute(spec, keep_scratch=False):
  name = spec['name']
  scratch = SCRATCH / name
  if scratch.exists():
    shutil.rmtree(scratch)
  scratch.mkdir(parents=True)
  (scratch / 'ml_collections').mkdir()
  (scratch / 'ml_collections' / '__init__.py').write_text(ML_COLLECTIONS_INIT)
  (scratch / 'ml_collections' / 'config_flags.py').write_text(ML_COLLECTIONS_FLAGS)
  for fname, text in spec.get('files', {}).items():
    (scratch / fname).parent.mkdir(parents=True, exist_ok=True)
    (scratch / fname).write_text(text)
  for fname, maker in spec.get('data', {}).items():
    (scratch / fname).parent.mkdir(parents=True, exist_ok=True)
    maker(scratch / fname)
  (scratch / spec['script_name']).write_text(spec['script'])

  env = dict(os.environ, OMP_NUM_THREADS='1', MKL_NUM_THREADS='1', PYTHONHASHSEED='0',
             PYTHONUNBUFFERED='1')
  argv = [a.format(scratch=scratch) for a in spec.get('argv', [])]
  t0 = time.time()
  proc = subprocess.run([PY, spec['script_name']] + argv, cwd=scratch, env=env,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
  dt = time.time() - t0
  log = proc.stdout.replace(str(scratch), spec['alias'])

  out = RUNS_DIR / name
  if out.exists():
    shutil.rmtree(out)
  out.mkdir(parents=True)
  (out / spec['log_name']).write_text(log)
  for fname in list(spec.get('files', {})) + list(spec.get('data', {})) + spec.get('keep', []):
    dst = out / fname
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(scratch / fname, dst)
  if spec['ship_script']:
    shutil.copyfile(scratch / spec['script_name'], out / spec['script_name'])
  if not keep_scratch:
    shutil.rmtree(scratch)
  print(f'{name}: exit={proc.returncode} {dt:.1f}s, {len(log.splitlines())} log lines', flush=True)
  return proc.returncode


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument('--only', default='')
  ap.add_argument('--keep-scratch', action='store_true')
  args = ap.parse_args()
  only = set(filter(None, args.only.split(',')))
  RUNS_DIR.mkdir(exist_ok=True)
  truth_path = HERE / 'truth.json'
  truth = json.loads(truth_path.read_text()) if truth_path.exists() else {}
  for spec in RUNS:
    if only and spec['name'] not in only:
      continue
    execute(spec, args.keep_scratch)
  for spec in RUNS:
    truth[spec['name']] = {'truth': spec['truth'], 'symptom': spec['symptom'], 'how': spec['how']}
  truth_path.write_text(json.dumps(dict(sorted(truth.items())), indent=2) + '\n')
  if not args.keep_scratch and SCRATCH.exists() and not any(SCRATCH.iterdir()):
    SCRATCH.rmdir()


if __name__ == '__main__':
  main()
