"""Multi-task CNN on 8x8 digits: digit class, parity and 'has a closed loop' heads."""
import csv
import json

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

CFG = {
    "tasks": {"digit": 10, "parity": 2, "loop": 2},
    "loss_weights": {"digit": 1.0, "parity": 0.3, "loop": 0.3},
    "img_size": 8,
    "n_train": 3000,
    "n_val": 800,
    "channels": [16, 32],
    "fc": 64,
    "dropout": 0.5,
    "optimizer": "Adam",
    "lr": 0.002,
    "batch_size": 64,
    "epochs": 12,
    "seed": 31,
}

LOOP_DIGITS = [0, 4, 6, 8, 9]

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


def task_targets(y):
    y = torch.as_tensor(y)
    return {
        "digit": y,
        "parity": y % 2,
        "loop": torch.isin(y, torch.tensor(LOOP_DIGITS)).long(),
    }


class MultiTaskCNN(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        c1, c2 = cfg["channels"]
        s = cfg["img_size"]
        self.encoder = nn.Sequential(
            nn.Conv2d(1, c1, 3, padding=1), nn.BatchNorm2d(c1), nn.ReLU(),
            nn.Conv2d(c1, c2, 3, padding=1), nn.BatchNorm2d(c2), nn.ReLU(),
            nn.MaxPool2d(2), nn.Dropout2d(0.2),
            nn.Flatten(),
            nn.Linear(c2 * (s // 2) ** 2, cfg["fc"]), nn.BatchNorm1d(cfg["fc"]), nn.ReLU(),
            nn.Dropout(cfg["dropout"]),
        )
        self.heads = nn.ModuleDict({name: nn.Linear(cfg["fc"], k) for name, k in cfg["tasks"].items()})

    def forward(self, x):
        h = self.encoder(x.view(-1, 1, CFG["img_size"], CFG["img_size"]))
        return {name: head(h) for name, head in self.heads.items()}


def load_split(n, seed):
    X, y = make_digits(n, seed=seed, size=CFG["img_size"])
    return torch.from_numpy(X), task_targets(y)


def evaluate(model, X, T, batch_size=256):
    model.eval()
    correct = {k: 0 for k in T}
    loss = {k: 0.0 for k in T}
    with torch.no_grad():
        for i in range(0, len(X), batch_size):
            out = model(X[i:i + batch_size])
            for k in T:
                t = T[k][i:i + batch_size]
                loss[k] += F.cross_entropy(out[k], t, reduction="sum").item()
                correct[k] += (out[k].argmax(1) == t).sum().item()
    return {k: loss[k] / len(X) for k in T}, {k: correct[k] / len(X) for k in T}


def main():
    cfg = CFG
    torch.manual_seed(cfg["seed"])
    with open("config.json", "w") as f:
        json.dump(cfg, f, indent=2)
    Xtr, Ttr = load_split(cfg["n_train"], cfg["seed"])
    Xva, Tva = load_split(cfg["n_val"], cfg["seed"] + 1)
    model = MultiTaskCNN(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    w = cfg["loss_weights"]
    rows = []
    for epoch in range(1, cfg["epochs"] + 1):
        model.train()
        perm = torch.randperm(len(Xtr))
        run = {k: 0.0 for k in cfg["tasks"]}
        for i in range(0, len(Xtr), cfg["batch_size"]):
            idx = perm[i:i + cfg["batch_size"]]
            out = model(Xtr[idx])
            losses = {k: F.cross_entropy(out[k], Ttr[k][idx]) for k in cfg["tasks"]}
            total = sum(w[k] * losses[k] for k in losses)
            opt.zero_grad()
            total.backward()
            opt.step()
            for k in losses:
                run[k] += losses[k].item() * len(idx)
        vloss, vacc = evaluate(model, Xva, Tva)
        row = {"epoch": epoch}
        for k in cfg["tasks"]:
            row[f"{k}/train_loss"] = round(run[k] / len(Xtr), 4)
            row[f"{k}/val_loss"] = round(vloss[k], 4)
            row[f"{k}/val_acc"] = round(vacc[k], 4)
        rows.append(row)
        print(f"epoch {epoch:02d} " + " ".join(
            f"| {k}: train_loss {row[f'{k}/train_loss']:.3f} val_loss {row[f'{k}/val_loss']:.3f} "
            f"val_acc {row[f'{k}/val_acc']:.3f}" for k in cfg["tasks"]))
    torch.save(model.state_dict(), "mtl_cnn.pt")
    print("saved mtl_cnn.pt")
    with open("metrics.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)


if __name__ == "__main__":
    main()
