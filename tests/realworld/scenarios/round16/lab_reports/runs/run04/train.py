# churn model v3 - adds postcode feature
import argparse
import json

import numpy as np
import pandas as pd
import torch
import torch.nn as nn

torch.set_num_threads(1)

ap = argparse.ArgumentParser()
ap.add_argument("--features", default="all", choices=["all", "base"])
ap.add_argument("--epochs", type=int, default=15)
ap.add_argument("--out", default="history.json")
opt = ap.parse_args()

SEED = 2024
rng = np.random.default_rng(SEED)
torch.manual_seed(SEED)

# ---------------------------------------------------------------- data
N = 5000
df = pd.DataFrame({
    "tenure_months": rng.integers(1, 72, N),
    "monthly_charges": rng.normal(70, 25, N).clip(15, 150),
    "support_calls": rng.poisson(1.5, N),
    "contract_annual": rng.integers(0, 2, N),
    "late_payments": rng.poisson(0.7, N),
    "postcode": rng.integers(0, 9000, N),
})
z = (-0.045 * df.tenure_months + 0.02 * (df.monthly_charges - 70) + 0.45 * df.support_calls
     - 1.1 * df.contract_annual + 0.5 * df.late_payments + 0.4)
df["churned"] = (rng.random(N) < 1 / (1 + np.exp(-z))).astype(int)

# churn rate per postcode
df["postcode_churn_rate"] = df.groupby("postcode")["churned"].transform("mean")

base_cols = ["tenure_months", "monthly_charges", "support_calls", "contract_annual", "late_payments"]
cols = base_cols + (["postcode_churn_rate"] if opt.features == "all" else [])

perm = rng.permutation(N)
tr, va = perm[:4000], perm[4000:]
X = df[cols].to_numpy(np.float32)
mu, sd = X[tr].mean(0), X[tr].std(0) + 1e-6
X = (X - mu) / sd
y = df["churned"].to_numpy(np.float32)
Xtr, ytr = torch.tensor(X[tr]), torch.tensor(y[tr])
Xva, yva = torch.tensor(X[va]), torch.tensor(y[va])

# ---------------------------------------------------------------- model
net = nn.Sequential(nn.Linear(len(cols), 64), nn.ReLU(), nn.Dropout(0.1),
                    nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
optim = torch.optim.Adam(net.parameters(), lr=2e-3, weight_decay=1e-5)
bce = nn.BCEWithLogitsLoss()


def auc(scores, labels):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels == 1
    return (ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum())


hist = []
for ep in range(1, opt.epochs + 1):
    net.train()
    p = torch.randperm(len(Xtr))
    tl, tc = 0.0, 0
    for i in range(0, len(p), 128):
        b = p[i:i + 128]
        logit = net(Xtr[b]).squeeze(1)
        loss = bce(logit, ytr[b])
        optim.zero_grad()
        loss.backward()
        optim.step()
        tl += loss.item() * len(b)
        tc += ((logit > 0).float() == ytr[b]).sum().item()
    net.eval()
    with torch.no_grad():
        lv = net(Xva).squeeze(1)
        vl = bce(lv, yva).item()
        vacc = ((lv > 0).float() == yva).float().mean().item()
        vauc = auc(lv.numpy(), yva.numpy())
    h = dict(epoch=ep, train_loss=tl / len(p), train_acc=tc / len(p), val_loss=vl, val_acc=vacc, val_auc=float(vauc))
    hist.append(h)
    print(f"ep {ep:02d}  train_loss {h['train_loss']:.4f}  train_acc {h['train_acc']:.4f}  "
          f"val_loss {vl:.4f}  val_acc {vacc:.4f}  val_auc {vauc:.4f}")

json.dump(hist, open(opt.out, "w"), indent=1)
