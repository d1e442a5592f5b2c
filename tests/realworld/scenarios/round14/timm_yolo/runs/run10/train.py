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
    ('task', 'detect'),
    ('mode', 'train'),
    ('model', 'shapedet-s'),
    ('data', 'shapes-synth'),
    ('nc', 4),
    ('epochs', 12),
    ('batch', 16),
    ('imgsz', 32),
    ('images', 1000),
    ('val_split', 0.2),
    ('fraction', 1.0),
    ('noise', 0.15),
    ('width', 16),
    ('reg_max', 16),
    ('optimizer', 'SGD'),
    ('lr0', 0.02),
    ('lrf', 0.01),
    ('momentum', 0.937),
    ('weight_decay', 0.0005),
    ('warmup_epochs', 3.0),
    ('warmup_momentum', 0.8),
    ('warmup_bias_lr', 0.1),
    ('box', 2.0),
    ('cls', 1.0),
    ('dfl', 0.5),
    ('hsv_v', 0.3),
    ('fliplr', 0.5),
    ('mosaic', 0.0),
    ('mixup', 0.0),
    ('seed', 0),
    ('deterministic', True),
    ('save_dir', '.'),
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
    train_idx = perm[n_val:]
    train_idx = train_idx[:max(1, int(len(train_idx) * args.fraction))]
    tr_imgs, tr_boxes, tr_cls = (torch.from_numpy(a[train_idx]) for a in (images, boxes, classes))
    va_imgs, va_boxes, va_cls = (torch.from_numpy(a[val_idx]) for a in (images, boxes, classes))
    print(f'train: {len(tr_imgs)} images, {len(tr_imgs)} instances; val: {len(va_imgs)} images, {len(va_imgs)} instances')

    model = ShapeDet(args.nc, args.width, args.reg_max, args.imgsz)
    optimizer = build_optimizer(model, args.optimizer, args.lr0, args.momentum, args.weight_decay)
    lf = lambda x: max(1 - x / args.epochs, 0) * (1.0 - args.lrf) + args.lrf
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=lf)
    model = ShapeDet(args.nc, args.width, args.reg_max, args.imgsz).to('cpu')
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
