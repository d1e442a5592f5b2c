"""Tiny classifier on synthetic data: the demo's failing training run."""
import argparse
import sys

import torch
import torch.nn as nn
import yaml


def make_data(n=2048, dim=20, classes=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(classes, dim, generator=g) * 0.5
    y = torch.randint(0, classes, (n,), generator=g)
    x = centers[y] + torch.randn(n, dim, generator=g)
    return x, y


def build_model(dim=20, classes=4):
    return nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, classes))


def train(cfg, steps, log):
    torch.manual_seed(cfg["seed"])
    x, y = make_data()
    model = build_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    recent = []
    for step in range(1, steps + 1):
        idx = torch.randint(0, len(x), (cfg["batch_size"],))
        loss = loss_fn(model(x[idx]), y[idx])
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        optimizer.step()
        if step % 5 == 0:
            print(f"step={step} loss={loss.item():.4f} grad_norm={grad_norm.item():.4f} lr={cfg['lr']}", file=log, flush=True)
        recent = (recent + [loss.item()])[-20:]
        if not torch.isfinite(loss):
            return float("nan")
    return sum(recent) / len(recent)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="config.yaml")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--log", default="runs/latest/train.log")
    a = p.parse_args()
    with open(a.config) as f:
        cfg = yaml.safe_load(f)
    import os
    os.makedirs(os.path.dirname(a.log) or ".", exist_ok=True)
    with open(a.log, "w") as log:
        final = train(cfg, a.steps, log)
    print(f"final loss {final:.4f}")
    if not final < 0.8:
        print("training failed: final loss is not below 0.8", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
