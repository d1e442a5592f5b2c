import json
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.metrics import classification_report, roc_auc_score

pd.set_option("display.max_columns", None)
pd.set_option("display.width", 120)

cfg = json.load(open("config.json"))
torch.manual_seed(cfg["seed"])

df = pd.read_csv("readmission_30d.csv")
print(df.shape)
print(df.head())
print(df.describe().T)
print(df["readmitted_30d"].value_counts())

X = df.drop(columns=["readmitted_30d"]).values
y = df["readmitted_30d"].values
X_tmp, X_test, y_tmp, y_test = train_test_split(X, y, test_size=0.2, random_state=cfg["seed"], stratify=y)
X_train, X_val, y_train, y_val = train_test_split(X_tmp, y_tmp, test_size=0.25, random_state=cfg["seed"], stratify=y_tmp)

scaler = StandardScaler().fit(X_train)
X_train, X_val, X_test = [torch.tensor(scaler.transform(a), dtype=torch.float32) for a in (X_train, X_val, X_test)]
y_train, y_val = [torch.tensor(a, dtype=torch.float32) for a in (y_train, y_val)]

h = cfg["hidden"]
model = nn.Sequential(
    nn.Linear(X_train.shape[1], h[0]), nn.ReLU(),
    nn.Linear(h[0], h[1]), nn.ReLU(),
    nn.Linear(h[1], h[2]), nn.ReLU(),
    nn.Linear(h[2], 1),
)
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
loss_fn = nn.BCEWithLogitsLoss()

for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    perm = torch.randperm(len(X_train))
    tot, correct = 0.0, 0
    for i in range(0, len(X_train), cfg["batch_size"]):
        idx = perm[i:i + cfg["batch_size"]]
        logits = model(X_train[idx]).squeeze(1)
        loss = loss_fn(logits, y_train[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(idx)
        correct += ((logits > 0).float() == y_train[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        vl = model(X_val).squeeze(1)
        val_loss = loss_fn(vl, y_val).item()
        val_acc = ((vl > 0).float() == y_val).float().mean().item()
    print(f"Epoch {epoch:03d}/{cfg['epochs']} - loss: {tot / len(X_train):.4f} - acc: {correct / len(X_train):.4f}"
          f" - val_loss: {val_loss:.4f} - val_acc: {val_acc:.4f}")

torch.save(model.state_dict(), "readmit_mlp.pt")
model.eval()
with torch.no_grad():
    p = torch.sigmoid(model(X_test).squeeze(1)).numpy()
print(classification_report(y_test, (p > 0.5).astype(int)))
print("test ROC AUC:", round(roc_auc_score(y_test, p), 4))
