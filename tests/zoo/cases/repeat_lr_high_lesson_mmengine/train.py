"""CNN on shapes."""
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

import time


def _stamp():
    return time.strftime("%m/%d %H:%M:%S", time.gmtime(time.time()))


def log_train(step, epoch, m):
    i = step - epoch * RUN["per_epoch"]
    extra = "  ".join(f"{k}: {v:.4f}" for k, v in m.items() if k not in ("lr", "loss", "data_time", "time"))
    print(f"{_stamp()} - mmengine - INFO - Epoch(train)  [{epoch + 1}][{i:>3d}/{RUN['per_epoch']}]  "
          f"lr: {m['lr']:.4e}  eta: 0:00:{max(0, RUN['total'] - step) % 60:02d}  time: {m.get('time', 0.05):.4f}  "
          f"data_time: {m.get('data_time', 0.002):.4f}  memory: 0  loss: {m['loss']:.4f}  {extra}".rstrip(), flush=True)


def log_val(step, epoch, m):
    print(f"{_stamp()} - mmengine - INFO - Epoch(val) [{epoch + 1}][10/10]    "
          + "  ".join(f"{k.replace('val_acc', 'accuracy/top1').replace('val_loss', 'loss')}: {v:.4f}" for k, v in m.items()), flush=True)


def log_text(msg):
    print(f"{_stamp()} - mmengine - INFO - {msg}", flush=True)


def close():
    pass

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
