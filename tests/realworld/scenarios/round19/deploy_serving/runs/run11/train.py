import os

import numpy as np
import torch
import torch.nn as nn
import yaml

from data import load_frame, make_split

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
T = cfg["train"]
torch.manual_seed(T["seed"])
df, features = load_frame(cfg)
tr_idx, va_idx = make_split(len(df), cfg["data"]["val_frac"], cfg["data"]["split_seed"])
X = torch.tensor(df[features].values, dtype=torch.float32)
y = torch.tensor(df[cfg["data"]["target"]].values)
xtr, ytr, xva, yva = X[tr_idx], y[tr_idx], X[va_idx], y[va_idx]
print(f"train={len(tr_idx)} val={len(va_idx)} fraud_rate={y.float().mean():.3f}")

model = nn.Sequential(nn.Linear(len(features), T["hidden"]), nn.ReLU(),
                      nn.Linear(T["hidden"], T["hidden"]), nn.ReLU(),
                      nn.Linear(T["hidden"], 2))
opt = torch.optim.Adam(model.parameters(), lr=T["lr"], weight_decay=T["weight_decay"])
ce = nn.CrossEntropyLoss()
os.makedirs(cfg["artifacts"], exist_ok=True)
with open(os.path.join(cfg["artifacts"], "history.csv"), "w") as h:
    h.write("epoch,train_loss,train_acc,val_loss,val_acc\n")
    for epoch in range(1, T["epochs"] + 1):
        model.train()
        perm = torch.randperm(len(xtr))
        for i in range(0, len(xtr), T["batch_size"]):
            b = perm[i:i + T["batch_size"]]
            opt.zero_grad()
            ce(model(xtr[b]), ytr[b]).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            otr, ova = model(xtr), model(xva)
        row = (epoch, ce(otr, ytr).item(), (otr.argmax(1) == ytr).float().mean().item(),
               ce(ova, yva).item(), (ova.argmax(1) == yva).float().mean().item())
        h.write("%d,%.5f,%.5f,%.5f,%.5f\n" % row)
        if epoch % 10 == 0 or epoch == 1:
            print("epoch %3d  train_loss %.4f  train_acc %.4f  val_loss %.4f  val_acc %.4f" % row)
torch.save(model.state_dict(), os.path.join(cfg["artifacts"], "model.pt"))
