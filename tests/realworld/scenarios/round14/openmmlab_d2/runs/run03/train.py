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


SHAPE_NAMES = ['square', 'disk', 'cross']


def make_shapes(n, seed, size=24, noise=0.2):
    """One object per image: class in SHAPE_NAMES and its box (x1, y1, x2, y2) scaled to [0, 1]."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    X = rng.normal(0, noise, (n, 1, size, size)).astype(np.float32)
    cls = rng.integers(0, 3, size=n)
    boxes = np.zeros((n, 4), dtype=np.float32)
    for i in range(n):
        s = rng.integers(7, 15)
        x1, y1 = rng.integers(0, size - s + 1), rng.integers(0, size - s + 1)
        gain = rng.uniform(0.7, 1.0)
        if cls[i] == 0:
            m = (xx >= x1) & (xx < x1 + s) & (yy >= y1) & (yy < y1 + s)
        elif cls[i] == 1:
            c, r = (x1 + (s - 1) / 2, y1 + (s - 1) / 2), s / 2
            m = (xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= r * r
        else:
            t = max(2, s // 4)
            cx, cy = x1 + s // 2, y1 + s // 2
            m = (((xx >= x1) & (xx < x1 + s) & (abs(yy - cy) < t)) |
                 ((yy >= y1) & (yy < y1 + s) & (abs(xx - cx) < t)))
        X[i, 0][m] += gain
        boxes[i] = [x1 / size, y1 / size, (x1 + s) / size, (y1 + s) / size]
    return X, cls.astype(np.int64), boxes


def box_iou(a, b):
    ix1, iy1 = np.maximum(a[:, 0], b[:, 0]), np.maximum(a[:, 1], b[:, 1])
    ix2, iy2 = np.minimum(a[:, 2], b[:, 2]), np.minimum(a[:, 3], b[:, 3])
    inter = np.clip(ix2 - ix1, 0, None) * np.clip(iy2 - iy1, 0, None)
    area = lambda z: np.clip(z[:, 2] - z[:, 0], 0, None) * np.clip(z[:, 3] - z[:, 1], 0, None)
    return inter / (area(a) + area(b) - inter + 1e-9)


def det_map(scores, labels, boxes, gt_labels, gt_boxes, thrs=np.arange(0.5, 0.96, 0.05)):
    """COCO-style mAP for one object and one detection per image (101-point interpolation)."""
    pred = scores.argmax(1)
    conf = scores.max(1)
    iou = box_iou(boxes, gt_boxes)
    aps = []
    for t in thrs:
        per_cls = []
        for c in range(scores.shape[1]):
            sel = pred == c
            n_gt = int((gt_labels == c).sum())
            if n_gt == 0:
                continue
            order = np.argsort(-conf[sel])
            tp = ((gt_labels[sel] == c) & (iou[sel] >= t))[order].astype(np.float64)
            if len(tp) == 0:
                per_cls.append(0.0)
                continue
            ctp = np.cumsum(tp)
            rec = ctp / n_gt
            prec = ctp / np.arange(1, len(tp) + 1)
            prec = np.maximum.accumulate(prec[::-1])[::-1]
            pts = [prec[rec >= r].max() if (rec >= r).any() else 0.0 for r in np.linspace(0, 1, 101)]
            per_cls.append(float(np.mean(pts)))
        aps.append(np.mean(per_cls))
    return float(np.mean(aps)), float(aps[0]), float(aps[5])


class ToyDetector(nn.Module):
    def __init__(self, num_classes=3, width=16):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, 2 * width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(2 * width, 2 * width, 3, padding=1), nn.ReLU())
        self.neck = nn.Sequential(nn.Flatten(), nn.Linear(2 * width * 36, 128), nn.ReLU())
        self.cls_score = nn.Linear(128, num_classes)
        self.bbox_pred = nn.Linear(128, 4)

    def forward(self, x):
        h = self.neck(self.backbone(x))
        return self.cls_score(h), self.bbox_pred(h)


def main():
    cfg_path = sys.argv[1] if len(sys.argv) > 1 else 'toydet_shapes_1x.py'
    cfg = load_config(cfg_path)
    torch.set_num_threads(1)
    seed = cfg['randomness']['seed']
    torch.manual_seed(seed)
    np.random.seed(seed)
    log = MMStyleLog(cfg['work_dir'], cfg_path)
    log.header(seed)

    tr, va = cfg['train_dataloader'], cfg['val_dataloader']
    X, y, B = make_shapes(tr['dataset']['num_images'], seed)
    Xv, yv, Bv = make_shapes(va['dataset']['num_images'], seed + 1)
    train_loader = DataLoader(TensorDataset(*map(torch.from_numpy, (X, y, B))), batch_size=tr['batch_size'],
                              shuffle=True, generator=torch.Generator().manual_seed(seed))
    val_loader = DataLoader(TensorDataset(*map(torch.from_numpy, (Xv, yv, Bv))), batch_size=va['batch_size'])

    model = ToyDetector(cfg['model']['bbox_head']['num_classes'], cfg['model']['backbone']['width'])
    o = dict(cfg['optim_wrapper']['optimizer'])
    o.pop('type')
    base_lr = o['lr']
    optimizer = torch.optim.SGD(model.parameters(), **o)
    max_epochs = cfg['train_cfg']['max_epochs']
    n_iter = len(train_loader)
    interval = cfg['default_hooks']['logger']['interval']
    log.info('Distributed training is not used, all SyncBatchNorm (SyncBN) layers in the model will be '
             'automatically reverted to BatchNormXd layers if they are used.')
    log.info(f'Checkpoints will be saved to {os.path.abspath(cfg["work_dir"])}.')

    step, hist = 0, []
    for epoch in range(1, max_epochs + 1):
        model.train()
        t_end = time.perf_counter()
        for i, (xb, yb, bb) in enumerate(train_loader):
            t_data = time.perf_counter()
            lr = base_lr * lr_factor(cfg['param_scheduler'], step, epoch - 1, n_iter)
            for group in optimizer.param_groups:
                group['lr'] = lr
            cls_score, bbox_pred = model(xb)
            loss_cls = F.cross_entropy(cls_score, yb)
            loss_bbox = F.l1_loss(bbox_pred, bb, reduction='sum') / len(yb)
            loss = loss_cls + loss_bbox
            acc = 100.0 * (cls_score.argmax(1) == yb).float().mean().item()
            loss.backward()
            grad_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None])).item()
            optimizer.step()
            step += 1
            now = time.perf_counter()
            hist.append((now - t_end, t_data - t_end, grad_norm, loss.item(), loss_cls.item(), acc, loss_bbox.item()))
            t_end = now
            if (i + 1) % interval == 0 or i + 1 == n_iter:
                w = np.array(hist[-((i % interval) + 1):])
                eta = (max_epochs * n_iter - step) * np.mean([x[0] for x in hist[-100:]])
                m = w.mean(0)
                log.train(epoch, max_epochs, i + 1, n_iter, step, base_lr, lr, eta, m[0], m[1],
                          {'grad_norm': m[2], 'loss': m[3], 'loss_cls': m[4], 'acc': m[5], 'loss_bbox': m[6]})
        log.info(f'Exp name: {log.exp_name}')
        log.info(f'Saving checkpoint at {epoch} epochs')
        model.eval()
        t0 = time.perf_counter()
        scores, boxes = [], []
        with torch.no_grad():
            for j, (xb, yb, bb) in enumerate(val_loader):
                s, b = model(xb)
                scores.append(torch.softmax(s, 1))
                boxes.append(b)
                if j + 1 == 4:
                    el = (time.perf_counter() - t0) / 4
                    log.val_progress(epoch, max_epochs, j + 1, len(val_loader), el * (len(val_loader) - 4), el, el * 0.1)
        el = (time.perf_counter() - t0) / len(val_loader)
        scores, boxes = torch.cat(scores).numpy(), torch.cat(boxes).numpy()
        ap, ap50, ap75 = det_map(scores, None, boxes, yv, Bv)
        log.info('Evaluating bbox...')
        log.info(f'bbox_mAP_copypaste: {ap:.3f} {ap50:.3f} {ap75:.3f} -1.000 -1.000 -1.000')
        log.val(epoch, max_epochs, len(val_loader),
                {'toy/bbox_mAP': ap, 'toy/bbox_mAP_50': ap50, 'toy/bbox_mAP_75': ap75}, el, el * 0.1)


if __name__ == '__main__':
    main()
