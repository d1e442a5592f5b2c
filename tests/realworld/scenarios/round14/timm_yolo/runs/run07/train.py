#!/usr/bin/env python3
""" Small-image classification training script (timm-style logging).

Usage: python train.py [--lr 0.001 --epochs 30 ...]
Writes args.yaml and summary.csv to --output, console log to stdout.
"""
import argparse
import csv
import logging
import math
import os
import sys
import time
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

_logger = logging.getLogger('train')

DEFAULTS = OrderedDict([
    ('dataset', 'textures16'),
    ('model', 'tinycnn'),
    ('num_classes', 10),
    ('train_size', 2000),
    ('val_size', 1000),
    ('noise', 0.6),
    ('hidden', '256,256'),
    ('width', 24),
    ('drop', 0.0),
    ('opt', 'sgd'),
    ('lr', 0.03),
    ('momentum', 0.9),
    ('nesterov', False),
    ('weight_decay', 0.0005),
    ('sched', 'cosine'),
    ('epochs', 25),
    ('warmup_epochs', 3),
    ('warmup_lr', 0.001),
    ('min_lr', 1e-05),
    ('decay_epochs', 10),
    ('decay_rate', 0.1),
    ('batch_size', 64),
    ('validation_batch_size', 128),
    ('smoothing', 0.0),
    ('mixup', 0.0),
    ('cutmix', 0.0),
    ('amp', False),
    ('clip_grad', None),
    ('log_interval', 20),
    ('eval_metric', 'top1'),
    ('seed', 42),
    ('output', '.'),
])


def parse_args():
    parser = argparse.ArgumentParser(description='Training Config')
    for k, v in DEFAULTS.items():
        flag = '--' + k.replace('_', '-')
        if isinstance(v, bool):
            parser.add_argument(flag, dest=k, default=v, type=lambda s: s.lower() in ('1', 'true', 'yes'))
        elif v is None:
            parser.add_argument(flag, dest=k, default=None)
        else:
            parser.add_argument(flag, dest=k, default=v, type=type(v))
    return parser.parse_args()


def write_yaml(path, d):
    def fmt(v):
        if v is None:
            return 'null'
        if isinstance(v, bool):
            return 'true' if v else 'false'
        if isinstance(v, (list, tuple)):
            return '[' + ', '.join(fmt(x) for x in v) + ']'
        return str(v)
    with open(path, 'w') as f:
        for k, v in d.items():
            f.write(f'{k}: {fmt(v)}\n')


# ---------------------------------------------------------------- data
GLYPHS = {
    0: ['01110', '10001', '10011', '10101', '11001', '10001', '01110'],
    1: ['00100', '01100', '00100', '00100', '00100', '00100', '01110'],
    2: ['01110', '10001', '00001', '00010', '00100', '01000', '11111'],
    3: ['11111', '00010', '00100', '00010', '00001', '10001', '01110'],
    4: ['00010', '00110', '01010', '10010', '11111', '00010', '00010'],
    5: ['11111', '10000', '11110', '00001', '00001', '10001', '01110'],
    6: ['00110', '01000', '10000', '11110', '10001', '10001', '01110'],
    7: ['11111', '00001', '00010', '00100', '01000', '01000', '01000'],
    8: ['01110', '10001', '10001', '01110', '10001', '10001', '01110'],
    9: ['01110', '10001', '10001', '01111', '00001', '00010', '01100'],
}


def _blur(x):
    k = np.array([0.25, 0.5, 0.25])
    x = np.apply_along_axis(lambda r: np.convolve(r, k, mode='same'), -1, x)
    x = np.apply_along_axis(lambda r: np.convolve(r, k, mode='same'), -2, x)
    return x


def make_digits(n_per_class, num_classes, seed, noise):
    """12x12 rendered digits, random shift, stroke dropout, blur and pixel noise."""
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for c in range(num_classes):
        g = np.array([[int(ch) for ch in row] for row in GLYPHS[c]], dtype=np.float32)
        for _ in range(n_per_class):
            img = np.zeros((12, 12), np.float32)
            r, q = rng.integers(1, 5), rng.integers(2, 6)
            gg = g * (rng.random(g.shape) > 0.06)
            img[r:r + 7, q:q + 5] = gg
            img = _blur(img) * rng.uniform(0.6, 1.4)
            img += noise * rng.standard_normal(img.shape)
            xs.append(img[None])
            ys.append(c)
    return np.stack(xs).astype(np.float32), np.array(ys, dtype=np.int64)


def make_textures(n_per_class, num_classes, seed, noise, size=16):
    """Oriented grating textures; class = (orientation, frequency) pair, random phase and contrast."""
    proto = np.random.default_rng(12345)
    thetas = proto.uniform(0, np.pi, size=(num_classes, 2))
    freqs = proto.uniform(0.15, 0.45, size=(num_classes, 2))
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    xs, ys = [], []
    for c in range(num_classes):
        for _ in range(n_per_class):
            img = np.zeros((size, size), np.float32)
            for j in range(2):
                th = thetas[c, j] + rng.normal(0, 0.12)
                f = freqs[c, j] * rng.uniform(0.9, 1.1)
                ph = rng.uniform(0, 2 * np.pi)
                img += rng.uniform(0.5, 1.0) * np.cos(2 * np.pi * f * (xx * np.cos(th) + yy * np.sin(th)) + ph)
            img += noise * rng.standard_normal(img.shape)
            xs.append(img[None])
            ys.append(c)
    return np.stack(xs).astype(np.float32), np.array(ys, dtype=np.int64)


def make_tabular(n_per_class, num_classes, seed, noise, dim=64):
    """Gaussian clusters (4 per class) in 64-d with a random mixing matrix."""
    proto = np.random.default_rng(777)
    centers = proto.normal(0, 1.0, size=(num_classes, 4, dim))
    mix = proto.normal(0, 1.0 / np.sqrt(dim), size=(dim, dim)) + np.eye(dim)
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for c in range(num_classes):
        k = rng.integers(0, 4, size=n_per_class)
        x = centers[c, k] + noise * rng.standard_normal((n_per_class, dim))
        xs.append(x @ mix)
        ys.append(np.full(n_per_class, c))
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys).astype(np.int64)


DATASETS = {'synth_digits': make_digits, 'textures16': make_textures, 'tabular64': make_tabular}


def create_datasets(args):
    gen = DATASETS[args.dataset]
    x_tr, y_tr = gen(args.train_size // args.num_classes, args.num_classes, args.seed, args.noise)
    x_va, y_va = gen(args.val_size // args.num_classes, args.num_classes, args.seed + 1000, args.noise)
    mean, std = x_tr.mean(), x_tr.std()
    x_tr = (x_tr - mean) / std
    x_va = (x_va - mean) / std
    return TensorDataset(torch.from_numpy(x_tr), torch.from_numpy(y_tr)), \
        TensorDataset(torch.from_numpy(x_va), torch.from_numpy(y_va))


# ---------------------------------------------------------------- models
class Mlp(nn.Module):
    def __init__(self, in_features, num_classes, hidden=(256, 256), drop=0.0):
        super().__init__()
        layers, d = [], in_features
        for h in hidden:
            layers += [nn.Linear(d, h), nn.ReLU(inplace=True)]
            if drop > 0:
                layers.append(nn.Dropout(drop))
            d = h
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(d, num_classes)

    def forward(self, x):
        return self.head(self.body(x.flatten(1)))


def conv_bn(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class TinyCnn(nn.Module):
    def __init__(self, in_chans, num_classes, width=32, drop=0.0):
        super().__init__()
        self.features = nn.Sequential(
            conv_bn(in_chans, width), nn.MaxPool2d(2),
            conv_bn(width, 2 * width), nn.MaxPool2d(2),
            conv_bn(2 * width, 2 * width), nn.AdaptiveAvgPool2d(2), nn.Flatten())
        self.drop = nn.Dropout(drop)
        self.head = nn.Linear(8 * width, num_classes)

    def forward(self, x):
        return self.head(self.drop(self.features(x)))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        sc = x if self.down is None else self.down(x)
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.bn2(self.conv2(x))
        return F.relu(x + sc)


class ResNetTiny(nn.Module):
    def __init__(self, in_chans, num_classes, width=16, drop=0.0):
        super().__init__()
        self.stem = conv_bn(in_chans, width)
        self.layer1 = BasicBlock(width, width, 1)
        self.layer2 = BasicBlock(width, 2 * width, 2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(drop)
        self.fc = nn.Linear(2 * width, num_classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(self.drop(self.pool(x).flatten(1)))


def create_model(args, sample):
    if args.model == 'mlp':
        return Mlp(sample.numel(), args.num_classes, hidden=tuple(int(h) for h in args.hidden.split(',')), drop=args.drop)
    if args.model == 'tinycnn':
        return TinyCnn(sample.shape[0], args.num_classes, width=args.width, drop=args.drop)
    if args.model == 'resnet_tiny':
        return ResNetTiny(sample.shape[0], args.num_classes, width=args.width, drop=args.drop)
    raise ValueError(args.model)


def create_optimizer(args, model):
    if args.opt == 'sgd':
        return torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                               nesterov=args.nesterov, weight_decay=args.weight_decay)
    if args.opt == 'adamw':
        return torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    if args.opt == 'adam':
        return torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    raise ValueError(args.opt)


def create_scheduler(args, optimizer):
    if args.sched == 'cosine':
        def f(epoch):
            if epoch < args.warmup_epochs:
                return (args.warmup_lr + (args.lr - args.warmup_lr) * epoch / args.warmup_epochs) / args.lr
            t = (epoch - args.warmup_epochs) / max(1, args.epochs - args.warmup_epochs)
            return (args.min_lr + 0.5 * (args.lr - args.min_lr) * (1 + math.cos(math.pi * t))) / args.lr
        return torch.optim.lr_scheduler.LambdaLR(optimizer, f)
    if args.sched == 'step':
        return torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.decay_epochs, gamma=args.decay_rate)
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: 1.0)


# ---------------------------------------------------------------- train / eval
class AverageMeter:
    def __init__(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(output, target, topk=(1,)):
    maxk = min(max(topk), output.size(1))
    _, pred = output.topk(maxk, 1, True, True)
    correct = pred.t().eq(target.reshape(1, -1).expand_as(pred.t()))
    return [correct[:min(k, maxk)].reshape(-1).float().sum(0) * 100. / target.size(0) for k in topk]


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, args, lr_scheduler=None):
    batch_time_m, data_time_m, losses_m = AverageMeter(), AverageMeter(), AverageMeter()
    model.train()
    end = time.time()
    last_idx = len(loader) - 1
    for batch_idx, (input, target) in enumerate(loader):
        data_time_m.update(time.time() - end)
        output = model(input)
        loss = loss_fn(output, target)
        loss.backward()
        if args.clip_grad is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), float(args.clip_grad))
        optimizer.step()
        losses_m.update(loss.item(), input.size(0))
        batch_time_m.update(time.time() - end)
        if batch_idx == last_idx or batch_idx % args.log_interval == 0:
            lrl = [g['lr'] for g in optimizer.param_groups]
            lr = sum(lrl) / len(lrl)
            _logger.info(
                f'Train: {epoch} [{batch_idx:>4d}/{len(loader)} '
                f'({100. * (batch_idx + 1) / len(loader):>3.0f}%)]  '
                f'Loss: {losses_m.val:#.3g} ({losses_m.avg:#.3g})  '
                f'Time: {batch_time_m.val:.3f}s, {input.size(0) / batch_time_m.val:>7.2f}/s  '
                f'({batch_time_m.avg:.3f}s, {input.size(0) / batch_time_m.avg:>7.2f}/s)  '
                f'LR: {lr:.3e}  '
                f'Data: {data_time_m.val:.3f} ({data_time_m.avg:.3f})')
        end = time.time()
    return OrderedDict([('loss', losses_m.avg)])


def validate(model, loader, loss_fn, args):
    batch_time_m, losses_m, top1_m, top5_m = AverageMeter(), AverageMeter(), AverageMeter(), AverageMeter()
    model.eval()
    end = time.time()
    last_idx = len(loader) - 1
    with torch.no_grad():
        for batch_idx, (input, target) in enumerate(loader):
            output = model(input)
            loss = loss_fn(output, target)
            acc1, acc5 = accuracy(output, target, topk=(1, 5))
            losses_m.update(loss.item(), input.size(0))
            top1_m.update(acc1.item(), output.size(0))
            top5_m.update(acc5.item(), output.size(0))
            batch_time_m.update(time.time() - end)
            end = time.time()
            if batch_idx == last_idx or batch_idx % args.log_interval == 0:
                _logger.info(
                    f'Test: [{batch_idx:>4d}/{last_idx}]  '
                    f'Time: {batch_time_m.val:.3f} ({batch_time_m.avg:.3f})  '
                    f'Loss: {losses_m.val:>7.4f} ({losses_m.avg:>7.4f})  '
                    f'Acc@1: {top1_m.val:>7.4f} ({top1_m.avg:>7.4f})  '
                    f'Acc@5: {top5_m.val:>7.4f} ({top5_m.avg:>7.4f})')
    return OrderedDict([('loss', losses_m.avg), ('top1', top1_m.avg), ('top5', top5_m.avg)])


def update_summary(epoch, train_metrics, eval_metrics, lr, filename, write_header=False):
    rowd = OrderedDict(epoch=epoch)
    rowd.update([('train_' + k, v) for k, v in train_metrics.items()])
    rowd.update([('eval_' + k, v) for k, v in eval_metrics.items()])
    rowd['lr'] = lr
    with open(filename, mode='a') as cf:
        dw = csv.DictWriter(cf, fieldnames=rowd.keys())
        if write_header:
            dw.writeheader()
        dw.writerow(rowd)


def main():
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format='%(message)s')
    args = parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    os.makedirs(args.output, exist_ok=True)
    write_yaml(os.path.join(args.output, 'args.yaml'), vars(args))

    dataset_train, dataset_eval = create_datasets(args)
    model = create_model(args, dataset_train[0][0])
    _logger.info(f'Model {args.model} created, param count:{sum(p.numel() for p in model.parameters())}')
    _logger.info(f'Dataset {args.dataset}: {len(dataset_train)} train / {len(dataset_eval)} eval samples')

    optimizer = create_optimizer(args, model)
    lr_scheduler = create_scheduler(args, optimizer)
    _logger.info(f'Scheduled epochs: {args.epochs}. LR stepped per epoch.')

    loader_train = DataLoader(dataset_train, batch_size=args.batch_size, shuffle=True, drop_last=True)
    loader_eval = DataLoader(dataset_eval, batch_size=args.validation_batch_size, shuffle=False)
    train_loss_fn = nn.CrossEntropyLoss(label_smoothing=args.smoothing)
    validate_loss_fn = nn.CrossEntropyLoss()

    summary_file = os.path.join(args.output, 'summary.csv')
    if os.path.exists(summary_file):
        os.remove(summary_file)
    best_metric, best_epoch = None, None
    for epoch in range(args.epochs):
        train_metrics = train_one_epoch(epoch, model, loader_train, optimizer, train_loss_fn, args, lr_scheduler)
        eval_metrics = validate(model, loader_eval, validate_loss_fn, args)
        lrl = [g['lr'] for g in optimizer.param_groups]
        update_summary(epoch, train_metrics, eval_metrics, sum(lrl) / len(lrl), summary_file,
                       write_header=epoch == 0)
        if best_metric is None or eval_metrics[args.eval_metric] > best_metric:
            best_metric, best_epoch = eval_metrics[args.eval_metric], epoch
        lr_scheduler.step()
    _logger.info('*** Best metric: {0} (epoch {1})'.format(best_metric, best_epoch))


if __name__ == '__main__':
    main()
