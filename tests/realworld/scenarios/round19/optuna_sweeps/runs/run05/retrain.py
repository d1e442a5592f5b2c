import json

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

from train import build, X_tr, y_tr, X_va, y_va

torch.set_num_threads(1)


def score(y_true, y_pred):
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    tp = np.sum((y_pred == 1) & (y_true == 1))
    fp = np.sum((y_pred == 1) & (y_true == 0))
    fn = np.sum((y_pred == 0) & (y_true == 1))
    return 2 * tp / max(2 * tp + fp + fn, 1)


p = json.load(open("best_params.json"))
print("best params:", p)
torch.manual_seed(0)
model = build(p["n_units"], p["dropout"])
opt = torch.optim.Adam(model.parameters(), lr=p["lr"])
for epoch in range(1, 13):
    model.train()
    tot = 0.0
    perm = torch.randperm(len(X_tr))
    for i in range(0, len(X_tr), 128):
        idx = perm[i:i + 128]
        loss = F.cross_entropy(model(X_tr[idx]), y_tr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(idx)
    model.eval()
    with torch.no_grad():
        out = model(X_va)
        val_loss = F.cross_entropy(out, y_va).item()
    val_score = score(y_va.numpy(), out.argmax(1).numpy())
    print("epoch %2d | loss %.4f | val_loss %.4f | val_score %.4f" % (epoch, tot / len(X_tr), val_loss, val_score))
print("FINAL val_score = %.4f" % val_score)
