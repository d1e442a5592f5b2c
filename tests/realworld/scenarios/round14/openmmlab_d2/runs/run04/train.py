import datetime
import json
import math
import os
import sys
import time

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml


class D2Events:
    """detectron2-like event storage: metrics.json (one object per line) and a text log."""

    def __init__(self, out_dir, log_name='log.txt', console_style=False, window=20):
        os.makedirs(out_dir, exist_ok=True)
        self.out_dir = out_dir
        self._txt = open(os.path.join(out_dir, log_name), 'w')
        self._json = open(os.path.join(out_dir, 'metrics.json'), 'w')
        self.console_style = console_style
        self.window = window
        self.hist = {}

    def info(self, name, msg, level='INFO'):
        now = datetime.datetime.now()
        if self.console_style:
            short = 'd2.' + name[len('detectron2.'):] if name.startswith('detectron2.') else name
            prefix = f"[{now:%m/%d %H:%M:%S} {short}]: " + ('' if level == 'INFO' else level + ' ')
        else:
            prefix = f"[{now:%m/%d %H:%M:%S}] {name} {level}: "
        line = prefix + msg
        print(line, flush=True)
        self._txt.write(line + '\n')
        self._txt.flush()

    def put(self, **kw):
        for k, v in kw.items():
            self.hist.setdefault(k, []).append(float(v))

    def median(self, k):
        return float(np.median(self.hist[k][-self.window:]))

    def avg(self, k):
        return float(np.mean(self.hist[k][-self.window:]))

    def write(self, it, max_iter, loss_keys, lr, extra=None):
        t = self.avg('time')
        dt = self.avg('data_time')
        eta = (max_iter - it - 1) * t
        losses = {k: self.median(k) for k in loss_keys}
        total = self.median('total_loss')
        parts = [f" eta: {datetime.timedelta(seconds=int(eta))}", f"iter: {it}",
                 f"total_loss: {total:.4g}"]
        parts += [f"{k}: {v:.4g}" for k, v in losses.items()]
        if extra:
            parts += [f"{k}: {v:.4g}" for k, v in extra.items()]
        parts += [f"time: {t:.4f}", f"last_time: {self.hist['time'][-1]:.4f}",
                  f"data_time: {dt:.4f}", f"last_data_time: {self.hist['data_time'][-1]:.4f}",
                  f"lr: {lr:.5g}"]
        self.info('detectron2.utils.events', '  '.join(parts))
        rec = {'data_time': dt, 'eta_seconds': eta, 'iteration': it, 'lr': lr,
               'rank_data_time': dt, 'time': t, 'total_loss': total}
        rec.update(losses)
        if extra:
            rec.update(extra)
        self._json.write(json.dumps(rec, sort_keys=True) + '\n')
        self._json.flush()

    def write_eval(self, it, results):
        rec = dict(results)
        rec['iteration'] = it
        self._json.write(json.dumps(rec, sort_keys=True) + '\n')
        self._json.flush()


CFG = {
    'VERSION': 2,
    'SEED': 4,
    'OUTPUT_DIR': './output',
    'DATASETS': {'TRAIN': ('churn_2023q4_train',), 'TEST': ('churn_2023q4_val',), 'VAL_FRACTION': 0.2},
    'INPUT': {'NUMERIC_FEATURES': ('tenure_months', 'monthly_spend', 'support_tickets', 'logins_30d',
                                   'discount_pct', 'late_payments'),
              'CATEGORICAL_FEATURES': ('plan', 'region', 'account_id'),
              'CATEGORICAL_ENCODING': 'target_mean'},
    'MODEL': {'META_ARCHITECTURE': 'TabularMLP', 'DEVICE': 'cpu', 'HIDDEN_DIMS': (64, 32), 'NUM_CLASSES': 2},
    'SOLVER': {'OPTIMIZER': 'AdamW', 'BASE_LR': 0.001, 'WEIGHT_DECAY': 0.01, 'BETAS': (0.9, 0.999),
               'IMS_PER_BATCH': 64, 'MAX_ITER': 1200, 'LR_SCHEDULER_NAME': 'WarmupCosineLR',
               'WARMUP_ITERS': 50, 'WARMUP_FACTOR': 0.01, 'CHECKPOINT_PERIOD': 400},
    'TEST': {'EVAL_PERIOD': 100},
}


def load_customers(seed, n=3000):
    """Customer snapshot: usage features, plan/region, account id, churned flag."""
    rng = np.random.default_rng(seed)
    tenure = rng.gamma(2.0, 12.0, n)
    spend = rng.normal(55, 20, n).clip(5, None)
    tickets = rng.poisson(1.5, n)
    logins = rng.poisson(12, n)
    discount = rng.choice([0, 5, 10, 20], n)
    late = rng.poisson(0.4, n)
    plan = rng.choice(['basic', 'plus', 'pro'], n, p=[0.5, 0.3, 0.2])
    region = rng.choice(['north', 'south', 'east', 'west'], n)
    z = (-0.04 * tenure + 0.01 * (spend - 55) + 0.35 * tickets - 0.06 * logins + 0.6 * late
         + 0.3 * (plan == 'basic') + rng.normal(0, 1.0, n))
    churned = (z > np.quantile(z, 0.7)).astype(np.int64)
    account_id = rng.integers(0, 4 * n, n)
    return pd.DataFrame({'account_id': account_id, 'tenure_months': tenure, 'monthly_spend': spend,
                         'support_tickets': tickets, 'logins_30d': logins, 'discount_pct': discount,
                         'late_payments': late, 'plan': plan, 'region': region, 'churned': churned})


def encode(df, cfg):
    out = df.copy()
    for col in cfg['INPUT']['CATEGORICAL_FEATURES']:
        out[col + '_te'] = out.groupby(col)['churned'].transform('mean')
    num = list(cfg['INPUT']['NUMERIC_FEATURES']) + [c + '_te' for c in cfg['INPUT']['CATEGORICAL_FEATURES']]
    return out, num


def auc(score, y):
    order = np.argsort(score)
    ranks = np.empty(len(score))
    ranks[order] = np.arange(1, len(score) + 1)
    pos = y == 1
    return (ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum())


def lr_at(s, it):
    if it < s['WARMUP_ITERS']:
        a = it / s['WARMUP_ITERS']
        return s['BASE_LR'] * (s['WARMUP_FACTOR'] * (1 - a) + a)
    return s['BASE_LR'] * 0.5 * (1 + math.cos(math.pi * it / s['MAX_ITER']))


def main():
    cfg = CFG
    torch.set_num_threads(1)
    torch.manual_seed(cfg['SEED'])
    out = cfg['OUTPUT_DIR']
    ev = D2Events(out, log_name='train_stdout.log', console_style=True)
    ev.info('detectron2', 'Rank of current process: 0. World size: 1')
    text = yaml.safe_dump(json.loads(json.dumps(cfg)), sort_keys=True)
    ev.info('detectron2', 'Running with full config:\n' + text)
    with open(os.path.join(out, 'config.yaml'), 'w') as f:
        f.write(text)
    ev.info('detectron2', f'Full config saved to {out}/config.yaml')

    df = load_customers(cfg['SEED'])
    df, feature_cols = encode(df, cfg)
    rng = np.random.default_rng(cfg['SEED'])
    idx = rng.permutation(len(df))
    n_val = int(len(df) * cfg['DATASETS']['VAL_FRACTION'])
    val_df, train_df = df.iloc[idx[:n_val]], df.iloc[idx[n_val:]]
    mu, sd = train_df[feature_cols].mean(), train_df[feature_cols].std()
    X = torch.tensor(((train_df[feature_cols] - mu) / sd).to_numpy(np.float32))
    y = torch.tensor(train_df['churned'].to_numpy())
    Xv = torch.tensor(((val_df[feature_cols] - mu) / sd).to_numpy(np.float32))
    yv = val_df['churned'].to_numpy()
    ev.info('detectron2.data.build', f'Loaded {len(train_df)} rows from churn_2023q4_train, {len(val_df)} rows from '
            f'churn_2023q4_val; positive rate {y.float().mean():.3f}')

    dims = [len(feature_cols)] + list(cfg['MODEL']['HIDDEN_DIMS'])
    layers = []
    for a, b in zip(dims[:-1], dims[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    model = nn.Sequential(*layers, nn.Linear(dims[-1], cfg['MODEL']['NUM_CLASSES']))
    ev.info('detectron2.engine.defaults', 'Model:\n' + repr(model))
    s = cfg['SOLVER']
    opt = torch.optim.AdamW(model.parameters(), lr=s['BASE_LR'], betas=s['BETAS'], weight_decay=s['WEIGHT_DECAY'])
    ev.info('detectron2.engine.train_loop', 'Starting training from iteration 0')
    g = torch.Generator().manual_seed(cfg['SEED'])
    perm, pos = torch.randperm(len(y), generator=g), 0
    t_start = time.perf_counter()
    for it in range(s['MAX_ITER']):
        t0 = time.perf_counter()
        if pos + s['IMS_PER_BATCH'] > len(y):
            perm, pos = torch.randperm(len(y), generator=g), 0
        b = perm[pos:pos + s['IMS_PER_BATCH']]
        pos += s['IMS_PER_BATCH']
        xb, yb = X[b], y[b]
        t1 = time.perf_counter()
        lr = lr_at(s, it)
        for grp in opt.param_groups:
            grp['lr'] = lr
        model.train()
        logits = model(xb)
        loss_cls = F.cross_entropy(logits, yb)
        opt.zero_grad()
        loss_cls.backward()
        opt.step()
        ev.put(total_loss=loss_cls.item(), loss_cls=loss_cls.item(),
               acc=(logits.argmax(1) == yb).float().mean().item(),
               time=time.perf_counter() - t0, data_time=t1 - t0)
        if (it + 1) % 20 == 0 or it == s['MAX_ITER'] - 1:
            ev.write(it, s['MAX_ITER'], ['loss_cls'], lr, extra={'cls_accuracy': ev.median('acc')})
        if (it + 1) % cfg['TEST']['EVAL_PERIOD'] == 0:
            model.eval()
            ev.info('detectron2.evaluation.evaluator', f'Start inference on {len(yv)} batches')
            with torch.no_grad():
                p = torch.softmax(model(Xv), 1)[:, 1].numpy()
            res = {'churn/accuracy': 100.0 * ((p > 0.5) == yv).mean(), 'churn/auc': 100.0 * auc(p, yv),
                   'churn/recall': 100.0 * ((p > 0.5) & (yv == 1)).sum() / (yv == 1).sum()}
            ev.info('detectron2.evaluation.testing', 'copypaste: Task: churn')
            ev.info('detectron2.evaluation.testing', 'copypaste: accuracy,auc,recall')
            ev.info('detectron2.evaluation.testing', 'copypaste: ' + ','.join(f'{v:.4f}' for v in res.values()))
            ev.write_eval(it, res)
    el = time.perf_counter() - t_start
    ev.info('detectron2.engine.hooks', f"Overall training speed: {s['MAX_ITER'] - 2} iterations in "
            f"{datetime.timedelta(seconds=int(el))} ({el / s['MAX_ITER']:.4f} s / it)")


if __name__ == '__main__':
    main()
