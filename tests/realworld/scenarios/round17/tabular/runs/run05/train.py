import yaml
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.metrics import classification_report, roc_auc_score, f1_score

pd.set_option("display.max_columns", None)
pd.set_option("display.width", 120)

P = yaml.safe_load(open("params.yaml"))
torch.manual_seed(P["seed"])

df = pd.read_parquet(P["data"])
print(df.head(10))
print(df.describe())
print(df["churned"].value_counts())

df = pd.get_dummies(df, columns=["plan", "region"], dtype=float)
features = [c for c in df.columns if c not in ("customer_id", "churned")]
print(f"{len(features)} features: {features}")

X = df[features].values.astype("float32")
y = df["churned"].values.astype("float32")
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=P["seed"], stratify=y)
X_tr, X_va, y_tr, y_va = train_test_split(X_tr, y_tr, test_size=0.15, random_state=P["seed"], stratify=y_tr)

scaler = StandardScaler().fit(X_tr)
X_tr, X_va, X_te = (torch.tensor(scaler.transform(a), dtype=torch.float32) for a in (X_tr, X_va, X_te))
y_tr, y_va = torch.tensor(y_tr), torch.tensor(y_va)

model = nn.Sequential(
    nn.Linear(len(features), P["hidden"]), nn.ReLU(), nn.Dropout(P["dropout"]),
    nn.Linear(P["hidden"], P["hidden"] // 2), nn.ReLU(), nn.Dropout(P["dropout"]),
    nn.Linear(P["hidden"] // 2, 1),
)
opt = torch.optim.AdamW(model.parameters(), lr=P["lr"], weight_decay=P["weight_decay"])
crit = nn.BCEWithLogitsLoss(pos_weight=torch.tensor(P["pos_weight"]))

for epoch in range(1, P["epochs"] + 1):
    model.train()
    perm = torch.randperm(len(X_tr))
    running = 0.0
    for i in range(0, len(perm), P["batch_size"]):
        b = perm[i:i + P["batch_size"]]
        loss = crit(model(X_tr[b]).squeeze(-1), y_tr[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.item() * len(b)
    model.eval()
    with torch.no_grad():
        out = model(X_va).squeeze(-1)
        val_loss = crit(out, y_va).item()
        p = torch.sigmoid(out).numpy()
    print(f"[epoch {epoch:02d}] train_loss={running / len(X_tr):.4f} val_loss={val_loss:.4f} "
          f"val_auc={roc_auc_score(y_va, p):.4f} val_f1={f1_score(y_va, p > 0.5):.4f}")

with torch.no_grad():
    p = torch.sigmoid(model(X_te).squeeze(-1)).numpy()
print(classification_report(y_te, (p > 0.5).astype(int), target_names=["active", "churned"], digits=3))
print("test ROC AUC:", round(roc_auc_score(y_te, p), 4))
torch.save(model.state_dict(), "churn_mlp.pt")
