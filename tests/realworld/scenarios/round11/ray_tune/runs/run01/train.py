import math

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from ray import train, tune

def load_split(n, seed):
    rng = np.random.default_rng(seed)
    w = np.random.default_rng(2024).normal(0, 1, 5)
    X = rng.normal(0, 1, (n, 60))
    logit = X[:, :5] @ w + rng.normal(0, 1.5, n)
    y = (logit > 0).astype(np.int64)
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


def train_classifier(config):
    torch.manual_seed(0)
    Xtr, ytr = load_split(config["n_train"], seed=100)
    Xva, yva = load_split(1000, seed=101)
    h = config["hidden"]
    model = nn.Sequential(
        nn.Linear(60, h), nn.ReLU(), nn.Dropout(config["dropout"]),
        nn.Linear(h, h), nn.ReLU(), nn.Dropout(config["dropout"]),
        nn.Linear(h, 2))
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    for epoch in range(config["epochs"]):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            otr, ova = model(Xtr), model(Xva)
            metrics = {
                "train_loss": F.cross_entropy(otr, ytr).item(),
                "train_acc": (otr.argmax(1) == ytr).float().mean().item(),
                "valid_loss": F.cross_entropy(ova, yva).item(),
                "valid_acc": (ova.argmax(1) == yva).float().mean().item(),
            }
        train.report(metrics)


if __name__ == "__main__":
    tuner = tune.Tuner(
        train_classifier,
        param_space={
            "lr": 1e-3,
            "hidden": tune.choice([256, 512]),
            "n_train": 160,
            "batch_size": 32,
            "epochs": 150,
            "dropout": 0.0,
        },
        tune_config=tune.TuneConfig(metric="valid_acc", mode="max", num_samples=4),
    )
    tuner.fit()
