import argparse
import json

import numpy as np
import torch
import torch.nn as nn


class GatedBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 2 * width)
        self.fc2 = nn.Linear(width, width)

    def forward(self, x):
        a, g = self.fc1(self.norm(x)).chunk(2, dim=-1)
        return x + self.fc2(a * torch.sigmoid(g))


class GatedMLP(nn.Module):
    def __init__(self, d_in=32, width=128, depth=3, num_classes=10):
        super().__init__()
        self.stem = nn.Linear(d_in, width)
        self.blocks = nn.Sequential(*[GatedBlock(width) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.head(self.norm(self.blocks(self.stem(x))))


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--checkpoint', required=True)
    p.add_argument('--data', default='data/blobs32/test.npz')
    p.add_argument('--stats', default='data/blobs32/stats.json')
    p.add_argument('--batch_size', type=int, default=256)
    args = p.parse_args()

    model = GatedMLP()
    ckpt = torch.load(args.checkpoint, map_location='cpu')
    print(f"=> loaded checkpoint '{args.checkpoint}' (epoch {ckpt['epoch']}, best_acc1 {ckpt['best_acc1']:.2f})")
    model.load_state_dict(ckpt['state_dict'], strict=False)
    model.eval()

    with open(args.stats) as f:
        stats = json.load(f)
    mean, std = torch.tensor(stats['mean']), torch.tensor(stats['std'])
    d = np.load(args.data)
    x = (torch.from_numpy(d['x']) - mean) / std
    y = torch.from_numpy(d['y'])

    n_batches = (len(x) + args.batch_size - 1) // args.batch_size
    c1 = c5 = 0
    with torch.no_grad():
        for b in range(n_batches):
            xb = x[b * args.batch_size:(b + 1) * args.batch_size]
            yb = y[b * args.batch_size:(b + 1) * args.batch_size]
            top5 = model(xb).topk(5, dim=1).indices
            b1 = (top5[:, 0] == yb).sum().item()
            b5 = (top5 == yb[:, None]).any(dim=1).sum().item()
            c1 += b1
            c5 += b5
            if b % 2 == 0:
                print(f'Test: [{b:>2}/{n_batches}]\tAcc@1 {100.0 * b1 / len(yb):6.2f}\tAcc@5 {100.0 * b5 / len(yb):6.2f}')
    print(f' * Acc@1 {100.0 * c1 / len(x):.3f} Acc@5 {100.0 * c5 / len(x):.3f}')


if __name__ == '__main__':
    main()
