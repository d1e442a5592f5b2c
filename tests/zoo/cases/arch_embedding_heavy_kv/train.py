"""Word-level GRU language model."""
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

def make_tokens(n, vocab, seed):
    """Zipf-distributed token ids with short-range structure (bigram repeats)."""
    g = torch.Generator().manual_seed(seed)
    ranks = torch.arange(1, vocab + 1, dtype=torch.float)
    p = 1.0 / ranks
    ids = torch.multinomial(p / p.sum(), n, replacement=True, generator=g)
    ids[1::2] = (ids[0::2] * 7 + 3) % vocab
    return ids


class WordLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg["vocab_size"], cfg["emb"])
        self.proj_in = nn.Linear(cfg["emb"], cfg["hidden"])
        self.rnn = nn.GRU(cfg["hidden"], cfg["hidden"], batch_first=True)
        self.proj_out = nn.Linear(cfg["hidden"], cfg["emb"])
        self.head = nn.Linear(cfg["emb"], cfg["vocab_size"])

    def forward(self, x):
        h, _ = self.rnn(self.proj_in(self.embed(x)))
        return self.head(self.proj_out(h))


def param_table(model):
    total = sum(p.numel() for p in model.parameters())
    rows = [f"{'module':<12}{'params':>12}{'share':>9}"]
    for name, m in model.named_children():
        n = sum(p.numel() for p in m.parameters())
        rows.append(f"{name:<12}{n:>12,}{100 * n / total:>8.1f}%")
    rows.append(f"{'total':<12}{total:>12,}")
    return rows


def main():
    cfg = load_config()
    torch.manual_seed(cfg["seed"])
    ids = make_tokens(cfg["n_tokens"], cfg["vocab_size"], seed=1)
    blocks = ids[: len(ids) // (cfg["block"] + 1) * (cfg["block"] + 1)].view(-1, cfg["block"] + 1)
    loader = DataLoader(TensorDataset(blocks[:, :-1], blocks[:, 1:]), batch_size=cfg["batch_size"], shuffle=True)
    model = WordLM(cfg)
    for row in param_table(model):
        log_text(row)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    RUN.update(total=cfg["epochs"] * len(loader), epochs=cfg["epochs"], per_epoch=len(loader),
               log_every=cfg["log_every"], batch_size=cfg["batch_size"])
    step = 0
    for epoch in range(cfg["epochs"]):
        for x, y in loader:
            step += 1
            loss = F.cross_entropy(model(x).reshape(-1, cfg["vocab_size"]), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
            optimizer.step()
            if step % cfg["log_every"] == 0:
                log_train(step, epoch, {"loss": loss.item(), "lr": cfg["lr"], "grad_norm": gnorm})
    close()


if __name__ == "__main__":
    main()
