"""Synthetic data and tiny models shared by the scenario generators."""
import numpy as np
import torch
import torch.nn as nn


def teacher_data(n, d, k, seed, hidden=64, temp=1.0):
    """Inputs ~ N(0,1); labels = argmax of a random 2-layer teacher net (learnable, non-linear)."""
    g = np.random.default_rng(seed)
    W1 = g.normal(size=(d, hidden)) / np.sqrt(d)
    W2 = g.normal(size=(hidden, k)) / np.sqrt(hidden)
    X = g.normal(size=(n, d)).astype(np.float32)
    logits = np.tanh(X @ W1) @ W2 / temp
    y = logits.argmax(1).astype(np.int64)
    return X, y


def gmm_data(n, d, k, seed, sep=2.0, priors=None):
    g = np.random.default_rng(seed)
    means = g.normal(size=(k, d)) * sep / np.sqrt(d) * 2
    p = np.ones(k) / k if priors is None else np.asarray(priors)
    y = g.choice(k, size=n, p=p)
    X = (means[y] + g.normal(size=(n, d))).astype(np.float32)
    return X, y.astype(np.int64)


def mlp(d, h, k, depth=2, act=nn.ReLU, dropout=0.0):
    layers, last = [], d
    for _ in range(depth):
        layers += [nn.Linear(last, h), act()]
        if dropout:
            layers.append(nn.Dropout(dropout))
        last = h
    layers.append(nn.Linear(last, k))
    return nn.Sequential(*layers)


def batches(n, bs, g=None, shuffle=True, drop_last=False):
    idx = g.permutation(n) if shuffle else np.arange(n)
    for i in range(0, n, bs):
        b = idx[i:i + bs]
        if drop_last and len(b) < bs:
            break
        yield b


@torch.no_grad()
def evaluate(model, X, y, bs=1024):
    was = model.training
    model.eval()
    crit = nn.CrossEntropyLoss(reduction="sum")
    tot, correct = 0.0, 0
    for i in range(0, len(X), bs):
        xb, yb = torch.from_numpy(X[i:i + bs]), torch.from_numpy(y[i:i + bs])
        out = model(xb)
        tot += crit(out, yb).item()
        correct += (out.argmax(1) == yb).sum().item()
    model.train(was)
    return tot / len(X), correct / len(X)


def grad_norm(model):
    s = 0.0
    for p in model.parameters():
        if p.grad is not None:
            s += p.grad.detach().pow(2).sum().item()
    return s ** 0.5
