import json

import numpy as np
import pandas as pd
import torch
import torch.nn as nn

from net import LeadNet

torch.set_num_threads(1)
P = json.load(open("params.json"))
torch.manual_seed(P["seed"])


def load(path):
    df = pd.read_csv(path)
    return (torch.tensor(df[P["features"]].values, dtype=torch.float32),
            torch.tensor(df[P["target"]].values, dtype=torch.float32))


def auc(scores, labels):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels == 1
    return (ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum())


xtr, ytr = load("data/train.csv")
xva, yva = load("data/val.csv")
model = LeadNet(len(P["features"]), P["hidden"], P["dropout"])
opt = torch.optim.RMSprop(model.parameters(), lr=P["lr"])
crit = nn.BCEWithLogitsLoss()
log = open("train_metrics.jsonl", "w")
for epoch in range(P["epochs"]):
    model.train()
    perm = torch.randperm(len(xtr))
    losses = []
    for i in range(0, len(xtr), P["batch_size"]):
        b = perm[i:i + P["batch_size"]]
        opt.zero_grad()
        loss = crit(model(xtr[b]), ytr[b])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        logit = model(xva)
        vloss = crit(logit, yva).item()
        p = torch.sigmoid(logit).numpy()
    rec = {"epoch": epoch, "loss": float(np.mean(losses)), "val_loss": vloss,
           "val_acc": float(((p > 0.5) == yva.numpy()).mean()), "val_auc": float(auc(p, yva.numpy()))}
    log.write(json.dumps(rec) + "\n")
    if epoch % 5 == 0 or epoch == P["epochs"] - 1:
        print(f"[{epoch:3d}] loss={rec['loss']:.4f} val_loss={vloss:.4f} val_acc={rec['val_acc']:.4f} val_auc={rec['val_auc']:.4f}")
torch.save(model.state_dict(), "leadnet.pt")
print("saved leadnet.pt")
