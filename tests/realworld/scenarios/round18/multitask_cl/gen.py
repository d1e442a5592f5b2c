#!/usr/bin/env python
"""Generate the multi-task / continual / curriculum learning benchmark runs.

Every run is produced by really executing a small PyTorch script (CPU, one thread,
fixed seeds) inside its run folder under runs/.  Afterwards the folder is cut down
to what a user would hand to a debugger: logs, metric files, configs and, for about
half of the runs, the script(s) that produced them.  The ground truth for each run
goes to truth.json next to this file.

Usage:  python gen.py            # (re)build all runs
        python gen.py run04 run07  # rebuild only some runs
"""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = HERE / "runs"
TRUTH = HERE / "truth.json"

# ---------------------------------------------------------------------------
# data snippets shared by several scripts (inlined into each script, the way a
# lab copies its helpers around)
# ---------------------------------------------------------------------------
SNIPPETS = {}
SNIPPETS['DIGITS'] = r'''
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
'''
SNIPPETS['BLOBS'] = r'''
def make_blobs(n, n_classes, n_features=20, n_informative=8, sep=1.5, seed=0):
    rng = np.random.RandomState(seed)
    centers = rng.randn(n_classes, n_informative) * sep
    y = rng.randint(0, n_classes, size=n)
    xi = centers[y] + rng.randn(n, n_informative)
    mix = rng.randn(n_informative, n_informative) / np.sqrt(n_informative)
    xn = rng.randn(n, n_features - n_informative)
    X = np.hstack([xi @ mix, xn]).astype(np.float32)
    return X, y.astype(np.int64)
'''
SNIPPETS['TEACHER'] = r'''
def teacher_labels(X, n_classes, seed, n_informative=None, hidden=32):
    g = np.random.RandomState(seed)
    d = X.shape[1] if n_informative is None else n_informative
    W1 = g.randn(d, hidden) / np.sqrt(d)
    W2 = g.randn(hidden, n_classes)
    return np.argmax(np.tanh(X[:, :d] @ W1) @ W2, axis=1).astype(np.int64)
'''
SNIPPETS['MOONS'] = r'''
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
'''

# ---------------------------------------------------------------------------
# the scripts and config files, one entry per file
# ---------------------------------------------------------------------------
TEMPLATES = {}

TEMPLATES['run01_config.yaml'] = r'''experiment: mtl_shared_bottom_small
tasks:
  task_A: 5
  task_B: 3
loss_weights:
  task_A: 1.0
  task_B: 1.0
n_features: 30
n_informative: 10
n_train: 240
n_val: 1000
widths: [512, 512]
dropout: 0.0
weight_decay: 0.0
optimizer: adam
lr: 0.001
batch_size: 32
epochs: 150
early_stopping: false
seed: 7
'''

TEMPLATES['run01_train.py'] = r'''import csv
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)

#<<TEACHER>>


class MTL(nn.Module):
    def __init__(self, d_in, widths, tasks, dropout):
        super().__init__()
        layers, d = [], d_in
        for w in widths:
            layers += [nn.Linear(d, w), nn.ReLU(), nn.Dropout(dropout)]
            d = w
        self.backbone = nn.Sequential(*layers)
        self.heads = nn.ModuleDict({t: nn.Linear(d, k) for t, k in tasks.items()})

    def forward(self, x):
        z = self.backbone(x)
        return {t: h(z) for t, h in self.heads.items()}


def main():
    with open("config.yaml") as f:
        cfg = yaml.safe_load(f)
    torch.manual_seed(cfg["seed"])
    rng = np.random.RandomState(cfg["seed"])
    n_tr, n_va = cfg["n_train"], cfg["n_val"]
    X = rng.randn(n_tr + n_va, cfg["n_features"]).astype(np.float32)
    tasks = cfg["tasks"]
    Y = {t: torch.from_numpy(teacher_labels(X, k, seed=100 + i, n_informative=cfg["n_informative"]))
         for i, (t, k) in enumerate(tasks.items())}
    X = torch.from_numpy(X)
    Xtr, Xva = X[:n_tr], X[n_tr:]
    Ytr = {t: y[:n_tr] for t, y in Y.items()}
    Yva = {t: y[n_tr:] for t, y in Y.items()}

    model = MTL(X.shape[1], cfg["widths"], tasks, cfg["dropout"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    os.makedirs("tb", exist_ok=True)
    tb = SummaryWriter("tb")
    w = cfg["loss_weights"]
    rows = []
    for epoch in range(cfg["epochs"]):
        model.train()
        perm = torch.randperm(n_tr)
        tr = {t: [0.0, 0] for t in tasks}
        for i in range(0, n_tr, cfg["batch_size"]):
            idx = perm[i:i + cfg["batch_size"]]
            out = model(Xtr[idx])
            losses = {t: F.cross_entropy(out[t], Ytr[t][idx]) for t in tasks}
            loss = sum(w[t] * losses[t] for t in tasks)
            opt.zero_grad()
            loss.backward()
            opt.step()
            for t in tasks:
                tr[t][0] += losses[t].item() * len(idx)
                tr[t][1] += (out[t].argmax(1) == Ytr[t][idx]).sum().item()
        model.eval()
        with torch.no_grad():
            vo = model(Xva)
        row = {"epoch": epoch}
        for t in tasks:
            row[f"{t}/train_loss"] = tr[t][0] / n_tr
            row[f"{t}/train_acc"] = tr[t][1] / n_tr
            row[f"{t}/val_loss"] = F.cross_entropy(vo[t], Yva[t]).item()
            row[f"{t}/val_acc"] = (vo[t].argmax(1) == Yva[t]).float().mean().item()
            for k in ("train_loss", "train_acc", "val_loss", "val_acc"):
                tb.add_scalar(f"{t}/{k}", row[f"{t}/{k}"], epoch)
        row["total/train_loss"] = sum(w[t] * row[f"{t}/train_loss"] for t in tasks)
        row["total/val_loss"] = sum(w[t] * row[f"{t}/val_loss"] for t in tasks)
        tb.add_scalar("total/train_loss", row["total/train_loss"], epoch)
        tb.add_scalar("total/val_loss", row["total/val_loss"], epoch)
        rows.append(row)
        if epoch % 10 == 0 or epoch == cfg["epochs"] - 1:
            print(f"epoch {epoch:3d} " + " ".join(
                f"[{t}] tr {row[f'{t}/train_loss']:.4f}/{row[f'{t}/train_acc']:.3f} "
                f"va {row[f'{t}/val_loss']:.4f}/{row[f'{t}/val_acc']:.3f}" for t in tasks))
    tb.close()
    with open("metrics.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        for r in rows:
            wr.writerow({k: (round(v, 5) if isinstance(v, float) else v) for k, v in r.items()})


if __name__ == "__main__":
    main()
'''

TEMPLATES['run02_config.yaml'] = r'''benchmark: SplitDigits
scenario: class-incremental
n_experiences: 5
classes_per_exp: 2
class_order: [3, 7, 1, 9, 0, 5, 2, 8, 4, 6]
n_classes: 10
img_size: 7
n_train: 3000
n_test: 1000
strategy: Replay
mem_size: 400
hidden: 256
optimizer: SGD
lr: 0.05
momentum: 0.9
batch_size: 32
epochs: 4
ckpt_dir: checkpoints
seed: 42
'''

TEMPLATES['run02_train.py'] = r'''import argparse
import csv
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)

#<<DIGITS>>


class ClassBalancedBuffer:
    def __init__(self, max_size, seed=0):
        self.max_size = max_size
        self.data = {}
        self.g = torch.Generator().manual_seed(seed)

    def update(self, X, y):
        for c in torch.unique(y).tolist():
            self.data[c] = X[y == c]
        per_class = self.max_size // len(self.data)
        for c in list(self.data):
            xc = self.data[c]
            idx = torch.randperm(len(xc), generator=self.g)[:per_class]
            self.data[c] = xc[idx]

    def __len__(self):
        return sum(len(v) for v in self.data.values())

    def tensors(self):
        xs = [v for v in self.data.values()]
        ys = [torch.full((len(v),), c, dtype=torch.long) for c, v in self.data.items()]
        return torch.cat(xs), torch.cat(ys)

    def state_dict(self):
        return {"data": self.data}


def split_digits(cfg):
    Xtr, ytr = make_digits(cfg["n_train"], seed=cfg["seed"], size=cfg["img_size"])
    Xte, yte = make_digits(cfg["n_test"], seed=cfg["seed"] + 7, size=cfg["img_size"])
    order = cfg["class_order"]
    k = cfg["classes_per_exp"]
    stream = []
    for e in range(cfg["n_experiences"]):
        cls = order[e * k:(e + 1) * k]
        mtr, mte = np.isin(ytr, cls), np.isin(yte, cls)
        stream.append({
            "classes": cls,
            "train": (torch.from_numpy(Xtr[mtr]), torch.from_numpy(ytr[mtr])),
            "test": (torch.from_numpy(Xte[mte]), torch.from_numpy(yte[mte])),
        })
    return stream


def make_model(d, hidden, n_classes):
    return nn.Sequential(
        nn.Linear(d, hidden), nn.ReLU(),
        nn.Linear(hidden, hidden), nn.ReLU(),
        nn.Linear(hidden, n_classes),
    )


@torch.no_grad()
def eval_exp(model, X, y):
    model.eval()
    out = model(X)
    return F.cross_entropy(out, y).item(), (out.argmax(1) == y).float().mean().item()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="config.yaml")
    p.add_argument("--resume", default=None)
    p.add_argument("--max-exp", type=int, default=None)
    args = p.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    torch.manual_seed(cfg["seed"])
    stream = split_digits(cfg)
    n_exp = cfg["n_experiences"]
    model = make_model(stream[0]["train"][0].shape[1], cfg["hidden"], cfg["n_classes"])
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
    buffer = ClassBalancedBuffer(cfg["mem_size"], seed=cfg["seed"])
    acc = np.full((n_exp, n_exp), np.nan)
    start = 0
    os.makedirs(cfg["ckpt_dir"], exist_ok=True)

    print(f"benchmark={cfg['benchmark']} scenario={cfg['scenario']} n_experiences={n_exp} "
          f"strategy={cfg['strategy']}(mem_size={cfg['mem_size']}) "
          f"optimizer={cfg['optimizer']}(lr={cfg['lr']}, momentum={cfg['momentum']})")
    if args.resume:
        ckpt = torch.load(args.resume)
        model.load_state_dict(ckpt["model"])
        acc = np.array(ckpt["acc_matrix"])
        start = ckpt["experience"] + 1
        print(f"Resuming from {args.resume}: experience {ckpt['experience']} done, continuing at experience {start}")

    mb = cfg["batch_size"]
    for e in range(start, n_exp):
        exp = stream[e]
        X, y = exp["train"]
        n_new = len(y)
        if len(buffer):
            bx, by = buffer.tensors()
            X, y = torch.cat([X, bx]), torch.cat([y, by])
        print("-- >> Start of training phase << --")
        print(f"-- Starting training on experience {e} (Task 0) from train stream --")
        print(f"[ReplayPlugin] classes in this experience: {exp['classes']}; "
              f"{n_new} new samples + {len(buffer)} replay samples")
        model.train()
        for ep in range(cfg["epochs"]):
            perm = torch.randperm(len(y))
            loss_sum, correct = 0.0, 0
            for i in range(0, len(y), mb):
                idx = perm[i:i + mb]
                out = model(X[idx])
                loss = F.cross_entropy(out, y[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                loss_sum += loss.item() * len(idx)
                correct += (out.argmax(1) == y[idx]).sum().item()
            print(f"Epoch {ep} ended.")
            print(f"\tLoss_Epoch/train_phase/train_stream/Task000 = {loss_sum / len(y):.4f}")
            print(f"\tTop1_Acc_Epoch/train_phase/train_stream/Task000 = {correct / len(y):.4f}")
        print("-- >> End of training phase << --")
        buffer.update(*exp["train"])

        print("-- >> Start of eval phase << --")
        accs, losses, ns = [], [], []
        for j, ex in enumerate(stream):
            l, a = eval_exp(model, *ex["test"])
            acc[e, j] = a
            accs.append(a)
            losses.append(l)
            ns.append(len(ex["test"][1]))
            print(f"> Eval on experience {j} (Task 0) from test stream ended.")
            print(f"\tLoss_Exp/eval_phase/test_stream/Task000/Exp{j:03d} = {l:.4f}")
            print(f"\tTop1_Acc_Exp/eval_phase/test_stream/Task000/Exp{j:03d} = {a:.4f}")
        print("-- >> End of eval phase << --")
        print(f"\tLoss_Stream/eval_phase/test_stream/Task000 = {np.average(losses, weights=ns):.4f}")
        print(f"\tTop1_Acc_Stream/eval_phase/test_stream/Task000 = {np.average(accs, weights=ns):.4f}")

        path = os.path.join(cfg["ckpt_dir"], "last.pt")
        torch.save({
            "model": model.state_dict(),
            "optimizer": opt.state_dict(),
            "buffer": buffer.state_dict(),
            "experience": e,
            "acc_matrix": acc.tolist(),
        }, path)
        print(f"[checkpoint] saved {path} after experience {e}")
        with open("acc_matrix.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["after_exp"] + [f"Exp{j:03d}" for j in range(n_exp)])
            for r in range(n_exp):
                w.writerow([r] + ["" if np.isnan(a) else f"{a:.4f}" for a in acc[r]])
        if args.max_exp is not None and e >= args.max_exp:
            break


if __name__ == "__main__":
    main()
'''

TEMPLATES['run03_config.json'] = r'''{
  "tasks": ["majority", "has_bigram"],
  "loss_weights": {"majority": 1.0, "has_bigram": 1.0},
  "vocab": 6,
  "curriculum": [
    {"seq_len": 6, "steps": 300},
    {"seq_len": 12, "steps": 400},
    {"seq_len": 24, "steps": 700}
  ],
  "emb": 16,
  "hidden": 32,
  "optimizer": "SGD",
  "lr": 0.02,
  "momentum": 0.9,
  "clip": 1.0,
  "batch_size": 16,
  "n_val": 1000,
  "log_every": 10,
  "eval_every": 100,
  "seed": 29
}
'''

TEMPLATES['run03_train.py'] = r'''import json

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


def make_sequences(n, length, vocab, rng):
    seq = rng.randint(0, vocab, size=(n, length))
    majority = ((seq == 1).sum(1) > (seq == 2).sum(1)).astype(np.int64)
    bigram = ((seq[:, :-1] == vocab - 1) & (seq[:, 1:] == 0)).any(1).astype(np.int64)
    return torch.from_numpy(seq), {"majority": torch.from_numpy(majority), "has_bigram": torch.from_numpy(bigram)}


class SeqMTL(nn.Module):
    def __init__(self, vocab, emb, hidden, tasks):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.rnn = nn.GRU(emb, hidden, batch_first=True)
        self.heads = nn.ModuleDict({t: nn.Linear(hidden, 2) for t in tasks})

    def forward(self, x):
        _, h = self.rnn(self.emb(x))
        return {t: head(h[-1]) for t, head in self.heads.items()}


def main():
    with open("config.json") as f:
        cfg = json.load(f)
    torch.manual_seed(cfg["seed"])
    rng = np.random.RandomState(cfg["seed"])
    tasks = cfg["tasks"]
    model = SeqMTL(cfg["vocab"], cfg["emb"], cfg["hidden"], tasks)
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
    Xva, Yva = make_sequences(cfg["n_val"], cfg["curriculum"][-1]["seq_len"], cfg["vocab"],
                              np.random.RandomState(cfg["seed"] + 1))
    w = cfg["loss_weights"]
    step = 0
    for si, stage in enumerate(cfg["curriculum"]):
        print(f"[curriculum] stage {si + 1}/{len(cfg['curriculum'])}: seq_len={stage['seq_len']} "
              f"steps={stage['steps']} (global step {step})")
        for _ in range(stage["steps"]):
            model.train()
            xb, yb = make_sequences(cfg["batch_size"], stage["seq_len"], cfg["vocab"], rng)
            out = model(xb)
            losses = {t: F.cross_entropy(out[t], yb[t]) for t in tasks}
            loss = sum(w[t] * losses[t] for t in tasks)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
            opt.step()
            step += 1
            if step % cfg["log_every"] == 0:
                print(f"step {step:5d} stage {si + 1} loss {loss.item():.4f} "
                      + " ".join(f"[{t}] {losses[t].item():.4f}" for t in tasks) + f" lr {cfg['lr']}")
            if step % cfg["eval_every"] == 0:
                model.eval()
                with torch.no_grad():
                    vo = model(Xva)
                msg = " ".join(f"{t}/val_loss={F.cross_entropy(vo[t], Yva[t]).item():.4f} "
                               f"{t}/val_acc={(vo[t].argmax(1) == Yva[t]).float().mean().item():.4f}"
                               for t in tasks)
                print(f"[eval @ {step}] (seq_len={Xva.shape[1]}) {msg}")


if __name__ == "__main__":
    main()
'''

TEMPLATES['run04_train.py'] = r'''"""Three-task model: task-specific input adapters -> shared trunk -> task heads.

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

#<<DIGITS>>

#<<MOONS>>

#<<BLOBS>>


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
'''

TEMPLATES['run05_metric_v1.txt'] = r'''def accuracy(logits, target):
    return (logits.argmax(dim=1) == target).float().mean().item()
'''

TEMPLATES['run05_metric_v2.txt'] = r'''def accuracy(logits, target, num_classes=CFG["n_classes"]):
    """Mean per-class accuracy, so imbalanced tasks are not dominated by their majority class."""
    pred = logits.argmax(dim=1)
    per_class = []
    for c in range(num_classes):
        mask = target == c
        per_class.append((pred[mask] == c).float().mean().item() if mask.any() else 0.0)
    return float(np.mean(per_class))
'''

TEMPLATES['run05_train.py'] = r'''import argparse
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

#<<BLOBS>>


#<<METRIC>>


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
'''

TEMPLATES['run06_config.yaml'] = r'''seed: 13
tasks:
  task_A: 4
  task_B: 3
  task_C: 2
loss_weights:
  task_A: 1.0
  task_B: 0.5
  task_C: 0.5
data:
  n_features: 40
  n_informative: 12
  n_train: 8000
  n_val: 2000
model:
  hidden: [256, 256]
optim:
  name: sgd
  momentum: 0.9
  base_lr: 0.1
  base_batch_size: 32
  batch_size: 192
  warmup_epochs: 0
epochs: 30
'''

TEMPLATES['run06_train.py'] = r'''import csv
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)

#<<TEACHER>>


class HardShared(nn.Module):
    def __init__(self, d_in, hidden, tasks):
        super().__init__()
        layers, d = [], d_in
        for h in hidden:
            layers += [nn.Linear(d, h), nn.ReLU()]
            d = h
        self.shared = nn.Sequential(*layers)
        self.towers = nn.ModuleDict({t: nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, k))
                                     for t, k in tasks.items()})

    def forward(self, x):
        z = self.shared(x)
        return {t: tower(z) for t, tower in self.towers.items()}


def main():
    with open("config.yaml") as f:
        cfg = yaml.safe_load(f)
    torch.manual_seed(cfg["seed"])
    rng = np.random.RandomState(cfg["seed"])
    n = cfg["data"]["n_train"] + cfg["data"]["n_val"]
    X = rng.randn(n, cfg["data"]["n_features"]).astype(np.float32)
    Y = {t: teacher_labels(X, k, seed=cfg["seed"] + i, n_informative=cfg["data"]["n_informative"])
         for i, (t, k) in enumerate(cfg["tasks"].items())}
    X = torch.from_numpy(X)
    Y = {t: torch.from_numpy(v) for t, v in Y.items()}
    ntr = cfg["data"]["n_train"]

    tasks = cfg["tasks"]
    model = HardShared(X.shape[1], cfg["model"]["hidden"], tasks)
    opt_cfg = cfg["optim"]
    lr = opt_cfg["base_lr"] * opt_cfg["batch_size"] / opt_cfg["base_batch_size"]
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=opt_cfg["momentum"], nesterov=True)
    print(f"effective lr = {opt_cfg['base_lr']} * {opt_cfg['batch_size']}/{opt_cfg['base_batch_size']} = {lr:g}")
    w = cfg["loss_weights"]
    bs = opt_cfg["batch_size"]

    fs = open("train_steps.csv", "w", newline="")
    ws = csv.writer(fs)
    ws.writerow(["step", "epoch", "lr", "loss"] + [f"{t}/loss" for t in tasks] + ["grad_norm"])
    step = 0
    f = open("metrics.csv", "w", newline="")
    cols = ["epoch", "lr", "loss/total"] + [f"{t}/loss" for t in tasks] + [f"{t}/val_loss" for t in tasks] \
        + [f"{t}/val_acc" for t in tasks] + ["grad_norm/mean", "grad_norm/max"]
    wr = csv.DictWriter(f, fieldnames=cols)
    wr.writeheader()
    for epoch in range(cfg["epochs"]):
        model.train()
        perm = torch.randperm(ntr)
        tl = {t: 0.0 for t in tasks}
        tot, gns = 0.0, []
        for i in range(0, ntr, bs):
            idx = perm[i:i + bs]
            out = model(X[idx])
            losses = {t: F.cross_entropy(out[t], Y[t][idx]) for t in tasks}
            loss = sum(w[t] * losses[t] for t in tasks)
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
            gns.append(gn)
            opt.step()
            ws.writerow([step, epoch, f"{lr:g}", f"{loss.item():.5g}"] + [f"{losses[t].item():.5g}" for t in tasks]
                        + [f"{gn:.5g}"])
            step += 1
            tot += loss.item() * len(idx)
            for t in tasks:
                tl[t] += losses[t].item() * len(idx)
        model.eval()
        with torch.no_grad():
            vo = model(X[ntr:])
        row = {"epoch": epoch, "lr": lr, "loss/total": tot / ntr}
        for t in tasks:
            row[f"{t}/loss"] = tl[t] / ntr
            row[f"{t}/val_loss"] = F.cross_entropy(vo[t], Y[t][ntr:]).item()
            row[f"{t}/val_acc"] = (vo[t].argmax(1) == Y[t][ntr:]).float().mean().item()
        row["grad_norm/mean"] = float(np.mean(gns))
        row["grad_norm/max"] = float(np.max(gns))
        wr.writerow({k: (f"{v:.5g}" if isinstance(v, float) else v) for k, v in row.items()})
        f.flush()
        print(f"ep {epoch:3d} lr {lr:.3g} loss {row['loss/total']:.4f} | " + " ".join(
            f"{t} {row[f'{t}/loss']:.4f} (val acc {row[f'{t}/val_acc']:.3f})" for t in tasks)
            + f" | gnorm {row['grad_norm/mean']:.3g} (max {row['grad_norm/max']:.3g})")
        if not math.isfinite(row["loss/total"]):
            print("loss is not finite, stopping")
            break
    f.close()
    fs.close()


if __name__ == "__main__":
    main()
'''

TEMPLATES['run07_eval.py'] = r'''"""Evaluate the most recent SplitDigits checkpoint on every task's test split."""
import argparse
import glob
import json
import os

import numpy as np
import torch

from train import CFG, MultiHeadMLP, make_tasks, task_accuracy

torch.set_num_threads(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ckpt-dir", default=CFG["ckpt_dir"])
    p.add_argument("--ckpt", default=None)
    p.add_argument("--out", default="eval_results.json")
    args = p.parse_args()

    path = args.ckpt or sorted(glob.glob(os.path.join(args.ckpt_dir, "ckpt_step*.pt")))[-1]
    print(f"Loading checkpoint {path}")
    state = torch.load(path)
    tasks = make_tasks(CFG)
    model = MultiHeadMLP(tasks[0]["test"][0].shape[1], CFG["hidden"], CFG["n_tasks"], CFG["classes_per_task"])
    model.load_state_dict(state["model"])
    print(f"global_step={state['step']}")

    res = {}
    for t, task in enumerate(tasks):
        a = task_accuracy(model, *task["test"], t)
        res[f"task{t}/acc"] = round(a, 4)
        print(f"task {t}: test acc = {a:.4f} (n={len(task['test'][1])})")
    res["avg_acc"] = round(float(np.mean([res[f"task{t}/acc"] for t in range(len(tasks))])), 4)
    print(f"average test accuracy: {res['avg_acc']:.4f}")
    with open(args.out, "w") as f:
        json.dump({"checkpoint": path, **res}, f, indent=2)


if __name__ == "__main__":
    main()
'''

TEMPLATES['run07_train.py'] = r'''"""Task-incremental SplitDigits: shared MLP trunk + one 2-way head per task, small replay."""
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

#<<DIGITS>>


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
'''

TEMPLATES['run08_train.py'] = r'''"""PermutedDigits (domain-incremental) with experience replay, plain PyTorch.

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

#<<DIGITS>>


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
'''

TEMPLATES['run09_config.json'] = r'''{
  "tasks": {"digit": 10, "parity": 2, "loop": 2},
  "loss_weights": {"digit": 1.0, "parity": 0.5, "loop": 0.5},
  "trunk": [128, 32],
  "freeze_trunk_epochs": 3,
  "optimizer": "AdamW",
  "lr": 0.003,
  "weight_decay": 0.01,
  "batch_size": 64,
  "epochs": 30,
  "n_train": 5000,
  "n_val": 1000,
  "seed": 17
}
'''

TEMPLATES['run09_train.py'] = r'''import json

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

#<<DIGITS>>

LOOP = [0, 4, 6, 8, 9]


class SharedBottom(nn.Module):
    def __init__(self, d_in, widths, tasks):
        super().__init__()
        layers, d = [], d_in
        for w in widths:
            layers += [nn.Linear(d, w), nn.ReLU()]
            d = w
        self.trunk = nn.Sequential(*layers)
        self.heads = nn.ModuleDict({t: nn.Linear(d, k) for t, k in tasks.items()})

    def forward(self, x):
        h = self.trunk(x)
        return {t: head(h) for t, head in self.heads.items()}


def targets(y):
    return {"digit": y, "parity": y % 2, "loop": torch.isin(y, torch.tensor(LOOP)).long()}


def grad_norm(params):
    g = [p.grad.norm() ** 2 for p in params if p.grad is not None]
    return float(torch.stack(g).sum().sqrt()) if g else 0.0


def flat(params):
    return torch.cat([p.detach().flatten() for p in params])


def main():
    with open("config.json") as f:
        cfg = json.load(f)
    torch.manual_seed(cfg["seed"])
    Xtr, ytr = make_digits(cfg["n_train"], seed=cfg["seed"])
    Xva, yva = make_digits(cfg["n_val"], seed=cfg["seed"] + 1)
    Xtr, Xva = torch.from_numpy(Xtr), torch.from_numpy(Xva)
    Ttr, Tva = targets(torch.from_numpy(ytr)), targets(torch.from_numpy(yva))

    model = SharedBottom(Xtr.shape[1], cfg["trunk"], cfg["tasks"])
    for p in model.trunk.parameters():
        p.requires_grad = False
    opt = torch.optim.AdamW((p for p in model.parameters() if p.requires_grad),
                            lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    trunk_params = list(model.trunk.parameters())
    head_params = list(model.heads.parameters())
    trunk_init = flat(trunk_params).clone()
    n_all = sum(p.numel() for p in model.parameters())
    n_tr = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"model: SharedBottom trunk={cfg['trunk']} heads={cfg['tasks']} params={n_all} trainable={n_tr}")
    print(f"trunk frozen for the first {cfg['freeze_trunk_epochs']} epochs (head warm-up)")

    w = cfg["loss_weights"]
    log = open("metrics.jsonl", "w")
    for epoch in range(cfg["epochs"]):
        if epoch == cfg["freeze_trunk_epochs"]:
            for p in model.trunk.parameters():
                p.requires_grad = True
            print(f"epoch {epoch}: unfreezing trunk, trainable params now "
                  f"{sum(p.numel() for p in model.parameters() if p.requires_grad)}")
        model.train()
        perm = torch.randperm(len(Xtr))
        sums = {t: 0.0 for t in cfg["tasks"]}
        gn_trunk, gn_heads, n_steps = 0.0, 0.0, 0
        for i in range(0, len(Xtr), cfg["batch_size"]):
            idx = perm[i:i + cfg["batch_size"]]
            out = model(Xtr[idx])
            losses = {t: F.cross_entropy(out[t], Ttr[t][idx]) for t in cfg["tasks"]}
            loss = sum(w[t] * losses[t] for t in losses)
            model.zero_grad()
            loss.backward()
            gn_trunk += grad_norm(trunk_params)
            gn_heads += grad_norm(head_params)
            opt.step()
            n_steps += 1
            for t in losses:
                sums[t] += losses[t].item() * len(idx)

        model.eval()
        with torch.no_grad():
            vout = model(Xva)
        rec = {"epoch": epoch}
        for t in cfg["tasks"]:
            rec[f"{t}/train_loss"] = round(sums[t] / len(Xtr), 4)
            rec[f"{t}/val_loss"] = round(F.cross_entropy(vout[t], Tva[t]).item(), 4)
            rec[f"{t}/val_acc"] = round((vout[t].argmax(1) == Tva[t]).float().mean().item(), 4)
            rec[f"loss_weight/{t}"] = w[t]
        rec["grad_norm/trunk"] = round(gn_trunk / n_steps, 5)
        rec["grad_norm/heads"] = round(gn_heads / n_steps, 5)
        rec["param_norm/trunk"] = round(flat(trunk_params).norm().item(), 4)
        rec["param_dist_from_init/trunk"] = round((flat(trunk_params) - trunk_init).norm().item(), 6)
        rec["lr"] = opt.param_groups[0]["lr"]
        log.write(json.dumps(rec) + "\n")
        print(f"epoch {epoch:2d} " + " ".join(
            f"{t}: loss {rec[f'{t}/train_loss']:.3f}/{rec[f'{t}/val_loss']:.3f} acc {rec[f'{t}/val_acc']:.3f}"
            for t in cfg["tasks"]) + f" | gn trunk {rec['grad_norm/trunk']:.4f} heads {rec['grad_norm/heads']:.4f}")
    log.close()


if __name__ == "__main__":
    main()
'''

TEMPLATES['run10_config.json'] = r'''{
  "benchmark": "SplitBlobs",
  "scenario": "task-incremental",
  "n_classes": 12,
  "classes_per_exp": 3,
  "n_samples": 4800,
  "n_features": 20,
  "class_sep": 1.5,
  "test_frac": 0.25,
  "model": "MultiHeadClassifier",
  "hidden": 128,
  "strategy": "Naive",
  "optimizer": "SGD",
  "lr": 0.02,
  "batch_size": 32,
  "epochs": 5,
  "seed": 8
}
'''

TEMPLATES['run10_train.py'] = r'''import json

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

#<<BLOBS>>


class MultiHeadClassifier(nn.Module):
    def __init__(self, d_in, hidden, classes_per_task):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.classes_per_task = classes_per_task
        self.heads = nn.ModuleDict()

    def adaptation(self, task_label):
        key = str(task_label)
        if key not in self.heads:
            self.heads[key] = nn.Linear(self.body[-2].out_features, self.classes_per_task)

    def forward(self, x, task_label):
        return self.heads[str(task_label)](self.body(x))


def split_blobs(cfg):
    X, y = make_blobs(cfg["n_samples"], cfg["n_classes"], n_features=cfg["n_features"],
                      sep=cfg["class_sep"], seed=cfg["seed"])
    n_test = int(len(y) * cfg["test_frac"])
    Xte, yte, Xtr, ytr = X[:n_test], y[:n_test], X[n_test:], y[n_test:]
    k = cfg["classes_per_exp"]
    stream = []
    for e in range(cfg["n_classes"] // k):
        mtr = (ytr // k) == e
        mte = (yte // k) == e
        stream.append({
            "task_label": e,
            "classes": list(range(e * k, (e + 1) * k)),
            "train": (torch.from_numpy(Xtr[mtr]), torch.from_numpy(ytr[mtr])),
            "test": (torch.from_numpy(Xte[mte]), torch.from_numpy(yte[mte])),
        })
    return stream


def main():
    with open("config.json") as f:
        cfg = json.load(f)
    torch.manual_seed(cfg["seed"])
    stream = split_blobs(cfg)
    model = MultiHeadClassifier(cfg["n_features"], cfg["hidden"], cfg["classes_per_exp"])
    print(f"SplitBlobs: {len(stream)} experiences, classes per experience: "
          + ", ".join(str(s["classes"]) for s in stream))
    print(f"Strategy: {cfg['strategy']} | optimizer {cfg['optimizer']} lr={cfg['lr']} | "
          f"train_mb_size={cfg['batch_size']} train_epochs={cfg['epochs']}")

    for exp in stream:
        t = exp["task_label"]
        model.adaptation(t)
        opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
        X, y = exp["train"]
        print("-- >> Start of training phase << --")
        print(f"-- Starting training on experience {t} (Task {t}) from train stream --")
        model.train()
        for ep in range(cfg["epochs"]):
            perm = torch.randperm(len(y))
            loss_sum, correct = 0.0, 0
            for i in range(0, len(y), cfg["batch_size"]):
                idx = perm[i:i + cfg["batch_size"]]
                out = model(X[idx], t)
                loss = F.cross_entropy(out, y[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                loss_sum += loss.item() * len(idx)
                correct += (out.argmax(1) == y[idx]).sum().item()
            print(f"Epoch {ep} ended.")
            print(f"\tLoss_Epoch/train_phase/train_stream/Task{t:03d} = {loss_sum / len(y):.4f}")
            print(f"\tTop1_Acc_Epoch/train_phase/train_stream/Task{t:03d} = {correct / len(y):.4f}")
        print("-- >> End of training phase << --")

        print("-- >> Start of eval phase << --")
        model.eval()
        for prev in stream[:t + 1]:
            pt = prev["task_label"]
            Xv, yv = prev["test"]
            with torch.no_grad():
                out = model(Xv, pt)
                l = F.cross_entropy(out, yv).item()
                a = (out.argmax(1) == yv).float().mean().item()
            print(f"-- Starting eval on experience {pt} (Task {pt}) from test stream --")
            print(f"> Eval on experience {pt} (Task {pt}) from test stream ended.")
            print(f"\tLoss_Exp/eval_phase/test_stream/Task{pt:03d}/Exp{pt:03d} = {l:.4f}")
            print(f"\tTop1_Acc_Exp/eval_phase/test_stream/Task{pt:03d}/Exp{pt:03d} = {a:.4f}")
        print("-- >> End of eval phase << --")


if __name__ == "__main__":
    main()
'''

TEMPLATES['run11_train.py'] = r'''"""Joint-training reference for the SplitDigits class-incremental benchmark.

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

#<<DIGITS>>


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
'''

TEMPLATES['run12_eval.py'] = r'''"""Score the saved multi-task CNN on the held-out test set."""
import argparse
import json

import torch
from torch.utils.data import DataLoader, TensorDataset

from train import CFG, MultiTaskCNN, load_split

torch.set_num_threads(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--weights", default="mtl_cnn.pt")
    p.add_argument("--n-test", type=int, default=1000)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.manual_seed(args.seed)

    X, T = load_split(args.n_test, seed=CFG["seed"] + 500)
    names = list(CFG["tasks"])
    ds = TensorDataset(X, *[T[k] for k in names])
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True)

    model = MultiTaskCNN(CFG)
    model.load_state_dict(torch.load(args.weights))

    correct = {k: 0 for k in names}
    with torch.no_grad():
        for xb, *targets in loader:
            out = model(xb)
            for k, t in zip(names, targets):
                correct[k] += (out[k].argmax(1) == t).sum().item()
    res = {f"test/{k}_acc": round(correct[k] / len(ds), 4) for k in names}
    print(f"[eval] weights={args.weights} n_test={len(ds)} seed={args.seed}")
    for k, v in res.items():
        print(f"  {k}: {v:.4f}")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
'''

TEMPLATES['run12_train.py'] = r'''"""Multi-task CNN on 8x8 digits: digit class, parity and 'has a closed loop' heads."""
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

#<<DIGITS>>


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
'''


def render(key):
    text = TEMPLATES[key]
    for name, body in SNIPPETS.items():
        text = text.replace(f"#<<{name}>>", body.strip("\n"))
    return text


def run05_script(version):
    metric = TEMPLATES[f"run05_metric_{version}.txt"].strip("\n")
    return render("run05_train.py").replace("#<<METRIC>>", metric)


# ---------------------------------------------------------------------------
# run specifications
#   steps: ("write", filename, text) | ("run", argv, logfile, mode)
#   keep:  files produced by "write" steps that stay in the run (code/config)
#   drop:  produced paths that a user would not hand over (weights, caches)
# ---------------------------------------------------------------------------
def specs():
    return [
        {
            "name": "run01", "home": "/home/priya/mtl-small",
            "truth": "overfitting",
            "symptom": "Validation loss on both task heads has been going up for almost the whole run while "
                       "the training loss keeps dropping; val accuracy is a bit worse at the end than near the "
                       "start. Is something wrong with my multi-task setup?",
            "how": "Two teacher-labelled tasks (5-way, 3-way) on only 240 training samples, shared 512-512 MLP "
                   "with no dropout, no weight decay and no early stopping, Adam 1e-3 for 150 epochs.",
            "steps": [("write", "config.yaml", render("run01_config.yaml")),
                      ("write", "train.py", render("run01_train.py")),
                      ("run", ["train.py"], "train.log", "w")],
            "keep": ["config.yaml"], "drop": [],
        },
        {
            "name": "run02", "home": "/home/tkoch/cl/splitdigits_replay",
            "truth": "resume_mismatch",
            "symptom": "We use a 400-sample replay buffer and the first two experiences stayed around 97-99%, but "
                       "at the end of the stream their accuracy is exactly 0. Why did replay stop protecting them?",
            "how": "Class-incremental SplitDigits with class-balanced replay; the job stops after experience 1 "
                   "and is relaunched with --resume. The resume path restores model weights and the accuracy "
                   "matrix only: the replay buffer stored in the checkpoint is not loaded (and the SGD momentum "
                   "state is re-created), so experience 2 trains with 0 replay samples and classes of "
                   "experiences 0-1 are wiped out.",
            "steps": [("write", "config.yaml", render("run02_config.yaml")),
                      ("write", "train.py", render("run02_train.py")),
                      ("run", ["train.py", "--max-exp", "1"], "train.log", "w"),
                      ("run", ["train.py", "--resume", "checkpoints/last.pt"], "train.log", "a")],
            "keep": ["config.yaml"], "drop": ["checkpoints"],
        },
        {
            "name": "run03", "home": "/home/wei/seq-curriculum",
            "truth": "healthy",
            "symptom": "The batch loss is really jumpy and spikes every time the curriculum moves to longer "
                       "sequences, and the val numbers bounce around between evals. Is this run ok?",
            "how": "Healthy (noisy): GRU with two binary heads on synthetic token sequences, curriculum over "
                   "sequence length 6 -> 12 -> 24, SGD momentum with batch size 16 and clipping; validation "
                   "always on length 24.",
            "steps": [("write", "config.json", render("run03_config.json")),
                      ("write", "train.py", render("run03_train.py")),
                      ("run", ["train.py"], "train.log", "w")],
            "keep": ["config.json"], "drop": [],
        },
        {
            "name": "run04", "home": "/home/adeyemi/projects/three-task",
            "truth": "label_misalignment",
            "symptom": "Tasks A and C train normally, but task B (two moons, which should be the easiest one) "
                       "sits at loss ~0.69 and 50% accuracy the whole time.",
            "how": "Task B's inputs and labels are shuffled by two successive rng.shuffle() calls on the same "
                   "RandomState, i.e. with two different permutations, so moons inputs and targets are no "
                   "longer paired (train and val).",
            "steps": [("write", "train.py", render("run04_train.py")),
                      ("run", ["train.py"], "train.log", "w")],
            "keep": ["train.py"], "drop": [],
        },
        {
            "name": "run05", "home": "/home/lucia/continual/splitblobs",
            "truth": "metric_changed",
            "symptom": "After we refactored the training script, the same config and seed report a final ACC of "
                       "about 0.19 instead of about 0.96, and every task looks bad.",
            "how": "The refactored accuracy() averages per-class recall over num_classes=10 global classes while "
                   "each task head predicts 2 local labels; absent classes count as 0, so every accuracy is "
                   "~0.2x the true value. Training is bit-for-bit identical (same losses) in the old and new logs.",
            "steps": [("write", "train.py", run05_script("v1")),
                      ("run", ["train.py", "--results", "logs/2024-05-02_results.json"],
                       "logs/2024-05-02_train.log", "w"),
                      ("write", "train.py", run05_script("v2")),
                      ("run", ["train.py", "--results", "logs/2024-05-09_results.json"],
                       "logs/2024-05-09_train.log", "w")],
            "keep": ["train.py"], "drop": [],
        },
        {
            "name": "run06", "home": "/home/oskar/mtl/teacher3",
            "truth": "lr_too_high",
            "symptom": "The three-task run started out fine, then the loss went up and blew up to NaN in epoch 3.",
            "how": "Linear lr scaling rule: base_lr 0.1 x batch 192 / 32 = 0.6 for SGD with Nesterov momentum "
                   "0.9, no warm-up and no clipping; loss falls for ~60 steps, oscillates and rises with "
                   "grad-norm spikes, then goes to 1.9e4 and NaN.",
            "steps": [("write", "config.yaml", render("run06_config.yaml")),
                      ("write", "train.py", render("run06_train.py")),
                      ("run", ["train.py"], "train.log", "w")],
            "keep": ["config.yaml"], "drop": [],
        },
        {
            "name": "run07", "home": "/home/mchen/cl/taskil_digits",
            "truth": "wrong_checkpoint",
            "symptom": "The training log says ~91% average accuracy over the five tasks after the last one, but "
                       "our final evaluation script reports 66%, with tasks 2-4 at coin-flip level.",
            "how": "eval.py picks sorted(glob('ckpt_step*.pt'))[-1]; the sort is lexicographic, so it loads "
                   "ckpt_step972.pt (saved after task 1) instead of ckpt_step2724.pt; the heads of tasks 2-4 "
                   "in that checkpoint were never trained.",
            "steps": [("write", "train.py", render("run07_train.py")),
                      ("write", "eval.py", render("run07_eval.py")),
                      ("run", ["train.py"], "train.log", "w"),
                      ("run", ["eval.py"], "eval.log", "w")],
            "keep": ["train.py", "eval.py"], "drop": ["checkpoints"],
        },
        {
            "name": "run08", "home": "/home/sara/avalanche-like/permuted",
            "truth": "healthy",
            "symptom": "Is this run ok? Accuracy on the earlier permutations drops a few points after each new "
                       "experience.",
            "how": "Healthy (converges well): domain-incremental PermutedDigits, 4 experiences, MLP with "
                   "experience-balanced replay (2400 samples), Adam 1e-3; final stream accuracy ~0.89, "
                   "forgetting ~0.05.",
            "steps": [("write", "train.py", render("run08_train.py")),
                      ("run", ["train.py"], "log.txt", "w")],
            "keep": ["train.py"], "drop": [],
        },
        {
            "name": "run09", "home": "/home/nina/mtl-digits",
            "truth": "frozen_parameters",
            "symptom": "The shared-bottom multi-task model barely learns: digit accuracy is stuck around 30% "
                       "after 30 epochs and the losses hardly move.",
            "how": "The trunk is frozen for a 3-epoch head warm-up and the AdamW optimizer is built only from "
                   "parameters with requires_grad=True at that time; after 'unfreezing' the trunk receives "
                   "gradients but is never in the optimizer, so it is never updated "
                   "(param_dist_from_init/trunk = 0 throughout).",
            "steps": [("write", "config.json", render("run09_config.json")),
                      ("write", "train.py", render("run09_train.py")),
                      ("run", ["train.py"], "train.log", "w")],
            "keep": ["config.json"], "drop": [],
        },
        {
            "name": "run10", "home": "/home/jmoreau/cl-experiments/splitblobs_mh",
            "truth": "label_out_of_range",
            "symptom": "Training crashes right when the second experience starts; the first experience trained "
                       "fine to ~99%.",
            "how": "Task-incremental SplitBlobs with a multi-head classifier whose heads have 3 outputs, but the "
                   "targets keep their global class ids (3-5 in experience 1): cross_entropy raises "
                   "'IndexError: Target 5 is out of bounds.'",
            "steps": [("write", "config.json", render("run10_config.json")),
                      ("write", "train.py", render("run10_train.py")),
                      ("run", ["train.py"], "train.log", "w")],
            "keep": ["config.json"], "drop": [],
        },
        {
            "name": "run11", "home": "/home/hugo/cl-baselines",
            "truth": "data_not_shuffled",
            "symptom": "Our joint-training upper bound only gets ~20% on the test stream (worse than the "
                       "continual strategies) and the training loss zig-zags up and down inside every epoch.",
            "how": "The five experiences are concatenated (ordered by class) and fed to a DataLoader without "
                   "shuffle=True, so each epoch sees classes 0-1, then 2-3, ... 8-9 in blocks; the loss jumps at "
                   "every class-block boundary and the model ends each epoch biased to the last classes.",
            "steps": [("write", "train.py", render("run11_train.py")),
                      ("run", ["train.py"], "train.log", "w")],
            "keep": ["train.py"], "drop": [],
        },
        {
            "name": "run12", "home": "/home/kasia/mtl-cnn",
            "truth": "eval_mode_forgotten",
            "symptom": "During training the validation accuracy was 93-98% per task, but our evaluation script "
                       "gives 84-94% on the test set, and a different number each time we run it.",
            "how": "eval.py loads the weights and runs inference without model.eval(): Dropout/Dropout2d and "
                   "BatchNorm stay in training mode (batch size 16), so test accuracy drops and changes between "
                   "runs.",
            "steps": [("write", "train.py", render("run12_train.py")),
                      ("write", "eval.py", render("run12_eval.py")),
                      ("run", ["train.py"], "train.log", "w"),
                      ("run", ["eval.py", "--seed", "0"], "eval.log", "w"),
                      ("run", ["eval.py", "--seed", "1"], "eval.log", "a")],
            "keep": ["train.py", "eval.py"], "drop": ["mtl_cnn.pt"],
        },
    ]


TB_NAME = "events.out.tfevents.1715262311.ws-lab02.48211.0"


def sanitize(run_dir, home):
    """Replace machine-specific paths in text outputs with the user's paths."""
    env_home = "/home/" + home.split("/")[2] + "/miniconda3/envs/cl"
    repl = [(str(run_dir), home), (str(run_dir.resolve()), home),
            (str(Path(sys.prefix).resolve()), env_home), (sys.prefix, env_home),
            (str(HERE), home.rsplit("/", 1)[0])]
    for p in sorted(run_dir.rglob("*")):
        if p.is_dir():
            continue
        if p.name.startswith("events.out.tfevents"):
            p.rename(p.with_name(TB_NAME))
            continue
        try:
            text = p.read_text()
        except UnicodeDecodeError:
            continue
        new = text
        for a, b in repl:
            new = new.replace(a, b)
        if new != text:
            p.write_text(new)


def build(spec):
    run_dir = RUNS / spec["name"]
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    written = set()
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0",
               PYTHONDONTWRITEBYTECODE="1")
    t0 = time.time()
    for step in spec["steps"]:
        if step[0] == "write":
            _, fname, text = step
            (run_dir / fname).write_text(text)
            written.add(fname)
        else:
            _, argv, logfile, mode = step
            log_path = run_dir / logfile
            log_path.parent.mkdir(parents=True, exist_ok=True)
            with open(log_path, mode) as log:
                proc = subprocess.run([sys.executable] + argv, cwd=run_dir, env=env,
                                      stdout=log, stderr=subprocess.STDOUT)
            print(f"  {spec['name']}: {' '.join(argv)} -> rc {proc.returncode}")
    for fname in written - set(spec["keep"]):
        (run_dir / fname).unlink()
    for rel in spec["drop"] + ["__pycache__"]:
        p = run_dir / rel
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()
    sanitize(run_dir, spec["home"])
    print(f"  {spec['name']}: done in {time.time() - t0:.1f}s")


def main(argv):
    all_specs = specs()
    wanted = set(argv) or {s["name"] for s in all_specs}
    RUNS.mkdir(exist_ok=True)
    truth = json.loads(TRUTH.read_text()) if TRUTH.exists() else {}
    for spec in all_specs:
        if spec["name"] not in wanted:
            continue
        print(f"building {spec['name']} ...", flush=True)
        build(spec)
    for spec in all_specs:
        truth[spec["name"]] = {"truth": spec["truth"], "symptom": spec["symptom"], "how": spec["how"]}
    TRUTH.write_text(json.dumps(dict(sorted(truth.items())), indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
