import math

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from ray import train, tune

def spirals(n_per_class, seed, k=3, noise=0.25):
    rng = np.random.default_rng(seed)
    X, y = [], []
    for c in range(k):
        t = rng.uniform(0.0, 1.0, n_per_class)
        r = 5 * t
        theta = 2.5 * t * np.pi + 2 * np.pi * c / k
        pts = np.stack([r * np.sin(theta), r * np.cos(theta)], 1) + rng.normal(0, noise, (n_per_class, 2))
        X.append(pts)
        y.append(np.full(n_per_class, c))
    return torch.tensor(np.concatenate(X), dtype=torch.float32), torch.tensor(np.concatenate(y))


def train_spiral(config):
    torch.manual_seed(42)
    Xtr, ytr = spirals(600, seed=0)
    Xva, yva = spirals(200, seed=1)
    h = config["hidden"]
    model = nn.Sequential(nn.Linear(2, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(),
                          nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 3))
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=config["lr_step_epochs"],
                                                gamma=config["lr_gamma"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    for epoch in range(config["epochs"]):
        model.train()
        epoch_loss = 0.0
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            scheduler.step()
            epoch_loss += loss.item()
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = F.cross_entropy(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        train.report({"loss": epoch_loss / len(loader), "val_loss": val_loss,
                      "val_acc": val_acc, "lr": opt.param_groups[0]["lr"]})


if __name__ == "__main__":
    tuner = tune.Tuner(
        train_spiral,
        param_space={
            "optimizer": "adam",
            "lr": tune.grid_search([0.003, 0.01]),
            "lr_step_epochs": 30,
            "lr_gamma": 0.5,
            "batch_size": 32,
            "epochs": 50,
            "hidden": 64,
        },
        tune_config=tune.TuneConfig(metric="val_acc", mode="max"),
    )
    tuner.fit()
