import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import wandb

torch.set_num_threads(1)
torch.manual_seed(2)
rng = np.random.default_rng(2)

# --- build customer table -------------------------------------------------
n = 5000
df = pd.DataFrame({
    "tenure_months": rng.integers(1, 72, n),
    "monthly_charges": rng.normal(70, 25, n).clip(15, 150),
    "support_calls": rng.poisson(1.5, n),
    "contract_len": rng.choice([1, 12, 24], n),
    "late_payments": rng.poisson(0.7, n),
})
z = (-0.04 * df.tenure_months + 0.02 * df.monthly_charges + 0.35 * df.support_calls
     - 0.05 * df.contract_len + 0.4 * df.late_payments - 0.3 + rng.normal(0, 1.2, n))
df["churned"] = (z > 0).astype(int)
# account status snapshot joined from CRM export
df["days_since_last_activity"] = np.where(df.churned == 1, rng.integers(30, 90, n), rng.integers(0, 20, n))

features = ["tenure_months", "monthly_charges", "support_calls", "contract_len",
            "late_payments", "days_since_last_activity"]
X = df[features].values.astype(np.float32)
X = (X - X.mean(0)) / X.std(0)
y = df["churned"].values
X, y = torch.tensor(X), torch.tensor(y, dtype=torch.float32)
Xtr, ytr, Xva, yva = X[:4000], y[:4000], X[4000:], y[4000:]

wandb.init(project="churn", name="churn-mlp-v2", config={"lr": 3e-3, "epochs": 25, "dropout": 0.3})
model = nn.Sequential(nn.Linear(len(features), 64), nn.ReLU(), nn.Dropout(0.3),
                      nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
crit = nn.BCEWithLogitsLoss()
for epoch in range(25):
    model.train(); tl = tc = 0
    perm = torch.randperm(4000)
    for i in range(0, 4000, 128):
        idx = perm[i:i + 128]
        out = model(Xtr[idx]).squeeze(1); loss = crit(out, ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(idx); tc += ((out > 0).float() == ytr[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        out = model(Xva).squeeze(1)
        vl = crit(out, yva).item(); va = ((out > 0).float() == yva).float().mean().item()
    wandb.log({"epoch": epoch + 1, "loss/train": tl / 4000, "loss/val": vl,
               "acc/train": tc / 4000, "acc/val": va})
wandb.finish()
