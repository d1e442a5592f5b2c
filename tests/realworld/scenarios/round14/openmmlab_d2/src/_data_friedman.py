def make_friedman(n, seed, noise=1.0, n_features=10):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, n_features)).astype(np.float32)
    y = (10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3] + 5 * X[:, 4]
         + rng.normal(0, noise, n)).astype(np.float32)
    return X, y
