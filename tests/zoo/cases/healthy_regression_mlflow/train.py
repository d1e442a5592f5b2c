"""Fit a small MLP to the tabular regression target."""
import argparse
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, TensorDataset

RUN = {}

def load_config(path="config.json"):
    with open(path) as f:
        return json.load(f)

def make_split(n, cfg, seed):
    """Tabular regression: y = sin(x0) + x1 * x2 + 0.5 * x3^2 + noise."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, cfg["dim"], generator=g)
    y = torch.sin(x[:, 0]) + x[:, 1] * x[:, 2] + 0.5 * x[:, 3] ** 2 + 0.1 * torch.randn(n, generator=g)
    return x, y.unsqueeze(1)

import mlflow

mlflow.set_tracking_uri("file:./mlruns")
_run = None
_ML = {"loss": "train_loss", "lr": "learning_rate", "grad_norm": "grad_norm"}


def log_train(step, epoch, m):
    global _run
    if _run is None:
        _run = mlflow.start_run()
        mlflow.log_params(CFG)
    mlflow.log_metrics({_ML.get(k, k): v for k, v in m.items()}, step=step)


def log_val(step, epoch, m):
    mlflow.log_metrics(m, step=step)


def log_text(msg):
    print(msg, flush=True)


def close():
    mlflow.end_run()

def load_data(cfg):
    return make_split(cfg["n"], cfg, seed=1)


def build_model(cfg):
    h = cfg["hidden"]
    return nn.Sequential(nn.Linear(cfg["dim"], h), nn.Tanh(), nn.Linear(h, h), nn.Tanh(), nn.Linear(h, 1))


def main():
    cfg = load_config()
    CFG.update(cfg)
    torch.manual_seed(cfg["seed"])
    x, y = load_data(cfg)
    n_val = len(x) // 5
    train_ds = TensorDataset(x[n_val:], y[n_val:])
    xv, yv = x[:n_val], y[:n_val]
    loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
    model = build_model(cfg)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    RUN.update(total=cfg["epochs"] * len(loader), epochs=cfg["epochs"], per_epoch=len(loader),
               log_every=cfg["log_every"], batch_size=cfg["batch_size"])
    log_text(f"training on {len(train_ds)} rows, validating on {n_val}")
    step = 0
    for epoch in range(cfg["epochs"]):
        for xb, yb in loader:
            step += 1
            pred = model(xb)
            loss = F.mse_loss(pred, yb)
            optimizer.zero_grad()
            loss.backward()
            gnorm = math.sqrt(sum(p.grad.pow(2).sum().item() for p in model.parameters()))
            optimizer.step()
            if step % cfg["log_every"] == 0:
                log_train(step, epoch, {"loss": loss.item(), "lr": optimizer.param_groups[0]["lr"], "grad_norm": gnorm})
        with torch.no_grad():
            val_loss = F.mse_loss(model(xv), yv).item()
        log_val(step, epoch, {"val_loss": val_loss})
    close()


CFG = {}

if __name__ == "__main__":
    main()
