import math

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from ray import train, tune

def make_binary(n, seed):
    rng = np.random.default_rng(seed)
    w = np.random.default_rng(31).normal(0, 1, 10)
    X = rng.normal(0, 1, (n, 10))
    y = (X @ w + 0.8 * rng.normal(0, 1, n) > 0).astype(np.float32)
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


def bce(logits, target):
    p = torch.sigmoid(logits)
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


def train_binary(config):
    torch.manual_seed(4)
    Xtr, ytr = make_binary(3000, seed=1)
    Xva, yva = make_binary(1000, seed=2)
    h = config["hidden"]
    model = nn.Sequential(nn.Linear(10, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 1))
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    for epoch in range(config["epochs"]):
        model.train()
        losses = []
        for xb, yb in loader:
            opt.zero_grad()
            loss = bce(model(xb).squeeze(1), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            z = model(Xva).squeeze(1)
            val_loss = bce(z, yva).item()
            val_acc = ((z > 0).float() == yva).float().mean().item()
        train.report({"loss": float(np.mean(losses)), "val_loss": val_loss, "val_acc": val_acc})


if __name__ == "__main__":
    tuner = tune.Tuner(
        train_binary,
        param_space={"lr": tune.grid_search([1e-3, 3e-3]), "hidden": 64, "batch_size": 64, "epochs": 60},
        tune_config=tune.TuneConfig(metric="val_acc", mode="max"),
    )
    tuner.fit()
