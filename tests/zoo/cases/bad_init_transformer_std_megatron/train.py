"""Small Transformer char LM, GPT-2 style initialisation."""
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

class CharLM(nn.Module):
    def __init__(self, vocab, cfg):
        super().__init__()
        d = cfg["d_model"]
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(1, cfg["block"], d))
        layer = nn.TransformerEncoderLayer(d, cfg["n_heads"], 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, cfg["n_layers"], enable_nested_tensor=False)
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, x):
        t = x.shape[1]
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        h = self.blocks(self.tok(x) + self.pos[:, :t], mask=mask, is_causal=True)
        return self.head(self.ln(h))

import time

_t0 = time.time()
_last = [time.time()]


def log_train(step, epoch, m):
    now = time.time()
    ms = (now - _last[0]) * 1000.0 / RUN["log_every"]
    _last[0] = now
    parts = [f" iteration {step:>8d}/{RUN['total']:>8d}", f"consumed samples: {step * RUN['batch_size']:>12d}",
             f"elapsed time per iteration (ms): {ms:.1f}", f"learning rate: {m['lr']:.6E}",
             f"global batch size: {RUN['batch_size']:>5d}", f"lm loss: {m['loss']:.6E}"]
    if "loss_scale" in m:
        parts.append(f"loss scale: {m['loss_scale']:.1f}")
    parts.append(f"grad norm: {m['grad_norm']:.3f}")
    parts.append(f"number of skipped iterations: {int(m.get('skipped', 0)):>3d}")
    parts.append(f"number of nan iterations: {int(m.get('nan_iters', 0)):>3d}")
    print(" | ".join(parts) + " |", flush=True)


def log_val(step, epoch, m):
    print("-" * 100)
    print(f" validation loss at iteration {step} | lm loss value: {m['val_loss']:.6E} | lm loss PPL: {__import__('math').exp(min(m['val_loss'], 50)):.6E} | ")
    print("-" * 100, flush=True)


def log_text(msg):
    print(msg, flush=True)


def close():
    print("[after training is done] datetime: 2024-05-01 12:41:07 ", flush=True)

def init_weights(model, std):
    """GPT-2 style: normal(0, std) for every weight matrix, zeros for biases."""
    for name, p in model.named_parameters():
        if p.dim() > 1:
            nn.init.normal_(p, mean=0.0, std=std)
        elif name.endswith("bias"):
            nn.init.zeros_(p)

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
    train_ds, val_ds = CharData(text, stoi, cfg["block"]), CharData(val_text, stoi, cfg["block"])
    loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=64)
    V = len(chars)
    model = CharLM(V, cfg)
    init_weights(model, cfg["init_std"])
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
