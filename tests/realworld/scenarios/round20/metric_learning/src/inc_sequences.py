def make_sequences(n_ids, per_id, seed, T=48, C=3):
    """Synthetic gait / accelerometer-like signals: an identity is a set of
    per-channel frequencies, relative phases, amplitudes and a harmonic; each
    recording has its own start phase, walking speed, gain and sensor noise."""
    rng = np.random.default_rng(seed)
    freq = rng.uniform(1.0, 2.5, size=(n_ids, 1))
    rel_phase = rng.uniform(0, 2 * np.pi, size=(n_ids, C))
    amp = rng.uniform(0.4, 1.4, size=(n_ids, C))
    harm = rng.uniform(0.0, 0.8, size=(n_ids, C))
    t = np.linspace(0, 4 * np.pi, T)[None, :]
    y = np.repeat(np.arange(n_ids), per_id)
    x = np.zeros((len(y), T, C), np.float32)
    for n, pid in enumerate(y):
        speed = rng.uniform(0.85, 1.15)
        start = rng.uniform(0, 2 * np.pi)
        gain = rng.uniform(0.7, 1.3)
        jitter = rng.normal(0, 0.5, size=C)
        for c in range(C):
            ph = freq[pid] * speed * t[0] + start + rel_phase[pid, c] + jitter[c]
            a = amp[pid, c] * rng.uniform(0.7, 1.3)
            sig = a * (np.sin(ph) + harm[pid, c] * np.sin(2 * ph + rel_phase[pid, (c + 1) % C]))
            x[n, :, c] = gain * sig + 0.6 * rng.normal(size=T)
    return x, y.astype(np.int64)
