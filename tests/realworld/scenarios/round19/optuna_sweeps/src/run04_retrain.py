import json

import numpy as np
import optuna
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

study = optuna.load_study(study_name="sensor-mlp-v2", storage="sqlite:///optuna.db")
best = study.best_trial
p = best.params
print("loaded best params from study 'sensor-mlp-v2' (trial %d, value %.4f): %s"
      % (best.number, best.value, json.dumps(p)))

df = pd.read_csv("data/sensor_readings.csv")
FEATURES = [c for c in df.columns if c.startswith("s")]
X = df[FEATURES].values.astype(np.float32)
y = df["label"].values.astype(np.int64)

n_train = int(0.8 * len(df))
X_tr, X_va = X[:n_train], X[n_train:]
y_tr, y_va = y[:n_train], y[n_train:]
mu, sd = X_tr.mean(0), X_tr.std(0) + 1e-8
X_tr = torch.tensor((X_tr - mu) / sd)
X_va = torch.tensor((X_va - mu) / sd)
y_tr, y_va = torch.tensor(y_tr), torch.tensor(y_va)
print("train rows: %d  val rows: %d" % (len(X_tr), len(X_va)))

torch.manual_seed(best.number)
model = nn.Sequential(nn.Linear(X.shape[1], p["width"]), nn.ReLU(),
                      nn.Linear(p["width"], p["width"]), nn.ReLU(),
                      nn.Linear(p["width"], 2))
opt = torch.optim.AdamW(model.parameters(), lr=p["lr"], weight_decay=p["weight_decay"])

for epoch in range(1, 16):
    model.train()
    tot, correct = 0.0, 0
    perm = torch.randperm(len(X_tr))
    for i in range(0, len(X_tr), 64):
        idx = perm[i:i + 64]
        out = model(X_tr[idx])
        loss = F.cross_entropy(out, y_tr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(idx)
        correct += (out.argmax(1) == y_tr[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        out = model(X_va)
        val_loss = F.cross_entropy(out, y_va).item()
        val_acc = (out.argmax(1) == y_va).float().mean().item()
    print("[%02d/15] train_loss=%.4f train_acc=%.4f | val_loss=%.4f val_acc=%.4f"
          % (epoch, tot / len(X_tr), correct / len(X_tr), val_loss, val_acc))
print("val_acc=%.4f (study best was %.4f)" % (val_acc, best.value))
