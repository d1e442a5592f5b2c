#!/usr/bin/env python3
"""Generate 12 timm-style / ultralytics-style run folders by really training small torch models on CPU.

python gen.py            # all runs (writes runs/runNN/ and truth.json next to this file)
python gen.py run03 ...  # only some runs
"""
TIMM_TEMPLATE = r'''
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
@@ARGS@@
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
@@TRAIN_LABELS@@
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
@@ZERO_GRAD@@
        loss.backward()
        if args.clip_grad is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), float(args.clip_grad))
        optimizer.step()
@@SCHED_BATCH@@
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
@@EVAL_MODE@@
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
@@SCHED_EPOCH@@
    _logger.info('*** Best metric: {0} (epoch {1})'.format(best_metric, best_epoch))


if __name__ == '__main__':
    main()
'''

YOLO_TEMPLATE = r'''
#!/usr/bin/env python3
"""Single-object shape detector, trained YOLO-style (box/cls/dfl losses, P/R/mAP on val).

python train.py [--epochs 100 --batch 16 --lr0 0.01 ...]
Writes args.yaml and results.csv to --save_dir, console log to stdout.
"""
import argparse
import math
import os
import sys
import time
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DEFAULTS = OrderedDict([
@@ARGS@@
])
NAMES = ['square', 'disk', 'cross', 'ring', 'triangle', 'bar']


def parse_args():
    p = argparse.ArgumentParser()
    for k, v in DEFAULTS.items():
        if isinstance(v, bool):
            p.add_argument('--' + k, default=v, type=lambda s: s.lower() in ('1', 'true', 'yes'))
        elif v is None:
            p.add_argument('--' + k, default=None)
        else:
            p.add_argument('--' + k, default=v, type=type(v))
    return p.parse_args()


def yaml_save(path, d):
    with open(path, 'w') as f:
        for k, v in d.items():
            if v is None:
                v = 'null'
            elif isinstance(v, bool):
                v = 'true' if v else 'false'
            f.write(f'{k}: {v}\n')


# ------------------------------------------------------------------ data
def make_shapes(n, imgsz, nc, seed, noise):
    """One coloured shape per image on a noisy background with small distractor blobs."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:imgsz, 0:imgsz].astype(np.float32) + 0.5
    imgs = np.empty((n, 3, imgsz, imgsz), np.float32)
    boxes = np.empty((n, 4), np.float32)
    cls = rng.integers(0, nc, size=n)
    for i in range(n):
        img = rng.uniform(0.0, 0.45, size=(3, 1, 1)) * np.ones((3, imgsz, imgsz), np.float32)
        for _ in range(rng.integers(2, 6)):
            px, py, r = rng.uniform(0, imgsz), rng.uniform(0, imgsz), rng.uniform(0.8, 2.0)
            m = (xx - px) ** 2 + (yy - py) ** 2 < r * r
            img[:, m] = rng.uniform(0.3, 1.0, size=(3, 1))
        while True:
            w, h = rng.uniform(0.25, 0.65) * imgsz, rng.uniform(0.25, 0.65) * imgsz
            cx, cy = rng.uniform(w / 2, imgsz - w / 2), rng.uniform(h / 2, imgsz - h / 2)
            dx, dy = (xx - cx) / (w / 2), (yy - cy) / (h / 2)
            c = cls[i]
            if c == 0:
                m = (np.abs(dx) <= 1) & (np.abs(dy) <= 1)
            elif c == 1:
                m = dx ** 2 + dy ** 2 <= 1
            elif c == 2:
                m = ((np.abs(dx) <= 1) & (np.abs(dy) <= 0.33)) | ((np.abs(dx) <= 0.33) & (np.abs(dy) <= 1))
            elif c == 3:
                m = (dx ** 2 + dy ** 2 <= 1) & (dx ** 2 + dy ** 2 >= 0.36)
            elif c == 4:
                m = (np.abs(dy) <= 1) & (np.abs(dx) <= (dy + 1) / 2)
            else:
                m = (np.abs(dx) <= 1) & (np.abs(dy) <= 1) & (np.abs(dx - dy) <= 0.5)
            if m.sum() >= 6:
                break
        img[:, m] = rng.uniform(0.55, 1.0, size=(3, 1))
        img += noise * rng.standard_normal(img.shape).astype(np.float32)
        cols, rows = np.where(m.any(0))[0], np.where(m.any(1))[0]
        boxes[i] = [cols.min(), rows.min(), cols.max() + 1, rows.max() + 1]
        imgs[i] = img
    return np.clip(imgs, 0, 1), boxes, cls.astype(np.int64)


def augment(imgs, boxes, args):
    imgs, boxes = imgs.clone(), boxes.clone()
    if args.fliplr > 0:
        f = torch.rand(len(imgs)) < args.fliplr
        imgs[f] = imgs[f].flip(-1)
        x1 = args.imgsz - boxes[f, 2]
        x2 = args.imgsz - boxes[f, 0]
        boxes[f, 0], boxes[f, 2] = x1, x2
    if args.hsv_v > 0:
        imgs = (imgs * (1 + args.hsv_v * (2 * torch.rand(len(imgs), 1, 1, 1) - 1))).clamp(0, 1)
    return imgs, boxes


# ------------------------------------------------------------------ model
class Conv(nn.Module):
    def __init__(self, c1, c2, k=3, s=1):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class ShapeDet(nn.Module):
    def __init__(self, nc, width=16, reg_max=16, imgsz=32):
        super().__init__()
        c = width
        self.backbone = nn.Sequential(Conv(3, c, 3, 2), Conv(c, 2 * c, 3, 2), Conv(2 * c, 2 * c, 3, 1),
                                      Conv(2 * c, 4 * c, 3, 2))
        self.neck = nn.Sequential(nn.Flatten(), nn.Linear(4 * c * (imgsz // 8) ** 2, 8 * c), nn.SiLU())
        self.cls = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * c, nc))
        self.box = nn.Linear(8 * c, 4 * reg_max)
        self.reg_max = reg_max

    def forward(self, x):
        x = self.backbone(x)
        return self.cls(x), self.box(self.neck(x)).view(-1, 4, self.reg_max)


def bbox_iou(b1, b2, GIoU=False, eps=1e-7):
    iw = (torch.min(b1[:, 2], b2[:, 2]) - torch.max(b1[:, 0], b2[:, 0])).clamp(0)
    ih = (torch.min(b1[:, 3], b2[:, 3]) - torch.max(b1[:, 1], b2[:, 1])).clamp(0)
    inter = iw * ih
    a1 = (b1[:, 2] - b1[:, 0]).clamp(0) * (b1[:, 3] - b1[:, 1]).clamp(0)
    a2 = (b2[:, 2] - b2[:, 0]).clamp(0) * (b2[:, 3] - b2[:, 1]).clamp(0)
    union = a1 + a2 - inter + eps
    iou = inter / union
    if GIoU:
        cw = torch.max(b1[:, 2], b2[:, 2]) - torch.min(b1[:, 0], b2[:, 0])
        ch = torch.max(b1[:, 3], b2[:, 3]) - torch.min(b1[:, 1], b2[:, 1])
        c_area = cw * ch + eps
        return iou - (c_area - union) / c_area
    return iou


class DetLoss:
    def __init__(self, args):
        self.args = args
        self.stride = args.imgsz / (args.reg_max - 1)
        self.proj = torch.arange(args.reg_max, dtype=torch.float32)

    def decode(self, box_logits):
        return (box_logits.softmax(-1) @ self.proj) * self.stride

    def __call__(self, preds, boxes, cls):
        cls_logits, box_logits = preds
        pbox = self.decode(box_logits)
        loss_box = (1.0 - bbox_iou(pbox, boxes, GIoU=True)).mean()
        loss_cls = F.cross_entropy(cls_logits, cls)
        t = (boxes / self.stride).clamp(0, self.args.reg_max - 1 - 0.01)
        tl = t.long()
        wl = tl + 1 - t
        lg = box_logits.reshape(-1, self.args.reg_max)
        loss_dfl = (F.cross_entropy(lg, tl.view(-1), reduction='none') * wl.view(-1) +
                    F.cross_entropy(lg, (tl + 1).view(-1), reduction='none') * (1 - wl).view(-1)).mean()
        loss = self.args.box * loss_box + self.args.cls * loss_cls + self.args.dfl * loss_dfl
        return loss, torch.stack([loss_box, loss_cls, loss_dfl]).detach()


# ------------------------------------------------------------------ metrics
def compute_ap(recall, precision):
    mrec = np.concatenate(([0.0], recall, [1.0]))
    mpre = np.concatenate(([1.0], precision, [0.0]))
    mpre = np.flip(np.maximum.accumulate(np.flip(mpre)))
    x = np.linspace(0, 1, 101)
    return np.trapezoid(np.interp(x, mrec, mpre), x)


def ap_per_class(tp, conf, pred_cls, target_cls, nc, eps=1e-16):
    i = np.argsort(-conf)
    tp, conf, pred_cls = tp[i], conf[i], pred_cls[i]
    px = np.linspace(0, 1, 1000)
    ap, p, r = np.zeros((nc, tp.shape[1])), np.zeros((nc, 1000)), np.zeros((nc, 1000))
    for ci in range(nc):
        i = pred_cls == ci
        n_l = (target_cls == ci).sum()
        if i.sum() == 0 or n_l == 0:
            continue
        fpc = (1 - tp[i]).cumsum(0)
        tpc = tp[i].cumsum(0)
        recall = tpc / (n_l + eps)
        r[ci] = np.interp(-px, -conf[i], recall[:, 0], left=0)
        precision = tpc / (tpc + fpc)
        p[ci] = np.interp(-px, -conf[i], precision[:, 0], left=1)
        for j in range(tp.shape[1]):
            ap[ci, j] = compute_ap(recall[:, j], precision[:, j])
    f1 = 2 * p * r / (p + r + eps)
    k = f1.mean(0).argmax()
    return p[:, k], r[:, k], ap


@torch.no_grad()
def validate(model, criterion, imgs, boxes, cls, args, final=False):
    model.eval()
    t0 = time.time()
    nb = math.ceil(len(imgs) / args.batch)
    loss_sum, confs, pcls, ious = torch.zeros(3), [], [], []
    for b in range(nb):
        sl = slice(b * args.batch, (b + 1) * args.batch)
        preds = model(imgs[sl])
        _, items = criterion(preds, boxes[sl], cls[sl])
        loss_sum += items * len(imgs[sl])
        prob = preds[0].softmax(-1)
        conf, pc = prob.max(-1)
        confs.append(conf)
        pcls.append(pc)
        ious.append(bbox_iou(criterion.decode(preds[1]), boxes[sl]))
    dt = time.time() - t0
    conf, pc, iou = torch.cat(confs).numpy(), torch.cat(pcls).numpy(), torch.cat(ious).numpy()
    iouv = np.linspace(0.5, 0.95, 10)
    tp = (iou[:, None] >= iouv[None]) & (pc == cls.numpy())[:, None]
    p, r, ap = ap_per_class(tp.astype(np.float64), conf, pc, cls.numpy(), args.nc)
    print(('%22s' + '%11s' * 6) % ('Class', 'Images', 'Instances', 'Box(P', 'R', 'mAP50', 'mAP50-95)') +
          f': 100%|██████████| {nb}/{nb} [00:00<00:00, {nb / max(dt, 1e-6):5.1f}it/s]')
    pf = '%22s' + '%11i' * 2 + '%11.3g' * 4
    print(pf % ('all', len(imgs), len(imgs), p.mean(), r.mean(), ap[:, 0].mean(), ap.mean()))
    if final:
        for c in range(args.nc):
            n = int((cls.numpy() == c).sum())
            print(pf % (NAMES[c], n, n, p[c], r[c], ap[c, 0], ap[c].mean()))
    model.train()
    return p.mean(), r.mean(), ap[:, 0].mean(), ap.mean(), loss_sum / len(imgs)


# ------------------------------------------------------------------ train
def build_optimizer(model, name, lr, momentum, decay):
    g = [], [], []
    bn = tuple(v for k, v in nn.__dict__.items() if 'Norm' in k)
    for module_name, module in model.named_modules():
        for param_name, param in module.named_parameters(recurse=False):
            if param_name == 'bias':
                g[2].append(param)
            elif isinstance(module, bn):
                g[1].append(param)
            else:
                g[0].append(param)
    if name in ('Adam', 'AdamW'):
        optimizer = getattr(torch.optim, name)(g[2], lr=lr, betas=(momentum, 0.999), weight_decay=0.0)
    elif name == 'SGD':
        optimizer = torch.optim.SGD(g[2], lr=lr, momentum=momentum, nesterov=True)
    else:
        raise NotImplementedError(name)
    optimizer.add_param_group({'params': g[0], 'weight_decay': decay})
    optimizer.add_param_group({'params': g[1], 'weight_decay': 0.0})
    print(f"optimizer: {type(optimizer).__name__}(lr={lr}, momentum={momentum}) with parameter groups "
          f"{len(g[1])} weight(decay=0.0), {len(g[0])} weight(decay={decay}), {len(g[2])} bias(decay=0.0)")
    return optimizer


def main():
    args = parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.save_dir, exist_ok=True)
    yaml_save(os.path.join(args.save_dir, 'args.yaml'), vars(args))
    print('trainer: ' + ', '.join(f'{k}={v}' for k, v in vars(args).items()))

    images, boxes, classes = make_shapes(args.images, args.imgsz, args.nc, args.seed, args.noise)
    perm = rng.permutation(len(images))
    n_val = int(len(images) * args.val_split)
    val_idx = perm[:n_val]
@@SPLIT@@
    train_idx = train_idx[:max(1, int(len(train_idx) * args.fraction))]
    tr_imgs, tr_boxes, tr_cls = (torch.from_numpy(a[train_idx]) for a in (images, boxes, classes))
    va_imgs, va_boxes, va_cls = (torch.from_numpy(a[val_idx]) for a in (images, boxes, classes))
    print(f'train: {len(tr_imgs)} images, {len(tr_imgs)} instances; val: {len(va_imgs)} images, {len(va_imgs)} instances')

    model = ShapeDet(args.nc, args.width, args.reg_max, args.imgsz)
    optimizer = build_optimizer(model, args.optimizer, args.lr0, args.momentum, args.weight_decay)
    lf = lambda x: max(1 - x / args.epochs, 0) * (1.0 - args.lrf) + args.lrf
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=lf)
@@AFTER_OPT@@
    n_params = sum(p.numel() for p in model.parameters())
    print(f'Model summary: {len(list(model.modules()))} layers, {n_params} parameters, {n_params} gradients')
    criterion = DetLoss(args)

    nb = math.ceil(len(tr_imgs) / args.batch)
    nw = max(round(args.warmup_epochs * nb), 100) if args.warmup_epochs > 0 else -1
    csv_path = os.path.join(args.save_dir, 'results.csv')
    if os.path.exists(csv_path):
        os.remove(csv_path)
    keys = ['train/box_loss', 'train/cls_loss', 'train/dfl_loss', 'metrics/precision(B)', 'metrics/recall(B)',
            'metrics/mAP50(B)', 'metrics/mAP50-95(B)', 'val/box_loss', 'val/cls_loss', 'val/dfl_loss',
            'lr/pg0', 'lr/pg1', 'lr/pg2']
    print(f'Image sizes {args.imgsz} train, {args.imgsz} val')
    print(f'Starting training for {args.epochs} epochs...')
    t_start = time.time()
    for epoch in range(args.epochs):
        model.train()
        print(('\n' + '%11s' * 7) % ('Epoch', 'GPU_mem', 'box_loss', 'cls_loss', 'dfl_loss', 'Instances', 'Size'))
        order = torch.randperm(len(tr_imgs))
        tloss = None
        t0 = time.time()
        for i in range(nb):
            ni = i + nb * epoch
            if ni <= nw:
                xi = [0, nw]
                for j, x in enumerate(optimizer.param_groups):
                    x['lr'] = np.interp(ni, xi, [args.warmup_bias_lr if j == 0 else 0.0, x['initial_lr'] * lf(epoch)])
                    if 'momentum' in x:
                        x['momentum'] = np.interp(ni, xi, [args.warmup_momentum, args.momentum])
            idx = order[i * args.batch:(i + 1) * args.batch]
            imgs, bxs = augment(tr_imgs[idx], tr_boxes[idx], args)
            loss, loss_items = criterion(model(imgs), bxs, tr_cls[idx])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=10.0)
            optimizer.step()
            optimizer.zero_grad()
            tloss = loss_items if tloss is None else (tloss * i + loss_items) / (i + 1)
        dt = time.time() - t0
        print(('%11s' * 2 + '%11.4g' * 5) % (f'{epoch + 1}/{args.epochs}', '0G', *tloss.tolist(), len(idx), args.imgsz) +
              f': 100%|██████████| {nb}/{nb} [{int(dt) // 60:02d}:{int(dt) % 60:02d}<00:00, {nb / dt:5.2f}it/s]')
        lr = [x['lr'] for x in optimizer.param_groups]
        scheduler.step()
        final = epoch == args.epochs - 1
        p, r, map50, map_, vloss = validate(model, criterion, va_imgs, va_boxes, va_cls, args, final=final)
        vals = [*tloss.tolist(), p, r, map50, map_, *vloss.tolist(), *lr]
        n = len(keys) + 1
        s = '' if os.path.exists(csv_path) else (('%23s,' * n % tuple(['epoch'] + keys)).rstrip(',') + '\n')
        with open(csv_path, 'a') as f:
            f.write(s + ('%23.5g,' * n % tuple([epoch + 1] + vals)).rstrip(',') + '\n')
    print(f'\n{args.epochs} epochs completed in {(time.time() - t_start) / 3600:.3f} hours.')
    print(f'Results saved to {args.save_dir}')


if __name__ == '__main__':
    main()
'''

# ----------------------------------------------------------------------------------------------
# Run definitions.  Every run is produced by rendering one of the two user scripts above with the
# run's settings (and, for code faults, the faulty code block), then executing it for real.
# ----------------------------------------------------------------------------------------------
import json
import os
import shutil
import subprocess
import sys
import time
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable

TIMM_BASE = OrderedDict([
    ('dataset', 'synth_digits'), ('model', 'tinycnn'), ('num_classes', 10), ('train_size', 3000),
    ('val_size', 1000), ('noise', 0.25), ('hidden', '256,256'), ('width', 32), ('drop', 0.0),
    ('opt', 'adamw'), ('lr', 0.001), ('momentum', 0.9), ('nesterov', False), ('weight_decay', 0.05),
    ('sched', 'cosine'), ('epochs', 30), ('warmup_epochs', 2), ('warmup_lr', 1e-05), ('min_lr', 1e-05),
    ('decay_epochs', 10), ('decay_rate', 0.1), ('batch_size', 64), ('validation_batch_size', 128),
    ('smoothing', 0.1), ('mixup', 0.0), ('cutmix', 0.0), ('amp', False), ('clip_grad', None),
    ('log_interval', 20), ('eval_metric', 'top1'), ('seed', 42), ('output', '.'),
])

YOLO_BASE = OrderedDict([
    ('task', 'detect'), ('mode', 'train'), ('model', 'shapedet-s'), ('data', 'shapes-synth'), ('nc', 4),
    ('epochs', 100), ('batch', 16), ('imgsz', 32), ('images', 1200), ('val_split', 0.2), ('fraction', 1.0),
    ('noise', 0.15), ('width', 16), ('reg_max', 16), ('optimizer', 'SGD'), ('lr0', 0.01), ('lrf', 0.01),
    ('momentum', 0.937), ('weight_decay', 0.0005), ('warmup_epochs', 3.0), ('warmup_momentum', 0.8),
    ('warmup_bias_lr', 0.1), ('box', 2.0), ('cls', 1.0), ('dfl', 0.5), ('hsv_v', 0.3), ('fliplr', 0.5),
    ('mosaic', 0.0), ('mixup', 0.0), ('seed', 0), ('deterministic', True), ('save_dir', '.'),
])

TIMM_BLOCKS = {
    'ARGS': None,
    'TRAIN_LABELS': '',
    'ZERO_GRAD': '        optimizer.zero_grad()',
    'SCHED_BATCH': '',
    'SCHED_EPOCH': '        lr_scheduler.step()',
    'EVAL_MODE': '    model.eval()',
}
YOLO_BLOCKS = {
    'ARGS': None,
    'SPLIT': '    train_idx = perm[n_val:]',
    'AFTER_OPT': '',
}

RUNS = [
    # ------------------------------------------------------------------ timm style
    dict(key='T_healthy', style='timm', truth='healthy', ship=True, log='train.log',
         args=dict(dataset='synth_digits', model='tinycnn', width=24, drop=0.1, opt='adamw', lr=0.002,
                   weight_decay=0.05, epochs=30, warmup_epochs=2, noise=0.1),
         symptom='Is this run ok? I just want a sanity check before I scale it up.',
         how='No fault: TinyCnn on synthetic 12x12 digits, AdamW 2e-3, cosine with 2 warm-up epochs.'),
    dict(key='T_lr_high', style='timm', truth='lr_too_high', ship=False, log='output.log',
         args=dict(dataset='textures16', model='mlp', hidden='256,256', opt='sgd', lr=0.3, momentum=0.9,
                   nesterov=True, weight_decay=0.0001, sched='cosine', epochs=20, warmup_epochs=0,
                   warmup_lr=0.0, min_lr=0.0, smoothing=0.0, train_size=3000, noise=0.6, batch_size=64),
         symptom='Accuracy was ~76% after the first epoch, then the loss shot back up and accuracy crashed to under 20%; it only crawls back up a bit at the very end.',
         how='SGD lr=0.3 with nesterov momentum 0.9 and no warm-up for a 256x256 MLP (lr 0.15 already trains cleanly to 93%).'),
    dict(key='T_label_noise', style='timm', truth='label_noise', ship=False, log='train.log',
         args=dict(dataset='tabular64', model='mlp', hidden='256,256', opt='adamw', lr=0.0002, weight_decay=0.0001,
                   sched='cosine', epochs=120, warmup_epochs=0, warmup_lr=0.0, min_lr=1e-05, smoothing=0.0,
                   train_size=4000, val_size=1000, noise=0.9, log_interval=20),
         label_noise=0.4,
         symptom="Train loss sits above 1.0 for the first 40 epochs and never gets below ~0.6, while val accuracy peaked around epoch 15 and has been sliding ever since.",
         how='40% of training labels replaced by uniformly random classes (val labels clean); MLP 256x256, AdamW 2e-4, 120 epochs.'),
    dict(key='T_no_zero_grad', style='timm', truth='missing_zero_grad', ship=True, log='train.log',
         args=dict(dataset='textures16', model='tinycnn', width=24, opt='sgd', lr=0.03, momentum=0.9,
                   weight_decay=0.0005, sched='cosine', epochs=25, warmup_epochs=3, warmup_lr=0.001,
                   smoothing=0.0, train_size=2000, noise=0.6),
         symptom='The first epoch looks fine (65% val acc), then the loss shoots up into the hundreds/thousands and accuracy drops to chance and never comes back.',
         how='optimizer.zero_grad() removed from the batch loop, so .grad accumulates across all steps.'),
    dict(key='T_eval_mode', style='timm', truth='eval_mode_forgotten', ship=True, log='train.log',
         args=dict(dataset='synth_digits', model='tinycnn', width=24, drop=0.3, opt='adamw', lr=0.001,
                   weight_decay=0.05, epochs=25, warmup_epochs=1, validation_batch_size=100, noise=0.1),
         symptom='Training loss goes down nicely but validation accuracy crawls up to only ~50% and the val loss stays far above the train loss.',
         how='validate() never calls model.eval(); with BatchNorm and dropout in train mode and a class-ordered val set (100 per class, val batch 100) every val batch is normalised with its own single-class statistics.'),
    dict(key='T_sched', style='timm', truth='lr_schedule_bug', ship=True, log='output.log',
         args=dict(dataset='textures16', model='resnet_tiny', width=8, opt='sgd', lr=0.05, momentum=0.9,
                   weight_decay=0.0005, sched='step', decay_epochs=10, decay_rate=0.5, epochs=40,
                   warmup_epochs=0, smoothing=0.0, train_size=2000, noise=0.9),
         symptom='Accuracy stops improving after 2 epochs and sits at ~45% for the remaining 38 epochs; the loss curve is completely flat after that.',
         how='StepLR(step_size=10, gamma=0.5) meant per epoch is stepped inside the batch loop (31 batches/epoch), so the lr halves every 10 batches and is ~0 after a few epochs.'),
    # ------------------------------------------------------------------ ultralytics style
    dict(key='Y_healthy_noisy', style='yolo', truth='healthy', ship=False, log='train.log',
         args=dict(nc=4, images=700, val_split=0.12, width=8, lr0=0.005, weight_decay=0.001, hsv_v=0.4, epochs=60,
                   batch=16, noise=0.3),
         symptom='mAP stays at 0 for the first few epochs, then climbs slowly and the val numbers zig-zag from epoch to epoch. Is this run ok?',
         how='No fault: width-8 detector, SGD lr0=0.005 (slow start), only 84 val images so P/R/mAP jitter, 60 epochs.'),
    dict(key='Y_lr_low', style='yolo', truth='lr_too_low', ship=False, log='train.log',
         args=dict(nc=5, images=800, width=16, lr0=0.0001, lrf=0.01, warmup_epochs=0.0, epochs=60, batch=32,
                   noise=0.15),
         symptom='After 60 epochs the losses have barely moved and mAP is still exactly zero.',
         how='SGD lr0=1e-4 with no warm-up (the other SGD runs here use 5e-3 to 2e-2).'),
    dict(key='Y_overfit', style='yolo', truth='overfitting', ship=False, log='train.log',
         args=dict(nc=6, images=700, val_split=0.25, fraction=0.57, width=32, optimizer='AdamW', lr0=0.001,
                   momentum=0.9, weight_decay=0.0, lrf=1.0, warmup_epochs=1.0, fliplr=0.0, hsv_v=0.0,
                   epochs=100, batch=16, noise=0.3),
         symptom='Train losses keep dropping to almost nothing, but the val losses started climbing after a while and mAP got worse the longer I trained.',
         how='Only 299 training images for 6 classes (fraction=0.57), width-32 model, AdamW without weight decay, no augmentation, constant lr, 100 epochs.'),
    dict(key='Y_leak', style='yolo', truth='data_leakage', ship=True, log='train.log',
         args=dict(nc=5, images=1000, val_split=0.2, width=24, optimizer='AdamW', lr0=0.001, momentum=0.9,
                   weight_decay=0.0005, warmup_epochs=1.0, epochs=40, batch=32, noise=0.35),
         blocks=dict(SPLIT='    train_idx = perm[:len(perm) - n_val]'),
         symptom='Validation looks too good to be true: precision and recall hit 1.000 after ~20 epochs and the val losses are lower than the train losses the whole time.',
         how='Split slices train_idx = perm[:N - n_val] while val_idx = perm[:n_val], so every val image is also a training image.'),
    dict(key='Y_frozen', style='yolo', truth='frozen_parameters', ship=True, log='train.log',
         args=dict(nc=4, images=1000, width=16, lr0=0.02, epochs=12, batch=16, noise=0.15),
         blocks=dict(AFTER_OPT='    model = ShapeDet(args.nc, args.width, args.reg_max, args.imgsz).to(\'cpu\')'),
         symptom='None of the losses go down at all, mAP stays near zero every epoch even though the lr schedule looks normal.',
         how='The model is re-instantiated after the optimizer was built, so the optimizer updates the orphaned first model and the trained/evaluated one never changes.'),
    dict(key='Y_small_batch', style='yolo', truth='batch_size_too_small', ship=False, log='train.log',
         args=dict(nc=4, images=400, val_split=0.2, width=16, lr0=0.02, epochs=20, batch=2, noise=0.15),
         symptom='Training is really jumpy: val mAP and val cls_loss swing up and down between epochs, especially in the first half.',
         how='batch=2 with BatchNorm layers and SGD lr0=0.02 (the other runs use 16-32).'),
]

# Neutral names, fixed shuffle.
ORDER = ['T_sched', 'Y_healthy_noisy', 'T_label_noise', 'Y_leak', 'T_healthy', 'Y_small_batch',
         'T_no_zero_grad', 'Y_overfit', 'T_lr_high', 'Y_frozen', 'T_eval_mode', 'Y_lr_low']
NAME = {k: f'run{i + 1:02d}' for i, k in enumerate(ORDER)}

LABEL_NOISE_CODE = '''    rng = np.random.default_rng(args.seed + 7)
    flip = rng.random(len(y_tr)) < {p}
    y_tr = y_tr.copy()
    y_tr[flip] = rng.integers(0, args.num_classes, size=int(flip.sum()))'''


def fmt_args(d):
    return '\n'.join(f'    ({k!r}, {v!r}),' for k, v in d.items())


def render(run):
    tmpl = (TIMM_TEMPLATE if run['style'] == 'timm' else YOLO_TEMPLATE).lstrip('\n')
    base = TIMM_BASE if run['style'] == 'timm' else YOLO_BASE
    blocks = dict(TIMM_BLOCKS if run['style'] == 'timm' else YOLO_BLOCKS)
    args = OrderedDict(base)
    for k, v in run['args'].items():
        assert k in args, k
        args[k] = v
    blocks['ARGS'] = fmt_args(args)
    if run['truth'] == 'missing_zero_grad':
        blocks['ZERO_GRAD'] = ''
    if run['truth'] == 'lr_schedule_bug':
        blocks['SCHED_BATCH'] = '        if lr_scheduler is not None:\n            lr_scheduler.step()'
        blocks['SCHED_EPOCH'] = ''
    if run['truth'] == 'eval_mode_forgotten':
        blocks['EVAL_MODE'] = ''
    if 'label_noise' in run:
        blocks['TRAIN_LABELS'] = LABEL_NOISE_CODE.format(p=run['label_noise'])
    blocks.update(run.get('blocks', {}))
    out = []
    for line in tmpl.split('\n'):
        s = line.strip()
        if s.startswith('@@') and s.endswith('@@'):
            code = blocks[s.strip('@')]
            if code:
                out.append(code)
        else:
            out.append(line)
    return '\n'.join(out)


def main():
    outdir = HERE
    only = sys.argv[1:]
    truth = {}
    tpath = os.path.join(outdir, 'truth.json')
    if only and os.path.exists(tpath):
        truth = json.load(open(tpath))
    for run in RUNS:
        name = NAME[run['key']]
        truth[name] = {'truth': run['truth'], 'symptom': run['symptom'], 'how': run['how']}
        if only and run['key'] not in only and name not in only:
            continue
        rdir = os.path.join(outdir, 'runs', name)
        shutil.rmtree(rdir, ignore_errors=True)
        os.makedirs(rdir)
        src = render(run)
        script = os.path.join(rdir, 'train.py')
        with open(script, 'w') as f:
            f.write(src)
        t0 = time.time()
        env = dict(os.environ, OMP_NUM_THREADS='1', MKL_NUM_THREADS='1', PYTHONHASHSEED='0')
        with open(os.path.join(rdir, run['log']), 'w') as logf:
            rc = subprocess.call([PY, 'train.py'], cwd=rdir, stdout=logf, stderr=subprocess.STDOUT, env=env)
        print(f"{name} {run['key']:16s} rc={rc} {time.time() - t0:5.1f}s", flush=True)
        if not run['ship']:
            os.remove(script)
        shutil.rmtree(os.path.join(rdir, '__pycache__'), ignore_errors=True)
    with open(tpath, 'w') as f:
        json.dump(dict(sorted(truth.items())), f, indent=2)


if __name__ == '__main__':
    main()
