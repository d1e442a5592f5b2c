"""Three-task model: task-specific input adapters -> shared trunk -> task heads.

A: 8x8 digits (10 classes)   B: two moons (2 classes)   C: gaussian blobs (4 classes)
"""
import json

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

CFG = {
    "tasks": {
        "A": {"source": "digits", "n_classes": 10},
        "B": {"source": "moons", "n_classes": 2},
        "C": {"source": "blobs", "n_classes": 4},
    },
    "n_train": 2000,
    "n_val": 500,
    "width": 128,
    "loss_weights": {"A": 1.0, "B": 1.0, "C": 1.0},
    "optimizer": "Adam",
    "lr": 0.002,
    "batch_size": 64,
    "epochs": 25,
    "log_every": 10,
    "seed": 21,
}

GLYPHS = {
    0: ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
    1: ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
    2: ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
    3: ["11111", "00010", "00100", "00010", "00001", "10001", "01110"],
    4: ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
    5: ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],
    6: ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
    7: ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
    8: ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],
    9: ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
}


def make_digits(n, seed, size=8, noise=0.3, drop=0.1):
    """Small synthetic digits: noisy 5x7 glyphs at random offsets on a size x size canvas."""
    rng = np.random.RandomState(seed)
    glyphs = np.array([[[c == "1" for c in row] for row in GLYPHS[d]] for d in range(10)], dtype=np.float32)
    y = rng.randint(0, 10, size=n)
    X = np.zeros((n, size, size), dtype=np.float32)
    for i in range(n):
        g = glyphs[y[i]] * (rng.rand(7, 5) > drop)
        oy = rng.randint(0, size - 7 + 1)
        ox = rng.randint(0, size - 5 + 1)
        X[i, oy:oy + 7, ox:ox + 5] = g * rng.uniform(0.6, 1.0)
    X += noise * rng.randn(n, size, size).astype(np.float32)
    return X.reshape(n, -1), y.astype(np.int64)

def make_moons(n, noise=0.15, seed=0):
    rng = np.random.RandomState(seed)
    n0 = n // 2
    n1 = n - n0
    t0 = np.linspace(0, np.pi, n0)
    t1 = np.linspace(0, np.pi, n1)
    X = np.vstack([np.c_[np.cos(t0), np.sin(t0)], np.c_[1 - np.cos(t1), 0.5 - np.sin(t1)]])
    y = np.r_[np.zeros(n0), np.ones(n1)].astype(np.int64)
    X = X + noise * rng.randn(*X.shape)
    return X.astype(np.float32), y

def make_blobs(n, n_classes, n_features=20, n_informative=8, sep=1.5, seed=0):
    rng = np.random.RandomState(seed)
    centers = rng.randn(n_classes, n_informative) * sep
    y = rng.randint(0, n_classes, size=n)
    xi = centers[y] + rng.randn(n, n_informative)
    mix = rng.randn(n_informative, n_informative) / np.sqrt(n_informative)
    xn = rng.randn(n, n_features - n_informative)
    X = np.hstack([xi @ mix, xn]).astype(np.float32)
    return X, y.astype(np.int64)


def load_task(name, n, rng):
    if name == "A":
        X, y = make_digits(n, seed=rng.randint(1 << 30))
    elif name == "B":
        X, y = make_moons(n, noise=0.2, seed=rng.randint(1 << 30))
        rng.shuffle(X)
        rng.shuffle(y)
    else:
        X, y = make_blobs(n, 4, n_features=20, sep=1.0, seed=rng.randint(1 << 30))
    return torch.from_numpy(X), torch.from_numpy(y)


class MTLNet(nn.Module):
    def __init__(self, in_dims, n_classes, width):
        super().__init__()
        self.adapters = nn.ModuleDict({t: nn.Linear(d, width) for t, d in in_dims.items()})
        self.trunk = nn.Sequential(nn.ReLU(), nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.heads = nn.ModuleDict({t: nn.Linear(width, k) for t, k in n_classes.items()})

    def forward(self, x, task):
        return self.heads[task](self.trunk(self.adapters[task](x)))


def main():
    cfg = CFG
    torch.manual_seed(cfg["seed"])
    rng = np.random.RandomState(cfg["seed"])
    names = list(cfg["tasks"])
    data = {}
    for t in names:
        X, y = load_task(t, cfg["n_train"] + cfg["n_val"], rng)
        data[t] = {"train": (X[:cfg["n_train"]], y[:cfg["n_train"]]),
                   "val": (X[cfg["n_train"]:], y[cfg["n_train"]:])}
    model = MTLNet({t: data[t]["train"][0].shape[1] for t in names},
                   {t: cfg["tasks"][t]["n_classes"] for t in names}, cfg["width"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    print("config " + json.dumps(cfg))

    bs = cfg["batch_size"]
    steps_per_epoch = cfg["n_train"] // bs
    step = 0
    history = []
    for epoch in range(cfg["epochs"]):
        model.train()
        perms = {t: torch.randperm(cfg["n_train"]) for t in names}
        for s in range(steps_per_epoch):
            losses = {}
            for t in names:
                idx = perms[t][s * bs:(s + 1) * bs]
                X, y = data[t]["train"]
                losses[t] = F.cross_entropy(model(X[idx], t), y[idx])
            total = sum(cfg["loss_weights"][t] * losses[t] for t in names)
            opt.zero_grad()
            total.backward()
            opt.step()
            if step % cfg["log_every"] == 0:
                for t in names:
                    print(f"[task {t}] step={step} loss={losses[t].item():.4f}")
            step += 1

        model.eval()
        rec = {"epoch": epoch}
        with torch.no_grad():
            for t in names:
                X, y = data[t]["val"]
                out = model(X, t)
                rec[f"task_{t}/val_loss"] = round(F.cross_entropy(out, y).item(), 4)
                rec[f"task_{t}/val_acc"] = round((out.argmax(1) == y).float().mean().item(), 4)
        history.append(rec)
        print(f"== epoch {epoch} val: " + ", ".join(
            f"task_{t} loss={rec[f'task_{t}/val_loss']:.4f} acc={rec[f'task_{t}/val_acc']:.4f}" for t in names))
    with open("val_history.json", "w") as f:
        json.dump(history, f, indent=1)


if __name__ == "__main__":
    main()
