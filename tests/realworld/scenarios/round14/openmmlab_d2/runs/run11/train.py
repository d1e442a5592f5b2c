import datetime
import json
import math
import os
import runpy
import shutil
import sys
import time

import numpy as np
import pandas as pd
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


def lr_factor(schedulers, step, epoch, iters_per_epoch):
    """Product of the mmengine-style schedulers active at (step, epoch)."""
    if isinstance(schedulers, dict):
        schedulers = [schedulers]
    f = 1.0
    for s in schedulers:
        by_epoch = s.get('by_epoch', True)
        pos = epoch if by_epoch else step
        begin = s.get('begin', 0)
        end = s.get('end', 10 ** 9)
        if s['type'] == 'LinearLR':
            if pos < begin:
                continue
            t = min(pos, end) - begin
            span = max(end - begin, 1)
            sf, ef = s.get('start_factor', 1 / 3), s.get('end_factor', 1.0)
            f *= sf + (ef - sf) * t / span
        elif s['type'] == 'MultiStepLR':
            f *= s.get('gamma', 0.1) ** sum(1 for m in s['milestones'] if pos >= m)
        elif s['type'] == 'CosineAnnealingLR':
            if pos < begin:
                continue
            T = s['T_max']
            t = min(pos - begin, T)
            f *= s.get('eta_min_ratio', 0.0) + (1 - s.get('eta_min_ratio', 0.0)) * 0.5 * (1 + math.cos(math.pi * t / T))
        elif s['type'] == 'ConstantLR':
            if begin <= pos < end:
                f *= s.get('factor', 1 / 3)
    return f


def make_classification(n, seed, n_features=20, n_informative=8, n_redundant=4, n_classes=10,
                        class_sep=1.5, flip_y=0.0, scales=None):
    """Gaussian clusters at hypercube vertices (like sklearn's make_classification), with redundant
    linear combinations and pure-noise columns."""
    rng = np.random.default_rng(seed)
    struct = np.random.default_rng(12345)
    verts = struct.choice(2 ** n_informative, n_classes, replace=False)
    cent = np.array([[(v >> b) & 1 for b in range(n_informative)] for v in verts], np.float32) * 2 - 1
    cent *= class_sep
    A = struct.uniform(-1, 1, (n_classes, n_informative, n_informative)).astype(np.float32)
    Bm = struct.uniform(-1, 1, (n_informative, n_redundant)).astype(np.float32)
    y = rng.integers(0, n_classes, n)
    Z = rng.normal(0, 1, (n, n_informative)).astype(np.float32)
    Xi = cent[y] + np.einsum('ni,nij->nj', Z, A[y])
    Xr = Xi @ Bm
    Xn = rng.normal(0, 1, (n, n_features - n_informative - n_redundant)).astype(np.float32)
    X = np.concatenate([Xi, Xr, Xn], 1)[:, struct.permutation(n_features)]
    if scales is not None:
        X = X * scales
    if flip_y > 0:
        f = rng.random(n) < flip_y
        y[f] = rng.integers(0, n_classes, f.sum())
    return X.astype(np.float32), y.astype(np.int64)


def load_tables(seed, n=4000):
    """The plant export: one table of sensor features keyed by sample_id, one table of operator labels."""
    X, state = make_classification(n, seed, n_features=16, n_informative=6, n_redundant=4, n_classes=4,
                                   class_sep=1.5)
    rng = np.random.default_rng(seed)
    ids = rng.permutation(10_000 + np.arange(n))
    feats = pd.DataFrame(X, columns=[f'ch{i:02d}' for i in range(X.shape[1])])
    feats.insert(0, 'sample_id', ids)
    labels = pd.DataFrame({'sample_id': ids, 'state': state,
                           'labelled_at': pd.Timestamp('2024-01-01') + pd.to_timedelta(rng.uniform(0, 90 * 86400, n), 's')})
    return feats.sort_values('sample_id').reset_index(drop=True), labels.sort_values('labelled_at').reset_index(drop=True)


def split(n, val_frac, seed):
    idx = np.random.default_rng(seed).permutation(n)
    n_val = int(n * val_frac)
    return idx[n_val:], idx[:n_val]


class MLP(nn.Module):
    def __init__(self, in_dim, hidden, num_classes, dropout):
        super().__init__()
        layers, d = [], in_dim
        for h in hidden:
            layers += [nn.Linear(d, h), nn.ReLU(), nn.Dropout(dropout)]
            d = h
        self.backbone = nn.Sequential(*layers)
        self.head = nn.Linear(d, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


def f1_macro(pred, y, k):
    p, r = [], []
    for c in range(k):
        tp = ((pred == c) & (y == c)).sum().item()
        p.append(tp / max((pred == c).sum().item(), 1))
        r.append(tp / max((y == c).sum().item(), 1))
    f = [2 * a * b / (a + b) if a + b else 0.0 for a, b in zip(p, r)]
    return 100 * np.mean(p), 100 * np.mean(r), 100 * np.mean(f)


def main():
    cfg_path = sys.argv[1] if len(sys.argv) > 1 else 'sensor_mlp_40e.py'
    cfg = load_config(cfg_path)
    torch.set_num_threads(1)
    seed = cfg['randomness']['seed']
    torch.manual_seed(seed)
    log = MMStyleLog(cfg['work_dir'], cfg_path)
    log.header(seed)

    feats, labels = load_tables(seed)
    feature_cols = [c for c in feats.columns if c.startswith('ch')]
    X = feats[feature_cols].to_numpy(np.float32)
    y = labels['state'].to_numpy(np.int64)
    tr_idx, va_idx = split(len(X), 0.2, seed)
    mean, std = X[tr_idx].mean(0), X[tr_idx].std(0)
    X = (X - mean) / std
    log.info(f'train samples: {len(tr_idx)}, val samples: {len(va_idx)}, '
             f'class counts: {np.bincount(y[tr_idx]).tolist()}')

    tr, va = cfg['train_dataloader'], cfg['val_dataloader']
    train_loader = DataLoader(TensorDataset(torch.from_numpy(X[tr_idx]), torch.from_numpy(y[tr_idx])),
                              batch_size=tr['batch_size'], shuffle=True,
                              generator=torch.Generator().manual_seed(seed))
    Xv, yv = torch.from_numpy(X[va_idx]), torch.from_numpy(y[va_idx])

    b, h = cfg['model']['backbone'], cfg['model']['head']
    model = MLP(b['in_channels'], b['hidden_dims'], h['num_classes'], b['dropout'])
    o = dict(cfg['optim_wrapper']['optimizer'])
    o.pop('type')
    base_lr = o['lr']
    optimizer = torch.optim.AdamW(model.parameters(), **o)
    clip = cfg['optim_wrapper']['clip_grad']
    max_epochs = cfg['train_cfg']['max_epochs']
    n_iter = len(train_loader)
    interval = cfg['default_hooks']['logger']['interval']
    log.info(f'Checkpoints will be saved to {os.path.abspath(cfg["work_dir"])}.')

    step, hist, best = 0, [], 0.0
    for epoch in range(1, max_epochs + 1):
        model.train()
        t_end = time.perf_counter()
        for i, (xb, yb) in enumerate(train_loader):
            t_data = time.perf_counter()
            lr = base_lr * lr_factor(cfg['param_scheduler'], step, epoch - 1 + i / n_iter, n_iter)
            for group in optimizer.param_groups:
                group['lr'] = lr
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip['max_norm'], clip['norm_type']).item()
            optimizer.step()
            step += 1
            now = time.perf_counter()
            hist.append((now - t_end, t_data - t_end, grad_norm, loss.item()))
            t_end = now
            if (i + 1) % interval == 0 or i + 1 == n_iter:
                w = hist[-((i % interval) + 1):]
                eta = (max_epochs * n_iter - step) * np.mean([x[0] for x in hist[-100:]])
                log.train(epoch, max_epochs, i + 1, n_iter, step, base_lr, lr, eta,
                          np.mean([x[0] for x in w]), np.mean([x[1] for x in w]),
                          {'grad_norm': float(np.mean([x[2] for x in w])), 'loss': float(np.mean([x[3] for x in w]))})
        model.eval()
        t0 = time.perf_counter()
        with torch.no_grad():
            pred = model(Xv).argmax(1)
        el = time.perf_counter() - t0
        acc = 100.0 * (pred == yv).float().mean().item()
        p, r, f = f1_macro(pred, yv, h['num_classes'])
        if epoch % cfg['default_hooks']['checkpoint']['interval'] == 0:
            log.info(f'Saving checkpoint at {epoch} epochs')
        log.val(epoch, max_epochs, 1, {'accuracy/top1': acc, 'single-label/precision': p,
                                        'single-label/recall': r, 'single-label/f1-score': f}, el, el * 0.05)
        if acc > best:
            best = acc
            log.info(f'The best checkpoint with {acc:.4f} accuracy/top1 at {epoch} epoch is saved to best_accuracy_top1_epoch_{epoch}.pth.')


if __name__ == '__main__':
    main()
