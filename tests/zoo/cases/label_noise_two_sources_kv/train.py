"""MLP on blobs, labels merged from two annotation exports."""
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
    """Gaussian blobs: cfg['num_classes'] centres in cfg['dim'] dimensions."""
    g = torch.Generator().manual_seed(0)          # the same centres for every split
    centres = torch.randn(cfg["num_classes"], cfg["dim"], generator=g) * cfg.get("spread", 1.0)
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, cfg["num_classes"], (n,), generator=g)
    x = centres[y] + torch.randn(n, cfg["dim"], generator=g) * cfg.get("noise", 1.0)
    return x, y


def load_export(y, share_b, k, seed):
    """Labels of the merged annotation exports A and B (B's rows are the first share_b of the file)."""
    g = torch.Generator().manual_seed(seed)
    from_b = torch.rand(len(y), generator=g) < share_b
    return torch.where(from_b, (y + 1) % k, y)     # export B labels read as they are


def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    y = load_export(y, cfg["export_b_share"], cfg["num_classes"], seed=7)
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

def _fmt(v):
    return f"{v:.5g}" if isinstance(v, float) else str(v)


def log_train(step, epoch, m):
    print(" ".join([f"step={step}", f"epoch={epoch}"] + [f"{k}={_fmt(v)}" for k, v in m.items()]), flush=True)


def log_val(step, epoch, m):
    print(" ".join(["[eval]", f"step={step}", f"epoch={epoch}"] + [f"{k}={_fmt(v)}" for k, v in m.items()]), flush=True)


def log_text(msg):
    print(msg, flush=True)


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
                metrics["acc"] = (logits.argmax(-1) == y).float().mean().item()
                log_train(step, epoch, metrics)
        val_loss, val_acc = evaluate(model, val_loader, criterion)
        log_val(step, epoch, {"val_loss": val_loss, "val_acc": val_acc})
    close()


CFG = {}

if __name__ == "__main__":
    main()
