"""Shared helpers for gen.py: synthetic data, tiny models, file writing."""
import os
import numpy as np
import torch
import torch.nn as nn


def teacher_data(n, d, k, seed, hidden=32, noise=0.0, scale=3.0, priors=None):
    """Inputs ~ N(0, I); labels = argmax of a random tanh teacher net (+ gumbel noise)."""
    rng = np.random.default_rng(seed)
    W1 = rng.normal(0, 1.0 / np.sqrt(d), (d, hidden))
    b1 = rng.normal(0, 0.5, hidden)
    W2 = rng.normal(0, 1.0 / np.sqrt(hidden), (hidden, k))
    X = rng.normal(0, 1, (n, d)).astype(np.float32)
    logits = np.tanh(X @ W1 + b1) @ W2 * scale
    if noise > 0:
        logits = logits + rng.gumbel(size=logits.shape) * noise
    target = np.full(k, 1.0 / k) if priors is None else np.asarray(priors, float)
    off = np.zeros(k)
    for _ in range(60):  # shift class offsets until label frequencies match the priors
        freq = np.bincount(np.argmax(logits + off, 1), minlength=k) / n + 1e-4
        off -= 0.5 * np.log(freq / target)
    y = np.argmax(logits + off, 1).astype(np.int64)
    return X, y


def mlp(d, h, k, depth=2, dropout=0.0, bn=False, softmax=False):
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
    if softmax:
        layers.append(nn.Softmax(dim=1))
    return nn.Sequential(*layers)


@torch.no_grad()
def evaluate(model, X, y, bs=1024):
    model.eval()
    tot, correct = 0.0, 0
    for i in range(0, len(X), bs):
        out = model(X[i:i + bs])
        tot += torch.nn.functional.cross_entropy(out, y[i:i + bs], reduction="sum").item()
        correct += (out.argmax(1) == y[i:i + bs]).sum().item()
    model.train()
    return tot / len(X), correct / len(X)


def write(root, run, name, text):
    p = os.path.join(root, run, name)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text.rstrip("\n") + "\n")
