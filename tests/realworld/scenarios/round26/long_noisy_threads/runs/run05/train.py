import json, joblib
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.preprocessing import StandardScaler
from torch.utils.data import DataLoader, TensorDataset

from model import Net

torch.manual_seed(0)
FEATS = [f"ch{i}" for i in range(16)]
tr = pd.read_csv("data/train.csv"); va = pd.read_csv("data/val.csv")
scaler = StandardScaler().fit(tr[FEATS].values)
joblib.dump(scaler, "artifacts/scaler.joblib")
Xtr = torch.tensor(scaler.transform(tr[FEATS].values), dtype=torch.float32)
Xva = torch.tensor(scaler.transform(va[FEATS].values), dtype=torch.float32)
ytr = torch.tensor(tr["activity"].values); yva = torch.tensor(va["activity"].values)

model = Net(16, 6)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-2)
dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True, drop_last=True)

best = 0.0
for epoch in range(1, 13):
    model.train()
    tot = 0.0
    for xb, yb in dl:
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        tot += loss.item()
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        val_loss = F.cross_entropy(out, yva).item()
        val_acc = (out.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch:02d} train_loss {tot / len(dl):.4f} val_loss {val_loss:.4f} val_acc {val_acc:.4f}")
    if val_acc > best:
        best = val_acc
        torch.save(model.state_dict(), "artifacts/best.pt")
        print(f"  saved artifacts/best.pt (val_acc {val_acc:.4f})")
