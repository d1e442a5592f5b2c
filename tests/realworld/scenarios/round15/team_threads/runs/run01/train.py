import pandas as pd
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(5)

FEATURES = [
    "tenure_months", "monthly_charges", "support_tickets", "logins_30d",
    "contract_type", "has_discount", "refund_amount",
]
TARGET = "churned"

df = pd.read_csv("data/churn_snapshot_2024q1.csv")
df = df.sample(frac=1.0, random_state=5).reset_index(drop=True)
n_val = int(0.2 * len(df))
val_df, train_df = df.iloc[:n_val], df.iloc[n_val:]

mean = train_df[FEATURES].mean()
std = train_df[FEATURES].std()


def to_tensors(frame):
    x = torch.tensor(((frame[FEATURES] - mean) / std).values, dtype=torch.float32)
    y = torch.tensor(frame[TARGET].values, dtype=torch.float32)
    return x, y


Xtr, ytr = to_tensors(train_df)
Xva, yva = to_tensors(val_df)
print(f"rows: train={len(train_df)} val={len(val_df)}  churn rate train={ytr.mean():.3f} val={yva.mean():.3f}")

model = nn.Sequential(
    nn.Linear(len(FEATURES), 32), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(32, 16), nn.ReLU(),
    nn.Linear(16, 1),
)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
lossf = nn.BCEWithLogitsLoss()

for epoch in range(1, 16):
    model.train()
    perm = torch.randperm(len(Xtr))
    run_loss, run_correct = 0.0, 0
    for i in range(0, len(Xtr), 64):
        idx = perm[i:i + 64]
        logit = model(Xtr[idx]).squeeze(1)
        loss = lossf(logit, ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        run_loss += loss.item() * len(idx)
        run_correct += ((logit > 0).float() == ytr[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        vlogit = model(Xva).squeeze(1)
        vloss = lossf(vlogit, yva).item()
        vacc = ((vlogit > 0).float() == yva).float().mean().item()
    print(f"epoch {epoch:2d} | train loss {run_loss / len(Xtr):.4f} acc {run_correct / len(Xtr):.4f} "
          f"| val loss {vloss:.4f} acc {vacc:.4f}", flush=True)

torch.save({"model": model.state_dict(), "features": FEATURES, "mean": mean.values, "std": std.values},
           "churn_mlp.pt")
