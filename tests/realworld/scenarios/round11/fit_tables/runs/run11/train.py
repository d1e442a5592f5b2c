import time
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(3)
rng = np.random.default_rng(3)

# --- build the customer table -------------------------------------------------
n = 5000
df = pd.DataFrame({
    "tenure_months": rng.integers(1, 72, n),
    "monthly_charges": rng.normal(70, 25, n).clip(15, 150),
    "support_calls": rng.poisson(1.5, n),
    "contract_len": rng.choice([1, 12, 24], n, p=[0.5, 0.3, 0.2]),
    "late_payments": rng.poisson(0.7, n),
})
logit = (-0.04 * df.tenure_months + 0.015 * df.monthly_charges + 0.35 * df.support_calls
         - 0.06 * df.contract_len + 0.4 * df.late_payments - 0.4 + rng.normal(0, 1.2, n))
df["churned"] = (logit > 0).astype(int)
df["account_status_code"] = np.where(df.churned == 1, rng.integers(3, 6, n), rng.integers(0, 3, n))
df["days_since_last_login"] = rng.exponential(10, n) + 20 * df.churned

features = ["tenure_months", "monthly_charges", "support_calls", "contract_len",
            "late_payments", "account_status_code", "days_since_last_login"]
X = df[features].values.astype(np.float32)
y = df["churned"].values
X = (X - X.mean(0)) / X.std(0)

perm = rng.permutation(n)
tr, va = perm[:4000], perm[4000:]
train_dl = DataLoader(TensorDataset(torch.tensor(X[tr]), torch.tensor(y[tr])), batch_size=128, shuffle=True)
valid_dl = DataLoader(TensorDataset(torch.tensor(X[va]), torch.tensor(y[va])), batch_size=512)

model = nn.Sequential(nn.Linear(len(features), 32), nn.ReLU(), nn.Dropout(0.2),
                      nn.Linear(32, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 2))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
crit = nn.CrossEntropyLoss()

header = ["epoch", "train_loss", "valid_acc", "valid_loss", "dur"]
widths = [len(h) + 2 if h != "dur" else 6 for h in header]
print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
print("  ".join("-" * w for w in widths))
for epoch in range(1, 16):
    t0 = time.time()
    model.train()
    tl, tn = 0.0, 0
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
        tl += loss.item() * len(yb)
        tn += len(yb)
    model.eval()
    vl, vc, vn = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in valid_dl:
            out = model(xb)
            vl += crit(out, yb).item() * len(yb)
            vc += (out.argmax(1) == yb).sum().item()
            vn += len(yb)
    row = [str(epoch), f"{tl / tn:.4f}", f"{vc / vn:.4f}", f"{vl / vn:.4f}", f"{time.time() - t0:.4f}"]
    print("  ".join(v.rjust(w) for v, w in zip(row, widths)), flush=True)
