"""Character-level GRU language model on a toy corpus, with linear warm-up and decay."""
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
        self.embed = nn.Embedding(vocab, cfg["emb"])
        self.rnn = nn.GRU(cfg["emb"], cfg["hidden"], batch_first=True)
        self.head = nn.Linear(cfg["hidden"], vocab)

    def forward(self, x):
        h, _ = self.rnn(self.embed(x))
        return self.head(h)

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
    total_steps = cfg["epochs"] * len(loader)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / cfg["warmup_steps"], max(0.0, (total_steps - s) / (total_steps - cfg["warmup_steps"]))))
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
            scheduler.step()
            if step % cfg["log_every"] == 0:
                metrics = {"loss": loss.item(), "lr": optimizer.param_groups[0]["lr"], "grad_norm": gnorm}
                log_train(step, epoch, metrics)
        log_val(step, epoch, {"val_loss": evaluate(model, val_loader, V)})
        log_text(f"sample: {sample(model, stoi, itos)!r}")
    close()


CFG = {}

if __name__ == "__main__":
    main()
