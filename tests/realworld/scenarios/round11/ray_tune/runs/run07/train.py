import math

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from ray import train, tune

def make_shapes(n, size=16, noise=0.45, seed=0):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, 1, size, size), dtype=np.float32)
    y = rng.integers(0, 4, n)
    idx = np.arange(size)
    for i in range(n):
        r, c = rng.integers(3, size - 3, 2)
        if y[i] == 0:
            X[i, 0, r, 2:size - 2] = 1.0
        elif y[i] == 1:
            X[i, 0, 2:size - 2, c] = 1.0
        elif y[i] == 2:
            X[i, 0, idx, (idx + c - size // 2) % size] = 1.0
        else:
            r, c = rng.integers(1, size - 6, 2)
            X[i, 0, r:r + 5, c] = X[i, 0, r:r + 5, c + 4] = 1.0
            X[i, 0, r, c:c + 5] = X[i, 0, r + 4, c:c + 5] = 1.0
    X += rng.normal(0, noise, X.shape).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(y).long()


class Net(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv1 = nn.Conv2d(1, ch, 3, padding=1)
        self.conv2 = nn.Conv2d(ch, 2 * ch, 3, padding=1)
        self.fc1 = nn.Linear(2 * ch * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


def train_cnn(config):
    torch.manual_seed(config["seed"])
    Xtr, ytr = make_shapes(3000, seed=1)
    Xva, yva = make_shapes(600, seed=2)
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    model = Net(config["channels"])
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    for epoch in range(config["epochs"]):
        model.train()
        total, n = 0.0, 0
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item() * len(xb)
            n += len(xb)
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = F.cross_entropy(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        train.report({"loss": total / n, "val_loss": val_loss, "val_accuracy": val_acc})


if __name__ == "__main__":
    tuner = tune.Tuner(
        train_cnn,
        param_space={
            "lr": tune.grid_search([1e-3, 3e-3]),
            "batch_size": 64,
            "epochs": 15,
            "channels": tune.grid_search([16, 32]),
            "seed": 0,
        },
        tune_config=tune.TuneConfig(metric="val_loss", mode="min"),
    )
    results = tuner.fit()
    print(results.get_best_result().config)
