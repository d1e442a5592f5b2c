"""Shared helpers for gen.py: synthetic tasks, small models, formatting."""
import math, time, datetime as dt
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


def seed_all(s):
    np.random.seed(s)
    torch.manual_seed(s)


class Teacher:
    """A fixed random 2-layer net that labels Gaussian inputs (learnable, non-linear task)."""
    def __init__(self, d, k, seed, hidden=48, sharp=3.0):
        r = np.random.default_rng(seed)
        self.d, self.k = d, k
        self.W1 = r.standard_normal((d, hidden)) / math.sqrt(d) * 1.5
        self.b1 = r.standard_normal(hidden) * 0.3
        self.W2 = r.standard_normal((hidden, k)) / math.sqrt(hidden) * sharp
        self.bias = np.zeros(k)
        # balance classes roughly
        X = r.standard_normal((20000, d))
        lg = self.logits(X)
        for _ in range(30):
            p = np.bincount(lg.argmax(1), minlength=k) / len(X)
            self.bias -= 0.5 * (p - 1.0 / k) * sharp
            lg = self.logits(X)

    def logits(self, X):
        return np.tanh(X @ self.W1 + self.b1) @ self.W2 + self.bias

    def sample(self, n, seed, flip=0.0):
        r = np.random.default_rng(seed)
        X = r.standard_normal((n, self.d)).astype(np.float32)
        y = self.logits(X).argmax(1)
        if flip > 0:
            m = r.random(n) < flip
            y = y.copy()
            y[m] = r.integers(0, self.k, m.sum())
        return X, y.astype(np.int64)


def mlp(d, h, k, depth=2, dropout=0.0, bn=False):
    layers, last = [], d
    for _ in range(depth):
        layers.append(nn.Linear(last, h))
        if bn:
            layers.append(nn.BatchNorm1d(h))
        layers.append(nn.ReLU())
        if dropout:
            layers.append(nn.Dropout(dropout))
        last = h
    layers.append(nn.Linear(last, k))
    return nn.Sequential(*layers)


def batches(X, y, bs, shuffle, gen=None, drop_last=False):
    n = len(X)
    idx = torch.randperm(n, generator=gen) if shuffle else torch.arange(n)
    for i in range(0, n, bs):
        j = idx[i:i + bs]
        if drop_last and len(j) < bs:
            break
        yield X[j], y[j]


@torch.no_grad()
def evaluate(model, X, y, bs=512):
    was = model.training
    model.eval()
    tot, correct, n = 0.0, 0, 0
    for i in range(0, len(X), bs):
        out = model(X[i:i + bs])
        tot += F.cross_entropy(out, y[i:i + bs], reduction="sum").item()
        correct += (out.argmax(1) == y[i:i + bs]).sum().item()
        n += len(out)
    model.train(was)
    return tot / n, correct / n


def grad_norm(model):
    s = 0.0
    for p in model.parameters():
        if p.grad is not None:
            s += p.grad.detach().pow(2).sum().item()
    return math.sqrt(s)


class Clock:
    """Fake wall clock for log timestamps: starts at a fixed date, advances by real
    measured compute time times a factor (to look like a bigger job on a GPU box)."""
    def __init__(self, start, factor=1.0):
        self.t = start
        self.factor = factor
        self.last = time.perf_counter()

    def now(self):
        p = time.perf_counter()
        self.t += dt.timedelta(seconds=(p - self.last) * self.factor)
        self.last = p
        return self.t

    def advance(self, seconds):
        self.t += dt.timedelta(seconds=seconds)

    def stamp(self, fmt="%Y-%m-%d %H:%M:%S"):
        return self.now().strftime(fmt)


def tqdm_bar(desc, n, total, elapsed, rate, postfix="", width=10):
    frac = n / total
    fill = int(frac * width)
    bar = "\u2588" * fill + (" " if fill < width else "") * 0
    bar = bar + " " * (width - fill)
    def fmt(s):
        s = int(s)
        return f"{s // 60:02d}:{s % 60:02d}"
    remain = (total - n) / rate if rate > 0 else 0
    pf = f", {postfix}" if postfix else ""
    return f"{desc}: {int(frac * 100):3d}%|{bar}| {n}/{total} [{fmt(elapsed)}<{fmt(remain)}, {rate:.2f}it/s{pf}]"


def write(path, text):
    import os
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")


class Mixture:
    """Each class is a union of a few Gaussian blobs in d dims (non-linear, learnable)."""
    def __init__(self, d, k, seed, blobs=3, spread=1.0, sigma=1.0):
        r = np.random.default_rng(seed)
        self.d, self.k, self.blobs, self.sigma = d, k, blobs, sigma
        self.centers = r.standard_normal((k, blobs, d)) * spread

    def sample(self, n, seed, flip=0.0):
        r = np.random.default_rng(seed)
        y = r.integers(0, self.k, n)
        b = r.integers(0, self.blobs, n)
        X = self.centers[y, b] + r.standard_normal((n, self.d)) * self.sigma
        if flip > 0:
            m = r.random(n) < flip
            y = y.copy()
            y[m] = r.integers(0, self.k, m.sum())
        return X.astype(np.float32), y.astype(np.int64)
