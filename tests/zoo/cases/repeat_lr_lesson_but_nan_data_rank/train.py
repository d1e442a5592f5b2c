"""Regressor trained on sensor features from data/*.npy."""
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

def load_config(path="config.yaml"):
    with open(path) as f:
        return yaml.safe_load(f)

def make_split(n, cfg, seed):
    x = torch.from_numpy(np.load("data/features.npy"))
    y = torch.from_numpy(np.load("data/targets.npy")).unsqueeze(1)
    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(len(x), generator=g)
    return x[perm], y[perm]

import time

_t0 = time.time()
_RK = {"loss": "loss", "lr": "lr", "grad_norm": "gnorm"}


def log_train(step, epoch, m):
    fields = " ".join(f"{_RK.get(k, k)}={v:.4g}" for k, v in m.items())
    print(f"[rank0]: it {step:>6d} | ep {epoch} | {fields} | t={time.time() - _t0:.1f}s", flush=True)


def log_val(step, epoch, m):
    print(f"[rank0]: eval it {step} | " + " ".join(f"{k}={v:.4g}" for k, v in m.items()), flush=True)


def log_text(msg):
    print(f"[rank0]: {msg}", flush=True)


def close():
    print("[rank0]: training finished", flush=True)

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
