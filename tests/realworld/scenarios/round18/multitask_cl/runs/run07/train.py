"""Task-incremental SplitDigits: shared MLP trunk + one 2-way head per task, small replay."""
import csv
import json
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

CFG = {
    "benchmark": "SplitDigits",
    "scenario": "task-incremental",
    "n_tasks": 5,
    "classes_per_task": 2,
    "n_train": 3000,
    "n_test": 1000,
    "model": "MultiHeadMLP",
    "hidden": 200,
    "optimizer": "SGD",
    "lr": 0.01,
    "momentum": 0.9,
    "batch_size": 16,
    "epochs_per_task": 12,
    "replay_per_task": 60,
    "ckpt_dir": "checkpoints",
    "seed": 5,
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


class MultiHeadMLP(nn.Module):
    def __init__(self, d_in, hidden, n_tasks, n_out):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(hidden, n_out) for _ in range(n_tasks)])

    def forward(self, x, task_ids):
        h = self.trunk(x)
        all_logits = torch.stack([head(h) for head in self.heads], dim=1)
        return all_logits[torch.arange(len(x)), task_ids]


def make_tasks(cfg):
    Xtr, ytr = make_digits(cfg["n_train"], seed=cfg["seed"])
    Xte, yte = make_digits(cfg["n_test"], seed=cfg["seed"] + 99)
    k = cfg["classes_per_task"]
    tasks = []
    for t in range(cfg["n_tasks"]):
        mtr = (ytr // k) == t
        mte = (yte // k) == t
        tasks.append({
            "train": (torch.from_numpy(Xtr[mtr]), torch.from_numpy(ytr[mtr] - t * k)),
            "test": (torch.from_numpy(Xte[mte]), torch.from_numpy(yte[mte] - t * k)),
        })
    return tasks


@torch.no_grad()
def task_accuracy(model, X, y, t):
    model.eval()
    logits = model(X, torch.full((len(X),), t, dtype=torch.long))
    return (logits.argmax(1) == y).float().mean().item()


def main():
    cfg = CFG
    torch.manual_seed(cfg["seed"])
    os.makedirs(cfg["ckpt_dir"], exist_ok=True)
    with open("config.json", "w") as f:
        json.dump(cfg, f, indent=2)
    tasks = make_tasks(cfg)
    n = cfg["n_tasks"]
    model = MultiHeadMLP(tasks[0]["train"][0].shape[1], cfg["hidden"], n, cfg["classes_per_task"])
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
    g = torch.Generator().manual_seed(cfg["seed"])

    memory = []
    acc = np.full((n, n), np.nan)
    step = 0
    for t in range(n):
        X, y = tasks[t]["train"]
        tid = torch.full((len(y),), t, dtype=torch.long)
        if memory:
            X = torch.cat([X] + [m[0] for m in memory])
            y = torch.cat([y] + [m[1] for m in memory])
            tid = torch.cat([tid] + [m[2] for m in memory])
        print(f"=== task {t}: {len(tasks[t]['train'][1])} samples (+{len(y) - len(tasks[t]['train'][1])} replay) ===")
        for ep in range(cfg["epochs_per_task"]):
            model.train()
            perm = torch.randperm(len(y), generator=g)
            tot, cor = 0.0, 0
            for i in range(0, len(y), cfg["batch_size"]):
                idx = perm[i:i + cfg["batch_size"]]
                logits = model(X[idx], tid[idx])
                loss = F.cross_entropy(logits, y[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                tot += loss.item() * len(idx)
                cor += (logits.argmax(1) == y[idx]).sum().item()
            print(f"[task {t}] epoch {ep + 1}/{cfg['epochs_per_task']} step {step} "
                  f"loss={tot / len(y):.4f} train_acc={cor / len(y):.4f}")
        for j in range(t + 1):
            acc[t, j] = task_accuracy(model, *tasks[j]["test"], j)
        print(f"[eval] after task {t}: " + " ".join(f"task{j}={acc[t, j]:.4f}" for j in range(t + 1))
              + f" | avg={np.nanmean(acc[t, :t + 1]):.4f}")
        path = os.path.join(cfg["ckpt_dir"], f"ckpt_step{step}.pt")
        torch.save({"model": model.state_dict(), "step": step, "task": t}, path)
        print(f"saved {path}")

        Xt, yt = tasks[t]["train"]
        keep = torch.randperm(len(yt), generator=g)[:cfg["replay_per_task"]]
        memory.append((Xt[keep], yt[keep], torch.full((len(keep),), t, dtype=torch.long)))

    with open("eval_matrix.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["after_task"] + [f"task{j}" for j in range(n)])
        for t in range(n):
            w.writerow([t] + ["" if np.isnan(a) else f"{a:.4f}" for a in acc[t]])
    print(f"final average accuracy (all tasks): {np.mean(acc[n - 1]):.4f}")


if __name__ == "__main__":
    main()
