import argparse
import logging
import os
import time
from datetime import datetime

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)

log = logging.getLogger('semantic_segmentation')


def setup_logging(log_dir, cfg_name):
    os.makedirs(log_dir, exist_ok=True)
    fmt = logging.Formatter('%(levelname)s - %(asctime)s - %(name)s - %(message)s')
    log_file = os.path.join(log_dir, 'log_train_' + datetime.now().strftime('%Y-%m-%d_%H-%M-%S') + '.txt')
    for h in (logging.StreamHandler(), logging.FileHandler(log_file)):
        h.setFormatter(fmt)
        log.addHandler(h)
    log.setLevel(logging.INFO)
    return log_file


class SiteTiles:
    def __init__(self, dataset_path, class_names, num_points, **kw):
        self.path = dataset_path
        self.class_names = class_names
        self.num_points = num_points

    def get_split(self, split):
        d = np.load(os.path.join(self.path, f'{split}.npz'))
        return d['points'], d['labels']


class PointNetSeg(nn.Module):
    def __init__(self, in_channels, num_classes, local_channels, global_channels, head_channels, **kw):
        super().__init__()

        def cbr(i, o):
            return nn.Sequential(nn.Conv1d(i, o, 1), nn.BatchNorm1d(o), nn.ReLU())
        self.local = cbr(in_channels, local_channels)
        g, c = [], local_channels
        for o in global_channels:
            g.append(cbr(c, o))
            c = o
        self.glob = nn.Sequential(*g)
        h, c = [], local_channels + global_channels[-1]
        for o in head_channels:
            h.append(cbr(c, o))
            c = o
        h.append(nn.Conv1d(c, num_classes, 1))
        self.head = nn.Sequential(*h)

    def forward(self, xyz):
        x = xyz.transpose(1, 2)
        f = self.local(x)
        g = self.glob(f).max(dim=2, keepdim=True).values.expand(-1, -1, x.shape[2])
        return self.head(torch.cat([f, g], 1))


class SemSegMetric:
    def __init__(self, num_classes):
        self.n = num_classes
        self.conf = np.zeros((num_classes, num_classes), np.int64)

    def update(self, pred, gt):
        self.conf += np.bincount(gt.ravel() * self.n + pred.ravel(), minlength=self.n ** 2).reshape(self.n, self.n)

    def acc(self):
        return np.diag(self.conf).sum() / max(self.conf.sum(), 1)

    def iou(self):
        inter = np.diag(self.conf)
        union = self.conf.sum(0) + self.conf.sum(1) - inter
        return inter / np.maximum(union, 1)


def run(args):
    cfg = yaml.safe_load(open(args.cfg_file))
    dcfg, mcfg, pcfg = cfg['dataset'], cfg['model'], cfg['pipeline']
    run_name = f"{mcfg['name']}_{dcfg['name']}_torch"
    log_file = setup_logging(os.path.join(pcfg['main_log_dir'], run_name), run_name)
    torch.manual_seed(pcfg['seed'])
    np.random.seed(pcfg['seed'])
    log.info('DEVICE : cpu')
    log.info(f'Logging in file : {log_file}')

    dataset = SiteTiles(**dcfg)
    train_xyz, train_lbl = dataset.get_split('train')
    val_xyz, val_lbl = dataset.get_split('val')
    log.info(f'Found {len(train_xyz)} pointclouds for train')
    log.info(f'Found {len(val_xyz)} pointclouds for validation')
    log.info(f'points per cloud: {train_xyz.shape[1]}, dtype: {train_xyz.dtype}, '
             f'xyz min: {np.round(train_xyz.reshape(-1, 3).min(0), 2).tolist()}, '
             f'xyz max: {np.round(train_xyz.reshape(-1, 3).max(0), 2).tolist()}')

    model = PointNetSeg(**mcfg)
    optimizer = torch.optim.Adam(model.parameters(), lr=pcfg['optimizer']['lr'],
                                 weight_decay=pcfg['optimizer']['weight_decay'])
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, pcfg['scheduler_gamma'])
    log.info('Initializing from scratch.')
    log.info(f"Writing summary in {pcfg['train_sum_dir']}/00001_{run_name}.")
    log.info('Started training')

    bs = pcfg['batch_size']
    names = dcfg['class_names']
    ckpt_dir = os.path.join(pcfg['main_log_dir'], run_name, 'checkpoint')
    os.makedirs(ckpt_dir, exist_ok=True)
    for epoch in range(pcfg['max_epoch'] + 1):
        log.info(f"=== EPOCH {epoch:d}/{pcfg['max_epoch']:d} ===")
        model.train()
        metric = SemSegMetric(len(names))
        losses = []
        perm = np.random.permutation(len(train_xyz))
        t0 = time.time()
        for i in range(0, len(perm) - bs + 1, bs):
            idx = perm[i:i + bs]
            xyz = torch.from_numpy(train_xyz[idx]).float()
            lbl = torch.from_numpy(train_lbl[idx]).long()
            logits = model(xyz)
            loss = F.cross_entropy(logits, lbl)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            metric.update(logits.argmax(1).numpy(), lbl.numpy())
        scheduler.step()
        t_train = time.time() - t0

        model.eval()
        vmetric = SemSegMetric(len(names))
        vlosses = []
        with torch.no_grad():
            for i in range(0, len(val_xyz), pcfg['val_batch_size']):
                xyz = torch.from_numpy(val_xyz[i:i + pcfg['val_batch_size']]).float()
                lbl = torch.from_numpy(val_lbl[i:i + pcfg['val_batch_size']]).long()
                logits = model(xyz)
                vlosses.append(F.cross_entropy(logits, lbl).item())
                vmetric.update(logits.argmax(1).numpy(), lbl.numpy())
        log.info(f'training: {len(perm) // bs} it, {t_train:.1f}s ({t_train / max(len(perm) // bs, 1):.3f} s/it)')
        log.info(f'Loss train: {np.mean(losses):.3f}  eval: {np.mean(vlosses):.3f}')
        log.info(f'Mean acc train: {metric.acc():.3f}  eval: {vmetric.acc():.3f}')
        log.info(f'Mean IoU train: {metric.iou().mean():.3f}  eval: {vmetric.iou().mean():.3f}')
        if epoch % pcfg['save_ckpt_freq'] == 0 and epoch > 0:
            path = os.path.join(ckpt_dir, f'ckpt_{epoch:05d}.pth')
            torch.save({'epoch': epoch, 'model_state_dict': model.state_dict()}, path)
            log.info(f'Epoch {epoch:3d}: save ckpt to {path}')

    iou = vmetric.iou()
    table = ['', '+------------+--------+', '| class      |  IoU   |', '+------------+--------+']
    for n, v in zip(names, iou):
        table.append(f'| {n:<10} | {v:6.4f} |')
    table += ['+------------+--------+', f"| {'mIoU':<10} | {iou.mean():6.4f} |", f"| {'OA':<10} | {vmetric.acc():6.4f} |",
              '+------------+--------+']
    log.info('Per-class IoU on validation split:' + '\n'.join(table))


if __name__ == '__main__':
    p = argparse.ArgumentParser()
    p.add_argument('--cfg_file', default='configs/pointnet_sitetiles.yml')
    run(p.parse_args())
