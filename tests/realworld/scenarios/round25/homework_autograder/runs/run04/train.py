# HW4 - tabular classifier (StudentOutcome)
# python train.py --lr 1e-3
import argparse

import numpy as np
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--batch-size", type=int, default=32)
args = parser.parse_args()

torch.manual_seed(0)

# ---- data ----
raw = np.genfromtxt("data/train.csv", delimiter=",", skip_header=1)
X = raw[:, :-1]
y = raw[:, -1].astype(np.int64)

# scale every column to [-1, 1]
col_max = np.nanmax(np.abs(X), axis=0)
X = X / col_max
np.save("col_max.npy", col_max)

X = torch.tensor(X, dtype=torch.float32)
y = torch.tensor(y)
print(f"loaded {len(X)} rows, {X.shape[1]} features, {len(torch.unique(y))} classes")

# ---- model ----
model = nn.Sequential(
    nn.Linear(12, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 3),
)
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
loss_fn = nn.CrossEntropyLoss()

# ---- train ----
n = len(X)
step = 0
for epoch in range(args.epochs):
    perm = torch.randperm(n)
    for i in range(0, n, args.batch_size):
        idx = perm[i:i + args.batch_size]
        logits = model(X[idx])
        loss = loss_fn(logits, y[idx])
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        opt.step()
        print(f"epoch {epoch} step {step:4d} | loss {loss.item():.4f} | grad_norm {gn.item():.3f} | lr {args.lr:g}")
        step += 1

torch.save(model.state_dict(), "model.pt")
print("done, saved model.pt")
