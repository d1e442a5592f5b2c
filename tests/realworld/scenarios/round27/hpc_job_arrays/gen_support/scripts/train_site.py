import argparse
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

p = argparse.ArgumentParser()
p.add_argument("--csv", required=True)
p.add_argument("--epochs", type=int, default=5)
args = p.parse_args()
torch.manual_seed(0)

raw = np.loadtxt(args.csv, delimiter=",", skiprows=1)
X = torch.tensor(raw[:, :-1], dtype=torch.float32)
y = torch.tensor(raw[:, -1], dtype=torch.long)
num_classes = len(np.unique(raw[:, -1]))
print(f"loaded {args.csv}: {X.shape[0]} rows, {X.shape[1]} features, {num_classes} classes", flush=True)
X = (X - X.mean(0)) / X.std(0)
n_val = len(X) // 5
model = nn.Sequential(nn.Linear(X.shape[1], 96), nn.ReLU(), nn.Linear(96, num_classes))
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for epoch in range(args.epochs):
    perm = torch.randperm(len(X) - n_val) + n_val
    for i in range(0, len(perm), 64):
        idx = perm[i:i + 64]
        loss = F.cross_entropy(model(X[idx]), y[idx])
        opt.zero_grad(); loss.backward(); opt.step()
    with torch.no_grad():
        acc = (model(X[:n_val]).argmax(1) == y[:n_val]).float().mean().item()
    print(f"epoch {epoch+1}/{args.epochs} train_loss {loss.item():.4f} val_acc {acc:.4f}", flush=True)
torch.save(model.state_dict(), args.csv.replace(".csv", ".pt"))
