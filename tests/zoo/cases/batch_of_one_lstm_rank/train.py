"""LSTM classifier."""
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
    p.add_argument('--vocab_size', type=int, default=30)
    p.add_argument('--num_classes', type=int, default=6)
    p.add_argument('--seq_len', type=int, default=20)
    p.add_argument('--n_train', type=int, default=1200)
    p.add_argument('--n_val', type=int, default=400)
    p.add_argument('--emb', type=int, default=16)
    p.add_argument('--hidden', type=int, default=32)
    p.add_argument('--batch_size', type=int, default=1)
    p.add_argument('--epochs', type=int, default=1)
    p.add_argument('--lr', type=float, default=0.003)
    p.add_argument('--log_every', type=int, default=4)
    cfg = vars(p.parse_args())
    with open('args.json', 'w') as f:
        json.dump(cfg, f, indent=2)
    return cfg

def make_split(n, cfg, seed):
    g = torch.Generator().manual_seed(seed)
    k, t = cfg["num_classes"], cfg["seq_len"]
    y = torch.randint(0, k, (n,), generator=g)
    x = torch.randint(0, cfg["vocab_size"], (n, t), generator=g)
    mask = torch.rand(n, t, generator=g) < 0.35
    x[mask] = y.unsqueeze(1).expand(n, t)[mask]
    return x, y


def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    xv, yv = make_split(cfg["n_val"], cfg, seed=2)
    return TensorDataset(x, y), TensorDataset(xv, yv)

class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg["vocab_size"], cfg["emb"])
        self.lstm = nn.LSTM(cfg["emb"], cfg["hidden"], batch_first=True)
        self.out = nn.Linear(cfg["hidden"], cfg["num_classes"])

    def forward(self, x):
        h, _ = self.lstm(self.embed(x))
        return self.out(h.mean(dim=1))

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
