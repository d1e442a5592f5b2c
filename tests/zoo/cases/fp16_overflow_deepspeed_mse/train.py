"""fp16 regressor, DeepSpeed-style dynamic loss scaling."""
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
    """Tabular regression: y = sin(x0) + x1 * x2 + 0.5 * x3^2 + noise."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, cfg["dim"], generator=g)
    y = torch.sin(x[:, 0]) + x[:, 1] * x[:, 2] + 0.5 * x[:, 3] ** 2 + 0.1 * torch.randn(n, generator=g)
    return x, (y * cfg["target_scale"]).unsqueeze(1)   # in grams

LOSS = nn.MSELoss()


def build_model(cfg):
    return nn.Sequential(nn.Linear(cfg["dim"], cfg["hidden"]), nn.Tanh(), nn.Linear(cfg["hidden"], 1))

import time


def _stamp():
    t = time.time()
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + f",{int(t * 1000) % 1000:03d}"


def log_overflow(step, new_scale):
    print(f"[{_stamp()}] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
          f"Attempted loss scale: {int(new_scale)}, reducing to {int(max(new_scale / 2, 1))}", flush=True)


def log_train(step, epoch, m):
    print(f"[{_stamp()}] [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped={m['skipped']}, "
          f"lr=[{m['lr']}], mom=[(0.9, 0.999)]", flush=True)
    print(f"[{_stamp()}] [INFO] [timer.py:260:stop] epoch={epoch}/micro_step={step}/global_step={step}, "
          f"RunningAvgSamplesPerSec=1021.3, CurrSamplesPerSec=1033.9, MemAllocated=0.02GB, MaxMemAllocated=0.03GB", flush=True)
    print(f"step {step} | loss {m['loss']:.4f} | loss_scale {m['loss_scale']:g}", flush=True)


def log_text(msg):
    print(msg, flush=True)


def close():
    pass

class DynamicLossScaler:
    """apex-style dynamic loss scaling for a pure fp16 model."""

    def __init__(self, init_scale=2.0 ** 16, window=200):
        self.scale, self.window, self.good = init_scale, window, 0

    def has_overflow(self, params):
        return any(p.grad is not None and not torch.isfinite(p.grad).all() for p in params)

    def update(self, overflow):
        if overflow:
            self.scale = max(self.scale / 2, 2.0 ** -24)
            self.good = 0
        else:
            self.good += 1
            if self.good % self.window == 0:
                self.scale *= 2


def main():
    cfg = load_config()
    torch.manual_seed(cfg["seed"])
    x, y = make_split(cfg["n"], cfg, seed=1)
    loader = DataLoader(TensorDataset(x, y), batch_size=cfg["batch_size"], shuffle=True)
    model = build_model(cfg)
    if cfg["precision"] == "fp16":
        model = model.half()
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    scaler = DynamicLossScaler(cfg["init_loss_scale"])
    RUN.update(total=cfg["epochs"] * len(loader), epochs=cfg["epochs"], per_epoch=len(loader),
               log_every=cfg["log_every"], batch_size=cfg["batch_size"])
    step, skipped = 0, 0
    for epoch in range(cfg["epochs"]):
        for xb, yb in loader:
            step += 1
            if cfg["precision"] == "fp16":
                xb = xb.half()
                yb = yb.half() if yb.is_floating_point() else yb
            loss = LOSS(model(xb), yb)
            optimizer.zero_grad()
            (loss * scaler.scale).backward()
            overflow = scaler.has_overflow(model.parameters())
            if overflow:
                skipped += 1
                log_overflow(step, scaler.scale)
            else:
                for p in model.parameters():
                    p.grad.div_(scaler.scale)
                optimizer.step()
            gnorm = 0.0 if overflow else math.sqrt(sum(p.grad.float().pow(2).sum().item() for p in model.parameters()))
            scaler.update(overflow)
            if step % cfg["log_every"] == 0:
                log_train(step, epoch, {"loss": loss.item(), "lr": cfg["lr"], "grad_norm": gnorm,
                                        "loss_scale": scaler.scale, "skipped": skipped})
    close()


if __name__ == "__main__":
    main()
