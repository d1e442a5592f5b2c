# train.py -- sensor classifier with input-noise augmentation
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from data import load_split


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True)
    ap.add_argument("--dropout", type=float, default=0.3)
    ap.add_argument("--noise-std", type=float, default=0.3)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--lr", type=float, default=0.001)
    args = ap.parse_args()
    torch.manual_seed(0)

    Xtr, ytr = load_split("train")      # already standardised
    Xva, yva = load_split("val")
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True)
    model = nn.Sequential(nn.Linear(Xtr.shape[1], 64), nn.ReLU(), nn.Dropout(args.dropout),
                          nn.Linear(64, 64), nn.ReLU(), nn.Dropout(args.dropout),
                          nn.Linear(64, int(ytr.max()) + 1))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    crit = nn.CrossEntropyLoss()

    for epoch in range(1, args.epochs + 1):
        model.train()
        tl, tc, n = 0.0, 0, 0
        for xb, yb in loader:
            if args.noise_std > 0:
                xb = xb + args.noise_std * torch.randn_like(xb)
            opt.zero_grad()
            out = model(xb)
            loss = crit(out, yb)
            loss.backward()
            opt.step()
            tl += loss.item() * len(yb)
            tc += (out.argmax(1) == yb).sum().item()
            n += len(yb)
        model.eval()
        with torch.no_grad():
            vo = model(Xva)
            vl = crit(vo, yva).item()
            va = (vo.argmax(1) == yva).float().mean().item()
        print(f"{args.run},{epoch},{tl / n:.4f},{tc / n:.4f},{vl:.4f},{va:.4f}")


if __name__ == "__main__":
    main()
