"""Churn classifier on tabular features."""
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

def make_datasets(cfg):
    """data/customers.csv: id, features..., label; 20% held out for validation."""
    arr = np.loadtxt(cfg["data_path"], delimiter=",", skiprows=1)
    features = torch.tensor(arr[:, 1:], dtype=torch.float32)
    labels = torch.tensor(arr[:, -1], dtype=torch.long)
    n_val = len(features) // 5
    return (TensorDataset(features[n_val:], labels[n_val:]),
            TensorDataset(features[:n_val], labels[:n_val]))

class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        layers, d = [], cfg["dim"]
        for _ in range(cfg["depth"]):
            layers += [nn.Linear(d, cfg["hidden"]), nn.ReLU()]
            d = cfg["hidden"]
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(d, cfg["num_classes"])

    def forward(self, x):
        return self.head(self.body(x))

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

def grad_norm(model):
    total = 0.0
    for p in model.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return math.sqrt(total)


@torch.no_grad()
def evaluate(model, loader, criterion):
    model.eval()
    loss_sum, correct, n = 0.0, 0, 0
    for x, y in loader:
        logits = model(x)
        loss_sum += criterion(logits, y).item() * len(y)
        correct += (logits.argmax(-1) == y).sum().item()
        n += len(y)
    model.train()
    return loss_sum / n, correct / n


def main():
    cfg = load_config()
    CFG.update(cfg)
    torch.manual_seed(cfg["seed"])
    train_ds, val_ds = make_datasets(cfg)
    train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=256)
    model = Net(cfg)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    scheduler = None
    RUN.update(total=cfg["epochs"] * len(train_loader), epochs=cfg["epochs"], per_epoch=len(train_loader),
               log_every=cfg["log_every"], batch_size=cfg["batch_size"])
    log_text(f"model: {sum(p.numel() for p in model.parameters())} parameters, {len(train_ds)} training samples")
    step = 0
    for epoch in range(cfg["epochs"]):
        for x, y in train_loader:
            step += 1
            optimizer.zero_grad()
            logits = model(x)
            loss = criterion(logits, y)
            loss.backward()
            gnorm = grad_norm(model)
            optimizer.step()
            if step % cfg["log_every"] == 0:
                metrics = {"loss": loss.item(), "lr": optimizer.param_groups[0]["lr"], "grad_norm": gnorm}
                log_train(step, epoch, metrics)
        val_loss, val_acc = evaluate(model, val_loader, criterion)
        log_val(step, epoch, {"val_loss": val_loss, "val_acc": val_acc})
    close()


CFG = {}

if __name__ == "__main__":
    main()
