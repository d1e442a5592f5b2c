"""Synthetic data sets used by gen.py (all seeded)."""
import numpy as np


def gmm_classes(n, d=32, K=10, M=3, sep=1.0, noise=1.0, world_seed=0, seed=1):
    """K classes, each a mixture of M gaussian blobs in d dims.
    world_seed fixes the blob centres (the 'dataset'); seed draws the samples."""
    w = np.random.default_rng(world_seed)
    centres = w.normal(0.0, sep, size=(K, M, d))
    r = np.random.default_rng(seed)
    y = r.integers(0, K, size=n)
    m = r.integers(0, M, size=n)
    x = centres[y, m] + noise * r.normal(size=(n, d))
    return x.astype(np.float32), y.astype(np.int64)


def multilabel(n, d=48, L=12, world_seed=0, seed=1, flip=0.0, sharp=1.0):
    """Multi-label targets from a random 2-layer teacher; optional label flips."""
    w = np.random.default_rng(world_seed)
    W1 = sharp * w.normal(size=(d, 64)) / np.sqrt(d)
    W2 = w.normal(size=(64, L)) / np.sqrt(64)
    b = w.normal(-0.9, 0.3, size=L)
    r = np.random.default_rng(seed)
    x = r.normal(size=(n, d)).astype(np.float32)
    z = np.tanh(x @ W1) @ W2 * 3.0 + b
    y = (z > 0).astype(np.float32)
    if flip > 0:
        f = r.random(size=y.shape) < flip
        y[f] = 1.0 - y[f]
    return x, y
