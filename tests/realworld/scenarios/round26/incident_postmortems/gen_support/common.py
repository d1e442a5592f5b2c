"""Shared helpers for gen.py: synthetic data, small models, text formatting."""
import os, time, datetime, math
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

OUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = os.path.join(OUT, "runs")


def seed_all(s):
    np.random.seed(s)
    torch.manual_seed(s)


class Teacher:
    """Random 2-layer tanh network that defines a K-class labelling of R^d."""

    def __init__(self, rng, d, k, hidden=48, temp=0.0, scale=None):
        self.d, self.k, self.temp = d, k, temp
        self.W1 = rng.normal(0, 1.0 / math.sqrt(d), (d, hidden))
        self.b1 = rng.normal(0, 0.3, hidden)
        self.W2 = rng.normal(0, 1.0 / math.sqrt(hidden), (hidden, k)) * 3.0
        self.scale = np.ones(d) if scale is None else scale

    def sample(self, rng, n):
        x = rng.normal(0, 1, (n, self.d))
        logits = np.tanh(x @ self.W1 + self.b1) @ self.W2
        if self.temp > 0:
            logits = logits + rng.gumbel(0, self.temp, logits.shape)
        y = logits.argmax(1)
        return (x * self.scale).astype(np.float32), y.astype(np.int64)


def mlp(d, k, hidden=128, depth=2, dropout=0.0, bn=False):
    layers, h = [], d
    for _ in range(depth):
        layers.append(nn.Linear(h, hidden))
        if bn:
            layers.append(nn.BatchNorm1d(hidden))
        layers.append(nn.ReLU())
        if dropout:
            layers.append(nn.Dropout(dropout))
        h = hidden
    layers.append(nn.Linear(h, k))
    return nn.Sequential(*layers)


def batches(n, bs, gen, shuffle=True, drop_last=False):
    idx = torch.randperm(n, generator=gen) if shuffle else torch.arange(n)
    for i in range(0, n, bs):
        b = idx[i:i + bs]
        if drop_last and len(b) < bs:
            break
        yield b


def grad_norm(model):
    tot = 0.0
    for p in model.parameters():
        if p.grad is not None:
            tot += float(p.grad.detach().pow(2).sum())
    return math.sqrt(tot)


@torch.no_grad()
def evaluate(model, X, Y, bs=1024):
    model.eval()
    lf = nn.CrossEntropyLoss(reduction="sum")
    tot, corr = 0.0, 0
    for i in range(0, len(X), bs):
        out = model(X[i:i + bs])
        tot += float(lf(out, Y[i:i + bs]))
        corr += int((out.argmax(1) == Y[i:i + bs]).sum())
    model.train()
    return tot / len(X), corr / len(X)


def write(run, rel, text):
    p = os.path.join(RUNS, run, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")


def md_table(headers, rows, align=None):
    out = ["| " + " | ".join(headers) + " |"]
    al = align or ["---"] * len(headers)
    out.append("|" + "|".join(a if a.startswith(":") or a.endswith(":") else "---" for a in al) + "|")
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


class Clock:
    """Log timestamps (formatting only): a fixed wall-clock origin plus the real elapsed time of the run,
    stretched by a constant factor so that a CPU toy run reads like the production job it stands for."""

    def __init__(self, origin, scale=1.0):
        self.origin = datetime.datetime.strptime(origin, "%Y-%m-%d %H:%M:%S")
        self.t0 = time.perf_counter()
        self.scale = scale

    def now(self, fmt="%Y-%m-%d %H:%M:%S"):
        dt = self.origin + datetime.timedelta(seconds=(time.perf_counter() - self.t0) * self.scale)
        s = dt.strftime(fmt + ",%f")
        return s[:-3]

    def shift(self, seconds):
        self.origin += datetime.timedelta(seconds=seconds)


def f4(x):
    return "nan" if (isinstance(x, float) and math.isnan(x)) else f"{x:.4f}"
