"""Synthetic course data sets (all numpy, seeded)."""
import numpy as np

K = 10
SIDE = 8
D = SIDE * SIDE


def _blur(a):
    out = a.copy()
    out[1:, :] += a[:-1, :]
    out[:-1, :] += a[1:, :]
    out[:, 1:] += a[:, :-1]
    out[:, :-1] += a[:, 1:]
    return out / 5.0


def prototypes(seed=2024):
    rng = np.random.default_rng(seed)
    P = rng.uniform(0, 1, (K, SIDE, SIDE)) ** 2
    P = np.stack([_blur(_blur(p)) for p in P])
    P = (P - P.min(axis=(1, 2), keepdims=True))
    P = P / P.max(axis=(1, 2), keepdims=True) * 16.0
    return P.reshape(K, D)


_P = prototypes()


def make_digits(n, seed, noise=4.0, sort_by_class=False):
    """'Digits8x8': 8x8 grey images with integer intensities 0..16, 10 classes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    # per-sample contrast + shift of the prototype, then pixel noise
    contrast = rng.uniform(0.6, 1.2, (n, 1))
    X = _P[y] * contrast + rng.normal(0, noise, (n, D))
    X = np.clip(np.rint(X), 0, 16)
    if sort_by_class:
        order = np.argsort(y, kind="stable")
        X, y = X[order], y[order]
    return X.astype(np.float32), y.astype(np.int64)


def make_tabular(n, seed, n_missing=0, n_feat=12, n_cls=3):
    """'StudentOutcome': 12 numeric features of mixed scale, 3 classes."""
    rng = np.random.default_rng(seed)
    W = np.random.default_rng(77).normal(0, 1, (n_feat, n_cls))
    scales = np.array([1, 10, 100, 1, 5, 40, 1, 1000, 3, 20, 1, 60], dtype=float)[:n_feat]
    Z = rng.normal(0, 1, (n, n_feat))
    logits = Z @ W * 1.6 + rng.normal(0, 0.6, (n, n_cls))
    y = logits.argmax(1)
    X = Z * scales + scales * 2.0
    X = np.round(X, 3)
    miss_rows = []
    if n_missing:
        miss_rows = sorted(rng.choice(n, n_missing, replace=False).tolist())
        for r in miss_rows:
            X[r, rng.integers(0, n_feat)] = np.nan
    return X, y.astype(np.int64), miss_rows
