def make_classification(n, seed, n_features=20, n_informative=8, n_redundant=4, n_classes=10,
                        class_sep=1.5, flip_y=0.0, scales=None):
    """Gaussian clusters at hypercube vertices (like sklearn's make_classification), with redundant
    linear combinations and pure-noise columns."""
    rng = np.random.default_rng(seed)
    struct = np.random.default_rng(12345)
    verts = struct.choice(2 ** n_informative, n_classes, replace=False)
    cent = np.array([[(v >> b) & 1 for b in range(n_informative)] for v in verts], np.float32) * 2 - 1
    cent *= class_sep
    A = struct.uniform(-1, 1, (n_classes, n_informative, n_informative)).astype(np.float32)
    Bm = struct.uniform(-1, 1, (n_informative, n_redundant)).astype(np.float32)
    y = rng.integers(0, n_classes, n)
    Z = rng.normal(0, 1, (n, n_informative)).astype(np.float32)
    Xi = cent[y] + np.einsum('ni,nij->nj', Z, A[y])
    Xr = Xi @ Bm
    Xn = rng.normal(0, 1, (n, n_features - n_informative - n_redundant)).astype(np.float32)
    X = np.concatenate([Xi, Xr, Xn], 1)[:, struct.permutation(n_features)]
    if scales is not None:
        X = X * scales
    if flip_y > 0:
        f = rng.random(n) < flip_y
        y[f] = rng.integers(0, n_classes, f.sum())
    return X.astype(np.float32), y.astype(np.int64)
