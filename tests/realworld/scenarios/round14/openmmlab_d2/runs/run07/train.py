import datetime
import json
import math
import os
import runpy
import shutil
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def load_config(path):
    ns = runpy.run_path(path)
    return {k: v for k, v in ns.items() if not k.startswith('_')}


class MMStyleLog:
    """Writes <work_dir>/<stamp>/<stamp>.log and vis_data/scalars.json in the mmengine layout."""

    def __init__(self, work_dir, cfg_path):
        self.stamp = datetime.datetime.now().strftime('%Y%m%d_%H%M%S')
        self.dir = os.path.join(work_dir, self.stamp)
        os.makedirs(os.path.join(self.dir, 'vis_data'), exist_ok=True)
        self._log = open(os.path.join(self.dir, self.stamp + '.log'), 'w')
        self._scalars = open(os.path.join(self.dir, 'vis_data', 'scalars.json'), 'w')
        shutil.copy(cfg_path, os.path.join(self.dir, 'vis_data', 'config.py'))
        self.exp_name = os.path.splitext(os.path.basename(cfg_path))[0] + '_' + self.stamp
        with open(cfg_path) as f:
            self.cfg_text = f.read()

    def info(self, msg, level='INFO'):
        line = f"{datetime.datetime.now():%Y/%m/%d %H:%M:%S} - mmengine - {level} - {msg}"
        print(line, flush=True)
        self._log.write(line + '\n')
        self._log.flush()

    def header(self, seed):
        env = ('\n' + '-' * 60 + '\nSystem environment:\n'
               f'    sys.platform: {sys.platform}\n'
               f'    Python: {sys.version.split()[0]}\n'
               '    CUDA available: False\n'
               f'    numpy_random_seed: {seed}\n'
               f'    PyTorch: {torch.__version__}\n'
               f'    NumPy: {np.__version__}\n'
               '\nRuntime environment:\n'
               '    cudnn_benchmark: False\n'
               f'    seed: {seed}\n'
               '    Distributed launcher: none\n'
               '    Distributed training: False\n'
               '    GPU number: 0\n' + '-' * 60 + '\n')
        self.info(env)
        self.info('Config:\n' + self.cfg_text)

    def scalars(self, d):
        self._scalars.write(json.dumps(d) + '\n')
        self._scalars.flush()

    @staticmethod
    def _fmt(v):
        if isinstance(v, int):
            return str(v)
        return f'{v:.4f}'

    def train(self, epoch, max_epochs, it, n_iter, step, base_lr, lr, eta_s, t, dt, vals):
        head = f"Epoch(train) [{epoch:>{len(str(max_epochs))}}][{it:>{len(str(n_iter))}}/{n_iter}]  "
        s = (head + f"base_lr: {base_lr:.4e} lr: {lr:.4e}  eta: {datetime.timedelta(seconds=int(eta_s))}  "
             f"time: {t:.4f}  data_time: {dt:.4f}  ")
        s += '  '.join(f'{k}: {self._fmt(v)}' for k, v in vals.items())
        self.info(s)
        d = {'base_lr': base_lr, 'lr': lr, 'data_time': round(dt, 4)}
        d.update({k: (round(v, 6) if isinstance(v, float) else v) for k, v in vals.items()})
        d.update({'time': round(t, 4), 'epoch': epoch, 'iter': step, 'step': step})
        self.scalars(d)

    def val_progress(self, epoch, max_epochs, it, n_iter, eta_s, t, dt):
        self.info(f"Epoch(val) [{epoch:>{len(str(max_epochs))}}][{it:>{len(str(n_iter))}}/{n_iter}]    "
                  f"eta: {datetime.timedelta(seconds=int(eta_s))}  time: {t:.4f}  data_time: {dt:.4f}")

    def val(self, epoch, max_epochs, n_iter, metrics, t, dt):
        s = f"Epoch(val) [{epoch:>{len(str(max_epochs))}}][{n_iter}/{n_iter}]    "
        s += '  '.join(f'{k}: {v:.4f}' for k, v in metrics.items())
        s += f"  data_time: {dt:.4f}  time: {t:.4f}"
        self.info(s)
        d = {k: round(float(v), 6) for k, v in metrics.items()}
        d.update({'data_time': round(dt, 4), 'time': round(t, 4), 'step': epoch})
        self.scalars(d)


def eta_str(seconds):
    return str(datetime.timedelta(seconds=int(seconds)))


GLYPHS = [
    "01110 10001 10011 10101 11001 10001 01110", "00100 01100 00100 00100 00100 00100 01110",
    "01110 10001 00001 00010 00100 01000 11111", "11111 00010 00100 00010 00001 10001 01110",
    "00010 00110 01010 10010 11111 00010 00010", "11111 10000 11110 00001 00001 10001 01110",
    "00110 01000 10000 11110 10001 10001 01110", "11111 00001 00010 00100 01000 01000 01000",
    "01110 10001 10001 01110 10001 10001 01110", "01110 10001 10001 01111 00001 00010 01100",
]


def make_glyphs(n, seed, noise=0.35, size=12):
    """Synthetic 12x12 digit images: a 5x7 glyph at a random offset, random stroke gain, pixel noise."""
    rng = np.random.default_rng(seed)
    tmpl = np.array([[[int(c) for c in row] for row in g.split()] for g in GLYPHS], dtype=np.float32)
    y = rng.integers(0, 10, size=n)
    X = np.zeros((n, 1, size, size), dtype=np.float32)
    for i in range(n):
        dy, dx = rng.integers(0, size - 7 + 1), rng.integers(0, size - 5 + 1)
        X[i, 0, dy:dy + 7, dx:dx + 5] = tmpl[y[i]] * rng.uniform(0.6, 1.0)
    X += rng.normal(0, noise, X.shape).astype(np.float32)
    return X, y.astype(np.int64)


class GlyphConvNet(nn.Module):
    def __init__(self, channels=(16, 32), fc_dim=128, num_classes=10):
        super().__init__()
        c1, c2 = channels
        self.backbone = nn.Sequential(
            nn.Conv2d(1, c1, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(c1, c2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(c2 * 9, fc_dim), nn.ReLU())
        self.head = nn.Linear(fc_dim, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


def main():
    cfg_path = sys.argv[1] if len(sys.argv) > 1 else 'glyph_convnet_wide_80e.py'
    cfg = load_config(cfg_path)
    torch.set_num_threads(1)
    seed = cfg['randomness']['seed']
    torch.manual_seed(seed)
    np.random.seed(seed)
    log = MMStyleLog(cfg['work_dir'], cfg_path)
    log.header(seed)

    tr, va = cfg['train_dataloader'], cfg['val_dataloader']
    X, y = make_glyphs(tr['dataset']['num_samples'], seed, noise=0.25)
    Xv, yv = make_glyphs(va['dataset']['num_samples'], seed + 1000, noise=0.25)
    X, y, Xv, yv = map(torch.from_numpy, (X, y, Xv, yv))
    train_loader = DataLoader(TensorDataset(X, y), batch_size=tr['batch_size'], shuffle=True,
                              generator=torch.Generator().manual_seed(seed))
    val_loader = DataLoader(TensorDataset(Xv, yv), batch_size=va['batch_size'])

    b = cfg['model']['backbone']
    model = GlyphConvNet(b['channels'], b['fc_dim'], cfg['model']['head']['num_classes'])
    o = dict(cfg['optimizer'])
    o.pop('type')
    base_lr = o['lr']
    optimizer = torch.optim.Adam(model.parameters(), **o)
    max_epochs = cfg['train_cfg']['max_epochs']
    n_iter = len(train_loader)
    interval = cfg['default_hooks']['logger']['interval']
    log.info(f'Checkpoints will be saved to {os.path.abspath(cfg["work_dir"])}.')

    step, hist = 0, []
    for epoch in range(1, max_epochs + 1):
        model.train()
        t_end = time.perf_counter()
        for i, (xb, yb) in enumerate(train_loader):
            t_data = time.perf_counter()
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            now = time.perf_counter()
            hist.append((now - t_end, t_data - t_end, loss.item()))
            t_end = now
            if (i + 1) % interval == 0 or i + 1 == n_iter:
                w = hist[-((i % interval) + 1):]
                eta = (max_epochs * n_iter - step) * np.mean([h[0] for h in hist[-100:]])
                log.train(epoch, max_epochs, i + 1, n_iter, step, base_lr, base_lr, eta,
                          np.mean([h[0] for h in w]), np.mean([h[1] for h in w]),
                          {'loss': float(np.mean([h[2] for h in w]))})
        if epoch % cfg['default_hooks']['checkpoint']['interval'] == 0:
            log.info(f'Saving checkpoint at {epoch} epochs')
        if epoch % cfg['train_cfg']['val_interval'] == 0:
            model.eval()
            t0 = time.perf_counter()
            n_correct, loss_sum = 0, 0.0
            with torch.no_grad():
                for xb, yb in val_loader:
                    logits = model(xb)
                    loss_sum += F.cross_entropy(logits, yb, reduction='sum').item()
                    n_correct += (logits.argmax(1) == yb).sum().item()
            el = (time.perf_counter() - t0) / len(val_loader)
            n = len(val_loader.dataset)
            log.val(epoch, max_epochs, len(val_loader),
                    {'accuracy/top1': 100.0 * n_correct / n, 'val_loss': loss_sum / n}, el, el * 0.05)


if __name__ == '__main__':
    main()
