import json

import numpy as np
import pandas as pd
import torch
import torch.nn as nn

from metrics import accuracy, f1_score

torch.set_num_threads(1)
torch.manual_seed(2)
FEATURES = ["tenure_m", "monthly_fee", "n_tickets_90d", "n_logins_30d", "discount_pct", "n_products", "age",
            "late_payments", "nps_last", "usage_gb", "contract_left_m", "region_risk", "devices", "referrals"]
tr = pd.read_csv("data/churn_train.csv")
va = pd.read_csv("data/churn_val.csv")
mu, sd = tr[FEATURES].mean(), tr[FEATURES].std()
json.dump({"mean": mu.to_dict(), "std": sd.to_dict()}, open("norm.json", "w"), indent=1)
to_x = lambda df: torch.tensor(((df[FEATURES] - mu) / sd).values, dtype=torch.float32)
xtr, ytr = to_x(tr), torch.tensor(tr["churned"].values)
xva, yva = to_x(va), va["churned"].values
print(f"train rows {len(tr)} (churn rate {ytr.float().mean():.3f}), val rows {len(va)} (churn rate {yva.mean():.3f})")

model = nn.Sequential(nn.Linear(len(FEATURES), 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
crit = nn.CrossEntropyLoss()
for epoch in range(1, 51):
    model.train()
    perm = torch.randperm(len(xtr))
    run = 0.0
    for i in range(0, len(xtr), 128):
        b = perm[i:i + 128]
        opt.zero_grad()
        loss = crit(model(xtr[b]), ytr[b])
        loss.backward()
        opt.step()
        run += loss.item() * len(b)
    model.eval()
    with torch.no_grad():
        logits = model(xva)
        vloss = crit(logits, torch.tensor(yva)).item()
    pred = logits.argmax(1).numpy()
    print(f"epoch {epoch:2d} train_loss={run / len(xtr):.4f} val_loss={vloss:.4f} "
          f"val_acc={accuracy(yva, pred):.4f} val_f1={f1_score(yva, pred):.4f}")
torch.save(model, "churn_model_full.pt")
torch.save(model.state_dict(), "churn_mlp.pt")
