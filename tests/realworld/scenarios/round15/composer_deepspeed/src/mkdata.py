import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import datasets as D


def glyphs(out, n_train=4000, n_val=800, seed=1, noise=0.2):
    X, y = D.make_glyphs(n_train + n_val, seed=seed, noise=noise)
    np.savez(out, x_train=X[:n_train], y_train=y[:n_train], x_val=X[n_train:], y_val=y[n_train:])


BUILDERS = {
    "run06": lambda w: glyphs(os.path.join(w, "data", "glyphs12.npz")),
}



def churn(out, seed=21):
    X, y = D.make_classification(7000, 40, 12, 10, class_sep=1.4, n_redundant=8, seed=seed)
    np.savez(out, x_train=X[:6000], y_train=y[:6000], x_val=X[6000:], y_val=y[6000:])


def glyph_finetune(w, seed=2):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    torch.set_num_threads(1)
    X, y = D.make_glyphs(4800, seed=seed, noise=0.2)
    mean, std = X[:4000].mean(), X[:4000].std()
    np.savez(os.path.join(w, "data", "glyphs12_full.npz"), x_train=X[:4000], y_train=y[:4000],
             x_val=X[4000:], y_val=y[4000:], norm_mean=mean, norm_std=std)
    # earlier 5-class pretraining run that produced the checkpoint the fine-tune starts from
    Xp, yp = D.make_glyphs(6000, seed=seed + 100, noise=0.2)
    keep = yp < 5
    Xp, yp = torch.from_numpy((Xp[keep] - mean) / std), torch.from_numpy(yp[keep])
    torch.manual_seed(0)
    feats = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
    head = nn.Linear(64, 5)
    params = list(feats.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW(params, 2e-3)
    for ep in range(3):
        perm = torch.randperm(len(Xp))
        for i in range(0, len(Xp) - 63, 64):
            idx = perm[i:i + 64]
            loss = F.cross_entropy(head(feats(Xp[idx]).flatten(1)), yp[idx])
            opt.zero_grad(); loss.backward(); opt.step()
    sd = {f"features.{k}": v for k, v in feats.state_dict().items()}
    sd.update({f"classifier.{k}": v for k, v in head.state_dict().items()})
    os.makedirs(os.path.join(w, "checkpoints"), exist_ok=True)
    torch.save(sd, os.path.join(w, "checkpoints", "glyphcnn_5cls_ep20.pt"))


def credit(out, seed=31):
    rng = np.random.default_rng(seed)
    n = 6000
    X = rng.normal(size=(n, 16)).astype(np.float32)
    w = rng.normal(size=16)
    score = 600 + 60 * np.tanh(X @ w / 4) + 25 * X[:, 0] * X[:, 1] / 2 + rng.normal(0, 8, n)
    np.savez(out, features=X, risk_score=score.astype(np.float32))


BUILDERS.update({
    "run03": lambda w: churn(os.path.join(w, "data", "churn_segments.npz")),
    "run11": glyph_finetune,
    "run08": lambda w: credit(os.path.join(w, "data", "credit_features.npz")),
})


def spirals(out, seed=41):
    X, y = D.make_spirals(4000, n_classes=3, noise=0.2, seed=seed)
    np.savez(out, x_train=X[:3200], y_train=y[:3200], x_val=X[3200:], y_val=y[3200:])


BUILDERS["run01"] = lambda w: spirals(os.path.join(w, "data", "spirals.npz"))


def substation(out, seed=51, n=3200):
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    temp = 12 + 8 * np.sin(2 * np.pi * t / (24 * 30)) + 4 * np.sin(2 * np.pi * (t - 14) / 24) + rng.normal(0, 1, n)
    hour = np.sin(2 * np.pi * t / 24)
    dow = np.cos(2 * np.pi * t / (24 * 7))
    load = 300 + 60 * np.sin(2 * np.pi * (t - 8) / 24) + 25 * dow - 3 * (temp - 12) + rng.normal(0, 8, n)
    vals = np.stack([load, temp, hour, dow], 1).astype(np.float32)
    np.savez(out, values=vals)


BUILDERS["run12"] = lambda w: substation(os.path.join(w, "data", "substation_load.npz"))


def patches(root, seed=61, n_train=2400, n_val=600, size=32):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    for split, n in (("train", n_train), ("val", n_val)):
        d = os.path.join(root, split)
        os.makedirs(d, exist_ok=True)
        for i in range(n):
            c = int(rng.integers(0, 4))
            img = rng.normal(110, 18, (size, size))
            cx, cy = rng.uniform(8, size - 8, 2)
            if c == 1:
                img[(np.abs(xx - cx) < 2.5) & (np.abs(yy - cy) < 9)] += 70
            elif c == 2:
                img[(xx - cx) ** 2 + (yy - cy) ** 2 < rng.uniform(16, 36)] -= 60
            elif c == 3:
                img[np.abs((xx - cx) - (yy - cy)) < 1.5] += 55
            np.savez(os.path.join(d, f"{i:06d}.npz"), image=np.clip(img, 0, 255).astype(np.uint8), label=c)


BUILDERS["run05"] = lambda w: patches(os.path.join(w, "data", "patches"))


def sensor_faults(out, seed=71):
    X, y = D.make_classification(5600, 30, 10, 8, class_sep=1.2, n_redundant=6, seed=seed)
    np.savez(out, x_train=X[:4800], y_train=y[:4800], x_val=X[4800:], y_val=y[4800:])


BUILDERS["run09"] = lambda w: sensor_faults(os.path.join(w, "data", "sensor_faults.npz"))


def tickets(out, seed=81):
    X, y = D.make_classification(4500, 24, 8, 6, class_sep=1.0, n_redundant=4, seed=seed)
    np.savez(out, x_train=X[:4000], y_train=y[:4000], x_val=X[4000:], y_val=y[4000:])


BUILDERS["run02"] = lambda w: tickets(os.path.join(w, "data", "tickets.npz"))


def event_sums(out, seed=91, n=4000):
    rng = np.random.default_rng(seed)
    arrs = {}
    for T in (10, 40, 80):
        v = rng.uniform(0, 1, (n, T))
        mk = np.zeros((n, T))
        a = rng.integers(0, T // 2, n)
        b = rng.integers(T // 2, T, n)
        mk[np.arange(n), a] = 1
        mk[np.arange(n), b] = 1
        arrs[f"x_len{T}"] = np.stack([v, mk], -1).astype(np.float32)
        arrs[f"y_len{T}"] = (v * mk).sum(1).astype(np.float32)
    np.savez(out, **arrs)


BUILDERS["run07"] = lambda w: event_sums(os.path.join(w, "data", "event_sums.npz"))


def intents(out, seed=101):
    X, y = D.make_classification(7000, 48, 16, 12, class_sep=1.3, n_redundant=8, seed=seed)
    np.savez(out, x_train=X[:6000], y_train=y[:6000], x_val=X[6000:], y_val=y[6000:])


BUILDERS["run10"] = lambda w: intents(os.path.join(w, "data", "intents.npz"))


def listings(out, n=60000, seed=7):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 24)).astype(np.float32)
    w = rng.normal(scale=0.25, size=24)
    y = 12.2 + X @ w * 0.6 + 0.3 * np.tanh(X[:, 0] * X[:, 1]) + rng.normal(scale=0.1, size=n)
    np.savez(out, features=X, log_price=y.astype(np.float32))


BUILDERS["run04"] = lambda w: listings(os.path.join(w, "data", "listings_features.npz"))

if __name__ == "__main__":
    run, w = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(w, "data"), exist_ok=True)
    if run in BUILDERS:
        BUILDERS[run](w)
