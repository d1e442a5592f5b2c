import csv
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)

CFG = dict(
    data_dir='data/parts_pc',
    num_points=256,
    batch_size=32,
    epochs=25,
    lr=2e-3,
    weight_decay=1e-4,
    dropout=0.5,
    seed=42,
    out_dir='outputs/pn_parts',
)


class PartsPointClouds(Dataset):
    def __init__(self, path, num_points, augment=False):
        d = np.load(path)
        self.points = d['points']
        self.labels = d['labels']
        self.class_names = [str(c) for c in d['class_names']]
        self.num_points = num_points
        self.augment = augment

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        pts = self.points[i]
        if self.augment:
            pts = pts[np.random.choice(len(pts), self.num_points, replace=False)]
            a = np.random.uniform(0, 2 * np.pi)
            R = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
            pts = pts @ R.T * np.random.uniform(0.85, 1.15)
        else:
            pts = pts[:self.num_points]
        pts = pts - pts.mean(0)
        pts = pts / np.linalg.norm(pts, axis=1).max()
        return torch.tensor(pts.T, dtype=torch.float32), int(self.labels[i])


class PointNet(nn.Module):
    def __init__(self, num_classes, dropout=0.5):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv1d(3, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, 128, 1), nn.BatchNorm1d(128), nn.ReLU(),
            nn.Conv1d(128, 256, 1), nn.BatchNorm1d(256), nn.ReLU())
        self.head = nn.Sequential(
            nn.Linear(256, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(128, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(64, num_classes))

    def forward(self, x):
        return self.head(self.encoder(x).max(dim=2).values)


def run_epoch(model, loader, optimizer=None):
    total_loss, correct, n = 0.0, 0, 0
    for x, y in loader:
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        if optimizer is not None:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        total_loss += loss.item() * len(y)
        correct += (logits.argmax(1) == y).sum().item()
        n += len(y)
    return total_loss / n, correct / n


def main():
    torch.manual_seed(CFG['seed'])
    np.random.seed(CFG['seed'])
    os.makedirs(CFG['out_dir'], exist_ok=True)
    train_set = PartsPointClouds(os.path.join(CFG['data_dir'], 'train.npz'), CFG['num_points'], augment=True)
    test_set = PartsPointClouds(os.path.join(CFG['data_dir'], 'test.npz'), CFG['num_points'])
    train_loader = DataLoader(train_set, batch_size=CFG['batch_size'], shuffle=True, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=CFG['batch_size'], shuffle=False)
    print(f"train: {len(train_set)} clouds, test: {len(test_set)} clouds, classes: {train_set.class_names}")

    model = PointNet(len(train_set.class_names), CFG['dropout'])
    optimizer = torch.optim.AdamW(model.parameters(), lr=CFG['lr'], weight_decay=CFG['weight_decay'])
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=CFG['epochs'])

    with open(os.path.join(CFG['out_dir'], 'config.json'), 'w') as f:
        json.dump(CFG, f, indent=2)
    log = open(os.path.join(CFG['out_dir'], 'train.log'), 'w')
    rows = []
    best = 0.0
    for epoch in range(1, CFG['epochs'] + 1):
        t0 = time.time()
        model.train()
        train_loss, train_acc = run_epoch(model, train_loader, optimizer)
        scheduler.step()
        with torch.no_grad():
            test_loss, test_acc = run_epoch(model, test_loader)
        dt = time.time() - t0
        msg = (f"epoch {epoch:03d} | lr {scheduler.get_last_lr()[0]:.2e} | train_loss {train_loss:.4f} train_acc {train_acc:.4f} "
               f"| test_loss {test_loss:.4f} test_acc {test_acc:.4f} | {dt:.1f}s")
        print(msg)
        log.write(msg + '\n')
        log.flush()
        rows.append(dict(epoch=epoch, lr=scheduler.get_last_lr()[0], train_loss=train_loss, train_acc=train_acc,
                         test_loss=test_loss, test_acc=test_acc))
        if test_acc > best:
            best = test_acc
            torch.save(model.state_dict(), os.path.join(CFG['out_dir'], 'best.pt'))
    with open(os.path.join(CFG['out_dir'], 'metrics.csv'), 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    msg = f"best test_acc {best:.4f}"
    print(msg)
    log.write(msg + '\n')
    log.close()


if __name__ == '__main__':
    main()
