"""PermutedDigits (domain-incremental) with experience replay, plain PyTorch.

Logs in the same format as our Avalanche TextLogger runs so the plotting
scripts keep working.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

CONFIG = {
    "benchmark": "PermutedDigits",
    "n_experiences": 4,
    "scenario": "domain-incremental",
    "strategy": "Replay",
    "mem_size": 2400,
    "model": "SimpleMLP",
    "hidden_size": 256,
    "optimizer": "Adam",
    "lr": 0.001,
    "train_mb_size": 64,
    "train_epochs": 5,
    "eval_mb_size": 256,
    "n_train": 3000,
    "n_test": 1000,
    "img_size": 7,
    "seed": 11,
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


class SimpleMLP(nn.Module):
    def __init__(self, in_features, hidden, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Linear(in_features, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.classifier = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x))


class ExperienceBalancedBuffer:
    def __init__(self, max_size, seed=0):
        self.max_size = max_size
        self.groups = []
        self.g = torch.Generator().manual_seed(seed)

    def update(self, X, y):
        self.groups.append((X, y))
        per_group = self.max_size // len(self.groups)
        kept = []
        for gx, gy in self.groups:
            idx = torch.randperm(len(gx), generator=self.g)[:per_group]
            kept.append((gx[idx], gy[idx]))
        self.groups = kept

    def __len__(self):
        return sum(len(gy) for _, gy in self.groups)

    def tensors(self):
        return torch.cat([gx for gx, _ in self.groups]), torch.cat([gy for _, gy in self.groups])


def make_stream(cfg):
    rng = np.random.RandomState(cfg["seed"])
    Xtr, ytr = make_digits(cfg["n_train"], seed=cfg["seed"], size=cfg["img_size"])
    Xte, yte = make_digits(cfg["n_test"], seed=cfg["seed"] + 1, size=cfg["img_size"])
    d = Xtr.shape[1]
    stream = []
    for e in range(cfg["n_experiences"]):
        perm = np.arange(d) if e == 0 else rng.permutation(d)
        stream.append({
            "train": (torch.from_numpy(Xtr[:, perm]), torch.from_numpy(ytr)),
            "test": (torch.from_numpy(Xte[:, perm]), torch.from_numpy(yte)),
        })
    return stream


@torch.no_grad()
def evaluate(model, X, y, mb):
    model.eval()
    loss_sum, correct = 0.0, 0
    for i in range(0, len(X), mb):
        out = model(X[i:i + mb])
        loss_sum += F.cross_entropy(out, y[i:i + mb], reduction="sum").item()
        correct += (out.argmax(1) == y[i:i + mb]).sum().item()
    return loss_sum / len(X), correct / len(X)


def write_config(cfg, path="config.yaml"):
    with open(path, "w") as f:
        for k, v in cfg.items():
            f.write(f"{k}: {v}\n")


def main():
    cfg = CONFIG
    torch.manual_seed(cfg["seed"])
    write_config(cfg)
    stream = make_stream(cfg)
    n_exp = cfg["n_experiences"]
    model = SimpleMLP(stream[0]["train"][0].shape[1], cfg["hidden_size"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    buffer = ExperienceBalancedBuffer(cfg["mem_size"], seed=cfg["seed"])
    acc = np.full((n_exp, n_exp), np.nan)
    mb = cfg["train_mb_size"]

    for e, exp in enumerate(stream):
        print("-- >> Start of training phase << --")
        print(f"-- Starting training on experience {e} (Task 0) from train stream --")
        X, y = exp["train"]
        if len(buffer):
            bx, by = buffer.tensors()
            X, y = torch.cat([X, bx]), torch.cat([y, by])
        print(f"[Replay] training set: {len(exp['train'][1])} new + {len(buffer)} from buffer")
        model.train()
        for ep in range(cfg["train_epochs"]):
            perm = torch.randperm(len(X))
            loss_sum, correct = 0.0, 0
            for i in range(0, len(X), mb):
                idx = perm[i:i + mb]
                out = model(X[idx])
                loss = F.cross_entropy(out, y[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                loss_sum += loss.item() * len(idx)
                correct += (out.argmax(1) == y[idx]).sum().item()
            print(f"Epoch {ep} ended.")
            print(f"\tLoss_Epoch/train_phase/train_stream/Task000 = {loss_sum / len(X):.4f}")
            print(f"\tTop1_Acc_Epoch/train_phase/train_stream/Task000 = {correct / len(X):.4f}")
        print("-- >> End of training phase << --")
        buffer.update(*exp["train"])

        print("-- >> Start of eval phase << --")
        losses, accs = [], []
        for j, ex in enumerate(stream):
            print(f"-- Starting eval on experience {j} (Task 0) from test stream --")
            l, a = evaluate(model, *ex["test"], cfg["eval_mb_size"])
            acc[e, j] = a
            losses.append(l)
            accs.append(a)
            print(f"> Eval on experience {j} (Task 0) from test stream ended.")
            print(f"\tLoss_Exp/eval_phase/test_stream/Task000/Exp{j:03d} = {l:.4f}")
            print(f"\tTop1_Acc_Exp/eval_phase/test_stream/Task000/Exp{j:03d} = {a:.4f}")
        print("-- >> End of eval phase << --")
        print(f"\tLoss_Stream/eval_phase/test_stream/Task000 = {np.mean(losses):.4f}")
        print(f"\tTop1_Acc_Stream/eval_phase/test_stream/Task000 = {np.mean(accs):.4f}")
        if e > 0:
            forg = np.mean([acc[j, j] - acc[e, j] for j in range(e)])
            print(f"\tStreamForgetting/eval_phase/test_stream = {forg:.4f}")

    with open("acc_matrix.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["trained_up_to"] + [f"Exp{j:03d}" for j in range(n_exp)])
        for e in range(n_exp):
            w.writerow([e] + [f"{a:.4f}" for a in acc[e]])


if __name__ == "__main__":
    main()
