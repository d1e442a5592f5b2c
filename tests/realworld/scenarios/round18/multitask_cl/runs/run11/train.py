"""Joint-training reference for the SplitDigits class-incremental benchmark.

All five experiences are trained together so we get the upper bound to compare
the continual strategies against.
"""
import csv
import json

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import ConcatDataset, DataLoader, TensorDataset

torch.set_num_threads(1)

CONFIG = {
    "benchmark": "SplitDigits",
    "scenario": "class-incremental",
    "n_experiences": 5,
    "classes_per_exp": 2,
    "strategy": "JointTraining",
    "model": "MLP(64-256-256-10)",
    "optimizer": "SGD",
    "lr": 0.01,
    "momentum": 0.9,
    "batch_size": 32,
    "epochs": 12,
    "n_train": 3000,
    "n_test": 1000,
    "seed": 3,
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


def split_by_class(X, y, n_exp, per_exp):
    exps = []
    for e in range(n_exp):
        classes = list(range(e * per_exp, (e + 1) * per_exp))
        m = np.isin(y, classes)
        exps.append(TensorDataset(torch.from_numpy(X[m]), torch.from_numpy(y[m])))
    return exps


def main():
    cfg = CONFIG
    torch.manual_seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    with open("config.json", "w") as f:
        json.dump(cfg, f, indent=2)

    Xtr, ytr = make_digits(cfg["n_train"], seed=cfg["seed"])
    Xte, yte = make_digits(cfg["n_test"], seed=cfg["seed"] + 1000)
    train_exps = split_by_class(Xtr, ytr, cfg["n_experiences"], cfg["classes_per_exp"])
    test_exps = split_by_class(Xte, yte, cfg["n_experiences"], cfg["classes_per_exp"])

    joint = ConcatDataset(train_exps)
    loader = DataLoader(joint, batch_size=cfg["batch_size"])

    model = nn.Sequential(
        nn.Linear(Xtr.shape[1], 256), nn.ReLU(),
        nn.Linear(256, 256), nn.ReLU(),
        nn.Linear(256, 10),
    )
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])

    step_rows = []
    eval_rows = []
    step = 0
    print(f"joint training on {len(joint)} samples from {cfg['n_experiences']} experiences, "
          f"{len(loader)} iterations/epoch")
    for epoch in range(cfg["epochs"]):
        print("-- >> Start of training phase << --")
        model.train()
        for xb, yb in loader:
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            task = int(torch.mode(yb // cfg["classes_per_exp"]).values)
            step_rows.append({"step": step, "epoch": epoch, "task": task, "loss": round(loss.item(), 5)})
            if step % 4 == 0:
                print(f"epoch {epoch} it {step} [task {task}] loss={loss.item():.4f}")
            step += 1
        print("-- >> End of training phase << --")

        model.eval()
        print("-- >> Start of eval phase << --")
        row = {"epoch": epoch}
        n_tot, n_cor, l_tot = 0, 0, 0.0
        for e, ds in enumerate(test_exps):
            X, y = ds.tensors
            with torch.no_grad():
                logits = model(X)
            acc = (logits.argmax(1) == y).float().mean().item()
            l = F.cross_entropy(logits, y).item()
            n_tot += len(y)
            n_cor += acc * len(y)
            l_tot += l * len(y)
            print(f"> Eval on experience {e} (Task 0) from test stream ended.")
            print(f"\tLoss_Exp/eval_phase/test_stream/Task000/Exp{e:03d} = {l:.4f}")
            print(f"\tTop1_Acc_Exp/eval_phase/test_stream/Task000/Exp{e:03d} = {acc:.4f}")
            row[f"Exp{e:03d}"] = round(acc, 4)
        print("-- >> End of eval phase << --")
        print(f"\tLoss_Stream/eval_phase/test_stream/Task000 = {l_tot / n_tot:.4f}")
        print(f"\tTop1_Acc_Stream/eval_phase/test_stream/Task000 = {n_cor / n_tot:.4f}")
        row["stream_acc"] = round(n_cor / n_tot, 4)
        eval_rows.append(row)

    with open("train_loss_per_iter.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(step_rows[0]))
        w.writeheader()
        w.writerows(step_rows)
    with open("eval_per_epoch.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(eval_rows[0]))
        w.writeheader()
        w.writerows(eval_rows)


if __name__ == "__main__":
    main()
