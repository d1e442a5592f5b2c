GLYPHS = [
    "01110 10001 10011 10101 11001 10001 01110", "00100 01100 00100 00100 00100 00100 01110",
    "01110 10001 00001 00010 00100 01000 11111", "11111 00010 00100 00010 00001 10001 01110",
    "00010 00110 01010 10010 11111 00010 00010", "11111 10000 11110 00001 00001 10001 01110",
    "00110 01000 10000 11110 10001 10001 01110", "11111 00001 00010 00100 01000 01000 01000",
    "01110 10001 10001 01110 10001 10001 01110", "01110 10001 10001 01111 00001 00010 01100",
]


def make_glyphs(n, seed, noise=0.35, size=12):
    """Synthetic 12x12 digit images: a 5x7 glyph at a random offset, random stroke gain, pixel noise."""
    rng = np.random.default_rng(seed)
    tmpl = np.array([[[int(c) for c in row] for row in g.split()] for g in GLYPHS], dtype=np.float32)
    y = rng.integers(0, 10, size=n)
    X = np.zeros((n, 1, size, size), dtype=np.float32)
    for i in range(n):
        dy, dx = rng.integers(0, size - 7 + 1), rng.integers(0, size - 5 + 1)
        X[i, 0, dy:dy + 7, dx:dx + 5] = tmpl[y[i]] * rng.uniform(0.6, 1.0)
    X += rng.normal(0, noise, X.shape).astype(np.float32)
    return X, y.astype(np.int64)
