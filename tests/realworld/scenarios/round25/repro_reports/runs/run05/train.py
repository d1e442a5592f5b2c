import argparse
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class AsymmetricFocalLoss(nn.Module):
    """Eq. (4) of the paper: separate focusing for positives and negatives."""

    def __init__(self, gamma_pos=0.0, gamma_neg=4.0):
        super().__init__()
        self.gamma_pos = gamma_pos
        self.gamma_neg = gamma_neg

    def forward(self, logits, targets):
        p = torch.sigmoid(logits)
        loss_pos = targets * (1 - p) ** self.gamma_pos * torch.log(p)
        loss_neg = (1 - targets) * p ** self.gamma_neg * torch.log(1 - p)
        return -(loss_pos + loss_neg).sum(dim=1).mean()


def mean_ap(scores, targets):
    aps = []
    for j in range(targets.shape[1]):
        s, t = scores[:, j], targets[:, j]
        if t.sum() == 0:
            continue
        t = t[np.argsort(-s, kind='stable')]
        prec = np.cumsum(t) / np.arange(1, len(t) + 1)
        aps.append((prec * t).sum() / t.sum())
    return 100.0 * float(np.mean(aps))


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--data', default='data/ml12')
    p.add_argument('--epochs', type=int, default=20)
    p.add_argument('--bs', type=int, default=64)
    p.add_argument('--lr', type=float, default=1e-3)
    p.add_argument('--hidden', type=int, default=256)
    p.add_argument('--gamma_pos', type=float, default=0.0)
    p.add_argument('--gamma_neg', type=float, default=4.0)
    p.add_argument('--clip', type=float, default=10.0)
    p.add_argument('--print_freq', type=int, default=50)
    p.add_argument('--seed', type=int, default=1)
    args = p.parse_args()
    torch.manual_seed(args.seed)

    xtr = np.load(os.path.join(args.data, 'train_x.npy'))
    ytr = np.load(os.path.join(args.data, 'train_y.npy'))
    xva = np.load(os.path.join(args.data, 'val_x.npy'))
    yva = np.load(os.path.join(args.data, 'val_y.npy'))
    print(f'train x {xtr.shape} min {xtr.min():.3f} max {xtr.max():.3f} nan {np.isnan(xtr).any()} inf {np.isinf(xtr).any()}')
    print(f'train y {ytr.shape} labels/img {ytr.sum(1).mean():.2f} pos rate {ytr.mean():.3f} nan {np.isnan(ytr).any()}')
    print(f'val   x {xva.shape} y {yva.shape}')

    loader = DataLoader(TensorDataset(torch.from_numpy(xtr), torch.from_numpy(ytr)),
                        batch_size=args.bs, shuffle=True, drop_last=True)
    d, L = xtr.shape[1], ytr.shape[1]
    model = nn.Sequential(nn.Linear(d, args.hidden), nn.ReLU(),
                          nn.Linear(args.hidden, args.hidden), nn.ReLU(),
                          nn.Linear(args.hidden, L))
    criterion = AsymmetricFocalLoss(args.gamma_pos, args.gamma_neg)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    step = 0
    for epoch in range(args.epochs):
        model.train()
        t0 = time.time()
        for x, y in loader:
            loss = criterion(model(x), y)
            if not math.isfinite(loss.item()):
                print(f'Loss is {loss.item()}, stopping training')
                sys.exit(1)
            optimizer.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            optimizer.step()
            step += 1
            if step % args.print_freq == 0:
                print(f'[ep {epoch}][step {step}] loss {loss.item():.4f} grad_norm {gn.item():.3f} '
                      f'lr {optimizer.param_groups[0]["lr"]:.1e}')
        model.eval()
        with torch.no_grad():
            scores = torch.sigmoid(model(torch.from_numpy(xva))).numpy()
        print(f'== epoch {epoch} done in {time.time() - t0:.1f}s  val mAP {mean_ap(scores, yva):.2f}')


if __name__ == '__main__':
    main()
