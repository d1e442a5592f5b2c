#!/usr/bin/env python
"""Generate the 'team chat thread' benchmark runs.

Every run is produced by really training a small torch model on CPU with
the user's own script (kept verbatim in SCRIPTS below), on a deterministic
synthetic data set. The thread text around each run quotes numbers parsed
from the logs the scripts wrote. Usage:

    python gen.py            # writes runs/ and truth.json next to this file
    python gen.py --keep     # keep the scratch folder _work/ afterwards
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")
WORK = os.path.join(HERE, "_work")
PY = sys.executable

# --------------------------------------------------------------------------
# synthetic data sets (stand-ins for each team's data files)
# --------------------------------------------------------------------------


def moons(n, noise=0.25, seed=0):
    rng = np.random.default_rng(seed)
    n1 = n // 2
    n2 = n - n1
    t1 = rng.uniform(0, np.pi, n1)
    t2 = rng.uniform(0, np.pi, n2)
    a = np.c_[np.cos(t1), np.sin(t1)]
    b = np.c_[1 - np.cos(t2), 0.5 - np.sin(t2)]
    X = np.r_[a, b] + rng.normal(0, noise, (n, 2))
    y = np.r_[np.zeros(n1), np.ones(n2)].astype(np.int64)
    p = rng.permutation(n)
    return X[p].astype(np.float32), y[p]


def spirals(n, k=3, noise=0.15, turns=1.25, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    r = rng.uniform(0.1, 1.0, n)
    th = 2 * np.pi * (turns * r + y / k)
    X = np.c_[r * np.cos(th), r * np.sin(th)] + rng.normal(0, noise * r[:, None] + 0.02, (n, 2))
    return X.astype(np.float32), y.astype(np.int64)


def tabular(n, n_features=20, n_informative=8, n_classes=5, sep=1.0, seed=0, flip=0.0):
    """make_classification-style: clusters on hypercube vertices in the
    informative dims, random linear mixing, the rest pure noise."""
    rng = np.random.default_rng(seed)
    verts = rng.choice([-1.0, 1.0], size=(n_classes * 2, n_informative)) * sep
    y = rng.integers(0, n_classes, n)
    sub = rng.integers(0, 2, n)
    inf = verts[y * 2 + sub] + rng.normal(0, 1.0, (n, n_informative))
    A = rng.normal(0, 1, (n_informative, n_informative))
    inf = inf @ A
    noise = rng.normal(0, 1, (n, n_features - n_informative))
    X = np.c_[inf, noise]
    X = X[:, rng.permutation(n_features)]
    if flip > 0:
        m = rng.random(n) < flip
        y = y.copy()
        y[m] = rng.integers(0, n_classes, m.sum())
    return X.astype(np.float32), y.astype(np.int64)


def shapes(n, size=16, noise=0.35, seed=0, n_classes=4):
    """tiny grayscale images: 0 horizontal bar, 1 vertical bar, 2 diagonal,
    3 hollow square, 4 plus sign"""
    rng = np.random.default_rng(seed)
    X = np.zeros((n, 1, size, size), np.float32)
    y = rng.integers(0, n_classes, n)
    for i in range(n):
        img = np.zeros((size, size), np.float32)
        L = rng.integers(6, 11)
        r0 = rng.integers(0, size - L + 1)
        c0 = rng.integers(0, size - L + 1)
        if y[i] == 0:
            img[r0 + L // 2, c0:c0 + L] = 1
        elif y[i] == 1:
            img[r0:r0 + L, c0 + L // 2] = 1
        elif y[i] == 2:
            for t in range(L):
                img[r0 + t, c0 + t] = 1
        elif y[i] == 3:
            img[r0, c0:c0 + L] = 1
            img[r0 + L - 1, c0:c0 + L] = 1
            img[r0:r0 + L, c0] = 1
            img[r0:r0 + L, c0 + L - 1] = 1
        else:
            img[r0 + L // 2, c0:c0 + L] = 1
            img[r0:r0 + L, c0 + L // 2] = 1
        X[i, 0] = img * rng.uniform(0.6, 1.0) + rng.normal(0, noise, (size, size))
    return X, y.astype(np.int64)


def sequences(n, T=30, vocab=10, seed=0, n_classes=4):
    """label = which of the marker tokens 1..n_classes occurs most often"""
    rng = np.random.default_rng(seed)
    X = rng.integers(n_classes + 1, vocab, (n, T))
    y = rng.integers(0, n_classes, n)
    for i in range(n):
        counts = rng.multinomial(8, np.ones(n_classes) / n_classes)
        counts[y[i]] = counts.max() + rng.integers(1, 3)
        toks = np.concatenate([np.full(c, k + 1) for k, c in enumerate(counts)])
        pos = rng.choice(T, size=len(toks), replace=False)
        X[i, pos] = toks
    return X.astype(np.int64), y.astype(np.int64)


def churn_table(n, seed=0):
    import pandas as pd
    rng = np.random.default_rng(seed)
    tenure = rng.gamma(2.0, 12.0, n)
    monthly = rng.normal(55, 20, n).clip(5, None)
    tickets = rng.poisson(1.2, n)
    logins = rng.poisson(12, n)
    contract = rng.integers(0, 3, n)
    discount = rng.random(n) < 0.3
    z = (-0.045 * tenure + 0.025 * (monthly - 55) + 0.35 * tickets - 0.06 * logins
         - 0.7 * contract + 0.4 * discount + 1.3 + rng.normal(0, 1.2, n))
    churned = (z > 0).astype(np.int64)
    refund = np.where(churned == 1, rng.gamma(2.0, 15.0, n), 0.0)
    refund = np.where((churned == 0) & (rng.random(n) < 0.01), rng.gamma(2.0, 5.0, n), refund)
    return pd.DataFrame({
        "tenure_months": tenure.round(1), "monthly_charges": monthly.round(2),
        "support_tickets": tickets, "logins_30d": logins, "contract_type": contract,
        "has_discount": discount.astype(int), "refund_amount": refund.round(2),
        "churned": churned,
    })


def make_data(key, wd):
    dd = os.path.join(wd, "data")
    os.makedirs(dd, exist_ok=True)
    P = lambda f: os.path.join(dd, f)
    if key == "lrhigh":
        X, y = tabular(4000, n_features=24, n_informative=10, n_classes=6, sep=1.2, seed=4)
        rng = np.random.default_rng(40)
        X = X * rng.uniform(0.5, 30, X.shape[1]) + rng.uniform(-50, 200, X.shape[1])
        np.savez(P("sensor_faults_v3.npz"), X_train=X[:3400].astype(np.float32), y_train=y[:3400],
                 X_val=X[3400:].astype(np.float32), y_val=y[3400:])
    elif key == "zerograd":
        X, y = tabular(3000, n_features=16, n_informative=8, n_classes=4, sep=1.0, seed=21)
        np.savez(P("segments.npz"), X=X, y=y)
    elif key == "dsoftmax":
        X, y = tabular(4300, n_features=16, n_informative=10, n_classes=7, sep=1.4, seed=7)
        np.savez(P("landcover_feats.npz"), train_x=X[:3500], train_y=y[:3500], test_x=X[3500:], test_y=y[3500:])
    elif key == "misalign":
        X, y = sequences(4400, T=30, vocab=12, seed=3, n_classes=4)
        np.savez(P("event_sequences.npz"), tokens=X, labels=y)
    elif key == "frozen":
        X, y = spirals(3000, k=3, noise=0.12, turns=1.25, seed=17)
        np.savez(P("rings_3class.npz"), X_train=X[:2400], y_train=y[:2400], X_val=X[2400:], y_val=y[2400:])
    elif key == "sched":
        X, y = shapes(3000, noise=0.3, seed=5, n_classes=5)
        np.savez(P("glyphs16.npz"), x_train=X[:2400], y_train=y[:2400], x_val=X[2400:], y_val=y[2400:])
    elif key == "labelnoise":
        X, y = tabular(5000, n_features=20, n_informative=10, n_classes=8, sep=1.5, seed=12)
        rng = np.random.default_rng(120)
        ytr = y[:4000].copy()
        flip = rng.random(4000) < 0.4
        ytr[flip] = rng.integers(0, 8, flip.sum())
        np.savez(P("defects_train.npz"), X=X[:4000], y=ytr)
        np.savez(P("defects_val.npz"), X=X[4000:], y=y[4000:])
    elif key == "leak":
        churn_table(6000, seed=8).to_csv(P("churn_snapshot_2024q1.csv"), index=False)
    elif key == "evalmode":
        X, y = tabular(4000, n_features=14, n_informative=8, n_classes=3, sep=1.1, seed=33)
        np.savez(P("grades.npz"), X_train=X[:2500], y_train=y[:2500], X_val=X[2500:3000], y_val=y[2500:3000])
        o = np.argsort(y[3000:], kind="stable")
        np.savez(P("grades_holdout.npz"), X=X[3000:][o], y=y[3000:][o])
    elif key == "wrongckpt":
        X, y = sequences(3000, T=40, vocab=14, seed=9, n_classes=5)
        np.savez(P("clickstream.npz"), train_tokens=X[:2000], train_labels=y[:2000], val_tokens=X[2000:2500],
                 val_labels=y[2000:2500], test_tokens=X[2500:], test_labels=y[2500:])
    elif key == "healthy1":
        X, y = shapes(3000, noise=0.3, seed=6, n_classes=5)
        np.savez(P("shapes16_v2.npz"), x_train=X[:2400], y_train=y[:2400], x_val=X[2400:], y_val=y[2400:])
    elif key == "healthy2":
        X, y = moons(2000, noise=0.3, seed=2)
        np.savez(P("moons_noisy.npz"), X_train=X[:1600], y_train=y[:1600], X_val=X[1600:], y_val=y[1600:])

# --------------------------------------------------------------------------
# the users' scripts, exactly as they ran them
# --------------------------------------------------------------------------
SCRIPTS = {
    'lrhigh': {
        'train.py': r'''import logging
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

logging.basicConfig(format="%(levelname)s | %(message)s", level=logging.INFO)
log = logging.getLogger("train")

cfg = {
    "data": "data/sensor_faults_v3.npz",
    "hidden": 128,
    "optimizer": "sgd",
    "lr": 0.8,
    "momentum": 0.9,
    "batch_size": 64,
    "iters": 600,
    "log_every": 10,
    "eval_every": 50,
    "seed": 3,
}

torch.set_num_threads(1)
torch.manual_seed(cfg["seed"])

d = np.load(cfg["data"])
mu, sd = d["X_train"].mean(0), d["X_train"].std(0)
Xtr = torch.tensor((d["X_train"] - mu) / sd, dtype=torch.float32)
Xva = torch.tensor((d["X_val"] - mu) / sd, dtype=torch.float32)
ytr, yva = torch.tensor(d["y_train"]), torch.tensor(d["y_val"])
n_classes = int(ytr.max()) + 1

model = nn.Sequential(
    nn.Linear(Xtr.shape[1], cfg["hidden"]), nn.Tanh(),
    nn.Linear(cfg["hidden"], cfg["hidden"]), nn.Tanh(),
    nn.Linear(cfg["hidden"], n_classes),
)
opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
log.info("config %s", cfg)
log.info("train=%d val=%d features=%d classes=%d", len(Xtr), len(Xva), Xtr.shape[1], n_classes)

it = 0
losses, gnorms = [], []
while it < cfg["iters"]:
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr) - cfg["batch_size"] + 1, cfg["batch_size"]):
        idx = perm[i:i + cfg["batch_size"]]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        gn = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
        opt.step()
        it += 1
        losses.append(loss.item())
        gnorms.append(gn)
        if it % cfg["log_every"] == 0:
            log.info("it %05d | loss %.4f | gnorm %.3f | lr %.3g", it, np.mean(losses), np.max(gnorms), opt.param_groups[0]["lr"])
            losses, gnorms = [], []
        if it % cfg["eval_every"] == 0:
            model.eval()
            with torch.no_grad():
                out = model(Xva)
                vl = F.cross_entropy(out, yva).item()
                va = (out.argmax(1) == yva).float().mean().item()
            model.train()
            log.info("eval it %05d | val_loss %.4f | val_acc %.4f", it, vl, va)
        if it >= cfg["iters"]:
            break
torch.save(model.state_dict(), "model_final.pt")
log.info("done")
''',
    },
    'zerograd': {
        'train.py': r'''import argparse
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/segments.npz")
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--bs", type=int, default=50)
p.add_argument("--lr", type=float, default=1e-3)
args = p.parse_args()

torch.set_num_threads(1)
torch.manual_seed(0)

d = np.load(args.data)
X, y = d["X"], d["y"]
X = (X - X.mean(0)) / X.std(0)
X_train, y_train = torch.tensor(X[:2500]), torch.tensor(y[:2500])
X_val, y_val = torch.tensor(X[2500:]), torch.tensor(y[2500:])

train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=args.bs, shuffle=True)

model = nn.Sequential(
    nn.Linear(X.shape[1], 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 4),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

optimizer.zero_grad()
for epoch in range(1, args.epochs + 1):
    model.train()
    tot_loss, correct, gnorms = 0.0, 0, []
    for xb, yb in train_loader:
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        gnorms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1e9).item())
        optimizer.step()
        tot_loss += loss.item() * len(xb)
        correct += (logits.argmax(1) == yb).sum().item()
    model.eval()
    with torch.no_grad():
        vlogits = model(X_val)
        val_loss = criterion(vlogits, y_val).item()
        val_acc = (vlogits.argmax(1) == y_val).float().mean().item()
    print(f"epoch {epoch:02d}  train_loss={tot_loss / len(X_train):.4f}  train_acc={correct / len(X_train):.3f}  "
          f"val_loss={val_loss:.4f}  val_acc={val_acc:.3f}  grad_norm={np.mean(gnorms):.2f}", flush=True)

torch.save(model.state_dict(), "segments_mlp.pt")
''',
    },
    'dsoftmax': {
        'train.py': r'''import json
import numpy as np
import torch
from torch import nn


class LandCoverNet(nn.Module):
    def __init__(self, n_in, n_classes, width=128, p_drop=0.1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_in, width),
            nn.ReLU(),
            nn.Dropout(p_drop),
            nn.Linear(width, width),
            nn.ReLU(),
            nn.Dropout(p_drop),
            nn.Linear(width, n_classes),
            nn.Softmax(dim=-1),
        )

    def forward(self, x):
        return self.net(x)


def accuracy(probs, y):
    return (probs.argmax(-1) == y).float().mean().item()


def main():
    torch.set_num_threads(1)
    torch.manual_seed(1234)
    data = np.load("data/landcover_feats.npz")
    Xtr, ytr = data["train_x"], data["train_y"]
    Xte, yte = data["test_x"], data["test_y"]
    mean, std = Xtr.mean(0), Xtr.std(0) + 1e-6
    Xtr = torch.from_numpy((Xtr - mean) / std).float()
    Xte = torch.from_numpy((Xte - mean) / std).float()
    ytr, yte = torch.from_numpy(ytr), torch.from_numpy(yte)

    n_classes = 7
    model = LandCoverNet(Xtr.shape[1], n_classes)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=1e-2)
    loss_fn = nn.CrossEntropyLoss()

    history = []
    for epoch in range(60):
        model.train()
        perm = torch.randperm(len(Xtr))
        running = []
        for i in range(0, len(Xtr), 128):
            idx = perm[i:i + 128]
            out = model(Xtr[idx])
            loss = loss_fn(out, ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            running.append(loss.item())
        model.eval()
        with torch.no_grad():
            out_tr = model(Xtr)
            out_te = model(Xte)
            rec = {
                "epoch": epoch + 1,
                "loss": round(float(np.mean(running)), 4),
                "train_acc": round(accuracy(out_tr, ytr), 4),
                "test_loss": round(loss_fn(out_te, yte).item(), 4),
                "test_acc": round(accuracy(out_te, yte), 4),
            }
        history.append(rec)
        print(json.dumps(rec), flush=True)

    torch.save(model.state_dict(), "landcover.pt")
    with open("history.json", "w") as f:
        json.dump(history, f)


if __name__ == "__main__":
    main()
''',
    },
    'misalign': {
        'train.py': r'''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 42
EPOCHS = 12
BATCH = 64
torch.set_num_threads(1)
torch.manual_seed(SEED)

raw = np.load("data/event_sequences.npz")
X, y = raw["tokens"], raw["labels"]

rng = np.random.default_rng(SEED)
rng.shuffle(X)
rng.shuffle(y)

n_val = 600
X_val, y_val = torch.tensor(X[:n_val]), torch.tensor(y[:n_val])
X_tr, y_tr = torch.tensor(X[n_val:]), torch.tensor(y[n_val:])
VOCAB = int(X.max()) + 1
N_CLASSES = int(y.max()) + 1


class SeqClassifier(nn.Module):
    def __init__(self, vocab, emb=16, hidden=24, n_classes=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.rnn = nn.GRU(emb, hidden, batch_first=True)
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h[:, -1])


model = SeqClassifier(VOCAB, n_classes=N_CLASSES)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
print(f"train {len(X_tr)}  val {len(X_val)}  vocab {VOCAB}  classes {N_CLASSES}")

for ep in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(X_tr))
    tl, tc, gn = 0.0, 0, []
    for i in range(0, len(X_tr), BATCH):
        idx = perm[i:i + BATCH]
        logits = model(X_tr[idx])
        loss = F.cross_entropy(logits, y_tr[idx])
        opt.zero_grad()
        loss.backward()
        gn.append(nn.utils.clip_grad_norm_(model.parameters(), 5.0).item())
        opt.step()
        tl += loss.item() * len(idx)
        tc += (logits.argmax(1) == y_tr[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        vlog = model(X_val)
        vl = F.cross_entropy(vlog, y_val).item()
        vacc = (vlog.argmax(1) == y_val).float().mean().item()
    print(f"[ep {ep + 1:2d}/{EPOCHS}] loss {tl / len(X_tr):.4f} acc {tc / len(X_tr):.3f} | "
          f"val_loss {vl:.4f} val_acc {vacc:.3f} | grad_norm {np.mean(gn):.3f}", flush=True)

torch.save(model.state_dict(), "gru_events.pt")
''',
    },
    'frozen': {
        'config.yaml': r'''seed: 17
data:
  path: data/rings_3class.npz
model:
  hidden: [64, 64]
  n_classes: 3
  init_from: null
  freeze_body: true
optim:
  lr: 0.003
  batch_size: 64
  epochs: 40
out: checkpoints/pointmlp.pt
''',
        'train.py': r'''import sys
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class PointNetMLP(nn.Module):
    def __init__(self, hidden, n_classes):
        super().__init__()
        layers, d = [], 2
        for h in hidden:
            layers += [nn.Linear(d, h), nn.ReLU()]
            d = h
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(d, n_classes)

    def forward(self, x):
        return self.head(self.body(x))


def build_model(cfg):
    model = PointNetMLP(cfg["model"]["hidden"], cfg["model"]["n_classes"])
    if cfg["model"].get("init_from"):
        model.body.load_state_dict(torch.load(cfg["model"]["init_from"]))
    if cfg["model"].get("freeze_body", False):
        for p in model.body.parameters():
            p.requires_grad = False
    return model


def grad_norm(module):
    g = [p.grad.norm() for p in module.parameters() if p.grad is not None]
    return torch.norm(torch.stack(g)).item() if g else 0.0


def main(cfg_path):
    cfg = yaml.safe_load(open(cfg_path))
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    d = np.load(cfg["data"]["path"])
    Xtr, ytr = torch.tensor(d["X_train"]), torch.tensor(d["y_train"])
    Xva, yva = torch.tensor(d["X_val"]), torch.tensor(d["y_val"])

    model = build_model(cfg)
    n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    n_all = sum(p.numel() for p in model.parameters())
    print(f"model: {model}")
    print(f"trainable params: {n_train} / {n_all}")
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    bs = cfg["optim"]["batch_size"]

    for epoch in range(1, cfg["optim"]["epochs"] + 1):
        model.train()
        perm = torch.randperm(len(Xtr))
        losses, g_body, g_head = [], [], []
        for i in range(0, len(Xtr), bs):
            idx = perm[i:i + bs]
            loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            g_body.append(grad_norm(model.body))
            g_head.append(grad_norm(model.head))
            opt.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            tr_acc = (model(Xtr).argmax(1) == ytr).float().mean().item()
            vo = model(Xva)
            va_loss = F.cross_entropy(vo, yva).item()
            va_acc = (vo.argmax(1) == yva).float().mean().item()
        print(f"epoch={epoch} loss={np.mean(losses):.4f} acc={tr_acc:.4f} val_loss={va_loss:.4f} "
              f"val_acc={va_acc:.4f} gnorm/body={np.mean(g_body):.4f} gnorm/head={np.mean(g_head):.4f}", flush=True)
    torch.save(model.state_dict(), cfg["out"])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "config.yaml")
''',
    },
    'sched': {
        'train.py': r'''import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(2024)

EPOCHS = 30
BS = 64
LR = 3e-3
STEP_SIZE = 10
GAMMA = 0.5

d = np.load("data/glyphs16.npz")
Xtr, ytr = torch.tensor(d["x_train"]), torch.tensor(d["y_train"])
Xva, yva = torch.tensor(d["x_val"]), torch.tensor(d["y_val"])


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2))


net = nn.Sequential(block(1, 8), block(8, 16), nn.Flatten(), nn.Linear(16 * 16, 64), nn.ReLU(), nn.Linear(64, 5))
optimizer = torch.optim.Adam(net.parameters(), lr=LR)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=STEP_SIZE, gamma=GAMMA)

for epoch in range(EPOCHS):
    net.train()
    t0 = time.time()
    perm = torch.randperm(len(Xtr))
    tot, n = 0.0, 0
    for i in range(0, len(Xtr), BS):
        idx = perm[i:i + BS]
        loss = F.cross_entropy(net(Xtr[idx]), ytr[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        tot += loss.item() * len(idx)
        n += len(idx)
    net.eval()
    with torch.no_grad():
        out = net(Xva)
        vloss = F.cross_entropy(out, yva).item()
        vacc = (out.argmax(1) == yva).float().mean().item()
    print(f"Epoch {epoch + 1:>2}/{EPOCHS}  lr={scheduler.get_last_lr()[0]:.2e}  train_loss={tot / n:.4f}  "
          f"val_loss={vloss:.4f}  val_acc={vacc:.4f}", flush=True)

torch.save(net.state_dict(), "glyph_cnn.pt")
''',
    },
    'labelnoise': {
        'train.py': r'''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(99)

EPOCHS = 80
BATCH = 64

tr = np.load("data/defects_train.npz")
va = np.load("data/defects_val.npz")
mu, sigma = tr["X"].mean(0), tr["X"].std(0)
Xtr = torch.tensor((tr["X"] - mu) / sigma, dtype=torch.float32)
Xva = torch.tensor((va["X"] - mu) / sigma, dtype=torch.float32)
ytr, yva = torch.tensor(tr["y"]), torch.tensor(va["y"])
K = 8

model = nn.Sequential(
    nn.Linear(Xtr.shape[1], 96), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(96, 96), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(96, K),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
steps = (len(Xtr) + BATCH - 1) // BATCH

for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(Xtr))
    tl, tc = 0.0, 0
    for i in range(0, len(Xtr), BATCH):
        idx = perm[i:i + BATCH]
        out = model(Xtr[idx])
        loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tl += loss.item() * len(idx)
        tc += (out.argmax(1) == ytr[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
        vl = F.cross_entropy(vo, yva).item()
        vacc = (vo.argmax(1) == yva).float().mean().item()
    print(f"Epoch {epoch + 1}/{EPOCHS}")
    print(f"{steps}/{steps} - loss: {tl / len(Xtr):.4f} - accuracy: {tc / len(Xtr):.4f} - "
          f"val_loss: {vl:.4f} - val_accuracy: {vacc:.4f}", flush=True)

torch.save(model.state_dict(), "defect_clf.pt")
''',
    },
    'leak': {
        'train.py': r'''import pandas as pd
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(5)

FEATURES = [
    "tenure_months", "monthly_charges", "support_tickets", "logins_30d",
    "contract_type", "has_discount", "refund_amount",
]
TARGET = "churned"

df = pd.read_csv("data/churn_snapshot_2024q1.csv")
df = df.sample(frac=1.0, random_state=5).reset_index(drop=True)
n_val = int(0.2 * len(df))
val_df, train_df = df.iloc[:n_val], df.iloc[n_val:]

mean = train_df[FEATURES].mean()
std = train_df[FEATURES].std()


def to_tensors(frame):
    x = torch.tensor(((frame[FEATURES] - mean) / std).values, dtype=torch.float32)
    y = torch.tensor(frame[TARGET].values, dtype=torch.float32)
    return x, y


Xtr, ytr = to_tensors(train_df)
Xva, yva = to_tensors(val_df)
print(f"rows: train={len(train_df)} val={len(val_df)}  churn rate train={ytr.mean():.3f} val={yva.mean():.3f}")

model = nn.Sequential(
    nn.Linear(len(FEATURES), 32), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(32, 16), nn.ReLU(),
    nn.Linear(16, 1),
)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
lossf = nn.BCEWithLogitsLoss()

for epoch in range(1, 16):
    model.train()
    perm = torch.randperm(len(Xtr))
    run_loss, run_correct = 0.0, 0
    for i in range(0, len(Xtr), 64):
        idx = perm[i:i + 64]
        logit = model(Xtr[idx]).squeeze(1)
        loss = lossf(logit, ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        run_loss += loss.item() * len(idx)
        run_correct += ((logit > 0).float() == ytr[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        vlogit = model(Xva).squeeze(1)
        vloss = lossf(vlogit, yva).item()
        vacc = ((vlogit > 0).float() == yva).float().mean().item()
    print(f"epoch {epoch:2d} | train loss {run_loss / len(Xtr):.4f} acc {run_correct / len(Xtr):.4f} "
          f"| val loss {vloss:.4f} acc {vacc:.4f}", flush=True)

torch.save({"model": model.state_dict(), "features": FEATURES, "mean": mean.values, "std": std.values},
           "churn_mlp.pt")
''',
    },
    'evalmode': {
        'predict.py': r'''import argparse
import numpy as np
import torch
from train import Net

ap = argparse.ArgumentParser()
ap.add_argument("--ckpt", default="artifacts/grader.pt")
ap.add_argument("--data", default="data/grades_holdout.npz")
ap.add_argument("--batch-size", type=int, default=256)
ap.add_argument("--seed", type=int, default=0)
args = ap.parse_args()

torch.set_num_threads(1)
torch.manual_seed(args.seed)
ck = torch.load(args.ckpt, weights_only=False)
model = Net(len(ck["mu"]), 3)
model.load_state_dict(ck["state_dict"])

d = np.load(args.data)
X = torch.tensor((d["X"] - ck["mu"]) / ck["sd"], dtype=torch.float32)
y = torch.tensor(d["y"])

preds = []
with torch.no_grad():
    for i in range(0, len(X), args.batch_size):
        preds.append(model(X[i:i + args.batch_size]).argmax(1))
preds = torch.cat(preds)
acc = (preds == y).float().mean().item()
print(f"holdout n={len(y)} batch_size={args.batch_size} accuracy={acc:.4f}")
print("pred class counts:", torch.bincount(preds, minlength=3).tolist(), " true:", torch.bincount(y, minlength=3).tolist())
''',
        'train.py': r'''import argparse
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.fc1 = nn.Linear(n_in, 128)
        self.bn1 = nn.BatchNorm1d(128)
        self.fc2 = nn.Linear(128, 64)
        self.bn2 = nn.BatchNorm1d(64)
        self.drop = nn.Dropout(0.5)
        self.fc3 = nn.Linear(64, n_out)

    def forward(self, x):
        x = self.drop(F.relu(self.bn1(self.fc1(x))))
        x = self.drop(F.relu(self.bn2(self.fc2(x))))
        return self.fc3(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/grades.npz")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--out", default="artifacts/grader.pt")
    args = ap.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(11)
    d = np.load(args.data)
    mu, sd = d["X_train"].mean(0), d["X_train"].std(0)
    Xtr = torch.tensor((d["X_train"] - mu) / sd, dtype=torch.float32)
    Xva = torch.tensor((d["X_val"] - mu) / sd, dtype=torch.float32)
    ytr, yva = torch.tensor(d["y_train"]), torch.tensor(d["y_val"])

    model = Net(Xtr.shape[1], 3)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
    for ep in range(args.epochs):
        model.train()
        perm = torch.randperm(len(Xtr))
        tl = 0.0
        for i in range(0, len(Xtr), 64):
            idx = perm[i:i + 64]
            loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            vl = F.cross_entropy(out, yva).item()
            va = (out.argmax(1) == yva).float().mean().item()
        print(f"ep {ep + 1:02d} train_loss {tl / len(Xtr):.4f} val_loss {vl:.4f} val_acc {va:.4f}", flush=True)

    torch.save({"state_dict": model.state_dict(), "mu": mu, "sd": sd}, args.out)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
''',
    },
    'wrongckpt': {
        'evaluate.py': r'''import argparse
import glob
import os
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvTagger(nn.Module):
    def __init__(self, vocab, n_classes, emb=16, ch=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.conv = nn.Conv1d(emb, ch, kernel_size=3, padding=1)
        self.fc = nn.Linear(ch, n_classes)

    def forward(self, x):
        h = F.relu(self.conv(self.emb(x).transpose(1, 2)))
        return self.fc(h.mean(2))


ap = argparse.ArgumentParser()
ap.add_argument("--ckpt-dir", default="checkpoints")
ap.add_argument("--split", default="test")
args = ap.parse_args()
torch.set_num_threads(1)

data = np.load("data/clickstream.npz")
X = torch.tensor(data[f"{args.split}_tokens"])
y = torch.tensor(data[f"{args.split}_labels"])

ckpts = sorted(glob.glob(os.path.join(args.ckpt_dir, "epoch_*.pt")))
path = ckpts[-1]
model = ConvTagger(int(data["train_tokens"].max()) + 1, int(data["train_labels"].max()) + 1)
model.load_state_dict(torch.load(path))
model.eval()
print(f"restored weights from {path}")
with torch.no_grad():
    out = model(X)
    loss = torch.nn.functional.cross_entropy(out, y).item()
    acc = (out.argmax(1) == y).float().mean().item()
print(f"[{args.split}] n={len(y)} loss={loss:.4f} acc={acc:.4f}")
''',
        'train.py': r'''import os
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(31)
os.makedirs("checkpoints", exist_ok=True)

data = np.load("data/clickstream.npz")
Xtr, ytr = torch.tensor(data["train_tokens"]), torch.tensor(data["train_labels"])
Xva, yva = torch.tensor(data["val_tokens"]), torch.tensor(data["val_labels"])


class ConvTagger(nn.Module):
    def __init__(self, vocab, n_classes, emb=16, ch=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.conv = nn.Conv1d(emb, ch, kernel_size=3, padding=1)
        self.fc = nn.Linear(ch, n_classes)

    def forward(self, x):
        h = F.relu(self.conv(self.emb(x).transpose(1, 2)))
        return self.fc(h.mean(2))


model = ConvTagger(int(Xtr.max()) + 1, int(ytr.max()) + 1)
opt = torch.optim.SGD(model.parameters(), lr=0.005, momentum=0.9)

for epoch in range(1, 25):
    model.train()
    perm = torch.randperm(len(Xtr))
    losses = []
    for i in range(0, len(Xtr), 32):
        idx = perm[i:i + 32]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        val_loss = F.cross_entropy(out, yva).item()
        val_acc = (out.argmax(1) == yva).float().mean().item()
    torch.save(model.state_dict(), f"checkpoints/epoch_{epoch}.pt")
    print(f"epoch {epoch} train_loss={np.mean(losses):.4f} val_loss={val_loss:.4f} val_acc={val_acc:.4f} "
          f"saved=checkpoints/epoch_{epoch}.pt", flush=True)
''',
    },
    'healthy1': {
        'train.py': r'''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(8)

d = np.load("data/shapes16_v2.npz")
train_ds = TensorDataset(torch.tensor(d["x_train"]), torch.tensor(d["y_train"]))
val_ds = TensorDataset(torch.tensor(d["x_val"]), torch.tensor(d["y_val"]))
train_dl = DataLoader(train_ds, batch_size=64, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=256)


class ShapeCNN(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


model = ShapeCNN()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)


def evaluate(dl):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in dl:
            out = model(xb)
            tot += F.cross_entropy(out, yb, reduction="sum").item()
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    return tot / n, correct / n


for epoch in range(1, 16):
    model.train()
    run, n = 0.0, 0
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        run += loss.item() * len(yb)
        n += len(yb)
    tr_loss, tr_acc = evaluate(train_dl)
    va_loss, va_acc = evaluate(val_dl)
    print(f"Epoch {epoch:2d} | train_loss {run / n:.4f} | train_acc {tr_acc:.4f} | val_loss {va_loss:.4f} | val_acc {va_acc:.4f}",
          flush=True)

torch.save(model.state_dict(), "shape_cnn.pt")
''',
    },
    'healthy2': {
        'train.py': r'''import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(123)

d = np.load("data/moons_noisy.npz")
Xtr, ytr = torch.tensor(d["X_train"]), torch.tensor(d["y_train"]).float()
Xva, yva = torch.tensor(d["X_val"]), torch.tensor(d["y_val"]).float()

model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.02)
lossf = nn.BCEWithLogitsLoss()

BATCH = 8
LOG_EVERY = 25
TOTAL_STEPS = 5000

step = 0
print(f"train={len(Xtr)} val={len(Xva)} batch={BATCH} lr=0.02 steps={TOTAL_STEPS}")
while step < TOTAL_STEPS:
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr) - BATCH + 1, BATCH):
        idx = perm[i:i + BATCH]
        loss = lossf(model(Xtr[idx]).squeeze(1), ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % LOG_EVERY == 0:
            line = f"step {step:5d}  batch_loss {loss.item():.4f}"
            if step % 250 == 0:
                with torch.no_grad():
                    vo = model(Xva).squeeze(1)
                    vl = lossf(vo, yva).item()
                    va = ((vo > 0).float() == yva).float().mean().item()
                line += f"  val_loss {vl:.4f}  val_acc {va:.4f}"
            print(line, flush=True)
        if step >= TOTAL_STEPS:
            break
torch.save(model.state_dict(), "moons_mlp.pt")
''',
    },
}

# --------------------------------------------------------------------------
# what to run for each run, in its own scratch folder
# --------------------------------------------------------------------------
COMMANDS = {
    "lrhigh": [("train", ["train.py"])],
    "zerograd": [("train", ["train.py"])],
    "dsoftmax": [("train", ["train.py"])],
    "misalign": [("train", ["train.py"])],
    "frozen": [("train", ["train.py", "config.yaml"])],
    "sched": [("train", ["train.py"])],
    "labelnoise": [("train", ["train.py"])],
    "leak": [("train", ["train.py"])],
    "evalmode": [("train", ["train.py"]),
                 ("pred256", ["predict.py", "--batch-size", "256"]),
                 ("pred64", ["predict.py", "--batch-size", "64"]),
                 ("pred1000", ["predict.py", "--batch-size", "1000"])],
    "wrongckpt": [("train", ["train.py"]), ("eval_test", ["evaluate.py"]),
                  ("eval_val", ["evaluate.py", "--split", "val"])],
    "healthy1": [("train", ["train.py"])],
    "healthy2": [("train", ["train.py"])],
}

# reference runs: the same script with the planted fault removed (or the
# teammate's older variant that a thread quotes). Never shipped; they back
# the numbers people quote in the threads and the self-check at the end.
REFERENCE = {
    "lrhigh": ("opt = torch.optim.SGD(model.parameters(), lr=cfg[\"lr\"], momentum=cfg[\"momentum\"])",
               "opt = torch.optim.Adam(model.parameters(), lr=1e-3)"),
    "zerograd": ("        loss.backward()\n", "        optimizer.zero_grad()\n        loss.backward()\n"),
    "dsoftmax": ("            nn.Softmax(dim=-1),\n", ""),
    "frozen": None,  # handled via config
    "sched": [("        scheduler.step()\n        tot +=", "        tot +="),
              ("    net.eval()\n    with torch.no_grad():", "    scheduler.step()\n    net.eval()\n    with torch.no_grad():")],
    "leak": ("\"contract_type\", \"has_discount\", \"refund_amount\",", "\"contract_type\", \"has_discount\","),
}


def run_py(wd, argv, timeout=120):
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    t0 = time.time()
    p = subprocess.run([PY] + argv, cwd=wd, env=env, capture_output=True, text=True, timeout=timeout)
    dt = time.time() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{wd} {argv} failed:\n{p.stdout}\n{p.stderr}")
    return p.stdout + p.stderr, dt


def execute(key):
    wd = os.path.join(WORK, key)
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(os.path.join(wd, "checkpoints"))
    os.makedirs(os.path.join(wd, "artifacts"))
    make_data(key, wd)
    for fn, text in SCRIPTS[key].items():
        with open(os.path.join(wd, fn), "w") as f:
            f.write(text)
    outs, times = {}, {}
    for name, argv in COMMANDS[key]:
        outs[name], times[name] = run_py(wd, argv)
    if key in REFERENCE:
        if key == "frozen":
            with open(os.path.join(wd, "config_ref.yaml"), "w") as f:
                f.write(SCRIPTS[key]["config.yaml"].replace("freeze_body: true", "freeze_body: false"))
            outs["ref"], times["ref"] = run_py(wd, ["train.py", "config_ref.yaml"])
        else:
            pairs = REFERENCE[key]
            pairs = pairs if isinstance(pairs, list) else [pairs]
            src = SCRIPTS[key]["train.py"]
            for old, new in pairs:
                assert src.count(old) == 1, (key, old)
                src = src.replace(old, new)
            with open(os.path.join(wd, "ref_train.py"), "w") as f:
                f.write(src)
            outs["ref"], times["ref"] = run_py(wd, ["ref_train.py"])
    return outs, times


# --------------------------------------------------------------------------
# helpers to quote the logs and format the chat exports
# --------------------------------------------------------------------------
def lines(text):
    return [l for l in text.splitlines() if l.strip()]


def grab(text, *patterns):
    """the log lines that match any of the regexes, in log order"""
    out = []
    for l in lines(text):
        if any(re.search(p, l) for p in patterns):
            out.append(l)
    return out


def num(line, key):
    m = re.search(re.escape(key) + r"[\s=:\"]*\s*([-+0-9.eE]+)", line)
    if not m:
        raise ValueError(f"{key!r} not in {line!r}")
    return float(m.group(1).rstrip("."))


def series(text, pattern, key):
    return [num(l, key) for l in grab(text, pattern)]


def block(ls, fence="```"):
    return fence + "\n" + "\n".join(ls) + "\n" + fence


def slack(channel, date, msgs):
    out = [f"#{channel} | thread export | {date}", "=" * 64]
    for t, who, body in msgs:
        out.append(f"[{date} {t}] {who}")
        out.append(body.strip("\n"))
        out.append("")
    return "\n".join(out)


def teams(title, msgs):
    out = [f"Microsoft Teams - {title}", "Exported conversation (reply thread)", "-" * 64]
    for stamp, who, body in msgs:
        out.append(f"{who}    {stamp}")
        out.append(body.strip("\n"))
        out.append("")
    return "\n".join(out)


def discord(server, channel, msgs):
    out = [f"Discord | {server} | #{channel} | thread", ""]
    for stamp, who, body in msgs:
        out.append(f"[{stamp}] {who}: {body.strip(chr(10))}")
        out.append("")
    return "\n".join(out)


# --------------------------------------------------------------------------
# one composer per run: (files in the run folder, truth entry)
# --------------------------------------------------------------------------
def compose_lrhigh(o):
    log = o["train"]
    its = grab(log, r"\| it 000(10|20|50|100|150|200)\b")
    evals = grab(log, r"^INFO \| eval")
    va = [num(l, "val_acc") for l in evals]
    losses = series(log, r"\| it \d+ \| loss", "loss")
    ref_va = num(grab(o["ref"], r"eval it 00600")[0], "val_acc")
    cfg_line = grab(log, r"config \{")[0]
    first = (f"morning :wave: the sensor-fault classifier went sideways after I moved it from Adam to SGD+momentum "
             f"(trying to match the setup in the reproduction doc). Loss drops for the first ~10 iters, then climbs "
             f"to {min(losses[5:]):.0f}-{max(losses):.0f} and just bounces there; val_acc sits around "
             f"{min(va):.2f}-{max(va):.2f}. The Adam run on the same v3 export ended at val_acc {ref_va:.2f}. "
             f"Full train.log attached.\n" + block([cfg_line] + its + evals[:2] + evals[-2:]))
    msgs = [
        ("09:12", "Dana Whitfield", first),
        ("09:20", "Marcus Oyelaran",
         "two tanh layers on 24 raw sensor channels? they're saturated. once the tanh units pin at +-1 the net can't "
         "move and you get exactly this picture. swap to ReLU, we had the identical thing on the vibration model last year"),
        ("09:23", "Dana Whitfield",
         "inputs are standardised with the train mean/std before the first layer, so they shouldn't be huge\n"
         + block(['mu, sd = d["X_train"].mean(0), d["X_train"].std(0)',
                  'Xtr = torch.tensor((d["X_train"] - mu) / sd, dtype=torch.float32)',
                  'Xva = torch.tensor((d["X_val"] - mu) / sd, dtype=torch.float32)'])),
        ("09:31", "Ines Carvalho",
         "could also be the v3 export. if a handful of rows have garbage in one channel you'd get jumps like that. "
         "did you check min/max per column?"),
        ("09:40", "Dana Whitfield",
         "no NaN/inf anywhere (np.isfinite(...).all() is True on both splits). haven't looked at per-column max yet"),
        ("09:42", "Marcus Oyelaran", "honestly it's the tanh. saturation, 100%. try ReLU and it'll go away"),
        ("09:44", "Dana Whitfield", "ok, will try after standup"),
    ]
    files = {"thread.txt": slack("sensor-ml", "2024-05-14", msgs), "train.log": log}
    symptom = (f"After switching from Adam to SGD+momentum the loss drops for the first ~10 iterations, then climbs to "
               f"{min(losses[5:]):.0f}-{max(losses):.0f} and bounces there, and val_acc sits around "
               f"{min(va):.2f}-{max(va):.2f} instead of the {ref_va:.2f} the Adam run reached.")
    gns = series(log, r"\| it \d+ \| loss", "gnorm")
    how = ("SGD with lr=0.8 and momentum 0.9 on a tanh MLP (6-class tabular data, standardised inputs). Loss falls "
           "from ln 6 = 1.79 to %.2f over the first 10 iterations, then rises to %.1f-%.1f and oscillates there for the "
           "remaining 590 iterations (val_loss %.1f-%.1f); window-max gnorm grows from %.1f to %.1f-%.1f. The same script "
           "with Adam lr=1e-3 reaches val_acc %.2f."
           % (losses[0], min(losses[5:]), max(losses), min(series(log, r"eval it", "val_loss")),
              max(series(log, r"eval it", "val_loss")), gns[0], min(gns[5:]), max(gns), ref_va))
    return files, {"truth": "lr_too_high", "symptom": symptom, "how": how}


def compose_zerograd(o):
    log = o["train"]
    ep = grab(log, r"^epoch \d+")
    gn = [num(l, "grad_norm") for l in ep]
    va = [num(l, "val_acc") for l in ep]
    pk = int(np.argmax(va[:4]))
    lo = 4 + int(np.argmin(va[4:12]))
    ref_va = num(grab(o["ref"], r"^epoch 30")[0], "val_acc")
    first = (f"Hi team - customer-segment MLP (4 classes, 16 standardised features, Adam 1e-3). grad_norm climbs from "
             f"~{gn[0]:.0f} to ~{gn[4]:.0f} in the first five epochs and never comes back down, and val_acc hits "
             f"{va[pk]:.3f} in epoch {pk + 1}, falls to {va[lo]:.3f} by epoch {lo + 1} and only crawls back to "
             f"{va[-1]:.2f} by epoch 30. Script attached (train.py), ran `python train.py --epochs 30`:\n\n"
             + "\n".join("    " + l for l in ep[:6] + ["..."] + ep[-3:]))
    msgs = [
        ("3/7/2024 2:41 PM", "Kofi Mensah", first),
        ("3/7/2024 2:55 PM", "Aisha Rahman",
         "That's textbook exploding gradients. You're calling clip_grad_norm_ with max_norm=1e9, which clips nothing. "
         "Set it to 1.0 and it'll be stable."),
        ("3/7/2024 3:02 PM", "Tom Becker",
         "+1 on clipping. Maybe also drop the lr to 3e-4, Adam at 1e-3 on a small MLP can get jumpy."),
        ("3/7/2024 3:10 PM", "Kofi Mensah",
         f"OK. Odd though, the same architecture trained fine in my notebook last month (~{ref_va:.2f} val). "
         "I'll try max_norm=1.0 tomorrow."),
        ("3/7/2024 3:11 PM", "Aisha Rahman", "Notebook probably had a smaller lr. It's the gradients, trust me."),
    ]
    files = {"thread.txt": teams("Customer Analytics / ML", msgs), "train.py": SCRIPTS["zerograd"]["train.py"]}
    symptom = (f"grad_norm climbs from ~{gn[0]:.0f} to ~{gn[4]:.0f} in the first five epochs and never comes back down, "
               f"and val_acc hits {va[pk]:.3f} in epoch {pk + 1}, falls to {va[lo]:.3f} by epoch {lo + 1} and only "
               f"crawls back to {va[-1]:.2f} by epoch 30.")
    how = ("optimizer.zero_grad() is called once before the epoch loop instead of every step, so .grad accumulates "
           "over the whole run (Adam, lr 1e-3). Mean grad norm per epoch: %.1f -> %.1f -> %.1f -> %.1f; val_acc %.3f "
           "at epoch %d, %.3f at epoch %d, %.3f at the end. The same script with zero_grad per step ends at val_acc "
           "%.3f with grad norm ~1." % (gn[0], gn[1], gn[4], gn[-1], va[pk], pk + 1, va[lo], lo + 1, va[-1], ref_va))
    return files, {"truth": "missing_zero_grad", "symptom": symptom, "how": how}


def compose_dsoftmax(o):
    log = o["train"]
    recs = [json.loads(l) for l in grab(log, r'^\{"epoch"')]
    ref = [json.loads(l) for l in grab(o["ref"], r'^\{"epoch"')]
    tail = [r["loss"] for r in recs[29:]]
    pick = [l for l in grab(log, r'^\{"epoch"') if json.loads(l)["epoch"] in (1, 10, 20, 30, 40, 50, 59, 60)]
    last = recs[-1]
    first = (f"anyone seen CE loss just refuse to go below ~{min(tail):.2f}? land-cover MLP, 7 classes, AdamW lr 5e-4, "
             f"60 epochs. test_acc ends at {last['test_acc']:.2f} so it is clearly learning, but the loss sits at "
             f"{min(tail):.2f}-{max(tail):.2f} from epoch 30 to the end. jonas's branch of the same model gets test loss "
             f"~{ref[-1]['test_loss']:.2f}. train.py attached\n" + block(pick))
    msgs = [
        ("06/11/2024 16:05", "nyx", first),
        ("06/11/2024 16:09", "brk",
         "weight_decay=1e-2 on AdamW is huge for a net this small, it's pinning the weights. that's your floor. try 1e-4"),
        ("06/11/2024 16:12", "sal_v",
         "or it's just underfit. width 128 with dropout for 7 classes is not a lot, go 512 and drop the dropout"),
        ("06/11/2024 16:20", "nyx",
         "jonas uses the same wd I think? not sure, his branch has a bunch of other changes too"),
        ("06/11/2024 16:21", "brk", "it's the wd. 1e-2 is way too strong for this, I'd put money on it"),
        ("06/11/2024 16:40", "nyx", "ok trying wd 1e-4 + width 512 tonight"),
    ]
    files = {"thread.txt": discord("ml-study-group", "help-training", msgs), "train.py": SCRIPTS["dsoftmax"]["train.py"]}
    symptom = (f"Cross-entropy won't go below ~{min(tail):.2f} (it sits at {min(tail):.2f}-{max(tail):.2f} from epoch 30 "
               f"on) even though test_acc reaches {last['test_acc']:.2f}, while a teammate's branch of the same model "
               f"gets test loss ~{ref[-1]['test_loss']:.2f}.")
    how = ("The model ends in nn.Softmax(dim=-1) and its output goes into nn.CrossEntropyLoss, which applies "
           "log_softmax again. Loss floors at %.2f (the floor for 7 classes is ln(e+6)-1 = 1.16) although accuracy is "
           "high; the same script without the Softmax layer reaches test loss %.3f." % (recs[-1]["loss"], ref[-1]["test_loss"]))
    return files, {"truth": "double_softmax", "symptom": symptom, "how": how}


def compose_misalign(o):
    log = o["train"]
    ep = grab(log, r"^\[ep")
    vl = [num(l, "val_loss") for l in ep]
    va = [num(l, "val_acc") for l in ep]
    tl = [num(l, "] loss") for l in ep]
    first = (f"GRU on the event sequences is stuck at loss ~1.386 (= ln 4) for all 12 epochs, val_acc "
             f"{min(va):.2f}-{max(va):.2f} on 4 balanced classes. Nothing fancy in the setup, train.py attached\n"
             + block([grab(log, r"^train ")[0]] + ep[:3] + ["..."] + ep[-3:]))
    msgs = [
        ("14:02", "Priya Nair", first),
        ("14:10", "Leo Brandt",
         "grad_norm 0.2 is tiny. that's vanishing gradients: 30 steps through a GRU and you only read h[:, -1], "
         "nothing from the early tokens makes it back. switch to an LSTM or at least mean-pool the hidden states"),
        ("14:14", "Mira Kowalski",
         "the label is 'which marker token occurs most', right? a GRU should get that easily. maybe 2e-3 is just too "
         "low for 12 epochs, try 1e-2"),
        ("14:21", "Priya Nair", "I'll try mean pooling first"),
        ("14:22", "Leo Brandt", "pooling will fix it, I've seen this a dozen times with RNNs"),
    ]
    files = {"thread.txt": slack("nlp-sequences", "2024-02-20", msgs), "train.py": SCRIPTS["misalign"]["train.py"]}
    symptom = (f"My GRU on the event sequences sits at loss ~1.386 for all 12 epochs with val_acc "
               f"{min(va):.2f}-{max(va):.2f} on 4 balanced classes.")
    how = ("Inputs and labels are shuffled with two consecutive rng.shuffle calls on the same Generator, which draw "
           "different permutations, so tokens and labels are no longer paired. Train loss %.3f -> %.3f, val loss "
           "%.3f -> %.3f (ln 4 = 1.386), val_acc at chance throughout, grad norms healthy (~0.2-0.3)."
           % (tl[0], tl[-1], vl[0], vl[-1]))
    return files, {"truth": "label_misalignment", "symptom": symptom, "how": how}


def compose_frozen(o):
    log = o["train"]
    ep = grab(log, r"^epoch=")
    va = [num(l, "val_acc") for l in ep]
    ls = [num(l, " loss") for l in ep]
    ref_va = num(grab(o["ref"], r"^epoch=40 ")[0], "val_acc")
    cfg = SCRIPTS["frozen"]["config.yaml"].splitlines()
    frag = [l for l in cfg if not l.strip().startswith(("init_from", "freeze_body"))]
    frag = frag[frag.index("model:"):frag.index("out: checkpoints/pointmlp.pt")]
    pick = [l for l in ep if int(num(l, "epoch")) in (1, 10, 20, 30, 40)]
    first = (f"Hi all - the point classifier on the 3-class rings data is crawling: after 40 epochs val_acc is "
             f"{va[-1]:.3f} and the loss only went {ls[0]:.2f} -> {ls[-1]:.2f}. Adam 3e-3, bs 64. Relevant config "
             f"below, full log attached.\n\n" + "\n".join("    " + l for l in frag) + "\n\n"
             + "\n".join("    " + l for l in pick))
    msgs = [
        ("2/2/2024 10:05 AM", "Hannah Fischer", first),
        ("2/2/2024 10:18 AM", "Raj Patel",
         "Three interleaved rings with two 64-unit layers is tight. You're underfitting - go wider (256) and deeper, "
         "and 40 epochs isn't much either."),
        ("2/2/2024 10:21 AM", "Hannah Fischer", "Would ~4.5k params really be too small for 2-D points?"),
        ("2/2/2024 10:24 AM", "Raj Patel", "For spirals, yes. Capacity is the issue, I'm fairly sure."),
        ("2/2/2024 10:40 AM", "Sven Lindqvist",
         "Loss is still going down, so it's just slow. I'd bump the lr to 1e-2 before touching the architecture."),
    ]
    files = {"thread.txt": teams("Geo team / points-models", msgs), "train.log": log}
    symptom = (f"After 40 epochs the 3-class rings classifier only reaches val_acc {va[-1]:.3f}, with the loss creeping "
               f"from {ls[0]:.2f} to {ls[-1]:.2f}.")
    how = ("config has freeze_body: true (and init_from: null), so build_model sets requires_grad=False on both hidden "
           "layers of a randomly initialised body; only the 195-parameter linear head trains. gnorm/body is 0.0000 "
           "every epoch, loss creeps down slowly; with freeze_body: false the same run reaches val_acc %.3f." % ref_va)
    return files, {"truth": "frozen_parameters", "symptom": symptom, "how": how}


def compose_sched(o):
    log = o["train"]
    ep = grab(log, r"^Epoch")
    vl = [num(l, "val_loss") for l in ep]
    va = [num(l, "val_acc") for l in ep]
    ref = grab(o["ref"], r"^Epoch")
    ref_va = num(ref[-1], "val_acc")
    code = SCRIPTS["sched"]["train.py"].splitlines()
    i0 = code.index("optimizer = torch.optim.Adam(net.parameters(), lr=LR)")
    j0 = code.index("    for i in range(0, len(Xtr), BS):")
    excerpt = code[i0:i0 + 2] + ["", "for epoch in range(EPOCHS):", "    net.train()", "    ..."] + code[j0:j0 + 8]
    first = (f"my glyph CNN stops learning after epoch 3 - val_loss {vl[2]:.2f} / val_acc ~{va[2]:.2f} and then "
             f"literally nothing changes for the other 27 epochs. Adam lr 3e-3, StepLR halving every 10 epochs, bs 64\n"
             + block(ep[:4] + ["..."] + ep[-2:]) + "\nthe relevant bits:\n" + block(excerpt))
    msgs = [
        ("03/03/2024 21:14", "kai", first),
        ("03/03/2024 21:19", "mo_r",
         "8 and 16 channels is a tiny CNN for 5 glyph classes. it's converged at its capacity, that's what a flat "
         "val_loss looks like. go 32/64"),
        ("03/03/2024 21:25", "ellie.t",
         "BN with bs 64 is fine. are the glyphs even separable? at 16px with that much background noise ~0.62 might "
         "just be the ceiling"),
        ("03/03/2024 21:31", "kai", "hm ok, I'll try 32/64 channels"),
        ("03/03/2024 21:32", "mo_r", "yeah it's capacity. classic plateau"),
    ]
    files = {"thread.txt": discord("cv-friends", "vision-help", msgs)}
    symptom = (f"My glyph CNN stops improving after epoch 3 at val_loss ~{vl[2]:.2f} / val_acc ~{va[2]:.2f} and "
               f"nothing changes for the remaining 27 epochs.")
    lr = [num(l, "lr") for l in ep]
    tl = [num(l, "train_loss") for l in ep]
    how = ("StepLR(step_size=10, gamma=0.5), meant per epoch, is stepped after every batch (38 batches/epoch), so the "
           "lr halves every 10 batches: %.2e after epoch 1, %.2e after epoch 3, %.2e at the end. Train loss freezes "
           "at ~%.2f from epoch 3 (val_acc %.3f); stepping the scheduler once per epoch gives val_acc %.3f."
           % (lr[0], lr[2], lr[-1], tl[-1], va[-1], ref_va))
    return files, {"truth": "lr_schedule_bug", "symptom": symptom, "how": how}


def compose_labelnoise(o):
    log = o["train"]
    m = grab(log, r"val_accuracy")
    acc = [num(l, "- accuracy") for l in m]
    va = [num(l, "val_accuracy") for l in m]
    tl = [num(l, "- loss") for l in m]
    vl = [num(l, "val_loss") for l in m]
    ls = lines(log)
    pick = []
    for e in (1, 10, 20, 40, 60, 80):
        k = ls.index(f"Epoch {e}/80")
        pick += ls[k:k + 2]
    first = (f"defect classifier v2 question: train accuracy won't go past ~{max(acc):.2f} after 80 epochs while "
             f"val_accuracy is {min(va[10:]):.2f}-{max(va):.2f}. How can val be that much better than train? 8 classes, "
             f"train set is the March export, val is our usual holdout. log attached\n" + block(pick))
    msgs = [
        ("11:03", "Olu Adeyemi", first),
        ("11:07", "Gabe Moreau",
         "that's dropout. train metrics are computed with dropout on, val with it off, so train always looks worse. "
         "perfectly normal, nothing to fix"),
        ("11:09", "Olu Adeyemi", f"{100 * (max(va) - max(acc)):.0f} points from dropout 0.2 though?"),
        ("11:12", "Gabe Moreau",
         "with two dropout layers, sure. plus the train acc is averaged over the epoch while the weights are still "
         "moving. it's fine"),
        ("11:20", "Mei Lin",
         f"train loss {tl[-1]:.2f} vs val {vl[-1]:.2f} is a big gap. maybe the holdout is just easier than the March data?"),
    ]
    files = {"thread.txt": slack("qa-vision", "2024-04-09", msgs), "train.log": log}
    symptom = (f"Train accuracy won't go past ~{max(acc):.2f} after 80 epochs while val_accuracy is "
               f"{min(va[10:]):.2f}-{max(va):.2f}; how can val be so much better than train?")
    how = ("40%% of the training labels were replaced by uniformly random classes when the data file was written "
           "(val labels clean). Train accuracy plateaus at %.2f-%.2f (the ceiling with 40%% noise over 8 classes is "
           "0.65), train loss floors at %.2f and only creeps down late; val_accuracy peaks at %.3f and slides to %.3f."
           % (acc[20], max(acc), min(tl), max(va), va[-1]))
    return files, {"truth": "label_noise", "symptom": symptom, "how": how}


def compose_leak(o):
    log = o["train"]
    ep = grab(log, r"^epoch")
    vacc = [float(re.findall(r"acc ([0-9.]+)", l)[1]) for l in ep]
    tacc = [float(re.findall(r"acc ([0-9.]+)", l)[0]) for l in ep]
    ref_ep = grab(o["ref"], r"^epoch")
    ref_va = float(re.findall(r"acc ([0-9.]+)", ref_ep[-1])[1])
    pick = [grab(log, r"^rows")[0]] + [l for l in ep if int(l.split()[1]) in (1, 2, 5, 10, 15)]
    first = (f"New churn MLP hits {100 * vacc[0]:.1f}% val accuracy after the first epoch and {100 * vacc[-1]:.1f}% by "
             f"epoch 15. The version before I joined in the billing columns sat at ~{100 * ref_va:.0f}%. Too good to be "
             f"true, or did the billing data really help that much? train.py attached.\n\n"
             + "\n".join("    " + l for l in pick))
    msgs = [
        ("4/22/2024 4:12 PM", "Carlos Mendes", first),
        ("4/22/2024 4:20 PM", "Nadia Rossi",
         "Billing is usually the strongest churn signal we have, and an MLP picks up interactions the old model "
         "couldn't (tenure x contract etc.). I'd take the win. Make sure the split is stratified and ship it."),
        ("4/22/2024 4:26 PM", "Jae-won Park",
         "Accuracy is misleading at 36% churn. I'd look at AUC / PR curves before celebrating."),
        ("4/22/2024 4:31 PM", "Carlos Mendes", "AUC can only look better with numbers like these, no?"),
        ("4/22/2024 4:33 PM", "Nadia Rossi", "Exactly. It's real - nice work."),
    ]
    files = {"thread.txt": teams("Retention Data Science", msgs), "train.py": SCRIPTS["leak"]["train.py"]}
    symptom = (f"The new churn MLP hits {100 * vacc[0]:.1f}% val accuracy after the first epoch and "
               f"{100 * vacc[-1]:.1f}% by epoch 15, against ~{100 * ref_va:.0f}% before I added the billing columns: "
               f"is that too good to be true?")
    how = ("FEATURES includes refund_amount, which is only filled after a customer has churned (non-zero for every "
           "churner and for ~1%% of the rest), so the target leaks into the inputs. Val acc %.3f at epoch 1 "
           "(train %.3f), %.3f at epoch 15; without that column the same MLP ends at %.3f."
           % (vacc[0], tacc[0], vacc[-1], ref_va))
    return files, {"truth": "data_leakage", "symptom": symptom, "how": how}


def compose_evalmode(o):
    log = o["train"]
    ep = grab(log, r"^ep ")
    va_end = num(ep[-1], "val_acc")
    a256 = num(o["pred256"], "accuracy")
    a64 = num(o["pred64"], "accuracy")
    a1000 = num(o["pred1000"], "accuracy")
    src = SCRIPTS["evalmode"]["predict.py"].splitlines()
    k0 = src.index('ck = torch.load(args.ckpt, weights_only=False)')
    k1 = src.index("preds = torch.cat(preds)")
    excerpt = src[k0:k1 + 1]
    runs = []
    for bs, key in ((256, "pred256"), (64, "pred64"), (1000, "pred1000")):
        runs.append(f"$ python predict.py --batch-size {bs}")
        runs += lines(o[key])
    first = (f"grader model: val_acc is {va_end:.2f} at the end of training, but predict.py on the holdout gives "
             f"{a256:.3f} with --batch-size 256 and {a64:.3f} with 64. With --batch-size 1000 (the whole file in one "
             f"go) it's {a1000:.3f}. Why would the batch size change the accuracy?? train.py attached\n"
             + block(runs) + "\npredict.py (the part that matters):\n" + block(excerpt))
    msgs = [
        ("15:47", "Sam Okafor", first),
        ("15:55", "Rosa Jimenez",
         "preprocessing mismatch. I'd bet the mu/sd in the checkpoint aren't what the model was trained with, or the "
         "holdout columns come out in a different order. compare X.mean(0) on holdout vs train"),
        ("16:01", "Sam Okafor",
         "mu/sd are saved from the same arrays in train.py (torch.save({... \"mu\": mu, \"sd\": sd})). column order comes "
         "from the same export script"),
        ("16:03", "Rosa Jimenez",
         "then it's the column order, the export script changed in January. pretty sure that's it"),
        ("16:15", "Dev Sharma",
         "fwiw the holdout file comes out of the DB ordered by grade. no idea if that matters here"),
    ]
    files = {"thread.txt": slack("ml-eng", "2024-01-30", msgs), "train.py": SCRIPTS["evalmode"]["train.py"]}
    symptom = (f"The grader model reaches val_acc {va_end:.2f} in training, but predict.py on the holdout gives "
               f"{a256:.2f} at batch size 256, {a64:.2f} at 64 and {a1000:.2f} with the whole file in one batch.")
    how = ("predict.py loads the checkpoint and predicts under torch.no_grad() but never calls model.eval(), so "
           "BatchNorm1d uses per-batch statistics and Dropout(0.5) stays on. The holdout file is sorted by class, so "
           "each batch is nearly one class and batch-norm erases the class signal: %.3f (bs 256), %.3f (bs 64), "
           "%.3f (bs 1000, mixed batch) vs %.3f val_acc in training, where eval() is called."
           % (a256, a64, a1000, va_end))
    return files, {"truth": "eval_mode_forgotten", "symptom": symptom, "how": how}


def compose_wrongckpt(o):
    log = o["train"]
    ep = grab(log, r"^epoch")
    va = [num(l, "val_acc") for l in ep]
    t_acc = num(o["eval_test"], "acc")
    v_acc = num(o["eval_val"], "acc")
    src = SCRIPTS["wrongckpt"]["evaluate.py"].splitlines()
    k0 = src.index('ckpts = sorted(glob.glob(os.path.join(args.ckpt_dir, "epoch_*.pt")))')
    excerpt = src[k0:k0 + 5]
    outs = ["$ python evaluate.py"] + lines(o["eval_test"]) + ["$ python evaluate.py --split val"] + lines(o["eval_val"])
    first = (f"clickstream tagger: training log ends at val_acc {va[-1]:.3f} (epoch 24) but `python evaluate.py` gives "
             f"acc {t_acc:.3f} on test. I figured test was just harder, but `--split val` gives {v_acc:.3f} on the val "
             f"split too, which training said was {va[-1]:.3f}?? train.log attached\n" + block(outs)
             + "\nloading part of evaluate.py:\n" + block(excerpt))
    msgs = [
        ("05/08/2024 10:31", "tomasz", first),
        ("05/08/2024 10:36", "anya_k",
         "you forgot model.eval() - dropout/bn left in train mode at inference does exactly this"),
        ("05/08/2024 10:38", "tomasz", "model.eval() is right there after load_state_dict. and the model has no dropout or BN"),
        ("05/08/2024 10:44", "fern",
         "vocab mismatch then? evaluate builds the embedding from int(train_tokens.max()) + 1, if that differs from "
         "training the rows shift"),
        ("05/08/2024 10:47", "tomasz", "same expression in both files, same npz"),
        ("05/08/2024 10:52", "anya_k", "then the val split in the npz isn't the one training used. regenerate it and rerun"),
    ]
    files = {"thread.txt": discord("recsys-lab", "modeling", msgs), "train.log": log}
    symptom = (f"Training ends at val_acc {va[-1]:.3f}, but evaluate.py reports {t_acc:.3f} on test and {v_acc:.3f} "
               f"even when pointed at the same val split.")
    how = ("train.py saves checkpoints/epoch_{n}.pt every epoch; evaluate.py takes sorted(glob(...))[-1], and the "
           "lexicographic sort puts epoch_9.pt last, so it evaluates the epoch-9 weights (val_acc %.3f in the training "
           "log) instead of epoch 24 (%.3f)." % (va[8], va[-1]))
    return files, {"truth": "wrong_checkpoint", "symptom": symptom, "how": how}


def compose_healthy1(o):
    log = o["train"]
    ep = grab(log, r"^Epoch")
    vl = [num(l, "val_loss") for l in ep]
    va = [num(l, "val_acc") for l in ep]
    tl = [num(l, "train_loss") for l in ep]
    first = (f"First full run of the shape CNN. val_acc ends at {va[-1]:.2f}, but val_loss has been flat around "
             f"{min(vl[8:]):.2f}-{max(vl[8:]):.2f} since epoch 9 while train loss keeps dropping to {tl[-1]:.2f}. "
             f"Is this run ok, or is it overfitting? train.py attached.\n\n"
             + "\n".join("    " + l for l in ep[:2] + ep[7:9] + ep[-3:]))
    msgs = [
        ("9/16/2024 11:20 AM", "Lena Vogel", first),
        ("9/16/2024 11:34 AM", "Mateo Alvarez",
         "Looks healthy to me. val_loss isn't going up, it has just flattened, and the train/val gap is small. "
         "You'd get basically the same model stopping anywhere from epoch 11 to 15."),
        ("9/16/2024 11:36 AM", "Lena Vogel", "OK, thanks!"),
        ("9/16/2024 11:50 AM", "Priyanka Rao",
         "If you want a couple more points, random shifts as augmentation would help, but nothing's wrong with the run."),
    ]
    files = {"thread.txt": teams("Vision onboarding", msgs), "train.py": SCRIPTS["healthy1"]["train.py"]}
    symptom = (f"Is this run ok? val_acc ends at {va[-1]:.2f} but val_loss has stayed around "
               f"{min(vl[8:]):.2f}-{max(vl[8:]):.2f} since epoch 9 while train loss keeps falling.")
    how = ("No fault: small CNN, Adam 2e-3, 15 epochs on 5-class 16x16 synthetic shapes. Train loss %.2f -> %.3f, "
           "val loss %.2f -> %.2f (flat, not rising, after epoch 9), val_acc %.2f -> %.3f."
           % (tl[0], tl[-1], vl[0], vl[-1], va[0], va[-1]))
    return files, {"truth": "healthy", "symptom": symptom, "how": how}


def compose_healthy2(o):
    log = o["train"]
    st = grab(log, r"^step")
    bl = [num(l, "batch_loss") for l in st]
    ev = grab(log, r"val_loss")
    vl = [num(l, "val_loss") for l in ev]
    va = [num(l, "val_acc") for l in ev]
    late = bl[len(bl) // 2:]
    pick = st[-12:]
    first = (f"is this ok? my moons MLP's batch_loss jumps between ~{min(late):.2f} and ~{max(late):.2f} from one log "
             f"line to the next even near step 5000, feels broken. last lines:\n" + block(pick) + "\nfull log attached")
    msgs = [
        ("08/19/2024 19:02", "ravi.p", first),
        ("08/19/2024 19:10", "quinn",
         f"you're logging the loss of a single batch of 8 points, that's going to bounce. look at val_loss instead: "
         f"{vl[0]:.2f} at step 250 -> {min(vl):.2f} later on, val_acc {va[0]:.2f} -> {max(va):.2f}. that's fine, "
         f"moons with that much noise won't go a lot higher"),
        ("08/19/2024 19:12", "ravi.p", "so nothing's wrong?"),
        ("08/19/2024 19:15", "quinn",
         "nope. average batch_loss over ~100 steps if the noise bugs you. a bigger batch or a bit more lr would get "
         "there faster, but it's converging"),
    ]
    files = {"thread.txt": discord("learn-ml", "beginners", msgs), "train.log": log}
    symptom = (f"Is this run ok? The batch loss of my moons MLP jumps between ~{min(late):.2f} and ~{max(late):.2f} "
               f"from one log line to the next even near step 5000.")
    how = ("No fault: 2-32-32-1 MLP on noisy two-moons, plain SGD lr 0.02, batch 8, 5000 steps, single-batch loss "
           "logged every 25 steps (200 lines). batch_loss is noisy (%.2f-%.2f in the second half) but val_loss falls "
           "%.3f -> %.3f and val_acc rises %.3f -> %.3f." % (min(late), max(late), vl[0], vl[-1], va[0], va[-1]))
    return files, {"truth": "healthy", "symptom": symptom, "how": how}


COMPOSE = {k: globals()["compose_" + k] for k in
           ["lrhigh", "zerograd", "dsoftmax", "misalign", "frozen", "sched", "labelnoise", "leak", "evalmode",
            "wrongckpt", "healthy1", "healthy2"]}

RUN_NAMES = {
    "leak": "run01", "healthy2": "run02", "zerograd": "run03", "wrongckpt": "run04", "dsoftmax": "run05",
    "lrhigh": "run06", "evalmode": "run07", "misalign": "run08", "healthy1": "run09", "sched": "run10",
    "frozen": "run11", "labelnoise": "run12",
}


# --------------------------------------------------------------------------
# self-checks: the planted fault must show in the numbers the run wrote
# --------------------------------------------------------------------------
def _col(text, pattern, key):
    return np.array(series(text, pattern, key))


def check(key, o):
    t = o["train"]
    if key == "lrhigh":
        ls = _col(t, r"\| it \d+ \| loss", "loss")
        assert ls[0] < np.log(6) and ls[5:].mean() > 3 * ls[0], ls[:10]
        return f"loss {ls[0]:.2f} at it 10 -> mean {ls[5:].mean():.2f} (max {ls.max():.2f}) afterwards"
    if key == "zerograd":
        gn = _col(t, r"^epoch", "grad_norm")
        va = _col(t, r"^epoch", "val_acc")
        ref = _col(o["ref"], r"^epoch", "val_acc")
        assert gn[-1] > 10 * gn[0] and va.max() < ref[-1] - 0.05
        return f"grad_norm {gn[0]:.1f} -> {gn[-1]:.1f}; val_acc max {va.max():.3f} end {va[-1]:.3f} (fixed: {ref[-1]:.3f})"
    if key == "dsoftmax":
        r = [json.loads(l) for l in grab(t, r'^\{"epoch"')]
        f = [json.loads(l) for l in grab(o["ref"], r'^\{"epoch"')]
        assert r[-1]["loss"] > 1.16 and f[-1]["test_loss"] < 0.5
        return f"loss floor {r[-1]['loss']:.3f} with test_acc {r[-1]['test_acc']:.3f} (fixed: test_loss {f[-1]['test_loss']:.3f})"
    if key == "misalign":
        vl = _col(t, r"^\[ep", "val_loss")
        va = _col(t, r"^\[ep", "val_acc")
        assert abs(vl - np.log(4)).max() < 0.05 and va.max() < 0.3
        return f"val_loss {vl.min():.3f}-{vl.max():.3f} (ln4=1.386), val_acc <= {va.max():.3f}"
    if key == "frozen":
        gb = _col(t, r"^epoch=", "gnorm/body")
        va = _col(t, r"^epoch=", "val_acc")
        ref = _col(o["ref"], r"^epoch=", "val_acc")
        assert gb.max() == 0.0 and ref[-1] > va[-1] + 0.2
        return f"gnorm/body == 0 all epochs; val_acc {va[-1]:.3f} (unfrozen: {ref[-1]:.3f})"
    if key == "sched":
        lr = _col(t, r"^Epoch", "lr")
        tl = _col(t, r"^Epoch", "train_loss")
        ref = _col(o["ref"], r"^Epoch", "val_acc")
        assert lr[2] < 1e-5 and abs(tl[3:] - tl[3]).max() < 0.02
        return f"lr {lr[0]:.1e} -> {lr[-1]:.1e}; train_loss frozen at {tl[-1]:.3f} from ep 3 (per-epoch step: val_acc {ref[-1]:.3f})"
    if key == "labelnoise":
        acc = _col(t, r"val_accuracy", "- accuracy")
        va = _col(t, r"val_accuracy", "val_accuracy")
        assert acc.max() < 0.65 and va.max() > acc.max() + 0.15
        return f"train acc <= {acc.max():.3f}, val acc max {va.max():.3f} end {va[-1]:.3f}"
    if key == "leak":
        v = [float(re.findall(r"acc ([0-9.]+)", l)[1]) for l in grab(t, r"^epoch")]
        r = [float(re.findall(r"acc ([0-9.]+)", l)[1]) for l in grab(o["ref"], r"^epoch")]
        assert v[0] > 0.9 and r[-1] < 0.8
        return f"val acc {v[0]:.3f} at epoch 1 -> {v[-1]:.3f}; without the leaking column {r[-1]:.3f}"
    if key == "evalmode":
        va = _col(t, r"^ep ", "val_acc")
        a = [num(o[k], "accuracy") for k in ("pred256", "pred64", "pred1000")]
        assert a[0] < va[-1] - 0.2 and a[1] < va[-1] - 0.2
        return f"train val_acc {va[-1]:.3f}; predict bs256 {a[0]:.3f}, bs64 {a[1]:.3f}, bs1000 {a[2]:.3f}"
    if key == "wrongckpt":
        va = _col(t, r"^epoch", "val_acc")
        assert "epoch_9.pt" in o["eval_val"] and num(o["eval_val"], "acc") < va[-1] - 0.15
        return f"val_acc ep24 {va[-1]:.3f}; evaluate.py loads epoch_9 -> val {num(o['eval_val'], 'acc'):.3f}, test {num(o['eval_test'], 'acc'):.3f}"
    if key == "healthy1":
        va = _col(t, r"^Epoch", "val_acc")
        assert va[-1] > 0.9
        return f"val_acc {va[0]:.3f} -> {va[-1]:.3f}"
    if key == "healthy2":
        vl = _col(t, r"val_loss", "val_loss")
        va = _col(t, r"val_loss", "val_acc")
        assert vl[-1] < vl[0] and va[-1] > 0.85
        return f"val_loss {vl[0]:.3f} -> {vl[-1]:.3f}, val_acc {va[0]:.3f} -> {va[-1]:.3f}"
    raise KeyError(key)


def main():
    keep = "--keep" in sys.argv
    shutil.rmtree(RUNS, ignore_errors=True)
    os.makedirs(RUNS)
    os.makedirs(WORK, exist_ok=True)
    truth = {}
    for key in COMMANDS:
        outs, times = execute(key)
        summary = check(key, outs)
        files, entry = COMPOSE[key](outs)
        name = RUN_NAMES[key]
        rd = os.path.join(RUNS, name)
        os.makedirs(rd)
        for fn, text in files.items():
            with open(os.path.join(rd, fn), "w") as f:
                f.write(text if text.endswith("\n") else text + "\n")
        truth[name] = entry
        print(f"{name} {entry['truth']:<20} {sum(times.values()):5.1f}s  {summary}", flush=True)
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(dict(sorted(truth.items())), f, indent=2)
        f.write("\n")
    if not keep:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
