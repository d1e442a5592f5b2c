import argparse
import json

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

CFG = {
    "benchmark": "SplitBlobs-10",
    "scenario": "task-incremental",
    "n_tasks": 5,
    "n_classes": 10,
    "classes_per_task": 2,
    "n_features": 24,
    "n_samples": 6000,
    "val_frac": 0.2,
    "hidden": 96,
    "strategy": "naive finetuning, multi-head",
    "optimizer": "Adam",
    "lr": 0.001,
    "batch_size": 32,
    "epochs_per_task": 8,
    "seed": 2024,
}

def make_blobs(n, n_classes, n_features=20, n_informative=8, sep=1.5, seed=0):
    rng = np.random.RandomState(seed)
    centers = rng.randn(n_classes, n_informative) * sep
    y = rng.randint(0, n_classes, size=n)
    xi = centers[y] + rng.randn(n, n_informative)
    mix = rng.randn(n_informative, n_informative) / np.sqrt(n_informative)
    xn = rng.randn(n, n_features - n_informative)
    X = np.hstack([xi @ mix, xn]).astype(np.float32)
    return X, y.astype(np.int64)


def accuracy(logits, target, num_classes=CFG["n_classes"]):
    """Mean per-class accuracy, so imbalanced tasks are not dominated by their majority class."""
    pred = logits.argmax(dim=1)
    per_class = []
    for c in range(num_classes):
        mask = target == c
        per_class.append((pred[mask] == c).float().mean().item() if mask.any() else 0.0)
    return float(np.mean(per_class))


class Net(nn.Module):
    def __init__(self, d_in, hidden, n_tasks, k):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.heads = nn.ModuleList(nn.Linear(hidden, k) for _ in range(n_tasks))

    def forward(self, x, t):
        return self.heads[t](self.shared(x))


def build_tasks(cfg):
    X, y = make_blobs(cfg["n_samples"], cfg["n_classes"], n_features=cfg["n_features"], n_informative=10,
                      sep=1.2, seed=cfg["seed"])
    n_val = int(cfg["val_frac"] * len(y))
    k = cfg["classes_per_task"]
    tasks = []
    for t in range(cfg["n_tasks"]):
        sel_tr = np.where((y[n_val:] // k) == t)[0] + n_val
        sel_va = np.where((y[:n_val] // k) == t)[0]
        tasks.append({
            "train": (torch.from_numpy(X[sel_tr]), torch.from_numpy(y[sel_tr] % k)),
            "val": (torch.from_numpy(X[sel_va]), torch.from_numpy(y[sel_va] % k)),
        })
    return tasks


@torch.no_grad()
def evaluate(model, X, y, t):
    model.eval()
    logits = model(X, t)
    return F.cross_entropy(logits, y).item(), accuracy(logits, y)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--results", default="results.json")
    args = p.parse_args()
    cfg = CFG
    torch.manual_seed(cfg["seed"])
    tasks = build_tasks(cfg)
    n = cfg["n_tasks"]
    model = Net(cfg["n_features"], cfg["hidden"], n, cfg["classes_per_task"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    print("config: " + json.dumps(cfg))

    acc = [[None] * n for _ in range(n)]
    val_loss = [[None] * n for _ in range(n)]
    for t in range(n):
        X, y = tasks[t]["train"]
        for ep in range(cfg["epochs_per_task"]):
            model.train()
            perm = torch.randperm(len(y))
            losses, accs = [], []
            for i in range(0, len(y), cfg["batch_size"]):
                idx = perm[i:i + cfg["batch_size"]]
                logits = model(X[idx], t)
                loss = F.cross_entropy(logits, y[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.item())
                accs.append(accuracy(logits.detach(), y[idx]))
            vl, va = evaluate(model, *tasks[t]["val"], t)
            print(f"[task {t}] epoch {ep} loss={np.mean(losses):.4f} acc={np.mean(accs):.4f} "
                  f"val_loss={vl:.4f} val_acc={va:.4f}")
        for j in range(t + 1):
            val_loss[t][j], acc[t][j] = evaluate(model, *tasks[j]["val"], j)
        row = "  ".join(f"T{j}={acc[t][j]:.3f}" for j in range(t + 1))
        print(f"[eval] after task {t}: {row}")

    final = acc[n - 1]
    avg = float(np.mean(final))
    bwt = float(np.mean([acc[n - 1][j] - acc[j][j] for j in range(n - 1)]))
    print(f"[final] ACC={avg:.4f} BWT={bwt:+.4f}")
    with open(args.results, "w") as f:
        json.dump({"acc_matrix": acc, "val_loss_matrix": val_loss, "ACC": avg, "BWT": bwt}, f, indent=1)


if __name__ == "__main__":
    main()
