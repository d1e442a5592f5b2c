def make_identities(n_ids, per_id, seed, dim=64, id_dims=8, nuisance_dims=8, within=0.45, nuisance=1.5, sensor_seed=7):
    """Synthetic 'descriptor' data: each identity is a point in a latent space,
    samples are noisy views (plus pose/lighting-like nuisance factors)
    pushed through a fixed nonlinear sensor."""
    sensor = np.random.default_rng(sensor_seed)
    L = id_dims + nuisance_dims
    A = sensor.normal(size=(L, 96)) / np.sqrt(L)
    B = sensor.normal(size=(96, dim)) / np.sqrt(96)
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(n_ids, id_dims))
    y = np.repeat(np.arange(n_ids), per_id)
    z_id = centers[y] + within * rng.normal(size=(len(y), id_dims))
    z_nu = nuisance * rng.normal(size=(len(y), nuisance_dims))
    z = np.concatenate([z_id, z_nu], 1)
    x = np.tanh(1.2 * z @ A) @ B + 0.05 * rng.normal(size=(len(y), dim))
    return x.astype(np.float32), y.astype(np.int64)
