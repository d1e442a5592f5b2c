import math

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from ray import train, tune

def make_dataset(n, seed, d=32, k=5):
    rng = np.random.default_rng(seed)
    centers = np.random.default_rng(9).normal(0, 0.3, (k, d))
    y = rng.integers(0, k, n)
    X = centers[y] + rng.normal(0, 1.0, (n, d))
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


class DeepMLP(nn.Module):
    def __init__(self, d_in, width, depth, n_out):
        super().__init__()
        layers = [nn.Linear(d_in, width), nn.ReLU()]
        for _ in range(depth - 2):
            layers += [nn.Linear(width, width), nn.ReLU()]
        layers.append(nn.Linear(width, n_out))
        self.net = nn.Sequential(*layers)
        self.init_weights()

    def init_weights(self):
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0.0, std=1.0)
                nn.init.normal_(m.bias, mean=0.0, std=1.0)

    def forward(self, x):
        return self.net(x)


def train_deep_mlp(config):
    torch.manual_seed(1)
    Xtr, ytr = make_dataset(4000, seed=1)
    Xva, yva = make_dataset(1000, seed=2)
    model = DeepMLP(32, config["width"], config["depth"], config["n_classes"])
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    for epoch in range(config["epochs"]):
        model.train()
        running, count, gn = 0.0, 0, []
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            gn.append(nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item())
            opt.step()
            running += loss.item() * len(xb)
            count += len(xb)
        model.eval()
        with torch.no_grad():
            logits = model(Xva)
            acc = (logits.argmax(1) == yva).float().mean().item()
            vloss = F.cross_entropy(logits, yva).item()
        train.report({"loss": running / count, "val_loss": vloss, "accuracy": acc,
                      "grad_norm": float(np.mean(gn))})


if __name__ == "__main__":
    tuner = tune.Tuner(
        train_deep_mlp,
        param_space={
            "lr": tune.loguniform(1e-4, 1e-2),
            "depth": 8,
            "width": 256,
            "batch_size": 128,
            "epochs": 25,
            "n_classes": 5,
        },
        tune_config=tune.TuneConfig(metric="accuracy", mode="max", num_samples=8),
    )
    tuner.fit()
