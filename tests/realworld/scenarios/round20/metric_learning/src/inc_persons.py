def make_persons(n_ids, per_id, seed, H=32, W=16):
    """Tiny synthetic 'pedestrian crops': an identity is a pair of clothing colours,
    a stripe pattern and a bag position; each view adds camera colour cast, shift,
    scale of brightness, partial occlusion and sensor noise. Returns uint8 HxWx3 images."""
    rng = np.random.default_rng(seed)
    upper = rng.uniform(0.1, 0.9, size=(n_ids, 3))
    lower = rng.uniform(0.1, 0.9, size=(n_ids, 3))
    stripes = rng.integers(0, 4, size=n_ids)
    bag = rng.integers(0, 3, size=n_ids)
    imgs = np.zeros((n_ids * per_id, H, W, 3), np.float32)
    labels = np.repeat(np.arange(n_ids), per_id)
    cams = rng.integers(0, 4, size=n_ids * per_id)
    cast = rng.uniform(0.75, 1.25, size=(4, 3))
    yy, xx = np.mgrid[0:H, 0:W]
    for n, pid in enumerate(labels):
        img = np.full((H, W, 3), 0.5, np.float32) + 0.15 * rng.normal(size=(1, 1, 3))
        dx, dy = rng.integers(-2, 3), rng.integers(-2, 3)
        body = (np.abs(xx - W / 2 - dx) < 5) & (yy > 2 + dy) & (yy < H - 2 + dy)
        top = body & (yy < H // 2 + dy)
        bot = body & ~top
        col_u = upper[pid].copy()
        if stripes[pid]:
            band = ((yy // (2 + stripes[pid])) % 2 == 0) & top
            img[band] = col_u * 0.5
            img[top & ~band] = col_u
        else:
            img[top] = col_u
        img[bot] = lower[pid]
        if bag[pid]:
            side = W / 2 - dx + (5 if bag[pid] == 1 else -6)
            bm = (np.abs(xx - side) < 2) & (np.abs(yy - H / 2 - dy) < 4)
            img[bm] = 0.15
        if rng.random() < 0.3:
            oy = rng.integers(0, H - 8)
            img[oy:oy + 8] = rng.uniform(0, 1, size=3)
        img = img * cast[cams[n]] * rng.uniform(0.7, 1.3)
        img = img + 0.12 * rng.normal(size=img.shape)
        imgs[n] = img
    imgs = (np.clip(imgs, 0, 1) * 255).astype(np.uint8)
    return imgs, labels.astype(np.int64), cams.astype(np.int64)
