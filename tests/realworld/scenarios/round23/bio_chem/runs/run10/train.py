"""Solubility (logS) regression from RDKit 2D descriptors."""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)

rows = list(csv.DictReader(open("data/solubility_rdkit_desc.csv")))
feat_cols = [c for c in rows[0] if c not in ("smiles", "logS")]
X = np.array([[float(r[c]) for c in feat_cols] for r in rows], dtype=np.float32)
y = np.array([float(r["logS"]) for r in rows], dtype=np.float32)
print(f"{len(rows)} molecules, {len(feat_cols)} descriptors: {feat_cols}")

idx = np.random.permutation(len(y))
n_val = len(y) // 5
val_idx, tr_idx = idx[:n_val], idx[n_val:]
Xtr, ytr = torch.from_numpy(X[tr_idx]), torch.from_numpy(y[tr_idx])
Xva, yva = torch.from_numpy(X[val_idx]), torch.from_numpy(y[val_idx])

model = nn.Sequential(
    nn.Linear(len(feat_cols), 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 1),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
mse = nn.MSELoss()

for epoch in range(1, 151):
    model.train()
    perm = torch.randperm(len(ytr))
    tot = 0.0
    for i in range(0, len(ytr), 32):
        b = perm[i:i + 32]
        opt.zero_grad()
        loss = mse(model(Xtr[b]).squeeze(-1), ytr[b])
        loss.backward()
        opt.step()
        tot += loss.item() * len(b)
    if epoch % 5 == 0 or epoch <= 3:
        model.eval()
        with torch.no_grad():
            pred = model(Xva).squeeze(-1)
        rmse = torch.sqrt(mse(pred, yva)).item()
        r2 = 1 - ((pred - yva) ** 2).sum().item() / ((yva - yva.mean()) ** 2).sum().item()
        print(f"epoch {epoch:3d}  train_mse {tot / len(ytr):.4g}  val_rmse {rmse:.3f}  val_r2 {r2:.3f}")

torch.save(model.state_dict(), "logS_mlp.pt")
print(f"baseline (predict train mean): val_rmse {torch.sqrt(mse(torch.full_like(yva, ytr.mean()), yva)).item():.3f}")
