"""Train a small SlowOnly-style 3D CNN on our clips (loop follows PySlowFast tools/train_net.py)."""
import argparse
import datetime
import json
import math
import os
import resource
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)


class Cfg(dict):
    def __getattr__(self, k):
        v = self[k]
        return Cfg(v) if isinstance(v, dict) else v


def log(msg, fh, where='train_net.py:  {}'):
    line = f"[{datetime.datetime.now().strftime('%m/%d %H:%M:%S')}][INFO] {msg}"
    print(line, flush=True)
    fh.write(line + '\n')
    fh.flush()


def json_stats(stats, fh):
    log('logging.py:   99: json_stats: ' + json.dumps(stats, sort_keys=True), fh)


def ram():
    return '{:.2f}/{:.2f}G'.format(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2, 15.51)


class ClipDataset(Dataset):
    def __init__(self, cfg, split):
        self.cfg = cfg
        self.split = split
        self.root = cfg.DATA.PATH_TO_DATA_DIR
        self.items = []
        with open(os.path.join(self.root, f'{split}.csv')) as f:
            for line in f:
                path, label = line.strip().split(' ')
                self.items.append((path, int(label)))
        self.cache = {}

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        path, label = self.items[idx]
        if path not in self.cache:
            self.cache[path] = np.load(os.path.join(self.root, path))
        video = self.cache[path]
        T, rate = self.cfg.DATA.NUM_FRAMES, self.cfg.DATA.SAMPLING_RATE
        span = (T - 1) * rate + 1
        if self.split == 'train':
            start = np.random.randint(0, len(video) - span + 1)
        else:
            start = (len(video) - span) // 2
        frames = video[start:start + span:rate].astype(np.float32) / 255.0
        if self.split == 'train':
            frames = frames * np.random.uniform(0.9, 1.1)
            dy, dx = np.random.randint(-1, 2, 2)
            frames = np.roll(frames, (dy, dx), axis=(1, 2))
        frames = (frames - np.array(self.cfg.DATA.MEAN)) / np.array(self.cfg.DATA.STD)
        return torch.from_numpy(frames.transpose(3, 0, 1, 2).astype(np.float32)), label


class SlowOnlyLite(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        w = cfg.RESNET.WIDTH_PER_GROUP
        layers, cin = [], 3
        for i, (cout, tk) in enumerate([(w, 1), (2 * w, 3), (4 * w, 3)]):
            layers += [nn.Conv3d(cin, cout, (tk, 3, 3), padding=(tk // 2, 1, 1), bias=False), nn.BatchNorm3d(cout),
                       nn.ReLU(inplace=True), nn.MaxPool3d((1 if i == 0 else 2, 2, 2))]
            cin = cout
        self.body = nn.Sequential(*layers)
        self.dropout = nn.Dropout(cfg.MODEL.DROPOUT_RATE)
        self.proj = nn.Linear(cin, cfg.MODEL.NUM_CLASSES)

    def forward(self, x):
        return self.proj(self.dropout(self.body(x).mean((2, 3, 4))))


def get_lr(cfg, cur_epoch):
    s = cfg.SOLVER
    lr = s.BASE_LR * (math.cos(math.pi * cur_epoch / s.MAX_EPOCH) + 1.0) * 0.5
    if cur_epoch < s.WARMUP_EPOCHS:
        lr_end = s.BASE_LR * (math.cos(math.pi * s.WARMUP_EPOCHS / s.MAX_EPOCH) + 1.0) * 0.5
        alpha = (lr_end - s.WARMUP_START_LR) / s.WARMUP_EPOCHS
        lr = cur_epoch * alpha + s.WARMUP_START_LR
    return lr


def topk_errors(out, labels, ks=(1, 5)):
    top = out.topk(max(ks), 1).indices
    return [(1.0 - (top[:, :k] == labels[:, None]).any(1).float().mean().item()) * 100.0 for k in ks]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cfg', default='configs/SLOWONLY_lite_8x4.yaml')
    args = ap.parse_args()
    cfg = Cfg(yaml.safe_load(open(args.cfg)))
    os.makedirs(cfg.OUTPUT_DIR, exist_ok=True)
    fh = open(os.path.join(cfg.OUTPUT_DIR, 'stdout.log'), 'w')
    np.random.seed(cfg.RNG_SEED)
    torch.manual_seed(cfg.RNG_SEED)
    log('train_net.py:  443: Train with config:', fh)
    log('train_net.py:  444: ' + json.dumps(cfg, indent=1), fh)

    model = SlowOnlyLite(cfg)
    n_params = sum(p.numel() for p in model.parameters())
    log(f'misc.py:  185: Params: {n_params:,}', fh)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.SOLVER.BASE_LR, momentum=cfg.SOLVER.MOMENTUM,
                                weight_decay=cfg.SOLVER.WEIGHT_DECAY, nesterov=cfg.SOLVER.NESTEROV)
    train_loader = DataLoader(ClipDataset(cfg, 'train'), batch_size=cfg.TRAIN.BATCH_SIZE, shuffle=True,
                              num_workers=0, drop_last=True)
    val_loader = DataLoader(ClipDataset(cfg, 'val'), batch_size=cfg.TRAIN.BATCH_SIZE, shuffle=False, num_workers=0)
    log(f'train_net.py:  520: Start epoch: 1', fh)

    max_epoch = cfg.SOLVER.MAX_EPOCH
    min_top1, min_top5 = 100.0, 100.0
    n_iter = len(train_loader)
    for cur_epoch in range(max_epoch):
        model.train()
        t_epoch = time.time()
        agg = dict(loss=0.0, top1=0.0, top5=0.0, n=0, dt_data=0.0, dt_net=0.0)
        end = time.time()
        for cur_iter, (inputs, labels) in enumerate(train_loader):
            dt_data = time.time() - end
            lr = get_lr(cfg, cur_epoch + float(cur_iter) / n_iter)
            for g in optimizer.param_groups:
                g['lr'] = lr
            t_net = time.time()
            preds = model(inputs)
            loss = F.cross_entropy(preds, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            top1_err, top5_err = topk_errors(preds.detach(), labels)
            dt_net = time.time() - t_net
            agg['loss'] += loss.item() * len(labels)
            agg['top1'] += top1_err * len(labels)
            agg['top5'] += top5_err * len(labels)
            agg['n'] += len(labels)
            agg['dt_data'] += dt_data
            agg['dt_net'] += dt_net
            dt = time.time() - end
            if (cur_iter + 1) % cfg.LOG_PERIOD == 0:
                eta = dt * (n_iter * (max_epoch - cur_epoch) - cur_iter - 1)
                json_stats({'_type': 'train_iter', 'dt': round(dt, 5), 'dt_data': round(dt_data, 5),
                            'dt_net': round(dt_net, 5), 'epoch': f'{cur_epoch + 1}/{max_epoch}',
                            'eta': str(datetime.timedelta(seconds=int(eta))), 'gpu_mem': '0.00G',
                            'iter': f'{cur_iter + 1}/{n_iter}', 'loss': round(loss.item(), 5), 'lr': round(lr, 6),
                            'top1_err': round(top1_err, 4), 'top5_err': round(top5_err, 4)}, fh)
            end = time.time()
        n = agg['n']
        json_stats({'RAM': ram(), '_type': 'train_epoch', 'dt': round((time.time() - t_epoch) / n_iter, 5),
                    'dt_data': round(agg['dt_data'] / n_iter, 5), 'dt_net': round(agg['dt_net'] / n_iter, 5),
                    'epoch': f'{cur_epoch + 1}/{max_epoch}', 'eta': '0:00:00', 'gpu_mem': '0.00G',
                    'loss': round(agg['loss'] / n, 5), 'lr': round(lr, 6), 'top1_err': round(agg['top1'] / n, 4),
                    'top5_err': round(agg['top5'] / n, 4)}, fh)

        if (cur_epoch + 1) % cfg.TRAIN.EVAL_PERIOD == 0:
            model.eval()
            t0 = time.time()
            errs1, errs5, m = 0.0, 0.0, 0
            with torch.no_grad():
                for inputs, labels in val_loader:
                    e1, e5 = topk_errors(model(inputs), labels)
                    errs1 += e1 * len(labels)
                    errs5 += e5 * len(labels)
                    m += len(labels)
            top1, top5 = errs1 / m, errs5 / m
            min_top1, min_top5 = min(min_top1, top1), min(min_top5, top5)
            json_stats({'RAM': ram(), '_type': 'val_epoch', 'epoch': f'{cur_epoch + 1}/{max_epoch}', 'gpu_mem': '0.00G',
                        'min_top1_err': round(min_top1, 4), 'min_top5_err': round(min_top5, 4),
                        'time_diff': round((time.time() - t0) / len(val_loader), 5), 'top1_err': round(top1, 4),
                        'top5_err': round(top5, 4)}, fh)
        if (cur_epoch + 1) % cfg.TRAIN.CHECKPOINT_PERIOD == 0:
            torch.save(model.state_dict(), os.path.join(cfg.OUTPUT_DIR, f'checkpoint_epoch_{cur_epoch + 1:05d}.pyth'))
    log('train_net.py:  611: training done: top1_err: {:.2f} top5_err: {:.2f}'.format(min_top1, min_top5), fh)
    fh.close()


if __name__ == '__main__':
    main()
