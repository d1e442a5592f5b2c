"""Linear evaluation of a pretrained ClusterPred encoder (frozen backbone, linear head)."""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, d_in=32, width=256, feat_dim=128, n_clusters=30):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Linear(d_in, width), nn.ReLU(),
            nn.Linear(width, width), nn.ReLU(),
            nn.Linear(width, feat_dim))
        self.fc = nn.Linear(feat_dim, n_clusters)

    def forward(self, x):
        return self.fc(F.relu(self.backbone(x)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--pretrained', default='checkpoints/clusterpred_ep100.pth')
    p.add_argument('--data', default='data/blobs32_labelled')
    p.add_argument('--num_classes', type=int, default=10)
    p.add_argument('--epochs', type=int, default=30)
    p.add_argument('--batch_size', type=int, default=256)
    p.add_argument('--lr', type=float, default=0.1)
    p.add_argument('--seed', type=int, default=0)
    args = p.parse_args()
    torch.manual_seed(args.seed)

    model = Encoder()
    state = torch.load(args.pretrained, map_location='cpu')
    msg = model.load_state_dict(state['model'])
    print(f'loaded {args.pretrained} (epoch {state["epoch"]}): {msg}')

    for name, param in model.named_parameters():
        if not name.startswith('fc.'):
            param.requires_grad = False
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=args.lr, momentum=0.9, weight_decay=0.0)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    # new linear head for the downstream classes
    model.fc = nn.Linear(model.fc.in_features, args.num_classes)

    xtr = torch.from_numpy(np.load(os.path.join(args.data, 'train_x.npy')))
    ytr = torch.from_numpy(np.load(os.path.join(args.data, 'train_y.npy')))
    xva = torch.from_numpy(np.load(os.path.join(args.data, 'val_x.npy')))
    yva = torch.from_numpy(np.load(os.path.join(args.data, 'val_y.npy')))
    n_trainable = sum(p.numel() for p in params)
    print(f'train {len(xtr)} / val {len(xva)} | trainable params: {n_trainable}')

    for epoch in range(args.epochs):
        model.train()
        t0 = time.time()
        perm = torch.randperm(len(xtr))
        tot, correct = 0.0, 0
        for i in range(0, len(xtr), args.batch_size):
            idx = perm[i:i + args.batch_size]
            out = model(xtr[idx])
            loss = F.cross_entropy(out, ytr[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            tot += loss.item() * len(idx)
            correct += (out.argmax(1) == ytr[idx]).sum().item()
        scheduler.step()
        model.eval()
        with torch.no_grad():
            val_acc = 100.0 * (model(xva).argmax(1) == yva).float().mean().item()
        print(f'[probe] epoch {epoch + 1:>2}/{args.epochs}  lr {scheduler.get_last_lr()[0]:.4f}  '
              f'loss {tot / len(xtr):.4f}  train_acc {100.0 * correct / len(xtr):.2f}  '
              f'val_acc {val_acc:.2f}  ({time.time() - t0:.2f}s)')


if __name__ == '__main__':
    main()
