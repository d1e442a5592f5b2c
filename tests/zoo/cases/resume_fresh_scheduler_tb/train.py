"""Classifier training with preemption-safe resume (weights + step saved)."""
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

from torch.utils.tensorboard import SummaryWriter

writer = SummaryWriter("tb")
_TB = {"loss": "train/total_loss", "lr": "optim/lr-AdamW", "grad_norm": "optim/gnorm",
       "val_loss": "eval/total_loss", "val_acc": "eval/top1"}


def log_train(step, epoch, m):
    for k, v in m.items():
        writer.add_scalar(_TB.get(k, "train/" + k), v, step)


def log_val(step, epoch, m):
    for k, v in m.items():
        writer.add_scalar(_TB.get(k, "eval/" + k), v, step)


def log_text(msg):
    print(msg, flush=True)


def close():
    writer.close()

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
    loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=256)
    model = Net(cfg)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    total = cfg["epochs"] * len(loader)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / cfg["warmup_steps"]) * max(0.02, 1 - s / total))
    RUN.update(total=total, epochs=cfg["epochs"], per_epoch=len(loader), log_every=cfg["log_every"],
               batch_size=cfg["batch_size"])
    step = 0
    if cfg.get("resume_from"):
        ckpt = torch.load(cfg["resume_from"])
        model.load_state_dict(ckpt["model"])
        step = ckpt["step"]
        log_text(f"Resuming from checkpoint {cfg['resume_from']} (global step {step})")
    start_epoch = step // len(loader)
    for epoch in range(start_epoch, cfg["epochs"]):
        for x, y in loader:
            step += 1
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0).item()
            optimizer.step()
            scheduler.step()
            if step % cfg["log_every"] == 0:
                log_train(step, epoch, {"loss": loss.item(), "lr": optimizer.param_groups[0]["lr"], "grad_norm": gnorm})
            if step == cfg.get("stop_at_step"):
                os.makedirs("checkpoints", exist_ok=True)
                torch.save({"model": model.state_dict(), "step": step}, f"checkpoints/step_{step}.pt")
                log_text(f"saved checkpoints/step_{step}.pt; job time limit reached, exiting")
                close()
                return
        val_loss, val_acc = evaluate(model, val_loader, criterion)
        log_val(step, epoch, {"val_loss": val_loss, "val_acc": val_acc})
    close()


CFG = {}

if __name__ == "__main__":
    main()
