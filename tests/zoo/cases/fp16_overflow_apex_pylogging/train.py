"""fp16 MLP classifier with dynamic loss scaling."""
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
    # raw sensor units, not standardised
    return x * cfg["feature_scale"], y

def LOSS(logits, y, smoothing=0.1):
    """Label-smoothed cross-entropy: log-sum-exp minus the smoothed target logit."""
    lse = logits.exp().sum(-1).log()
    target = (1 - smoothing) * logits.gather(1, y[:, None]).squeeze(1) + smoothing * logits.mean(-1)
    return (lse - target).mean()


def build_model(cfg):
    return nn.Sequential(nn.Linear(cfg["dim"], 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                         nn.Linear(256, cfg["num_classes"]))

import logging

logging.basicConfig(filename="train.log", level=logging.INFO,
                    format="%(asctime)s %(levelname)s %(name)s: %(message)s")
logger = logging.getLogger("trainer")


def log_train(step, epoch, m):
    logger.info("epoch %d step %d/%d - %s", epoch, step, RUN["total"],
                ", ".join(f"{k}: {v:.4e}" if k == "lr" else f"{k}: {v:.4f}" for k, v in m.items()))


def log_val(step, epoch, m):
    logger.info("validation after epoch %d - %s", epoch, ", ".join(f"{k}: {v:.4f}" for k, v in m.items()))


def log_text(msg):
    logger.info(msg)


def close():
    logger.info("done")


def log_overflow(step, new_scale):
    logger.warning("Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to %s", new_scale / 2)

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
