"""CNN on a small subset of shapes (LightningModule port pending, logs in the Lightning layout)."""
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
    p.add_argument('--image_size', type=int, default=12)
    p.add_argument('--noise', type=float, default=1.4)
    p.add_argument('--n_train', type=int, default=96)
    p.add_argument('--n_val', type=int, default=400)
    p.add_argument('--channels', type=int, default=32)
    p.add_argument('--batch_size', type=int, default=16)
    p.add_argument('--epochs', type=int, default=40)
    p.add_argument('--lr', type=float, default=0.002)
    p.add_argument('--log_every', type=int, default=3)
    cfg = vars(p.parse_args())
    os.makedirs('lightning_logs/version_0', exist_ok=True)
    with open('lightning_logs/version_0/hparams.yaml', 'w') as f:
        yaml.safe_dump(cfg, f)
    return cfg

def make_split(n, cfg, seed):
    """12x12 single-channel images of 4 patterns (h-bar, v-bar, diagonal, box) plus noise."""
    g = torch.Generator().manual_seed(seed)
    s = cfg.get("image_size", 12)
    y = torch.randint(0, 4, (n,), generator=g)
    x = torch.randn(n, 1, s, s, generator=g) * cfg.get("noise", 0.8)
    pos = torch.randint(2, s - 2, (n,), generator=g)
    idx = torch.arange(s)
    for i in range(n):
        p = int(pos[i])
        if y[i] == 0:
            x[i, 0, p, :] += 1.5
        elif y[i] == 1:
            x[i, 0, :, p] += 1.5
        elif y[i] == 2:
            x[i, 0, idx, idx] += 1.5
        else:
            x[i, 0, 2:-2, 2] += 1.5
            x[i, 0, 2:-2, -3] += 1.5
    return x, y


def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    xv, yv = make_split(cfg["n_val"], cfg, seed=2)
    return TensorDataset(x, y), TensorDataset(xv, yv)

class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        c = cfg["channels"]
        self.features = nn.Sequential(
            nn.Conv2d(1, c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(c, 2 * c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        s = cfg.get("image_size", 12) // 4
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(2 * c * s * s, 64), nn.ReLU(), nn.Linear(64, 4))

    def forward(self, x):
        return self.classifier(self.features(x))

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
    os.makedirs("lightning_logs/version_0", exist_ok=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
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
