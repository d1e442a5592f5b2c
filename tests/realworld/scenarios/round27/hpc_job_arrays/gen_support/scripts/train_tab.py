import argparse, math, time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--shard", required=True)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--epochs", type=int, default=3)
p.add_argument("--batch-size", type=int, default=64)
args = p.parse_args()
torch.manual_seed(0)

d = np.load(args.shard)
X, y = d["x"].astype(np.float32), d["y"].astype(np.float32)
mu, sd = np.nanmean(X, 0), np.nanstd(X, 0)
X = (X - mu) / sd
n_val = len(X) // 10
Xtr, ytr, Xva, yva = X[n_val:], y[n_val:], X[:n_val], y[:n_val]
print(f"shard {args.shard}: train {len(Xtr)} val {len(Xva)} features {X.shape[1]}", flush=True)

loader = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)),
                    batch_size=args.batch_size, shuffle=True,
                    generator=torch.Generator().manual_seed(0))
model = nn.Sequential(nn.Linear(X.shape[1], 128), nn.GELU(), nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 1))
opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-2)
crit = nn.BCEWithLogitsLoss()
step = 0
for epoch in range(args.epochs):
    model.train()
    for xb, yb in loader:
        loss = crit(model(xb).squeeze(1), yb)
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        opt.step()
        if step % 10 == 0:
            print(f"ep {epoch} step {step:5d} loss {loss.item():.4f} grad_norm {gn.item():.3f}", flush=True)
        step += 1
    model.eval()
    with torch.no_grad():
        lo = model(torch.from_numpy(Xva)).squeeze(1)
        vl = crit(lo, torch.from_numpy(yva)).item()
        acc = ((lo > 0).float() == torch.from_numpy(yva)).float().mean().item()
    print(f"== epoch {epoch} done: val_loss {vl:.4f} val_acc {acc:.4f}", flush=True)
