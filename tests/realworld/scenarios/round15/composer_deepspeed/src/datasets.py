"""Deterministic synthetic datasets used by the generator (numpy only)."""
import numpy as np


def make_classification(n, n_features, n_informative, n_classes, class_sep=1.0, clusters_per_class=2,
                        n_redundant=0, seed=0, flip_y=0.0):
    rng = np.random.default_rng(seed)
    k = n_classes * clusters_per_class
    centroids = rng.choice([-1.0, 1.0], size=(k, n_informative)) * class_sep
    centroids += rng.normal(scale=0.3 * class_sep, size=centroids.shape)
    y = rng.integers(0, n_classes, n)
    sub = rng.integers(0, clusters_per_class, n)
    A = [rng.normal(size=(n_informative, n_informative)) * 0.35 + np.eye(n_informative) for _ in range(k)]
    Xi = np.empty((n, n_informative))
    for i in range(n):
        c = y[i] * clusters_per_class + sub[i]
        Xi[i] = centroids[c] + rng.normal(size=n_informative) @ A[c]
    parts = [Xi]
    if n_redundant:
        parts.append(Xi @ rng.normal(size=(n_informative, n_redundant)) * 0.5)
    n_noise = n_features - n_informative - n_redundant
    if n_noise > 0:
        parts.append(rng.normal(size=(n, n_noise)))
    X = np.concatenate(parts, axis=1)
    X = X[:, rng.permutation(X.shape[1])]
    if flip_y > 0:
        m = rng.random(n) < flip_y
        y[m] = rng.integers(0, n_classes, m.sum())
    X = (X - X.mean(0)) / X.std(0)
    return X.astype(np.float32), y.astype(np.int64)


def make_glyphs(n, size=12, n_classes=10, noise=0.35, seed=0, template_seed=123):
    trng = np.random.default_rng(template_seed)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    templates = []
    for _ in range(n_classes):
        img = np.zeros((size, size), np.float32)
        for _ in range(trng.integers(2, 4)):
            p0 = trng.uniform(2, size - 3, 2)
            p1 = trng.uniform(2, size - 3, 2)
            for t in np.linspace(0, 1, 3 * size):
                c = p0 + t * (p1 - p0)
                img += np.exp(-((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / 1.2)
        templates.append(np.clip(img / img.max(), 0, 1))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = np.empty((n, 1, size, size), np.float32)
    for i in range(n):
        t = templates[y[i]]
        dx, dy = rng.integers(-1, 2, 2)
        t = np.roll(np.roll(t, dx, axis=1), dy, axis=0)
        X[i, 0] = t * rng.uniform(0.7, 1.3) + rng.normal(0, noise, (size, size))
    return X, y.astype(np.int64)


def make_spirals(n, n_classes=3, noise=0.25, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    r = rng.uniform(0.1, 1.0, n)
    theta = 4.0 * r + y * 2 * np.pi / n_classes + rng.normal(0, noise, n)
    X = np.stack([r * np.cos(theta), r * np.sin(theta)], 1) * 2.0
    return X.astype(np.float32), y.astype(np.int64)
