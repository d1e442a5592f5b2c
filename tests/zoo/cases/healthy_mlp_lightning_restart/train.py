"""MLP on blobs with SGDR warm restarts."""
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

def load_config():
    p = argparse.ArgumentParser()
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--dim', type=int, default=20)
    p.add_argument('--num_classes', type=int, default=10)
    p.add_argument('--spread', type=float, default=1.0)
    p.add_argument('--noise', type=float, default=1.5)
    p.add_argument('--n_train', type=int, default=2000)
    p.add_argument('--n_val', type=int, default=500)
    p.add_argument('--depth', type=int, default=2)
    p.add_argument('--hidden', type=int, default=64)
    p.add_argument('--batch_size', type=int, default=32)
    p.add_argument('--epochs', type=int, default=8)
    p.add_argument('--lr', type=float, default=0.05)
    p.add_argument('--log_every', type=int, default=6)
    p.add_argument('--restart_every_steps', type=int, default=252)
    cfg = vars(p.parse_args())
    os.makedirs('lightning_logs/version_0', exist_ok=True)
    with open('lightning_logs/version_0/hparams.yaml', 'w') as f:
        yaml.safe_dump(cfg, f)
    return cfg

def make_split(n, cfg, seed):
    """Gaussian blobs: cfg['num_classes'] centres in cfg['dim'] dimensions."""
    g = torch.Generator().manual_seed(0)          # the same centres for every split
    centres = torch.randn(cfg["num_classes"], cfg["dim"], generator=g) * cfg.get("spread", 1.0)
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, cfg["num_classes"], (n,), generator=g)
    x = centres[y] + torch.randn(n, cfg["dim"], generator=g) * cfg.get("noise", 1.0)
    return x, y


def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    xv, yv = make_split(cfg["n_val"], cfg, seed=2)
    return TensorDataset(x, y), TensorDataset(xv, yv)

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

import csv
import os

_rows = []
_LOG_DIR = "lightning_logs/version_0"
_PL_NAMES = {"loss": "train_loss_step", "lr": "lr-Adam", "grad_norm": "grad_2.0_norm_total"}


def log_train(step, epoch, m):
    _rows.append({"epoch": epoch, "step": step - 1, **{_PL_NAMES.get(k, k): v for k, v in m.items()}})


def log_val(step, epoch, m):
    _rows.append({"epoch": epoch, "step": step - 1, **m})


def log_text(msg):
    print(msg, flush=True)


def close():
    os.makedirs(_LOG_DIR, exist_ok=True)
    keys = []
    for r in _rows:
        keys += [k for k in r if k not in keys]
    with open(os.path.join(_LOG_DIR, "metrics.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in _rows:
            w.writerow(r)

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
    scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=cfg["restart_every_steps"])
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
            scheduler.step()
            if step % cfg["log_every"] == 0:
                metrics = {"loss": loss.item(), "lr": optimizer.param_groups[0]["lr"], "grad_norm": gnorm}
                log_train(step, epoch, metrics)
        val_loss, val_acc = evaluate(model, val_loader, criterion)
        log_val(step, epoch, {"val_loss": val_loss, "val_acc": val_acc})
    close()


CFG = {}

if __name__ == "__main__":
    main()
