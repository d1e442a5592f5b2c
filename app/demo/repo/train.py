"""Tiny classifier on synthetic data: the demo's failing training run."""
import argparse
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, TensorDataset


def make_data(n=2048, dim=20, classes=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(classes, dim, generator=g) * 0.5
    y = torch.randint(0, classes, (n,), generator=g)
    x = centers[y] + torch.randn(n, dim, generator=g)
    return x, y


def build_model(dim=20, classes=4):
    return nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, classes))


def build_loader(batch_size=64):
    x, y = make_data()
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=True, drop_last=True)


def train_step(model, optimizer, batch):
    """One optimisation step; returns (loss, grad_norm)."""
    x, y = batch
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
    optimizer.step()
    return loss.item(), grad_norm.item()


def train(cfg, steps, log):
    torch.manual_seed(cfg["seed"])
    model = build_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    loader = build_loader(cfg["batch_size"])
    recent, step = [], 0
    while step < steps:
        for batch in loader:
            step += 1
            loss, grad_norm = train_step(model, optimizer, batch)
            recent = (recent + [loss])[-20:]
            if step % 5 == 0:
                print(f"step={step} loss={loss:.4f} grad_norm={grad_norm:.4f} lr={cfg['lr']}", file=log, flush=True)
            if loss != loss or step >= steps:  # NaN, or done
                break
    return sum(recent) / len(recent)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="config.yaml")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--log", default="runs/latest/train.log")
    a = p.parse_args()
    with open(a.config) as f:
        cfg = yaml.safe_load(f)
    os.makedirs(os.path.dirname(a.log) or ".", exist_ok=True)
    with open(a.log, "w") as log:
        final = train(cfg, a.steps, log)
    print(f"final loss {final:.4f}")
    if not final < 0.8:
        print("training failed: final loss is not below 0.8", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
