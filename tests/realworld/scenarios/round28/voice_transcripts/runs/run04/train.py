import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(7)

df = pd.read_parquet("data/expr_train.parquet")
feat_cols = [c for c in df.columns if c.startswith("g_")]
X = torch.tensor(df[feat_cols].values, dtype=torch.float32)
y = torch.tensor(df["response"].values, dtype=torch.float32)
print(f"{len(df)} rows, {len(feat_cols)} features")

loader = DataLoader(TensorDataset(X, y), batch_size=256, shuffle=True)

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)


def corr_loss(pred, target):
    # we care about ranking the samples, not the absolute scale -> 1 - pearson r
    vp = pred - pred.mean()
    vt = target - target.mean()
    r = (vp * vt).mean() / (pred.std() * target.std() + 1e-8)
    return 1 - r


for epoch in range(1, 4):
    for step, (xb, yb) in enumerate(loader, 1):
        pred = model(xb).squeeze(-1)
        loss = corr_loss(pred, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0 or step == len(loader):
            print(f"[epoch {epoch}] step {step}/{len(loader)} loss={loss.item():.4f}")
