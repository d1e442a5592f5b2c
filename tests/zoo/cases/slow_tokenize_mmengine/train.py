"""LSTM classifier over raw text tokenised on the fly."""
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


class TokenizedText(torch.utils.data.Dataset):
    """Tokenises each raw text on access."""

    def __init__(self, x, y, decode_ms):
        self.x, self.y, self.decode_s = x, y, decode_ms / 1000.0

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        time.sleep(self.decode_s)                  # tokenizer call
        return self.x[i], self.y[i]

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
    train_ds = TokenizedText(*train_ds.tensors, cfg["decode_ms"])
    train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, num_workers=cfg["num_workers"])
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
        t_data = time.perf_counter()
        for x, y in train_loader:
            step += 1
            t_step = time.perf_counter()
            data_time = t_step - t_data
            optimizer.zero_grad()
            logits = model(x)
            loss = criterion(logits, y)
            loss.backward()
            gnorm = grad_norm(model)
            optimizer.step()
            step_time = time.perf_counter() - t_data
            t_data = time.perf_counter()
            if step % cfg["log_every"] == 0:
                metrics = {"loss": loss.item(), "lr": optimizer.param_groups[0]["lr"], "grad_norm": gnorm}
                metrics.update(data_time=data_time, time=step_time, samples_per_sec=len(x) / step_time)
                log_train(step, epoch, metrics)
        val_loss, val_acc = evaluate(model, val_loader, criterion)
        log_val(step, epoch, {"val_loss": val_loss, "val_acc": val_acc})
    close()


CFG = {}

if __name__ == "__main__":
    main()
