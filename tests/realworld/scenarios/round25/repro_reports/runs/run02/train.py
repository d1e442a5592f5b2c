"""Minimal re-implementation of the ProtoMix training loop (no apex / no Trainer class)."""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class ResMLP(nn.Module):
    def __init__(self, d_in, width, depth, n_classes):
        super().__init__()
        self.stem = nn.Linear(d_in, width)
        self.blocks = nn.ModuleList([
            nn.Sequential(nn.LayerNorm(width), nn.Linear(width, width), nn.GELU(), nn.Linear(width, width))
            for _ in range(depth)
        ])
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, n_classes)

    def forward(self, x):
        h = self.stem(x)
        for blk in self.blocks:
            h = h + blk(h)
        return self.head(self.norm(h))


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument('--data_dir', default='data/blobs32')
    p.add_argument('--epochs', type=int, default=40)
    p.add_argument('--batch_size', type=int, default=128)
    p.add_argument('--lr', type=float, default=0.1)
    p.add_argument('--momentum', type=float, default=0.9)
    p.add_argument('--wd', type=float, default=5e-4)
    p.add_argument('--milestones', type=int, nargs='+', default=[20, 30])
    p.add_argument('--width', type=int, default=128)
    p.add_argument('--depth', type=int, default=2)
    p.add_argument('--seed', type=int, default=0)
    return p.parse_args()


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    for x, y in loader:
        out = model(x)
        tot += F.cross_entropy(out, y, reduction='sum').item()
        correct += (out.argmax(1) == y).sum().item()
        n += len(y)
    return tot / n, 100.0 * correct / n


def main():
    args = get_args()
    print(args)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)

    xtr = torch.from_numpy(np.load(os.path.join(args.data_dir, 'train_x.npy')))
    ytr = torch.from_numpy(np.load(os.path.join(args.data_dir, 'train_y.npy')))
    xte = torch.from_numpy(np.load(os.path.join(args.data_dir, 'test_x.npy')))
    yte = torch.from_numpy(np.load(os.path.join(args.data_dir, 'test_y.npy')))
    print(f'train {tuple(xtr.shape)}  test {tuple(xte.shape)}  classes {int(ytr.max()) + 1}')

    train_loader = DataLoader(TensorDataset(xtr, ytr), batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(TensorDataset(xte, yte), batch_size=512)

    model = ResMLP(xtr.shape[1], args.width, args.depth, int(ytr.max()) + 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                                weight_decay=args.wd)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=args.milestones, gamma=0.1)

    best = 0.0
    for epoch in range(args.epochs):
        model.train()
        t0 = time.time()
        tot, correct, n = 0.0, 0, 0
        for x, y in train_loader:
            out = model(x)
            loss = F.cross_entropy(out, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            tot += loss.item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            n += len(y)
        test_loss, test_acc = evaluate(model, test_loader)
        best = max(best, test_acc)
        print(f'Epoch [{epoch + 1}/{args.epochs}] lr {optimizer.param_groups[0]["lr"]:.5f} '
              f'loss {tot / n:.4f} train_acc {100.0 * correct / n:.2f} '
              f'test_loss {test_loss:.4f} test_acc {test_acc:.2f} ({time.time() - t0:.1f}s)')
    print(f'best test_acc {best:.2f}  final test_acc {test_acc:.2f}')


if __name__ == '__main__':
    main()
