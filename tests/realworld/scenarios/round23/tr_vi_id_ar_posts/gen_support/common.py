"""Shared helpers for gen.py: synthetic data and small formatting utilities."""
import numpy as np
import torch
import torch.nn as nn


def teacher_data(n, d, k, seed, hidden=32, temp=1.0, flip=0.0):
    """Inputs ~ N(0, I); labels = argmax of a random tanh teacher net (learnable, nonlinear)."""
    rng = np.random.default_rng(seed)
    W1 = rng.normal(0, 1.0 / np.sqrt(d), size=(d, hidden)) * 2.0
    b1 = rng.normal(0, 0.5, size=hidden)
    W2 = rng.normal(0, 1.0 / np.sqrt(hidden), size=(hidden, k)) * 3.0
    X = rng.normal(0, 1, size=(n, d))
    logits = np.tanh(X @ W1 + b1) @ W2
    y = logits.argmax(1)
    return X.astype(np.float32), y.astype(np.int64)


def blobs(n, d, k, seed, sep=2.5, std=1.0):
    rng = np.random.default_rng(seed)
    C = rng.normal(0, sep, size=(k, d)) / np.sqrt(d) * np.sqrt(d / 4)
    y = rng.integers(0, k, size=n)
    X = C[y] + rng.normal(0, std, size=(n, d))
    return X.astype(np.float32), y.astype(np.int64)


def grad_norm(model):
    tot = 0.0
    for p in model.parameters():
        if p.grad is not None:
            tot += float(p.grad.detach().pow(2).sum())
    return tot ** 0.5


def mlp(d, k, hidden=(128, 128), dropout=0.0, bn=False):
    layers, prev = [], d
    for h in hidden:
        layers.append(nn.Linear(prev, h))
        if bn:
            layers.append(nn.BatchNorm1d(h))
        layers.append(nn.ReLU())
        if dropout:
            layers.append(nn.Dropout(dropout))
        prev = h
    layers.append(nn.Linear(prev, k))
    return nn.Sequential(*layers)


FA_DIGITS = str.maketrans("0123456789.", "۰۱۲۳۴۵۶۷۸۹٫")
AR_DIGITS = str.maketrans("0123456789.", "٠١٢٣٤٥٦٧٨٩٫")


def fa(x):
    return str(x).translate(FA_DIGITS)


def ar(x):
    return str(x).translate(AR_DIGITS)


def mixture(n, d, k, seed, per_class=3, sep=1.0, std=1.0):
    """Balanced classes, each a mixture of `per_class` Gaussian clusters (needs a nonlinear model)."""
    rng = np.random.default_rng(seed)
    C = rng.normal(0, sep, size=(k, per_class, d))
    y = rng.integers(0, k, size=n)
    c = rng.integers(0, per_class, size=n)
    X = C[y, c] + rng.normal(0, std, size=(n, d))
    return X.astype(np.float32), y.astype(np.int64)
