"""Small Transformer char LM with fairseq's inverse_sqrt schedule."""
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

import math
import time

_t0 = time.time()


def _stamp():
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time()))


def log_train(step, epoch, m):
    i = step - epoch * RUN["per_epoch"]
    l2 = m["loss"] / math.log(2)
    print(f"{_stamp()} | INFO | train_inner | epoch {epoch + 1:03d}: {i:>6d} / {RUN['per_epoch']} "
          f"loss={l2:.3f}, nll_loss={l2:.3f}, ppl={2 ** min(l2, 60):.2f}, wps=15321.4, ups=7.48, wpb=2048, bsz=32, "
          f"num_updates={step}, lr={m['lr']:.5g}, gnorm={m['grad_norm']:.3f}, train_wall=1, gb_free=10.6, "
          f"wall={int(time.time() - _t0)}", flush=True)


def log_val(step, epoch, m):
    l2 = m["val_loss"] / math.log(2)
    print(f"{_stamp()} | INFO | valid | epoch {epoch + 1:03d} | valid on 'valid' subset | loss {l2:.3f} | "
          f"nll_loss {l2:.3f} | ppl {2 ** min(l2, 60):.2f} | wps 40211.3 | wpb 2048 | bsz 32 | num_updates {step}", flush=True)


def log_text(msg):
    print(f"{_stamp()} | INFO | fairseq_cli.train | {msg}", flush=True)


def close():
    print(f"{_stamp()} | INFO | fairseq_cli.train | done training in {time.time() - _t0:.1f} seconds", flush=True)

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
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=0.01)
    scheduler = None
    RUN.update(total=cfg["epochs"] * len(loader), epochs=cfg["epochs"], per_epoch=len(loader),
               log_every=cfg["log_every"], batch_size=cfg["batch_size"])
    log_text(f"vocab {V}, {len(train_ds)} sequences of {cfg['block']}, {sum(p.numel() for p in model.parameters())} parameters")
    step = 0
    for epoch in range(cfg["epochs"]):
        for x, y in loader:
            step += 1
            if step < cfg["warmup_updates"]:
                lr = cfg["warmup_init_lr"] + (cfg["lr"] - cfg["warmup_init_lr"]) * step / cfg["warmup_updates"]
            else:
                lr = cfg["lr"] * (cfg["warmup_updates"] / step) ** 0.5
            for g in optimizer.param_groups:
                g["lr"] = lr
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
