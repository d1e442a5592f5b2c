"""Shared helpers for gen.py: data, models, formatting."""
import os, json, math, datetime, textwrap
import numpy as np
import torch
import torch.nn as nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = os.path.join(ROOT, "runs")


def seed_all(s):
    np.random.seed(s)
    torch.manual_seed(s)
    return np.random.default_rng(s)


def make_clf(rng, n, d, k, sep=1.0, sub=2, noise=1.0):
    """Gaussian mixture classification: each class = `sub` clusters."""
    cents = rng.normal(0, sep, (k, sub, d))
    y = rng.integers(0, k, n)
    s = rng.integers(0, sub, n)
    X = cents[y, s] + rng.normal(0, noise, (n, d))
    return X.astype(np.float32), y.astype(np.int64), cents


def sample_from(rng, cents, n, noise=1.0):
    k, sub, d = cents.shape
    y = rng.integers(0, k, n)
    s = rng.integers(0, sub, n)
    X = cents[y, s] + rng.normal(0, noise, (n, d))
    return X.astype(np.float32), y.astype(np.int64)


def mlp(sizes, dropout=0.0, act=nn.ReLU):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(act())
            if dropout:
                layers.append(nn.Dropout(dropout))
    return nn.Sequential(*layers)


@torch.no_grad()
def evaluate(model, X, y, bs=512, loss_fn=None):
    model.eval()
    loss_fn = loss_fn or nn.CrossEntropyLoss(reduction="sum")
    tot, correct = 0.0, 0
    for i in range(0, len(X), bs):
        out = model(X[i:i + bs])
        tot += loss_fn(out, y[i:i + bs]).item()
        correct += (out.argmax(1) == y[i:i + bs]).sum().item()
    model.train()
    return tot / len(X), correct / len(X)


def grad_norm(model):
    s = 0.0
    for p in model.parameters():
        if p.grad is not None:
            s += p.grad.detach().pow(2).sum().item()
    return math.sqrt(s)


class Clock:
    """Deterministic wall-clock for log timestamps (formatting only)."""
    def __init__(self, start, fmt="%Y-%m-%d %H:%M:%S"):
        self.t = datetime.datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
        self.fmt = fmt

    def tick(self, sec):
        self.t += datetime.timedelta(seconds=sec)
        return self.t.strftime(self.fmt)

    def now(self, fmt=None):
        return self.t.strftime(fmt or self.fmt)


def comma(x, nd=2):
    """Local decimal comma: 0.35 -> '0,35'."""
    return f"{x:.{nd}f}".replace(".", ",")


def write(run, name, text):
    d = os.path.join(RUNS, run)
    os.makedirs(os.path.join(d, os.path.dirname(name)), exist_ok=True)
    with open(os.path.join(d, name), "w", encoding="utf-8") as f:
        f.write(text if text.endswith("\n") else text + "\n")


def dedent(s):
    return textwrap.dedent(s).lstrip("\n")


def line_of(code, needle):
    for i, l in enumerate(code.splitlines(), 1):
        if needle in l:
            return i, l.strip()
    raise ValueError(needle)
