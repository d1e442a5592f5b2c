"""Char GRU LM, one sentence per sample."""
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

WORDS = ("the cat dog sat ran on a mat log big small red blue fox jumps over lazy quick brown "
         "and then saw it was very far near under tree house").split()


def make_corpus(n_sentences, seed):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n_sentences):
        n = int(torch.randint(4, 9, (1,), generator=g))
        idx = torch.randint(0, len(WORDS), (n,), generator=g)
        out.append(" ".join(WORDS[i] for i in idx.tolist()) + ".")
    return " ".join(out)


class CharData(torch.utils.data.Dataset):
    def __init__(self, text, stoi, block):
        self.ids = torch.tensor([stoi[c] for c in text], dtype=torch.long)
        self.block = block

    def __len__(self):
        return (len(self.ids) - 1) // self.block

    def __getitem__(self, i):
        a = i * self.block
        return self.ids[a:a + self.block], self.ids[a + 1:a + self.block + 1]


class SentenceDataset(torch.utils.data.Dataset):
    """One sample per sentence: (input ids, next-char ids)."""

    def __init__(self, text, stoi):
        self.sents = [s.strip() + "." for s in text.split(".") if s.strip()]
        self.stoi = stoi

    def __len__(self):
        return len(self.sents)

    def __getitem__(self, i):
        ids = torch.tensor([self.stoi[ch] for ch in self.sents[i]])
        return ids[:-1], ids[1:]

class CharLM(nn.Module):
    def __init__(self, vocab, cfg):
        super().__init__()
        self.embed = nn.Embedding(vocab, cfg["emb"])
        self.rnn = nn.GRU(cfg["emb"], cfg["hidden"], batch_first=True)
        self.head = nn.Linear(cfg["hidden"], vocab)

    def forward(self, x):
        h, _ = self.rnn(self.embed(x))
        return self.head(h)

import sys
import time

_t0 = time.time()


def _bar(i, n, width=10):
    full = int(width * i / n)
    return "\u2588" * full + " " * (width - full)


def log_train(step, epoch, m):
    n = RUN["per_epoch"]
    i = step - epoch * n
    el = time.time() - _t0
    rate = step / max(el, 1e-9)
    post = ", ".join(f"{k}={v:.3g}" for k, v in m.items())
    sys.stderr.write(f"\rEpoch {epoch}: {100 * i // n:3d}%|{_bar(i, n)}| {i}/{n} "
                     f"[{int(el) // 60:02d}:{int(el) % 60:02d}<00:00, {rate:.2f}it/s, {post}]")
    if i == n:
        sys.stderr.write("\n")
    sys.stderr.flush()


def log_val(step, epoch, m):
    sys.stderr.write("Validation: " + ", ".join(f"{k}={v:.4f}" for k, v in m.items()) + "\n")


def log_text(msg):
    sys.stderr.write(msg + "\n")


def close():
    pass

@torch.no_grad()
def evaluate(model, loader, vocab):
    model.eval()
    tot, n = 0.0, 0
    for x, y in loader:
        tot += F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1)).item() * len(x)
        n += len(x)
    model.train()
    return tot / n


@torch.no_grad()
def sample(model, stoi, itos, prompt="the ", n=40):
    model.eval()
    g = torch.Generator().manual_seed(0)
    ids = torch.tensor([[stoi[c] for c in prompt]])
    for _ in range(n):
        probs = torch.softmax(model(ids[:, -32:])[:, -1], dim=-1)
        ids = torch.cat([ids, torch.multinomial(probs, 1, generator=g)], dim=1)
    model.train()
    return "".join(itos[i] for i in ids[0].tolist())


def main():
    cfg = load_config()
    CFG.update(cfg)
    torch.manual_seed(cfg["seed"])
    text, val_text = make_corpus(cfg["n_sentences"], seed=1), make_corpus(150, seed=2)
    chars = sorted(set(text + val_text))
    stoi = {c: i for i, c in enumerate(chars)}
    itos = {i: c for c, i in stoi.items()}
    train_ds, val_ds = SentenceDataset(text, stoi), SentenceDataset(val_text, stoi)
    loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=64)
    V = len(chars)
    model = CharLM(V, cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=0.01)
    scheduler = None
    RUN.update(total=cfg["epochs"] * len(loader), epochs=cfg["epochs"], per_epoch=len(loader),
               log_every=cfg["log_every"], batch_size=cfg["batch_size"])
    log_text(f"vocab {V}, {len(train_ds)} sequences of {cfg['block']}, {sum(p.numel() for p in model.parameters())} parameters")
    step = 0
    for epoch in range(cfg["epochs"]):
        for x, y in loader:
            step += 1
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["grad_clip"]).item()
            optimizer.step()
            if step % cfg["log_every"] == 0:
                metrics = {"loss": loss.item(), "lr": optimizer.param_groups[0]["lr"], "grad_norm": gnorm}
                log_train(step, epoch, metrics)
        log_val(step, epoch, {"val_loss": evaluate(model, val_loader, V)})
        log_text(f"sample: {sample(model, stoi, itos)!r}")
    close()


CFG = {}

if __name__ == "__main__":
    main()
