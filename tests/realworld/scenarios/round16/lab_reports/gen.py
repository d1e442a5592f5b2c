#!/usr/bin/env python
"""Generator for the lab-report style benchmark runs (round 16).

Every run folder is produced by REALLY executing the user-style training script embedded below
(one script per run, some with ablation variants) on CPU with one thread, then writing a markdown
report whose tables are filled from the history the script wrote.  Deterministic seeds throughout.

usage:  python gen.py            # train (cached in .work/) and write runs/ + truth.json
        python gen.py --fresh    # ignore the cache
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent
RUNS = OUT / "runs"
WORK = OUT / ".work"
PY = sys.executable
FRESH = "--fresh" in sys.argv

SCRIPTS = {}

SCRIPTS['s01'] = r'''import argparse
import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, default=1e-5)
p.add_argument("--hidden", type=int, nargs="+", default=[256, 128])
p.add_argument("--epochs", type=int, default=60)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--seed", type=int, default=7)
p.add_argument("--out", default="history.json")
args = p.parse_args()

torch.manual_seed(args.seed)
np.random.seed(args.seed)


def make_glyphs(n, seed, noise=3.0):
    # 8x8 handwritten-digit-like glyphs, pixel range 0..16
    trng = np.random.RandomState(1234)
    base = (trng.rand(10, 10, 10) > 0.55).astype(np.float32)
    base = (base + np.roll(base, 1, 1) + np.roll(base, 1, 2)) / 3.0
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 10, n)
    X = np.zeros((n, 8, 8), np.float32)
    for i in range(n):
        dy, dx = rng.randint(0, 3, 2)
        X[i] = base[y[i], dy:dy + 8, dx:dx + 8]
    X = np.clip(X * 16 + rng.randn(n, 8, 8) * noise, 0, 16)
    return X.reshape(n, 64).astype(np.float32), y


Xtr, ytr = make_glyphs(1500, 1)
Xva, yva = make_glyphs(500, 2)
Xtr, Xva = Xtr / 16.0, Xva / 16.0
Xtr, ytr = torch.tensor(Xtr), torch.tensor(ytr)
Xva, yva = torch.tensor(Xva), torch.tensor(yva)

layers = []
d = 64
for h in args.hidden:
    layers += [nn.Linear(d, h), nn.ReLU()]
    d = h
layers.append(nn.Linear(d, 10))
model = nn.Sequential(*layers)
opt = torch.optim.Adam(model.parameters(), lr=args.lr)

hist = []
for epoch in range(1, args.epochs + 1):
    model.train()
    perm = torch.randperm(len(Xtr))
    tot, n = 0.0, 0
    for i in range(0, len(Xtr), args.batch_size):
        idx = perm[i:i + args.batch_size]
        out = model(Xtr[idx])
        loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(idx)
        n += len(idx)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    rec = {"epoch": epoch, "train_loss": tot / n, "val_loss": vl, "val_acc": va, "lr": args.lr}
    hist.append(rec)
    print(f"epoch {epoch:3d} | train_loss {tot / n:.4f} | val_loss {vl:.4f} | val_acc {va:.4f} | lr {args.lr:.1e}")

json.dump(hist, open(args.out, "w"))
'''

SCRIPTS['s02'] = r'''"""Waveform classifier (sine / square / sawtooth / chirp) - 1D conv net."""
import argparse
import json
import math

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=25)
parser.add_argument("--lr", type=float, default=3e-3)
parser.add_argument("--bs", type=int, default=64)
parser.add_argument("--channels", type=int, default=16)
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--history", default="history.json")
cfg = parser.parse_args()

torch.manual_seed(cfg.seed)
rng = np.random.default_rng(cfg.seed)

CLASSES = ["sine", "square", "sawtooth", "chirp"]
T = 64


def synth(n, rng):
    t = np.linspace(0, 1, T)
    X = np.empty((n, T), dtype=np.float32)
    y = rng.integers(0, 4, n)
    for i in range(n):
        f = rng.uniform(2, 6)
        ph = rng.uniform(0, 2 * math.pi)
        if y[i] == 0:
            s = np.sin(2 * math.pi * f * t + ph)
        elif y[i] == 1:
            s = np.sign(np.sin(2 * math.pi * f * t + ph))
        elif y[i] == 2:
            s = 2 * ((f * t + ph / (2 * math.pi)) % 1.0) - 1
        else:
            s = np.sin(2 * math.pi * (f * t + 4 * t ** 2) + ph)
        X[i] = s * rng.uniform(0.5, 1.5) + rng.normal(0, 0.35, T)
    return torch.from_numpy(X).unsqueeze(1), torch.from_numpy(y).long()


x_train, y_train = synth(3000, rng)
x_val, y_val = synth(800, rng)


class ConvNet(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, c, 7, padding=3), nn.BatchNorm1d(c), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(c, 2 * c, 5, padding=2), nn.BatchNorm1d(2 * c), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(2 * c, 2 * c, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
        )
        self.head = nn.Linear(2 * c, 4)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


model = ConvNet(cfg.channels)
optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)
criterion = nn.CrossEntropyLoss()

history = []
for epoch in range(cfg.epochs):
    model.train()
    order = torch.randperm(len(x_train))
    run_loss, correct = 0.0, 0
    for k in range(0, len(order), cfg.bs):
        b = order[k:k + cfg.bs]
        logits = model(x_train[b])
        loss = criterion(logits, y_train[b])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        run_loss += loss.item() * len(b)
        correct += (logits.argmax(1) == y_train[b]).sum().item()
    lr_now = scheduler.get_last_lr()[0]
    scheduler.step()

    model.eval()
    with torch.no_grad():
        logits = model(x_val)
        v_loss = criterion(logits, y_val).item()
        v_acc = (logits.argmax(1) == y_val).float().mean().item()
    row = dict(epoch=epoch + 1, loss=run_loss / len(order), acc=correct / len(order),
               val_loss=v_loss, val_acc=v_acc, lr=lr_now)
    history.append(row)
    print("[epoch {epoch:02d}] loss={loss:.4f} acc={acc:.4f} val_loss={val_loss:.4f} "
          "val_acc={val_acc:.4f} lr={lr:.2e}".format(**row))

with open(cfg.history, "w") as fh:
    json.dump(history, fh)
torch.save(model.state_dict(), "waveform_cnn.pt")
'''

SCRIPTS['s03'] = r'''import json
import sys

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(11)
np.random.seed(11)

LR = float(sys.argv[1]) if len(sys.argv) > 1 else 1e-3
EPOCHS = 40
BATCH = 32


def make_dataset(n, n_features=12, n_informative=5, seed=0):
    rng = np.random.RandomState(seed)
    w = np.random.RandomState(99).randn(n_informative)
    Z = rng.randn(n, n_informative)
    logits = Z @ w + 0.8 * np.sin(2 * Z[:, 0]) * Z[:, 1]
    y = (logits + 0.3 * rng.randn(n) > 0).astype(np.int64)
    mix = np.random.RandomState(98).randn(n_informative, n_features)
    X = Z @ mix * 0.5 + rng.randn(n, n_features) * 0.5
    return X.astype(np.float32), y


X, y = make_dataset(3000, seed=3)
X_train, y_train = torch.tensor(X[:2400]), torch.tensor(y[:2400])
X_val, y_val = torch.tensor(X[2400:]), torch.tensor(y[2400:])

model = nn.Sequential(
    nn.Linear(12, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 2),
)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
loss_fn = nn.CrossEntropyLoss()

log = []
for epoch in range(EPOCHS):
    model.train()
    idx = torch.randperm(len(X_train))
    losses, gnorms = [], []
    for i in range(0, len(idx), BATCH):
        b = idx[i:i + BATCH]
        out = model(X_train[b])
        loss = loss_fn(out, y_train[b])
        loss.backward()
        gn = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
        optimizer.step()
        losses.append(loss.item())
        gnorms.append(gn)

    model.eval()
    with torch.no_grad():
        out = model(X_val)
        val_loss = loss_fn(out, y_val).item()
        val_acc = (out.argmax(-1) == y_val).float().mean().item()
    entry = {
        "epoch": epoch,
        "train_loss": float(np.mean(losses)),
        "val_loss": val_loss,
        "val_acc": val_acc,
        "grad_norm": float(np.mean(gnorms)),
        "grad_norm_max": float(np.max(gnorms)),
    }
    log.append(entry)
    print(json.dumps(entry))

with open("history.json", "w") as f:
    json.dump(log, f)
'''

SCRIPTS['s04'] = r'''# churn model v3 - adds postcode feature
import argparse
import json

import numpy as np
import pandas as pd
import torch
import torch.nn as nn

torch.set_num_threads(1)

ap = argparse.ArgumentParser()
ap.add_argument("--features", default="all", choices=["all", "base"])
ap.add_argument("--epochs", type=int, default=15)
ap.add_argument("--out", default="history.json")
opt = ap.parse_args()

SEED = 2024
rng = np.random.default_rng(SEED)
torch.manual_seed(SEED)

# ---------------------------------------------------------------- data
N = 5000
df = pd.DataFrame({
    "tenure_months": rng.integers(1, 72, N),
    "monthly_charges": rng.normal(70, 25, N).clip(15, 150),
    "support_calls": rng.poisson(1.5, N),
    "contract_annual": rng.integers(0, 2, N),
    "late_payments": rng.poisson(0.7, N),
    "postcode": rng.integers(0, 9000, N),
})
z = (-0.045 * df.tenure_months + 0.02 * (df.monthly_charges - 70) + 0.45 * df.support_calls
     - 1.1 * df.contract_annual + 0.5 * df.late_payments + 0.4)
df["churned"] = (rng.random(N) < 1 / (1 + np.exp(-z))).astype(int)

# churn rate per postcode
df["postcode_churn_rate"] = df.groupby("postcode")["churned"].transform("mean")

base_cols = ["tenure_months", "monthly_charges", "support_calls", "contract_annual", "late_payments"]
cols = base_cols + (["postcode_churn_rate"] if opt.features == "all" else [])

perm = rng.permutation(N)
tr, va = perm[:4000], perm[4000:]
X = df[cols].to_numpy(np.float32)
mu, sd = X[tr].mean(0), X[tr].std(0) + 1e-6
X = (X - mu) / sd
y = df["churned"].to_numpy(np.float32)
Xtr, ytr = torch.tensor(X[tr]), torch.tensor(y[tr])
Xva, yva = torch.tensor(X[va]), torch.tensor(y[va])

# ---------------------------------------------------------------- model
net = nn.Sequential(nn.Linear(len(cols), 64), nn.ReLU(), nn.Dropout(0.1),
                    nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
optim = torch.optim.Adam(net.parameters(), lr=2e-3, weight_decay=1e-5)
bce = nn.BCEWithLogitsLoss()


def auc(scores, labels):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels == 1
    return (ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum())


hist = []
for ep in range(1, opt.epochs + 1):
    net.train()
    p = torch.randperm(len(Xtr))
    tl, tc = 0.0, 0
    for i in range(0, len(p), 128):
        b = p[i:i + 128]
        logit = net(Xtr[b]).squeeze(1)
        loss = bce(logit, ytr[b])
        optim.zero_grad()
        loss.backward()
        optim.step()
        tl += loss.item() * len(b)
        tc += ((logit > 0).float() == ytr[b]).sum().item()
    net.eval()
    with torch.no_grad():
        lv = net(Xva).squeeze(1)
        vl = bce(lv, yva).item()
        vacc = ((lv > 0).float() == yva).float().mean().item()
        vauc = auc(lv.numpy(), yva.numpy())
    h = dict(epoch=ep, train_loss=tl / len(p), train_acc=tc / len(p), val_loss=vl, val_acc=vacc, val_auc=float(vauc))
    hist.append(h)
    print(f"ep {ep:02d}  train_loss {h['train_loss']:.4f}  train_acc {h['train_acc']:.4f}  "
          f"val_loss {vl:.4f}  val_acc {vacc:.4f}  val_auc {vauc:.4f}")

json.dump(hist, open(opt.out, "w"), indent=1)
'''

SCRIPTS['s05'] = r'''import argparse
import json
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(5)
np.random.seed(5)

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=15)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--dropout", type=float, default=0.5)
args = parser.parse_args()
EPOCHS = args.epochs
BATCH_SIZE = args.batch_size


def glyph_images(n, seed, noise=4.0):
    tr = np.random.RandomState(1234)
    base = (tr.rand(10, 10, 10) > 0.55).astype(np.float32)
    base = (base + np.roll(base, 1, 1) + np.roll(base, 1, 2)) / 3.0
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 10, n)
    X = np.zeros((n, 1, 8, 8), np.float32)
    for i in range(n):
        dy, dx = rng.randint(0, 3, 2)
        X[i, 0] = base[y[i], dy:dy + 8, dx:dx + 8]
    X = (np.clip(X * 16 + rng.randn(n, 1, 8, 8) * noise, 0, 16) / 16.0).astype(np.float32)
    return torch.tensor(X), torch.tensor(y)


x_tr, y_tr = glyph_images(2000, 10)
x_te, y_te = glyph_images(600, 20)
train_loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=BATCH_SIZE, shuffle=True)


class SmallCNN(nn.Module):
    def __init__(self, p_drop):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.drop = nn.Dropout(p_drop)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = self.drop(x.flatten(1))
        x = self.drop(F.relu(self.fc1(x)))
        return self.fc2(x)


def evaluate(model, x, y, batch_size=256):
    correct, total_loss = 0, 0.0
    with torch.no_grad():
        for i in range(0, len(x), batch_size):
            out = model(x[i:i + batch_size])
            total_loss += F.cross_entropy(out, y[i:i + batch_size], reduction="sum").item()
            correct += (out.argmax(1) == y[i:i + batch_size]).sum().item()
    return total_loss / len(x), correct / len(x)


model = SmallCNN(args.dropout)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

history = []
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    tot, cor, n = 0.0, 0, 0
    for xb, yb in train_loader:
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(yb)
        cor += (out.argmax(1) == yb).sum().item()
        n += len(yb)
    test_loss, test_acc = evaluate(model, x_te, y_te)
    history.append({"epoch": epoch, "train_loss": tot / n, "train_acc": cor / n,
                    "test_loss": test_loss, "test_acc": test_acc})
    print(f"Epoch {epoch}/{EPOCHS} - {time.time() - t0:.1f}s - loss: {tot / n:.4f} - acc: {cor / n:.4f}"
          f" - test_loss: {test_loss:.4f} - test_acc: {test_acc:.4f}")

torch.save(model.state_dict(), "glyph_cnn.pt")

# sanity check before handing over to the serving team
checks = []
for bs in [256, 32, 4, 1]:
    for repeat in range(2):
        torch.manual_seed(100 + repeat)
        loss_, acc_ = evaluate(model, x_te, y_te, batch_size=bs)
        checks.append({"batch_size": bs, "repeat": repeat + 1, "test_loss": loss_, "test_acc": acc_})
        print(f"inference check: batch_size={bs:3d} repeat={repeat + 1} test_acc={acc_:.4f} test_loss={loss_:.4f}")

json.dump({"history": history, "checks": checks}, open("history.json", "w"), indent=1)
'''

SCRIPTS['s06'] = r'''import argparse, json
import numpy as np
import torch
from torch import nn

torch.set_num_threads(1)
ap = argparse.ArgumentParser()
ap.add_argument("--width", type=int, default=256)
ap.add_argument("--epochs", type=int, default=150)
ap.add_argument("--lr", type=float, default=1e-4)
ap.add_argument("--n-train", type=int, default=300)
ap.add_argument("--out", default="history.json")
a = ap.parse_args()

torch.manual_seed(0)


def make_classification(n, n_features=100, n_informative=6, n_classes=4, seed=0):
    g = np.random.RandomState(42)
    centers = g.randn(n_classes, n_informative) * 0.8
    proj = g.randn(n_informative, n_informative) * 0.6
    r = np.random.RandomState(seed)
    y = r.randint(0, n_classes, n)
    inf = centers[y] + r.randn(n, n_informative) @ proj + r.randn(n, n_informative) * 0.6
    noise = r.randn(n, n_features - n_informative)
    return np.hstack([inf, noise]).astype(np.float32), y


Xtr, ytr = make_classification(a.n_train, seed=1)
Xva, yva = make_classification(2000, seed=2)
Xtr, ytr, Xva, yva = map(torch.tensor, (Xtr, ytr, Xva, yva))

model = nn.Sequential(nn.Linear(100, a.width), nn.ReLU(), nn.Linear(a.width, a.width), nn.ReLU(), nn.Linear(a.width, 4))
opt = torch.optim.Adam(model.parameters(), lr=a.lr)
crit = nn.CrossEntropyLoss()
hist = []
for ep in range(a.epochs):
    model.train()
    perm = torch.randperm(len(Xtr))
    tl = 0.0
    for i in range(0, len(perm), 32):
        b = perm[i:i + 32]
        loss = crit(model(Xtr[b]), ytr[b])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(b)
    model.eval()
    with torch.no_grad():
        otr = model(Xtr); ova = model(Xva)
    h = {"epoch": ep + 1, "train/loss": tl / len(perm),
         "train/acc": (otr.argmax(1) == ytr).float().mean().item(),
         "val/loss": crit(ova, yva).item(),
         "val/acc": (ova.argmax(1) == yva).float().mean().item()}
    hist.append(h)
    print(f"step={ep+1} train/loss={h['train/loss']:.4f} train/acc={h['train/acc']:.3f} val/loss={h['val/loss']:.4f} val/acc={h['val/acc']:.3f}")
json.dump(hist, open(a.out, "w"))
'''

SCRIPTS['s07'] = r'''import json
import random
from collections import Counter

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
random.seed(3)
np.random.seed(3)
torch.manual_seed(3)

POS = ["great", "love", "excellent", "fast", "perfect", "happy", "recommend", "works", "amazing", "good"]
NEG = ["broken", "slow", "refund", "terrible", "hate", "late", "missing", "worst", "poor", "bad"]
NEU = ["the", "a", "it", "was", "and", "i", "my", "order", "item", "this", "to", "is", "for", "of",
       "delivery", "box", "product", "with", "on", "but", "not", "very", "so", "they", "after",
       "day", "week", "phone", "size", "color", "price", "seller", "package", "app", "time"]


def make_reviews(n, rng, neutral_weights=None):
    texts, labels = [], []
    for _ in range(n):
        y = rng.random() < 0.5
        L = rng.randint(8, 18)
        words = rng.choices(NEU, weights=neutral_weights, k=L)
        k = rng.randint(1, 3)
        main = POS if y else NEG
        other = NEG if y else POS
        for _ in range(k):
            words.insert(rng.randint(0, len(words)), rng.choice(main))
        if rng.random() < 0.3:
            words.insert(rng.randint(0, len(words)), rng.choice(other))
        texts.append(" ".join(words))
        labels.append(int(y))
    return texts, labels


def build_vocab(texts):
    cnt = Counter(w for t in texts for w in t.split())
    itos = ["<pad>", "<unk>"] + [w for w, _ in cnt.most_common()]
    return {w: i for i, w in enumerate(itos)}


def encode(texts, vocab, max_len=24):
    ids = np.zeros((len(texts), max_len), dtype=np.int64)
    for r, t in enumerate(texts):
        toks = [vocab.get(w, 1) for w in t.split()][:max_len]
        ids[r, :len(toks)] = toks
    return torch.tensor(ids)


rng = random.Random(3)
train_texts, train_y = make_reviews(4000, rng)
val_texts, val_y = make_reviews(1000, rng)
vocab = build_vocab(train_texts)
json.dump(vocab, open("vocab_2024-05-02.json", "w"))
print(f"tokenizer: built vocab from {len(train_texts)} training reviews -> vocab_2024-05-02.json ({len(vocab)} tokens)")

Xtr, ytr = encode(train_texts, vocab), torch.tensor(train_y)
Xva, yva = encode(val_texts, vocab), torch.tensor(val_y)


class LSTMClassifier(nn.Module):
    def __init__(self, vocab_size, emb=32, hid=48):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, emb, padding_idx=0)
        self.lstm = nn.LSTM(emb, hid, batch_first=True)
        self.out = nn.Linear(hid, 2)

    def forward(self, x):
        h, _ = self.lstm(self.emb(x))
        mask = (x != 0).float().unsqueeze(-1)
        pooled = (h * mask).sum(1) / mask.sum(1).clamp(min=1)
        return self.out(pooled)


model = LSTMClassifier(len(vocab))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
lossf = nn.CrossEntropyLoss()
hist = []
for ep in range(1, 9):
    model.train()
    perm = torch.randperm(len(Xtr))
    tot = 0.0
    for i in range(0, len(perm), 64):
        b = perm[i:i + 64]
        loss = lossf(model(Xtr[b]), ytr[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(b)
    model.eval()
    with torch.no_grad():
        o = model(Xva)
    h = {"epoch": ep, "train_loss": tot / len(perm), "val_loss": lossf(o, yva).item(),
         "val_acc": (o.argmax(1) == yva).float().mean().item()}
    hist.append(h)
    print(f"epoch={ep} train_loss={h['train_loss']:.4f} val_loss={h['val_loss']:.4f} val_acc={h['val_acc']:.4f}")
torch.save(model.state_dict(), "sentiment_lstm.pt")

# ---- offline eval through the serving stack
prod_rng = random.Random(77)
w = [3.0 if x in ("app", "delivery", "seller", "package", "time") else 1.0 for x in NEU]
corpus, _ = make_reviews(20000, prod_rng, neutral_weights=w)
serving_vocab = build_vocab(corpus)
json.dump(serving_vocab, open("vocab_2024-06-11.json", "w"))
print(f"serving: loaded tokenizer vocab_2024-06-11.json ({len(serving_vocab)} tokens), checkpoint sentiment_lstm.pt")

june_texts, june_y = make_reviews(1000, prod_rng, neutral_weights=w)
res = {}
for name, texts, labels in [("holdout", val_texts, val_y), ("june_sample", june_texts, june_y)]:
    with torch.no_grad():
        o = model(encode(texts, serving_vocab))
    res[name] = (o.argmax(1) == torch.tensor(labels)).float().mean().item()
    print(f"serving eval [{name}] n={len(labels)} acc={res[name]:.4f}")
json.dump({"history": hist, "serving": res, "vocab_sizes": [len(vocab), len(serving_vocab)]}, open("history.json", "w"))
'''

SCRIPTS['s08'] = r'''import argparse
import json
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
ap = argparse.ArgumentParser()
ap.add_argument("--bs", type=int, default=16)
ap.add_argument("--lr", type=float, default=0.01)
ap.add_argument("--epochs", type=int, default=200)
ap.add_argument("--out", default="history.json")
args = ap.parse_args()
torch.manual_seed(8)


def make_moons(n, noise, seed):
    r = np.random.RandomState(seed)
    n1 = n // 2
    t1 = np.pi * r.rand(n1)
    t2 = np.pi * r.rand(n - n1)
    X = np.vstack([np.c_[np.cos(t1), np.sin(t1)], np.c_[1 - np.cos(t2), 0.5 - np.sin(t2)]])
    X += r.randn(n, 2) * noise
    y = np.r_[np.zeros(n1), np.ones(n - n1)]
    p = r.permutation(n)
    return torch.tensor(X[p], dtype=torch.float32), torch.tensor(y[p], dtype=torch.long)


X_train, y_train = make_moons(800, 0.3, 1)
X_val, y_val = make_moons(400, 0.3, 2)

net = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 2))
opt = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.5)
ce = nn.CrossEntropyLoss()

EPOCHS, BS = args.epochs, args.bs
hist = []
for epoch in range(EPOCHS):
    net.train()
    perm = torch.randperm(len(X_train))
    batch_losses = []
    for s in range(0, len(perm), BS):
        b = perm[s:s + BS]
        loss = ce(net(X_train[b]), y_train[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
        batch_losses.append(loss.item())
    net.eval()
    with torch.no_grad():
        out = net(X_val)
        vl = ce(out, y_val).item()
        va = (out.argmax(1) == y_val).float().mean().item()
    hist.append(dict(epoch=epoch + 1, loss=float(np.mean(batch_losses)), loss_std=float(np.std(batch_losses)),
                     val_loss=vl, val_accuracy=va))
    print(f"epoch {epoch + 1:3d}/{EPOCHS}  loss {np.mean(batch_losses):.4f} (+/- {np.std(batch_losses):.3f})  "
          f"val_loss {vl:.4f}  val_accuracy {va:.4f}")
json.dump(hist, open(args.out, "w"))
'''

SCRIPTS['s09'] = r'''import argparse
import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
parser = argparse.ArgumentParser()
parser.add_argument("--width", type=int, default=16)
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--labels", default="annotations_v3")
parser.add_argument("--out", default="history.json")
args = parser.parse_args()
torch.manual_seed(21)


def render(y, seed, noise=3.5):
    tr = np.random.RandomState(1234)
    base = (tr.rand(10, 10, 10) > 0.55).astype(np.float32)
    base = (base + np.roll(base, 1, 1) + np.roll(base, 1, 2)) / 3.0
    rng = np.random.RandomState(seed)
    X = np.zeros((len(y), 1, 8, 8), np.float32)
    for i in range(len(y)):
        dy, dx = rng.randint(0, 3, 2)
        X[i, 0] = base[y[i], dy:dy + 8, dx:dx + 8]
    return (np.clip(X * 16 + rng.randn(*X.shape) * noise, 0, 16) / 16.0).astype(np.float32)


rng = np.random.RandomState(9)
y_true = rng.randint(0, 10, 3000)
X_all = render(y_true, 9)
y_ann = y_true.copy()
if args.labels == "annotations_v3":
    # labels as delivered by the annotation vendor (batch 3)
    bad = rng.rand(len(y_ann)) < 0.4
    y_ann[bad] = rng.randint(0, 10, bad.sum())
Xtr, ytr = torch.tensor(X_all[:2400]), torch.tensor(y_ann[:2400])
Xva, yva = torch.tensor(X_all[2400:]), torch.tensor(y_ann[2400:])

w = args.width
model = nn.Sequential(
    nn.Conv2d(1, w, 3, padding=1), nn.ReLU(),
    nn.Conv2d(w, 2 * w, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(2 * w * 16, 128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
hist = []
for ep in range(1, args.epochs + 1):
    model.train()
    perm = torch.randperm(len(Xtr))
    tl, tc = 0.0, 0
    for i in range(0, len(perm), 64):
        b = perm[i:i + 64]
        out = model(Xtr[b])
        loss = F.cross_entropy(out, ytr[b])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(b); tc += (out.argmax(1) == ytr[b]).sum().item()
    model.eval()
    with torch.no_grad():
        o = model(Xva)
    h = dict(epoch=ep, train_loss=tl / len(perm), train_acc=tc / len(perm),
             val_loss=F.cross_entropy(o, yva).item(), val_acc=(o.argmax(1) == yva).float().mean().item())
    hist.append(h)
    print("epoch %03d train_loss %.4f train_acc %.4f val_loss %.4f val_acc %.4f" % (ep, h["train_loss"], h["train_acc"], h["val_loss"], h["val_acc"]))
json.dump(hist, open(args.out, "w"))
'''

SCRIPTS['s10'] = r'''import argparse
import json

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument("--depth", type=int, default=5)
parser.add_argument("--width", type=int, default=128)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--out", default="history.json")
args = parser.parse_args()

torch.manual_seed(4)
rs = np.random.RandomState(4)

# ------------------------------------------------------------------ data
N, D, K = 4000, 24, 5
centers = rs.randn(K, 8) * 1.5
y = rs.randint(0, K, N)
z = centers[y] + rs.randn(N, 8)
X = np.hstack([z @ rs.randn(8, 16) * 0.4, rs.randn(N, D - 16)])
X = (X - X.mean(0)) / X.std(0)
X, y = torch.tensor(X, dtype=torch.float32), torch.tensor(y)
X_train, y_train, X_val, y_val = X[:3200], y[:3200], X[3200:], y[3200:]


# ------------------------------------------------------------------ model
class MLP(nn.Module):
    def __init__(self, d_in, width, depth, n_out):
        super().__init__()
        dims = [d_in] + [width] * depth
        self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.head = nn.Linear(width, n_out)
        for layer in self.hidden:
            nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
            nn.init.constant_(layer.bias, -1.0)

    def forward(self, x, return_acts=False):
        acts = []
        for layer in self.hidden:
            x = F.relu(layer(x))
            acts.append(x)
        out = self.head(x)
        return (out, acts) if return_acts else out


model = MLP(D, args.width, args.depth, K)
opt = torch.optim.Adam(model.parameters(), lr=args.lr)

hist = []
for epoch in range(1, args.epochs + 1):
    model.train()
    perm = torch.randperm(len(X_train))
    losses = []
    for i in range(0, len(perm), 64):
        idx = perm[i:i + 64]
        loss = F.cross_entropy(model(X_train[idx]), y_train[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        out, acts = model(X_val, return_acts=True)
        dead = [((a > 0).sum(0) == 0).float().mean().item() for a in acts]
        val_loss = F.cross_entropy(out, y_val).item()
        val_acc = (out.argmax(1) == y_val).float().mean().item()
    rec = {"epoch": epoch, "train_loss": float(np.mean(losses)), "val_loss": val_loss,
           "val_acc": val_acc, "inactive_units": dead}
    hist.append(rec)
    print(f"epoch {epoch:02d} train_loss={rec['train_loss']:.4f} val_loss={val_loss:.4f} val_acc={val_acc:.4f} "
          f"inactive_units=[{', '.join(f'{d:.2f}' for d in dead)}]")

json.dump(hist, open(args.out, "w"))
'''

SCRIPTS['s11'] = r'''import argparse
import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
ap = argparse.ArgumentParser()
ap.add_argument("--lr", type=float, default=0.5)
ap.add_argument("--momentum", type=float, default=0.0)
ap.add_argument("--steps", type=int, default=150)
ap.add_argument("--batch", type=int, default=128)
ap.add_argument("--dropout", type=float, default=0.0)
ap.add_argument("--out", default="history.json")
args = ap.parse_args()
torch.manual_seed(17)


def glyphs(n, seed, noise=3.0):
    tr = np.random.RandomState(1234)
    base = (tr.rand(10, 10, 10) > 0.55).astype(np.float32)
    base = (base + np.roll(base, 1, 1) + np.roll(base, 1, 2)) / 3.0
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 10, n)
    X = np.zeros((n, 1, 8, 8), np.float32)
    for i in range(n):
        dy, dx = rng.randint(0, 3, 2)
        X[i, 0] = base[y[i], dy:dy + 8, dx:dx + 8]
    X = np.clip(X * 16 + rng.randn(*X.shape) * noise, 0, 16) / 16.0
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


Xtr, ytr = glyphs(4000, 31)
Xva, yva = glyphs(800, 32)

net = nn.Sequential(nn.Flatten(), nn.Linear(64, 256), nn.Tanh(), nn.Dropout(args.dropout),
                    nn.Linear(256, 256), nn.Tanh(), nn.Dropout(args.dropout), nn.Linear(256, 10))
opt = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=args.momentum)

hist = []
g = torch.Generator().manual_seed(0)
for step in range(1, args.steps + 1):
    net.train()
    idx = torch.randint(0, len(Xtr), (args.batch,), generator=g)
    loss = F.cross_entropy(net(Xtr[idx]), ytr[idx])
    opt.zero_grad()
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(net.parameters(), float("inf")).item()
    opt.step()
    rec = {"step": step, "loss": loss.item(), "grad_norm": gn, "lr": opt.param_groups[0]["lr"]}
    if step % 10 == 0:
        net.eval()
        with torch.no_grad():
            o = net(Xva)
        rec["val_loss"] = F.cross_entropy(o, yva).item()
        rec["val_acc"] = (o.argmax(1) == yva).float().mean().item()
    hist.append(rec)
    print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in rec.items()))
json.dump(hist, open(args.out, "w"))
'''

SCRIPTS['s12'] = r'''"""Credit-default model: train + held-out test evaluation."""
import json

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(12)

FEATURES = ["income", "loan_amount", "age", "num_accounts", "utilization", "months_employed", "debt_ratio"]


def load_split(n, seed):
    r = np.random.RandomState(seed)
    income = r.lognormal(10.8, 0.5, n)
    loan = r.lognormal(9.5, 0.8, n)
    age = r.randint(21, 75, n).astype(float)
    accounts = r.poisson(4, n).astype(float)
    util = r.beta(2, 3, n)
    employed = r.exponential(60, n)
    debt_ratio = loan / income + r.normal(0, 0.05, n)
    z = (3.0 * debt_ratio + 2.5 * util - 0.02 * (age - 40) - 0.008 * employed
         + 0.15 * (accounts - 4) - 1.2)
    y = (r.rand(n) < 1 / (1 + np.exp(-2 * z))).astype(np.float32)
    X = np.c_[income, loan, age, accounts, util, employed, debt_ratio].astype(np.float32)
    return X, y


X_train, y_train = load_split(6000, 0)
X_val, y_val = load_split(1500, 1)
X_test, y_test = load_split(3000, 2)

# ---- preprocessing
mean, std = X_train.mean(0), X_train.std(0)


def preprocess(X):
    return (X - mean) / std


def preprocess_batch(X):
    lo, hi = X.min(0), X.max(0)
    return (X - lo) / (hi - lo)


Xtr, Xva = torch.tensor(preprocess(X_train)), torch.tensor(preprocess(X_val))
ytr, yva = torch.tensor(y_train), torch.tensor(y_val)

model = nn.Sequential(nn.Linear(len(FEATURES), 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
criterion = nn.BCEWithLogitsLoss()


def accuracy(logits, y):
    return ((logits > 0).float() == y).float().mean().item()


history = []
for epoch in range(1, 21):
    model.train()
    perm = torch.randperm(len(Xtr))
    s = 0.0
    for i in range(0, len(perm), 100):
        b = perm[i:i + 100]
        loss = criterion(model(Xtr[b]).squeeze(-1), ytr[b])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        s += loss.item() * len(b)
    model.eval()
    with torch.no_grad():
        lv = model(Xva).squeeze(-1)
    row = {"epoch": epoch, "train_bce": s / len(perm), "val_bce": criterion(lv, yva).item(), "val_accuracy": accuracy(lv, yva)}
    history.append(row)
    print(f"epoch {epoch:2d}  train_bce {row['train_bce']:.4f}  val_bce {row['val_bce']:.4f}  val_accuracy {row['val_accuracy']:.4f}")

torch.save({"model": model.state_dict(), "mean": mean, "std": std}, "credit_mlp.pt")

# ---- held-out test set
Xte = torch.tensor(preprocess_batch(X_test))
with torch.no_grad():
    lt = model(Xte).squeeze(-1)
test = {"test_bce": criterion(lt, torch.tensor(y_test)).item(), "test_accuracy": accuracy(lt, torch.tensor(y_test)),
        "test_positive_rate": (lt > 0).float().mean().item(), "label_positive_rate": float(y_test.mean())}
print("TEST  " + "  ".join(f"{k} {v:.4f}" for k, v in test.items()))
json.dump({"history": history, "test": test}, open("history.json", "w"), indent=1)
'''

SCRIPTS['s12_lastweek'] = r'''"""Credit-default model: train + held-out test evaluation."""
import json

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(12)

FEATURES = ["income", "loan_amount", "age", "num_accounts", "utilization", "months_employed", "debt_ratio"]


def load_split(n, seed):
    r = np.random.RandomState(seed)
    income = r.lognormal(10.8, 0.5, n)
    loan = r.lognormal(9.5, 0.8, n)
    age = r.randint(21, 75, n).astype(float)
    accounts = r.poisson(4, n).astype(float)
    util = r.beta(2, 3, n)
    employed = r.exponential(60, n)
    debt_ratio = loan / income + r.normal(0, 0.05, n)
    z = (3.0 * debt_ratio + 2.5 * util - 0.02 * (age - 40) - 0.008 * employed
         + 0.15 * (accounts - 4) - 1.2)
    y = (r.rand(n) < 1 / (1 + np.exp(-2 * z))).astype(np.float32)
    X = np.c_[income, loan, age, accounts, util, employed, debt_ratio].astype(np.float32)
    return X, y


X_train, y_train = load_split(6000, 0)
X_val, y_val = load_split(1500, 1)
X_test, y_test = load_split(3000, 2)

# ---- preprocessing
mean, std = X_train.mean(0), X_train.std(0)


def preprocess(X):
    return (X - mean) / std


def preprocess_batch(X):
    lo, hi = X.min(0), X.max(0)
    return (X - lo) / (hi - lo)


Xtr, Xva = torch.tensor(preprocess(X_train)), torch.tensor(preprocess(X_val))
ytr, yva = torch.tensor(y_train), torch.tensor(y_val)

model = nn.Sequential(nn.Linear(len(FEATURES), 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
criterion = nn.BCEWithLogitsLoss()


def accuracy(logits, y):
    return ((logits > 0).float() == y).float().mean().item()


history = []
for epoch in range(1, 21):
    model.train()
    perm = torch.randperm(len(Xtr))
    s = 0.0
    for i in range(0, len(perm), 100):
        b = perm[i:i + 100]
        loss = criterion(model(Xtr[b]).squeeze(-1), ytr[b])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        s += loss.item() * len(b)
    model.eval()
    with torch.no_grad():
        lv = model(Xva).squeeze(-1)
    row = {"epoch": epoch, "train_bce": s / len(perm), "val_bce": criterion(lv, yva).item(), "val_accuracy": accuracy(lv, yva)}
    history.append(row)
    print(f"epoch {epoch:2d}  train_bce {row['train_bce']:.4f}  val_bce {row['val_bce']:.4f}  val_accuracy {row['val_accuracy']:.4f}")

torch.save({"model": model.state_dict(), "mean": mean, "std": std}, "credit_mlp.pt")

# ---- held-out test set
Xte = torch.tensor(preprocess(X_test))
with torch.no_grad():
    lt = model(Xte).squeeze(-1)
test = {"test_bce": criterion(lt, torch.tensor(y_test)).item(), "test_accuracy": accuracy(lt, torch.tensor(y_test)),
        "test_positive_rate": (lt > 0).float().mean().item(), "label_positive_rate": float(y_test.mean())}
print("TEST  " + "  ".join(f"{k} {v:.4f}" for k, v in test.items()))
json.dump({"history": history, "test": test}, open("history.json", "w"), indent=1)
'''


# ----------------------------------------------------------------------------- training runner
def train(key, *args):
    """Run SCRIPTS[key] as train.py in its own work dir; return stdout + history (cached)."""
    script = SCRIPTS[key]
    digest = hashlib.sha1((script + "\0" + " ".join(args)).encode()).hexdigest()[:12]
    wd = WORK / f"{key}_{digest}"
    done = wd / "_result.json"
    if done.exists() and not FRESH:
        return json.loads(done.read_text())
    if wd.exists():
        shutil.rmtree(wd)
    wd.mkdir(parents=True)
    (wd / "train.py").write_text(script)
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    print(f"  training {key} {' '.join(args)} ...", flush=True)
    p = subprocess.run([PY, "train.py", *args], cwd=wd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{key} {args} failed:\n{p.stderr[-3000:]}")
    res = {"stdout": p.stdout, "history": json.loads((wd / "history.json").read_text()),
           "cmd": " ".join(["python train.py", *args]).strip()}
    done.write_text(json.dumps(res))
    return res


# ----------------------------------------------------------------------------- formatting helpers
def f4(x):
    return f"{x:.4f}"


def f3(x):
    return f"{x:.3f}"


def pct(x):
    return f"{100 * x:.1f}%"


def table(rows, cols):
    """cols: list of (header, key-or-callable, formatter)."""
    head = "| " + " | ".join(c[0] for c in cols) + " |"
    sep = "|" + "|".join("---" for _ in cols) + "|"
    lines = [head, sep]
    for r in rows:
        cells = []
        for _, key, fmt in cols:
            v = key(r) if callable(key) else r[key]
            cells.append(fmt(v) if fmt else str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def by_epoch(hist, epochs, key="epoch"):
    want = set(epochs)
    return [r for r in hist if r[key] in want]


def excerpt(stdout, first=3, last=3):
    lines = stdout.strip().splitlines()
    if len(lines) <= first + last:
        return "\n".join(lines)
    return "\n".join(lines[:first] + ["..."] + lines[-last:])


def argmin(hist, key):
    return min(hist, key=lambda r: r[key])


def argmax(hist, key):
    return max(hist, key=lambda r: r[key])


# ----------------------------------------------------------------------------- run builders
# Each returns dict(files={relative name: text}, truth=..., symptom=..., how=..., curves=...)


def run01():
    """lr_too_low: Adam at 1e-5 on the glyph MLP."""
    main = train("s01")
    H = main["history"]
    wide = train("s01", "--hidden", "512", "256")["history"]
    deep = train("s01", "--hidden", "512", "512", "256")["history"]
    first, last = H[0], H[-1]
    d1 = H[0]["train_loss"] - H[29]["train_loss"]
    d2 = H[29]["train_loss"] - H[59]["train_loss"]
    assert last["train_loss"] > 2.0 and last["val_acc"] < 0.65
    assert 0.4 < d1 / d2 < 1.6, (d1, d2)          # nearly linear decrease
    assert abs(last["train_loss"] - last["val_loss"]) < 0.05
    assert deep[-1]["val_acc"] > wide[-1]["val_acc"] > last["val_acc"]

    rows = by_epoch(H, [1, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60])
    tbl = table(rows, [("epoch", "epoch", None), ("train_loss", "train_loss", f4),
                       ("val_loss", "val_loss", f4), ("val_acc", "val_acc", f3)])
    abl = table([
        {"v": "A (this run)", "h": "256-128", "p": 64 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10, "r": H},
        {"v": "B", "h": "512-256", "p": 64 * 512 + 512 + 512 * 256 + 256 + 256 * 10 + 10, "r": wide},
        {"v": "C", "h": "512-512-256", "p": 64 * 512 + 512 + 512 * 512 + 512 + 512 * 256 + 256 + 256 * 10 + 10, "r": deep},
    ], [("variant", "v", None), ("hidden", "h", None), ("params", "p", lambda p: f"{p / 1000:.0f}k"),
        ("train_loss @60", lambda r: r["r"][-1]["train_loss"], f4),
        ("val_loss @60", lambda r: r["r"][-1]["val_loss"], f4),
        ("val_acc @60", lambda r: r["r"][-1]["val_acc"], f3)])
    per_ep = d1 / 29
    report = f"""# Weekly update - glyph recognizer, MLP baseline (week 19)

*Priya N. - shared in #vision-small, Friday*

## TL;DR
The MLP baseline on the 8x8 glyph set trains **stably** (no spikes, no overfitting) but ends at only
**{pct(last['val_acc'])} val accuracy** after 60 epochs. Train and val loss track each other within
{max(abs(r['train_loss'] - r['val_loss']) for r in H):.3f} the whole way, so this is clearly not a generalisation
problem - the model just doesn't have enough capacity for 10-way glyph recognition. The capacity
ablation below backs that up. Plan: move to a CNN next week and train for 200 epochs.

W&B: https://wandb.ai/pnair-lab/glyph-recog/runs/3k9x2m1q  (group `mlp-baseline-w19`)

## Setup
- data: synthetic 8x8 glyphs, 10 classes, 1500 train / 500 val, pixels scaled to [0, 1]
- model: MLP 64 -> 256 -> 128 -> 10, ReLU
- optimiser: Adam, batch 64, 60 epochs, seed 7 (full config in `config.yaml`, full log in `train.log`)

## Results (run A)

{tbl}

## Plot description
*Fig. 1 (loss.png, not attached):* train and val loss vs. epoch. Both curves are almost straight lines
falling gently from {first['train_loss']:.2f} to {last['train_loss']:.2f} (train) / {last['val_loss']:.2f} (val),
about {per_ep:.4f} per epoch in the first half and {d2 / 30:.4f} per epoch in the second half; no knee,
no plateau, the two lines are on top of each other.
*Fig. 2 (acc.png):* val accuracy climbs steadily from {first['val_acc']:.2f} to {last['val_acc']:.2f}.

## Interpretation
The loss is still decreasing at the end, but very slowly, and there is no gap between train and val.
With no overfitting at all and a still-high loss, the 256-128 MLP is under-parameterised for this
task. Adding capacity helps a lot (table below): the deeper 512-512-256 variant gets to
{pct(deep[-1]['val_acc'])} with the same recipe. I don't see anything wrong with the optimisation itself -
the curves are as smooth as they get.

## Capacity ablation (same config, 60 epochs each)

{abl}

## Next steps
1. Replace the MLP with a 2-layer CNN (16/32 channels).
2. Bump the schedule to 200 epochs since all variants are still improving at epoch 60.
3. Keep the optimiser settings as-is (they're stable).
"""
    config = """# glyph-recog / mlp-baseline-w19
data:
  dataset: glyphs8x8
  n_train: 1500
  n_val: 500
  pixel_scale: 1/16
model:
  type: mlp
  hidden: [256, 128]
  activation: relu
optim:
  name: adam
  lr: 1.0e-5
  betas: [0.9, 0.999]
  weight_decay: 0.0
train:
  epochs: 60
  batch_size: 64
  seed: 7
"""
    symptom = (f"Training is really slow: after 60 epochs the loss has only gone from {first['train_loss']:.2f} "
               f"to {last['train_loss']:.2f} and val accuracy is {pct(last['val_acc'])}. Does the model need more capacity?")
    curves = (f"train loss falls almost linearly {first['train_loss']:.3f}->{last['train_loss']:.3f} over 60 epochs "
              f"(~{per_ep:.4f}/epoch), val acc {first['val_acc']:.2f}->{last['val_acc']:.2f}, no train/val gap; "
              f"wider/deeper variants at the same lr reach {wide[-1]['val_acc']:.2f}/{deep[-1]['val_acc']:.2f}")
    return dict(files={"report.md": report, "config.yaml": config, "train.log": main["stdout"]},
                truth="lr_too_low", symptom=symptom,
                how="Adam lr=1e-5 (about 100x below a working 1e-3) on an MLP that reaches 95% val acc in 10 epochs at 1e-3; "
                    "author blames capacity",
                curves=curves)


def run02():
    """healthy, converges well: 1D CNN on waveforms."""
    main = train("s02")
    H = main["history"]
    c8 = train("s02", "--channels", "8")["history"]
    c32 = train("s02", "--channels", "32")["history"]
    last = H[-1]
    spike = argmax(H[5:], "val_loss")
    assert last["val_acc"] > 0.97 and last["loss"] < 0.03
    assert H[spike["epoch"]]["val_loss"] < 0.06   # recovers the next epoch
    tbl = table(H, [("epoch", "epoch", None), ("train loss", "loss", f4), ("train acc", "acc", f4),
                    ("val loss", "val_loss", f4), ("val acc", "val_acc", f4), ("lr", "lr", lambda v: f"{v:.2e}")])
    abl = table([{"c": 8, "h": c8}, {"c": 16, "h": H}, {"c": 32, "h": c32}], [
        ("base channels", lambda r: f"{r['c']}" + (" (this run)" if r["c"] == 16 else ""), None),
        ("best val acc", lambda r: max(x["val_acc"] for x in r["h"]), f4),
        ("final val acc", lambda r: r["h"][-1]["val_acc"], f4),
        ("final val loss", lambda r: r["h"][-1]["val_loss"], f4),
        ("final train loss", lambda r: r["h"][-1]["loss"], f4)])
    report = f"""# Experiment write-up: waveform classifier (1D CNN) - baseline v1

**Author:** Tomás R.  **Date:** 2024-05-14  **Status:** done, looking for a second pair of eyes

W&B run: https://wandb.ai/trx-signals/waveforms/runs/q7c2m0a9

## Goal
Classify noisy 64-sample waveforms into {{sine, square, sawtooth, chirp}} as the first component of the
signal-tagging pipeline. Synthetic data (random frequency 2-6 Hz, random phase and amplitude, Gaussian
noise sigma=0.35): 3000 train / 800 val, balanced.

## Model & training
3 conv blocks (16 -> 32 -> 32 channels, BatchNorm after the first two), global average pooling, linear head.
AdamW lr 3e-3, weight decay 1e-4, cosine annealing over 25 epochs, batch 64. Script attached (`train.py`).

## Per-epoch results

{tbl}

## Plot description
*Fig. 1 (curves.png):* train loss drops from {H[0]['loss']:.2f} to below 0.1 by epoch 3 and keeps creeping down
to {last['loss']:.3f}; val loss follows it closely except for a one-epoch spike at epoch {spike['epoch']}
(val loss {spike['val_loss']:.3f}, val acc {spike['val_acc']:.3f}) that is gone at the next epoch.
*Fig. 2:* the cosine lr curve from 3e-3 to ~1e-5.

## Ablation: width

{abl}

## Discussion
Converges in ~10 epochs; the last 10 epochs mostly polish the loss as the lr anneals. The gap between
train and val loss at the end is small ({last['loss']:.3f} vs {last['val_loss']:.3f}). Width barely matters
beyond 8 channels, so I'll keep 16 for latency. The epoch-{spike['epoch']} spike is the only thing that made me
pause - I assume it's BatchNorm running statistics catching up mid-schedule, since nothing else in the
run moves at that point.
"""
    symptom = (f"Is this run OK? It converges to ~{pct(last['val_acc'])} val accuracy but there is a val-loss spike at "
               f"epoch {spike['epoch']} that worried me.")
    curves = (f"train loss {H[0]['loss']:.3f}->{last['loss']:.4f}, val loss tracks it (final {last['val_loss']:.4f}), "
              f"val acc {H[0]['val_acc']:.3f}->{last['val_acc']:.4f}; single-epoch val spike at epoch {spike['epoch']} "
              f"({spike['val_loss']:.3f}) that recovers immediately")
    return dict(files={"report.md": report, "train.py": SCRIPTS["s02"]}, truth="healthy", symptom=symptom,
                how="no fault: AdamW 3e-3 + cosine, BN CNN on an easy synthetic task", curves=curves)


def run03():
    """missing_zero_grad: optimizer.zero_grad() absent from the loop."""
    main = train("s03")
    H = main["history"]
    a3 = train("s03", "3e-4")["history"]
    a4 = train("s03", "1e-4")["history"]
    best = argmin(H[:13], "train_loss")
    assert H[0]["grad_norm"] < 10 and H[-1]["grad_norm"] > 100
    assert H[-1]["train_loss"] > best["train_loss"] + 0.15
    assert a3[-1]["grad_norm"] > 5 * a3[0]["grad_norm"] and a4[-1]["grad_norm"] > 5 * a4[0]["grad_norm"]
    rows = by_epoch(H, list(range(0, 40, 3)) + [39])
    tbl = table(rows, [("epoch", "epoch", None), ("train_loss", "train_loss", f4), ("val_loss", "val_loss", f4),
                       ("val_acc", "val_acc", f3), ("grad_norm (mean)", "grad_norm", lambda v: f"{v:.1f}"),
                       ("grad_norm (max)", "grad_norm_max", lambda v: f"{v:.1f}")])
    abl = table([{"lr": "1e-3 (this run)", "h": H}, {"lr": "3e-4", "h": a3}, {"lr": "1e-4", "h": a4}], [
        ("Adam lr", "lr", None),
        ("best val_acc", lambda r: max(x["val_acc"] for x in r["h"]), f3),
        ("final val_acc", lambda r: r["h"][-1]["val_acc"], f3),
        ("final train_loss", lambda r: r["h"][-1]["train_loss"], f4),
        ("grad_norm ep0", lambda r: r["h"][0]["grad_norm"], lambda v: f"{v:.1f}"),
        ("grad_norm ep39", lambda r: r["h"][-1]["grad_norm"], lambda v: f"{v:.1f}")])
    log_lines = main["stdout"].strip().splitlines()
    log_ex = "\n".join(log_lines[:2] + ["..."] + log_lines[12:16] + ["..."] + log_lines[-2:])
    best_lr = max([("1e-3", H), ("3e-4", a3), ("1e-4", a4)], key=lambda t: t[1][-1]["val_acc"])
    report = f"""# Tabular risk classifier - week 31 notes

Sam K. - internal, please don't forward

Run: https://wandb.ai/skim-ml/risk-tabular/runs/zg81w4hd · Commit `a41c9e0` · script attached (`train.py`)

## What I ran
Small MLP (12 -> 64 -> 64 -> 2) on the 12-feature risk table, 2400 train / 600 val, Adam lr 1e-3,
batch 32, 40 epochs. I also started logging the global gradient norm this week (mean and max over the
steps of each epoch).

## Results

{tbl}

Excerpt of the raw log:
```
{log_ex}
```

## What the curves look like
*Loss panel:* train loss goes down nicely for the first ~10 epochs (best {best['train_loss']:.3f} at epoch
{best['epoch']}), then turns ragged and drifts up, ending at {H[-1]['train_loss']:.3f}; val loss follows and
jumps to {H[-4]['val_loss']:.2f} at epoch {H[-4]['epoch']}.
*Grad-norm panel:* climbs from {H[0]['grad_norm']:.1f} in epoch 0 to ~40 by epoch 3, jumps to ~150 around
epoch 14 and sits at {H[-1]['grad_norm']:.0f} at the end (max {max(r['grad_norm_max'] for r in H):.0f}).
*Val acc:* peaks at {max(r['val_acc'] for r in H):.3f}, ends at {H[-1]['val_acc']:.3f}.

## Learning-rate sweep (same script, lr passed on the command line)

{abl}

## Take-away
I'm not 100% sure what's going on, but it looks like Adam at 1e-3 is just too aggressive for this table -
the loss gets worse right when the gradient norm blows up. The sweep says lr {best_lr[0]} gives the best final
val accuracy ({best_lr[1][-1]['val_acc']:.3f}), so I'll switch to that and add gradient clipping at 1.0 as
a safety net. Curious if anyone has seen grad norms this large on a tabular MLP before.
"""
    symptom = (f"Loss went down for the first ~10 epochs, then got erratic and crept back up, and the gradient norm "
               f"keeps climbing ({H[0]['grad_norm']:.0f} -> {H[-1]['grad_norm']:.0f}); lowering the lr didn't really fix it.")
    curves = (f"train loss {H[0]['train_loss']:.3f}->{best['train_loss']:.3f} (ep {best['epoch']}) then up/erratic to "
              f"{H[-1]['train_loss']:.3f}; mean grad norm {H[0]['grad_norm']:.1f}->{H[-1]['grad_norm']:.0f}; val acc peaks "
              f"{max(r['val_acc'] for r in H):.3f}, ends {H[-1]['val_acc']:.3f}; at lr 3e-4/1e-4 grad norm still climbs to "
              f"{a3[-1]['grad_norm']:.0f}/{a4[-1]['grad_norm']:.0f}")
    return dict(files={"report.md": report, "train.py": SCRIPTS["s03"]}, truth="missing_zero_grad", symptom=symptom,
                how="training loop calls loss.backward()/optimizer.step() with no optimizer.zero_grad(), so .grad "
                    "accumulates over all steps (grad norm logged from the accumulated .grad)",
                curves=curves)


def run04():
    """data_leakage: target-encoded postcode computed on the full table (incl. val rows and the row itself)."""
    main = train("s04")
    H = main["history"]
    base = train("s04", "--features", "base")["history"]
    assert H[0]["val_acc"] > 0.9 and H[0]["val_acc"] >= H[0]["train_acc"]
    assert H[-1]["val_acc"] - base[-1]["val_acc"] > 0.15
    tbl = table(H, [("ep", "epoch", None), ("train_loss", "train_loss", f4), ("train_acc", "train_acc", f4),
                    ("val_loss", "val_loss", f4), ("val_acc", "val_acc", f4), ("val_auc", "val_auc", f4)])
    abl = table([{"n": "v2: 5 base features", "h": base}, {"n": "v3: + postcode_churn_rate (this run)", "h": H}], [
        ("model", "n", None),
        ("val_acc @ep1", lambda r: r["h"][0]["val_acc"], f4),
        ("val_acc @ep15", lambda r: r["h"][-1]["val_acc"], f4),
        ("val_auc @ep15", lambda r: r["h"][-1]["val_auc"], f4),
        ("train_acc @ep15", lambda r: r["h"][-1]["train_acc"], f4)])
    gain = H[-1]["val_acc"] - base[-1]["val_acc"]
    report = f"""# Churn model v3 - postcode feature (experiment write-up)

*Lena W., Growth Analytics - draft for Thursday's model review*

**Headline:** adding a single engineered feature, the historical churn rate of the customer's postcode,
lifts validation accuracy from {pct(base[-1]['val_acc'])} to **{pct(H[-1]['val_acc'])}** (+{100 * gain:.1f} pts) and
AUC from {base[-1]['val_auc']:.3f} to **{H[-1]['val_auc']:.3f}**. This is the largest single gain we've had on
churn this year and I'm proposing to ship v3 to the retention-campaign scorer.

Dashboard: https://wandb.ai/growth-analytics/churn/runs/v3-pc-2f7e1b · code: `train.py` (attached)

## Data
5,000 customers (4,000 train / 1,000 val, random split, seed 2024). Base features: tenure_months,
monthly_charges, support_calls, contract_annual, late_payments. New in v3: `postcode_churn_rate`, the mean
churn label per postcode (about 9,000 postcodes in the reference table). All features standardised with
train statistics.

## Model
MLP 6 -> 64 -> 32 -> 1, dropout 0.1, Adam 2e-3, BCE, batch 128, 15 epochs.

## Training curves (v3)

{tbl}

## Feature ablation

{abl}

## Plot description
*Fig. 1:* v3 train/val loss - val loss is already {H[0]['val_loss']:.3f} after the first epoch and flat at
~{H[-1]['val_loss']:.2f} from epoch 2; val accuracy starts at {H[0]['val_acc']:.3f} (above train,
{H[0]['train_acc']:.3f}) and stays within a point of train for the rest of the run.
*Fig. 2:* ROC curves for v2 vs v3, v3 hugging the top-left corner.

## Interpretation
The model converges almost immediately and train and val agree, so there is no overfitting - the
postcode signal is simply very strong (neighbourhood effects: competitor coverage, network quality, etc.).
Validation is a clean random split that the model never trains on, so I'm confident the +{100 * gain:.0f} pts is
real. Next: A/B test in the June retention campaign.
"""
    symptom = (f"The new churn model with the postcode feature hits {pct(H[0]['val_acc'])} val accuracy after the very first "
               f"epoch (higher than train) and AUC {H[-1]['val_auc']:.3f} - is it safe to ship?")
    curves = (f"val acc {H[0]['val_acc']:.3f} at epoch 1 (train {H[0]['train_acc']:.3f}), flat ~{H[-1]['val_acc']:.2f} after, "
              f"val AUC {H[-1]['val_auc']:.3f}; without the feature val acc {base[-1]['val_acc']:.3f}, AUC {base[-1]['val_auc']:.3f}")
    return dict(files={"report.md": report, "train.py": SCRIPTS["s04"]}, truth="data_leakage", symptom=symptom,
                how="postcode_churn_rate = groupby(postcode).churned.mean() over ALL 5000 rows before the split; with "
                    "~9000 postcodes most rows are alone in their postcode, so the feature equals the row's own label",
                curves=curves)


def run05():
    """eval_mode_forgotten: evaluate() never calls model.eval() (BN + dropout in train mode)."""
    main = train("s05")
    H, C = main["history"]["history"], main["history"]["checks"]
    alt = train("s05", "--dropout", "0.2")["history"]
    Ha, Ca = alt["history"], alt["checks"]
    cd = {(c["batch_size"], c["repeat"]): c for c in C}
    cda = {(c["batch_size"], c["repeat"]): c for c in Ca}
    assert cd[(1, 1)]["test_acc"] < cd[(256, 1)]["test_acc"] - 0.08
    assert cd[(256, 1)]["test_acc"] != cd[(256, 2)]["test_acc"]
    tbl = table(H, [("epoch", "epoch", None), ("loss", "train_loss", f4), ("acc", "train_acc", f4),
                    ("test_loss", "test_loss", f4), ("test_acc", "test_acc", f4)])
    chk = table([{"bs": bs, "r1": cd[(bs, 1)], "r2": cd[(bs, 2)]} for bs in (256, 32, 4, 1)], [
        ("eval batch size", "bs", None),
        ("test_acc (run 1)", lambda r: r["r1"]["test_acc"], f4), ("test_acc (run 2)", lambda r: r["r2"]["test_acc"], f4),
        ("test_loss (run 1)", lambda r: r["r1"]["test_loss"], f4), ("test_loss (run 2)", lambda r: r["r2"]["test_loss"], f4)])
    abl = table([{"d": "0.5 (this run)", "h": H, "c": cd}, {"d": "0.2", "h": Ha, "c": cda}], [
        ("dropout", "d", None),
        ("final train acc", lambda r: r["h"][-1]["train_acc"], f4),
        ("test_acc (epoch 15 log)", lambda r: r["h"][-1]["test_acc"], f4),
        ("check bs=256 (r1/r2)", lambda r: f"{r['c'][(256, 1)]['test_acc']:.4f} / {r['c'][(256, 2)]['test_acc']:.4f}", None),
        ("check bs=1 (r1/r2)", lambda r: f"{r['c'][(1, 1)]['test_acc']:.4f} / {r['c'][(1, 2)]['test_acc']:.4f}", None)])
    lo = min(c["test_acc"] for c in C)
    hi = max(c["test_acc"] for c in C)
    report = f"""# Glyph OCR CNN - handover notes for the serving team

**From:** Ahmed B. **To:** serving-infra **Re:** numbers don't match between my eval and the endpoint

Experiment tracker: https://wandb.ai/ocr-team/glyph-cnn/runs/1ho4xk3p · script: `train.py` (attached)

## Summary
SmallCNN (2 conv + BN, dropout 0.5, 2 FC) trained for 15 epochs on 2,000 synthetic 8x8 glyphs, evaluated
on a fixed 600-image test set. My eval at the end of training says **{pct(H[-1]['test_acc'])}**. The serving
team reports that single-image requests through the endpoint land in the mid-70s, and that sending the
same image twice sometimes returns two different classes.

## Training log

{tbl}

## Inference sanity check (same checkpoint, same 600 test images)
Run at the end of `train.py`; "run 1"/"run 2" are two back-to-back passes over the test set.

{chk}

## Ablation: dropout rate

{abl}

## Plot description
*Fig. 1:* train loss falls smoothly from {H[0]['train_loss']:.2f} to {H[-1]['train_loss']:.2f}; the test curve is
bumpier (e.g. test loss goes {H[11]['test_loss']:.3f} -> {H[12]['test_loss']:.3f} -> {H[13]['test_loss']:.3f} at epochs
12-14) while the training curve is smooth. *Fig. 2:* bar chart of the sanity-check table,
accuracy falling as the eval batch size shrinks (range {lo:.3f}-{hi:.3f}).

## My read
The checkpoint is fine - {pct(hi)} at batch 256. The differences between two identical passes
({min(abs(cd[(b, 1)]['test_acc'] - cd[(b, 2)]['test_acc']) for b in (256, 32, 4, 1)) * 100:.1f}-{max(abs(cd[(b, 1)]['test_acc'] - cd[(b, 2)]['test_acc']) for b in (256, 32, 4, 1)) * 100:.1f} pts) look like ordinary floating-point nondeterminism, and single-image requests are just a noisier
regime for any model. Recommendation for serving: micro-batch requests to >= 32 images before calling
the model; no retraining needed. The 0.2-dropout variant is better across the board, so I'll hand that one
over instead.
"""
    symptom = (f"My eval says {pct(H[-1]['test_acc'])} test accuracy, but single-image requests at serving time only get "
               f"~{pct((cd[(1, 1)]['test_acc'] + cd[(1, 2)]['test_acc']) / 2)} and the same image can come back with "
               f"different predictions.")
    curves = (f"train loss {H[0]['train_loss']:.2f}->{H[-1]['train_loss']:.2f}, logged test acc {H[-1]['test_acc']:.3f} and bumpy; "
              f"same checkpoint re-evaluated: bs256 {cd[(256, 1)]['test_acc']:.3f}/{cd[(256, 2)]['test_acc']:.3f}, "
              f"bs4 {cd[(4, 1)]['test_acc']:.3f}/{cd[(4, 2)]['test_acc']:.3f}, bs1 {cd[(1, 1)]['test_acc']:.3f}/{cd[(1, 2)]['test_acc']:.3f} "
              f"(differs run to run)")
    return dict(files={"report.md": report, "train.py": SCRIPTS["s05"]}, truth="eval_mode_forgotten", symptom=symptom,
                how="evaluate() wraps the forward in torch.no_grad() but never calls model.eval(); the training loop "
                    "sets model.train() so dropout(0.5) and BatchNorm batch statistics are active at test/inference",
                curves=curves)


def run06():
    """overfitting: 256-wide MLP, 300 samples, 100 features (94 pure noise), 150 epochs, no regularisation."""
    main = train("s06")
    H = main["history"]
    w128 = train("s06", "--width", "128")["history"]
    w512 = train("s06", "--width", "512")["history"]
    best = argmin(H, "val/loss")
    peak = argmax(H, "val/acc")
    assert 15 < best["epoch"] < 60 and H[-1]["val/loss"] > best["val/loss"] + 0.4
    assert H[-1]["train/loss"] < 0.01 and H[-1]["train/acc"] == 1.0
    assert w512[-1]["val/acc"] > max(H[-1]["val/acc"], w128[-1]["val/acc"])
    rows = by_epoch(H, [1, 10, 20, 30, best["epoch"], 40, 50, 60, 80, 100, 120, 150])
    rows = sorted({r["epoch"]: r for r in rows}.values(), key=lambda r: r["epoch"])
    tbl = table(rows, [("epoch", lambda r: f"{r['epoch']}" + (" *" if r["epoch"] == best["epoch"] else ""), None),
                       ("train/loss", "train/loss", f4), ("train/acc", "train/acc", f3),
                       ("val/loss", "val/loss", f4), ("val/acc", "val/acc", f3)])

    def summ(h):
        b = argmin(h, "val/loss")
        return {"be": b["epoch"], "bl": b["val/loss"], "fl": h[-1]["val/loss"], "fa": h[-1]["val/acc"],
                "pa": max(x["val/acc"] for x in h), "tl": h[-1]["train/loss"]}

    abl = table([{"w": "128", **summ(w128)}, {"w": "256 (this run)", **summ(H)}, {"w": "512", **summ(w512)}], [
        ("width", "w", None), ("best val/loss (epoch)", lambda r: f"{r['bl']:.4f} ({r['be']})", None),
        ("final val/loss", "fl", f4), ("peak val/acc", "pa", f3), ("final val/acc", "fa", f3),
        ("final train/loss", "tl", f4)])
    lines = main["stdout"].strip().splitlines()
    ex = "\n".join(lines[best["epoch"] - 2:best["epoch"] + 1] + ["..."] + lines[-3:])
    report = f"""# Rig-state classifier: MLP write-up (4 machine states)

Author: Jonas E. · project `rig-states` · https://wandb.ai/jonas-e/rig-states/runs/mlp256-e150

## Context
We have 300 labelled windows from the test rig (100 engineered features each, 4 machine-state classes) and a
separate 2,000-window validation set from the second rig. This is the first neural baseline; the
logistic-regression baseline from March sits at ~52% val accuracy.

## Setup
MLP 100 -> 256 -> 256 -> 4 (ReLU), Adam lr 1e-4, batch 32, 150 epochs, no weight decay / dropout / early
stopping. Config in `config.yaml`.

## Results (every 10 epochs; * = lowest val loss)

{tbl}

Log excerpt (around the best epoch and at the end):
```
{ex}
```

## Plot description
*Fig. 1 (loss):* train loss falls monotonically to ~0 ({H[-1]['train/loss']:.4f} at epoch 150). Val loss falls from
{H[0]['val/loss']:.3f} to {best['val/loss']:.3f} at epoch {best['epoch']} and then rises steadily for the remaining
{150 - best['epoch']} epochs to {H[-1]['val/loss']:.3f}. *Fig. 2 (accuracy):* train accuracy reaches 100% by epoch
{next(r['epoch'] for r in H if r['train/acc'] == 1.0)}; val accuracy peaks at {peak['val/acc']:.3f} (epoch {peak['epoch']}) and then
sits in the {min(r['val/acc'] for r in H[60:]):.3f}-{max(r['val/acc'] for r in H[60:]):.3f} band.

## Width ablation (same recipe, 150 epochs)

{abl}

## Interpretation
The rising validation loss looks alarming but it is a calibration effect: the network becomes more
confident, so the few val errors it makes get penalised harder by cross-entropy, while the actual
decision quality (val accuracy) holds steady at ~{H[-1]['val/acc'] * 100:.0f}%. Accuracy is what we report, so the
run is fine. The limiting factor is capacity: the 512-wide network has the best final accuracy
({summ(w512)['fa']:.3f} vs {summ(H)['fa']:.3f} for 256), so the next step is a 1024-wide, 3-layer MLP trained for 300 epochs.
"""
    config = """experiment: rig-states/mlp-baseline
data:
  train: rig_a_windows.parquet   # 300 windows
  val: rig_b_windows.parquet     # 2000 windows
  n_features: 100
  n_classes: 4
model:
  kind: mlp
  width: 256
  depth: 2
  dropout: 0.0
optimizer:
  name: adam
  lr: 0.0001
  weight_decay: 0.0
training:
  epochs: 150
  batch_size: 32
  early_stopping: false
  seed: 0
"""
    symptom = (f"Validation loss has been going up for most of the run ({best['val/loss']:.2f} at epoch {best['epoch']} -> "
               f"{H[-1]['val/loss']:.2f} at 150) while train loss goes to zero, and val accuracy is stuck around "
               f"{H[-1]['val/acc'] * 100:.0f}%.")
    curves = (f"train loss -> {H[-1]['train/loss']:.4f}, train acc 1.0; val loss min {best['val/loss']:.3f} at epoch "
              f"{best['epoch']} then rises to {H[-1]['val/loss']:.3f}; val acc peak {peak['val/acc']:.3f} (ep {peak['epoch']}), "
              f"final {H[-1]['val/acc']:.3f}; same shape at widths 128/512")
    return dict(files={"report.md": report, "config.yaml": config}, truth="overfitting", symptom=symptom,
                how="300 training samples with 94 of 100 features pure noise, 2x256 MLP (~92k params), 150 epochs, "
                    "no weight decay/dropout/early stopping",
                curves=curves)


def run07():
    """tokenizer_mismatch: serving stack encodes with a vocab rebuilt from another corpus (same words, other ids)."""
    main = train("s07")
    R = main["history"]
    H, S = R["history"], R["serving"]
    assert H[-1]["val_acc"] > 0.9 and S["holdout"] < H[-1]["val_acc"] - 0.2
    tbl = table(H, [("epoch", "epoch", None), ("train_loss", "train_loss", f4), ("val_loss", "val_loss", f4),
                    ("val_acc", "val_acc", f4)])
    var = table([
        {"p": "training job (`train.py` eval loop)", "d": "holdout (1,000)", "a": H[-1]["val_acc"]},
        {"p": "serving stack, offline replay", "d": "holdout (1,000) - same reviews", "a": S["holdout"]},
        {"p": "serving stack, offline replay", "d": "June production sample (1,000, hand-labelled)", "a": S["june_sample"]},
    ], [("pipeline", "p", None), ("data", "d", None), ("accuracy", "a", f4)])
    report = f"""# Review-sentiment LSTM: why is the deployed model so much worse? (investigation notes)

*Marta S. - ML platform sync, week 24*

Training run: https://wandb.ai/marta-s/review-sentiment/runs/lstm-v4-8ep · serving build `sentiment-svc:2024.06.11`

## Background
`lstm-v4` (embedding 32, LSTM 48, masked mean-pool, linear head) was trained on 4,000 product reviews
with a word-level vocabulary and reached **{pct(H[-1]['val_acc'])}** on our 1,000-review holdout. Since it went
live, the weekly hand-labelled production sample has been scoring far below that.

## Training curves

{tbl}

## Variant table: same checkpoint, different paths

{var}

The checkpoint loaded by the service is byte-identical to the training artefact (sha256 `9e1f...c07a`
in both places), and the service log confirms a vocabulary of the same size
({R['vocab_sizes'][1]} tokens vs {R['vocab_sizes'][0]} at training time). Config of both jobs in `config.yaml`,
full training + replay log in `train.log`.

## Plot description
*Fig. 1:* train loss {H[0]['train_loss']:.3f} -> {H[-1]['train_loss']:.3f}, val loss bottoming at
{argmin(H, 'val_loss')['val_loss']:.3f} (epoch {argmin(H, 'val_loss')['epoch']}); val accuracy flat at
{min(r['val_acc'] for r in H[1:]):.3f}-{max(r['val_acc'] for r in H):.3f} from epoch 2. *Fig. 2:* bar chart of
the variant table - the two serving bars are ~{(H[-1]['val_acc'] - S['holdout']) * 100:.0f} pts below the training bar.

## Conclusion
Since the weights and the vocabulary size are identical, the model itself is not the problem. The June
sample is clearly drifted (much more app/delivery/seller talk than the training data), and the remaining
gap on the holdout replay is most likely numerical differences from the TorchScript export in the
service (LSTM kernels differ between the training box and the serving image). Action items: retrain on
a June-weighted corpus and re-export with `torch.jit.trace` pinned to the serving torch version.
"""
    config = """# ---- training job (lstm-v4)
train:
  data: reviews_2024-04.jsonl
  n_train: 4000
  n_val: 1000
  tokenizer:
    type: word
    vocab_file: artifacts/vocab_2024-05-02.json   # built by train.py
    max_len: 24
  model: {embedding: 32, lstm_hidden: 48, pooling: masked_mean, classes: 2}
  optimizer: {name: adam, lr: 0.003}
  batch_size: 64
  epochs: 8
  seed: 3
  checkpoint: artifacts/sentiment_lstm.pt

# ---- serving image sentiment-svc:2024.06.11
serving:
  checkpoint: artifacts/sentiment_lstm.pt
  tokenizer:
    type: word
    vocab_file: artifacts/vocab_2024-06-11.json   # regenerated with the service rebuild
    max_len: 24
  batch_size: 32
"""
    symptom = (f"The sentiment model gets {pct(H[-1]['val_acc'])} on the holdout during training, but the deployed service "
               f"only gets ~{pct(S['holdout'])} on the very same holdout reviews (and {pct(S['june_sample'])} on June data).")
    curves = (f"train loss {H[0]['train_loss']:.3f}->{H[-1]['train_loss']:.3f}, val acc {H[0]['val_acc']:.3f}->{H[-1]['val_acc']:.3f}; "
              f"same checkpoint through serving vocab: holdout {S['holdout']:.3f}, June sample {S['june_sample']:.3f}")
    return dict(files={"report.md": report, "config.yaml": config, "train.log": main["stdout"]},
                truth="tokenizer_mismatch", symptom=symptom,
                how="serving encodes text with vocab_2024-06-11.json, a frequency-ordered vocab rebuilt from a different "
                    "corpus: same 57 words, different word->id mapping than the training vocab_2024-05-02.json",
                curves=curves)


def run08():
    """healthy, noisy/slow: tanh MLP on noisy moons, SGD 0.01 momentum 0.5, batch 16, 200 epochs."""
    main = train("s08")
    H = main["history"]
    b64 = train("s08", "--bs", "64")["history"]
    assert H[-1]["val_accuracy"] > 0.9 and H[-1]["val_loss"] < H[20]["val_loss"] - 0.1
    assert abs(H[-1]["loss"] - H[-1]["val_loss"]) < 0.03
    rows = by_epoch(H, [1, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 120, 140, 160, 180, 200])
    tbl = table(rows, [("epoch", "epoch", None), ("loss (mean over batches)", "loss", f4),
                       ("loss std over batches", "loss_std", f3), ("val_loss", "val_loss", f4),
                       ("val_accuracy", "val_accuracy", f4)])
    abl = table([{"b": "16 (this run)", "h": H}, {"b": "64", "h": b64}], [
        ("batch size", "b", None),
        ("val_acc @50", lambda r: r["h"][49]["val_accuracy"], f4),
        ("val_acc @100", lambda r: r["h"][99]["val_accuracy"], f4),
        ("val_acc @200", lambda r: r["h"][-1]["val_accuracy"], f4),
        ("val_loss @200", lambda r: r["h"][-1]["val_loss"], f4),
        ("mean batch-loss std", lambda r: sum(x["loss_std"] for x in r["h"]) / len(r["h"]), f3)])
    report = f"""# Two-moons baseline for the intro-to-NN workshop (run notes)

*Keiko T. - workshop prep, not a research result*

Run: https://wandb.ai/keiko-t/nn-workshop/runs/moons-sgd-b16 · config: `config.yaml` · full log: `train.log`

## What this is
The hands-on notebook trains a tiny MLP (2 -> 32 -> 32 -> 2, tanh) on two-moons with heavy noise
(sigma = 0.3; 800 train / 400 val points) using plain SGD so participants can watch the optimiser work.
I want to make sure the reference run we show is sane before the workshop.

## Curves (every 10 epochs; "loss std" is the spread of the per-batch losses within the epoch)

{tbl}

## Plot description
*Fig. 1:* per-epoch mean train loss with a shaded band for the per-batch std. The loss drops quickly to
~{H[9]['loss']:.2f} in the first 10 epochs, creeps along around {H[29]['loss']:.2f}-{H[49]['loss']:.2f} until epoch ~50,
then takes a second, slower descent between epochs 50 and 100 and flattens at ~{H[-1]['loss']:.2f}. The band is wide
throughout (per-batch std {min(r['loss_std'] for r in H):.2f}-{max(r['loss_std'] for r in H):.2f}). *Fig. 2:* val accuracy
wiggles by a point or so from epoch to epoch and climbs from {H[0]['val_accuracy']:.3f} to {H[-1]['val_accuracy']:.4f}; val
loss sits right on top of train loss for the whole run.

## Batch-size ablation (same lr 0.01, momentum 0.5)

{abl}

## Notes
The per-batch noise and the long middle stretch are what you'd expect from batch 16 with a small lr on
noisy data; the final accuracy is in the range I'd expect given how much the two classes overlap at
sigma = 0.3. Batch 64 is smoother but slower per epoch at this lr. I'll keep batch 16 for the notebook,
but I'd like a second opinion that nothing is off before 40 people run it.
"""
    config = """task: two_moons
data: {n_train: 800, n_val: 400, noise: 0.3, seed_train: 1, seed_val: 2}
model: {hidden: [32, 32], activation: tanh}
optimizer: {name: sgd, lr: 0.01, momentum: 0.5, weight_decay: 0}
batch_size: 16
epochs: 200
seed: 8
"""
    symptom = ("Is this run OK? The loss is really noisy from batch to batch and it sat on a plateau for ~50 epochs before "
               "improving again.")
    curves = (f"train loss {H[0]['loss']:.3f}->{H[9]['loss']:.3f} (ep10), slow middle stretch, second descent ep50-100, "
              f"final {H[-1]['loss']:.3f}; batch-loss std ~{sum(r['loss_std'] for r in H) / len(H):.2f}; val loss tracks train "
              f"(final {H[-1]['val_loss']:.3f}); val acc {H[0]['val_accuracy']:.3f}->{H[-1]['val_accuracy']:.3f}")
    return dict(files={"report.md": report, "config.yaml": config, "train.log": main["stdout"]}, truth="healthy",
                symptom=symptom, how="no fault: small-batch SGD on noisy two-moons, slow but converging to ~Bayes accuracy",
                curves=curves)


def run09():
    """label_noise: 40% of annotations replaced by random classes (train and val come from the same annotations)."""
    main = train("s09")
    H = main["history"]
    w8 = train("s09", "--width", "8", "--epochs", "25")["history"]
    w32 = train("s09", "--width", "32", "--epochs", "25")["history"]
    old = train("s09", "--labels", "inhouse_v1", "--epochs", "25")["history"]
    assert old[-1]["val_acc"] > 0.95
    plateau = H[9:25]
    assert max(r["train_acc"] for r in plateau) < 0.7 and min(r["train_loss"] for r in plateau) > 1.2
    assert max(r["val_acc"] for r in H) < 0.66
    rows = by_epoch(H, [1, 2, 3, 5, 8, 10, 12, 15, 18, 20, 22, 25, 28, 30, 32, 35, 38, 40])
    tbl = table(rows, [("epoch", "epoch", None), ("train_loss", "train_loss", f4), ("train_acc", "train_acc", pct),
                       ("val_loss", "val_loss", f4), ("val_acc", "val_acc", pct)])
    abl = table([{"w": "8", "h": w8}, {"w": "16 (this run, first 25 ep)", "h": H[:25]}, {"w": "32", "h": w32}], [
        ("conv width", "w", None),
        ("train_acc @10", lambda r: r["h"][9]["train_acc"], pct),
        ("train_acc @25", lambda r: r["h"][24]["train_acc"], pct),
        ("train_loss @25", lambda r: r["h"][24]["train_loss"], f4),
        ("best val_acc", lambda r: max(x["val_acc"] for x in r["h"]), pct),
        ("val_acc @25", lambda r: r["h"][24]["val_acc"], pct)])
    report = f"""# Glyph classifier on the batch-3 annotations - status update

Ravi P. · 2024-06-03 · run https://wandb.ai/ravi-p/glyphs/runs/b3-cnn16-40ep · full log: `train.log`

## Summary
We switched the glyph classifier to the new batch-3 annotations from the labelling vendor (3,000 images,
80/20 split). The CNN (conv16 -> conv32 -> pool -> fc128 -> 10, Adam 1e-3, batch 64) tops out at
**~{max(r['train_acc'] for r in plateau) * 100:.0f}% train accuracy** and **{max(r['val_acc'] for r in H) * 100:.0f}% val accuracy**; the same
architecture reached {pct(old[-1]['val_acc'])} val accuracy on our old in-house labels (25 epochs, run
`b1-cnn16`). The model is clearly underfitting - train accuracy
is nowhere near 100% - so we need a bigger network.

## Per-epoch metrics

{tbl}

## Plot description
*Fig. 1:* train loss drops fast to ~{H[9]['train_loss']:.2f} by epoch 10 and then only slowly to
{H[24]['train_loss']:.2f} at epoch 25, speeding up again at the end ({H[-1]['train_loss']:.2f} at epoch 40). Val loss bottoms at
{argmin(H, 'val_loss')['val_loss']:.3f} around epoch {argmin(H, 'val_loss')['epoch']} and rises after that. *Fig. 2:* train accuracy flattens
at {min(r['train_acc'] for r in plateau) * 100:.0f}-{max(r['train_acc'] for r in plateau) * 100:.0f}% between epochs 10 and 25 and only creeps
above that after epoch 30 ({H[-1]['train_acc'] * 100:.1f}% at epoch 40); val accuracy stays between
{min(r['val_acc'] for r in H[9:]) * 100:.0f}% and {max(r['val_acc'] for r in H) * 100:.0f}% from epoch 10 on.

## Width ablation (25 epochs each)

{abl}

## Conclusion
Widening the network pushes train accuracy up ({w8[24]['train_acc'] * 100:.0f}% -> {H[24]['train_acc'] * 100:.0f}% ->
{w32[24]['train_acc'] * 100:.0f}% at epoch 25), which confirms the capacity bottleneck. Val accuracy hasn't followed yet,
but I expect it to once the model is big enough to fit the data. Next week: ResNet-8 with 64 base channels
and a longer schedule (100 epochs) with cosine decay.
"""
    symptom = (f"Training accuracy sits at ~{max(r['train_acc'] for r in plateau) * 100:.0f}% and the training loss at "
               f"~{H[24]['train_loss']:.1f}-{H[9]['train_loss']:.1f} for most of the run; val accuracy is capped around "
               f"{max(r['val_acc'] for r in H) * 100:.0f}%.")
    curves = (f"train acc plateaus {min(r['train_acc'] for r in plateau):.2f}-{max(r['train_acc'] for r in plateau):.2f} "
              f"(ep10-25) with train loss floor ~{H[24]['train_loss']:.2f}, then memorises late (train acc {H[-1]['train_acc']:.2f}, "
              f"loss {H[-1]['train_loss']:.2f} at ep40) while val loss rises; val acc capped at {max(r['val_acc'] for r in H):.3f}")
    return dict(files={"report.md": report, "train.log": main["stdout"]}, truth="label_noise", symptom=symptom,
                how="40% of the 3000 annotations (train and val, same source) replaced by a uniformly random class; "
                    "images are clean",
                curves=curves)


def run10():
    """dead_relu: hidden biases initialised to -1.0 in a 5-layer ReLU MLP; deep layers never fire."""
    main = train("s10")
    H = main["history"]
    d2 = train("s10", "--depth", "2")["history"]
    d3 = train("s10", "--depth", "3")["history"]
    assert abs(H[-1]["train_loss"] - 1.6094) < 0.01 and H[-1]["val_acc"] < 0.25
    assert H[-1]["inactive_units"][-1] > 0.9
    rows = by_epoch(H, [1, 2, 3, 5, 10, 15, 20, 25, 30])
    tbl = table(rows, [("epoch", "epoch", None), ("train_loss", "train_loss", f4), ("val_loss", "val_loss", f4),
                       ("val_acc", "val_acc", f4)] +
                [(f"inactive L{i + 1}", (lambda i: lambda r: r["inactive_units"][i])(i), lambda v: f"{v:.2f}")
                 for i in range(5)])
    abl = table([{"d": 2, "h": d2}, {"d": 3, "h": d3}, {"d": "5 (this run)", "h": H}], [
        ("hidden layers", "d", None),
        ("train_loss @1", lambda r: r["h"][0]["train_loss"], f4),
        ("train_loss @30", lambda r: r["h"][-1]["train_loss"], f4),
        ("val_acc @30", lambda r: r["h"][-1]["val_acc"], f4),
        ("inactive units, last hidden layer", lambda r: r["h"][-1]["inactive_units"][-1], lambda v: f"{v:.2f}")])
    report = f"""# Week 22 update: deeper MLPs for the 24-feature segment classifier

From: Chen L. · tracker: https://wandb.ai/chenl/segments/runs/mlp-d5-w128 · script: `train.py` (attached)

## Goal this week
Check whether going from the 2-layer MLP we use in production to a 5-layer MLP (width 128) buys
anything on the 5-class segment task (4,000 rows: 3,200 train / 800 val, 24 standardised features).

## Setup
5 x Linear(128)+ReLU, Kaiming-normal weights, Adam 1e-3, batch 64, 30 epochs. I also log, per hidden
layer, the share of units that output zero for every validation example ("inactive L1..L5").

## Results (5-layer run)

{tbl}

## Depth ablation (identical recipe, only the number of hidden layers changes)

{abl}

## Plot description
*Fig. 1:* train and val loss for the 5-layer run are two flat lines at {H[0]['train_loss']:.3f} -> {H[-1]['train_loss']:.3f}
(that's ln 5 = 1.609, i.e. uniform guessing); val accuracy stays at {H[0]['val_acc']:.3f}-{max(r['val_acc'] for r in H):.3f}.
*Fig. 2:* the 2- and 3-layer runs are already at train loss {d2[1]['train_loss']:.2f} / {d3[1]['train_loss']:.2f} after epoch 2. *Fig. 3:* stacked bars of the
inactive-unit share per layer - {H[-1]['inactive_units'][0]:.2f}, {H[-1]['inactive_units'][1]:.2f}, {H[-1]['inactive_units'][2]:.2f},
{H[-1]['inactive_units'][3]:.2f}, {H[-1]['inactive_units'][4]:.2f} for L1-L5, unchanged across all 30 epochs.

## Conclusion
Depth clearly hurts here: 2 and 3 layers reach ~{d2[-1]['val_acc'] * 100:.0f}% while 5 layers doesn't learn at all.
With 3,200 training rows there just isn't enough data to fit a 5-layer network (~{(24 * 128 + 4 * 128 * 128 + 5 * 128 + 128 * 5 + 5) / 1000:.0f}k
parameters vs ~{(24 * 128 + 128 * 128 + 2 * 128 + 128 * 5 + 5) / 1000:.0f}k for 2 layers). We stay with the 2-layer model in production and revisit depth once the
Q3 data drop (~40k rows) lands.
"""
    symptom = (f"The 5-layer MLP doesn't learn at all: loss sits at {H[-1]['train_loss']:.3f} from the first epoch and accuracy stays "
               f"around {H[-1]['val_acc'] * 100:.0f}%, while the 2-layer version with the same code trains fine.")
    curves = (f"train/val loss flat at {H[0]['train_loss']:.4f}->{H[-1]['train_loss']:.4f} (= ln 5) for 30 epochs, val acc "
              f"{H[-1]['val_acc']:.3f}; inactive-unit share per layer {', '.join(f'{v:.2f}' for v in H[-1]['inactive_units'])}; "
              f"depth 2/3 reach val acc {d2[-1]['val_acc']:.3f}/{d3[-1]['val_acc']:.3f}")
    return dict(files={"report.md": report, "train.py": SCRIPTS["s10"]}, truth="dead_relu", symptom=symptom,
                how="every hidden Linear gets bias init constant -1.0 (with Kaiming weights); activations shrink layer "
                    "by layer until layer 5 outputs zero for every input, so no gradient reaches the hidden layers",
                curves=curves)


def run11():
    """lr_too_high: plain SGD at lr 0.5 on a tanh MLP."""
    main = train("s11")
    H = main["history"]
    b512 = train("s11", "--batch", "512")["history"]
    dr = train("s11", "--dropout", "0.2")["history"]
    low = argmin(H[:40], "loss")
    assert low["loss"] < 1.2 and low["step"] < 40
    assert max(r["loss"] for r in H[60:]) > 30 and H[-1]["loss"] > 10
    assert max(r["grad_norm"] for r in H) > 20 * H[0]["grad_norm"]
    assert argmax([r for r in H if "val_acc" in r], "val_acc")["step"] == 20
    vals = [r for r in H if "val_acc" in r]
    tbl = table(vals, [("step", "step", None), ("loss", "loss", lambda v: f"{v:.3f}"),
                       ("grad_norm", "grad_norm", lambda v: f"{v:.2f}"),
                       ("val_loss", "val_loss", lambda v: f"{v:.3f}"), ("val_acc", "val_acc", f4)])

    def s(h):
        v = [r for r in h if "val_acc" in r]
        return {"min": min(r["loss"] for r in h[:40]), "end": h[-1]["loss"], "gmax": max(r["grad_norm"] for r in h),
                "bva": max(r["val_acc"] for r in v), "fva": v[-1]["val_acc"]}

    abl = table([{"n": "batch 128, no dropout (this run)", **s(H)}, {"n": "batch 512", **s(b512)},
                 {"n": "batch 128, dropout 0.2", **s(dr)}], [
        ("variant", "n", None), ("min loss (first 40 steps)", "min", lambda v: f"{v:.3f}"),
        ("loss @150", "end", lambda v: f"{v:.2f}"), ("max grad_norm", "gmax", lambda v: f"{v:.2f}"),
        ("best val_acc", "bva", f4), ("val_acc @150", "fva", f4)])
    report = f"""# Glyph MLP (SGD) - loss blows up after ~30 steps

*Daniel O. - experiment log entry, 2024-04-22*

W&B: https://wandb.ai/dano/glyph-mlp/runs/sgd-tanh-150 · config: `config.yaml` · full step log: `train.log`

## Setup
MLP 64 -> 256 -> 256 -> 10 with tanh, plain SGD (no momentum), constant learning rate, batch 128
sampled with replacement, 150 steps, 4,000 training / 800 validation glyphs. Gradient norm is the global
L2 norm before the optimiser step (no clipping).

## Metrics (validation every 10 steps)

{tbl}

## Plot description
*Fig. 1 (loss vs step):* the loss falls from {H[0]['loss']:.2f} to a low of {low['loss']:.2f} at step {low['step']}, then
starts spiking (step 33: {H[32]['loss']:.2f}, step 36: {H[35]['loss']:.2f}, step 40: {H[39]['loss']:.2f}) and from step ~60 it
oscillates between ~{min(r['loss'] for r in H[60:]):.0f} and ~{max(r['loss'] for r in H[60:]):.0f}, never coming back down.
*Fig. 2 (grad norm):* {H[0]['grad_norm']:.2f} at step 1, first spikes above 5 around step 33, then pinned at 10-20
(max {max(r['grad_norm'] for r in H):.1f}). *Fig. 3:* val accuracy peaks at {max(r['val_acc'] for r in vals):.3f} (step 20) and then
collapses to chance.

## Ablation

{abl}

## Interpretation
The first 30 steps prove the setup can learn, so the optimiser settings are OK. The blow-up starts
abruptly, which is what you get when a few batches contain corrupted glyphs (we had that with the
March export: some images were saved with inverted intensity). Bigger batches and dropout did not
dilute it, which fits a small set of really bad samples that keep getting resampled. Next: write a
data-cleaning pass (drop glyphs whose per-class template correlation is < 0.2) and re-run.
"""
    config = """model:
  arch: mlp
  layers: [64, 256, 256, 10]
  activation: tanh
  dropout: 0.0
optimizer:
  type: SGD
  lr: 0.5
  momentum: 0.0
  weight_decay: 0.0
schedule: constant
train:
  steps: 150
  batch_size: 128
  sampling: with_replacement
  grad_clip: null
  eval_every: 10
data:
  train: glyphs_4000.npz
  val: glyphs_val_800.npz
seed: 17
"""
    symptom = (f"Loss goes down nicely for the first ~{low['step']} steps (to {low['loss']:.2f}) and then shoots up into the tens "
               f"and never recovers; validation accuracy ends at chance.")
    curves = (f"loss {H[0]['loss']:.2f}->{low['loss']:.2f} (step {low['step']}), then spikes and oscillates {min(r['loss'] for r in H[60:]):.0f}-"
              f"{max(r['loss'] for r in H[60:]):.0f}; grad norm {H[0]['grad_norm']:.2f}->10-20 (max {max(r['grad_norm'] for r in H):.1f}); "
              f"val acc peak {max(r['val_acc'] for r in vals):.3f} at step 20 then ~0.1; batch 512 and dropout 0.2 diverge the same way")
    return dict(files={"report.md": report, "config.yaml": config, "train.log": main["stdout"]}, truth="lr_too_high",
                symptom=symptom, how="plain SGD with constant lr 0.5 on a tanh MLP (0.1 trains smoothly to 86% in 150 steps)",
                curves=curves)


def run12():
    """preprocessing_mismatch: model trained on z-scored features, test set min-max scaled with its own stats."""
    main = train("s12")
    H, T = main["history"]["history"], main["history"]["test"]
    old = train("s12_lastweek")["history"]
    To = old["test"]
    assert H[-1]["val_accuracy"] > 0.78 and T["test_accuracy"] < To["test_accuracy"] - 0.2
    tbl = table(H, [("epoch", "epoch", None), ("train_bce", "train_bce", f4), ("val_bce", "val_bce", f4),
                    ("val_accuracy", "val_accuracy", f4)])
    cmp = table([{"n": "last week (commit `3b9d2e1`)", **To, "v": old["history"][-1]["val_accuracy"]},
                 {"n": "this week (commit `c17f04a`)", **T, "v": H[-1]["val_accuracy"]}], [
        ("version", "n", None), ("val_accuracy (ep 20)", "v", f4), ("test_accuracy", "test_accuracy", f4),
        ("test_bce", "test_bce", f4), ("predicted default rate", "test_positive_rate", pct),
        ("true default rate", "label_positive_rate", pct)])
    report = f"""# Credit-default MLP - weekly model report (wk 11)

Prepared by: Oskar V. (risk modelling) · run: https://wandb.ai/risk-modelling/credit-default/runs/wk11-c17f04a

## Headline
Validation is unchanged this week ({pct(H[-1]['val_accuracy'])}), but accuracy on the 3,000-applicant held-out test
set fell from **{pct(To['test_accuracy'])}** to **{pct(T['test_accuracy'])}**, and the model now flags
**{pct(T['test_positive_rate'])}** of test applicants as defaults. Nothing in the architecture or optimiser changed;
the only code change this week was the refactor that moved scoring onto the shared feature utilities
(`train.py` attached).

## Training (this week)
MLP 7 -> 64 -> 64 -> 1, RMSprop 1e-3, BCE, batch 100, 20 epochs, 6,000 train / 1,500 val.

{tbl}

## Last week vs this week

{cmp}

## Plot description
*Fig. 1:* train and val BCE overlap almost perfectly, both flattening at ~{H[-1]['val_bce']:.2f} after epoch 3;
identical to last week's curves (the training code path did not change - final val BCE {old['history'][-1]['val_bce']:.4f} last
week vs {H[-1]['val_bce']:.4f} now). *Fig. 2:* histogram of test-set logits: last week a two-humped distribution
around 0; this week everything sits to the right of 0.

## Interpretation
Because validation is untouched, the model has not degraded; it has become over-confident on the
positive class, pushing every test applicant over the 0.5 threshold. The test cohort's true default rate
({pct(T['label_positive_rate'])}) is higher than we usually see, which probably makes this worse. Proposed fix:
recalibrate the decision threshold on the test cohort (Platt scaling) and re-weight the classes in the loss.
"""
    symptom = (f"Validation accuracy is still {pct(H[-1]['val_accuracy'])}, but after this week's refactor test accuracy dropped from "
               f"{pct(To['test_accuracy'])} to {pct(T['test_accuracy'])} and the model predicts 'default' for every test applicant.")
    curves = (f"train/val BCE {H[0]['train_bce']:.3f}->{H[-1]['train_bce']:.3f}/{H[-1]['val_bce']:.3f}, val acc {H[-1]['val_accuracy']:.3f} "
              f"(identical both weeks); test acc {To['test_accuracy']:.3f} (z-score) -> {T['test_accuracy']:.3f} with predicted "
              f"positive rate {T['test_positive_rate']:.2f}")
    return dict(files={"report.md": report, "train.py": SCRIPTS["s12"]}, truth="preprocessing_mismatch", symptom=symptom,
                how="train/val are z-scored with training mean/std, but the test set goes through preprocess_batch(): "
                    "min-max scaling with the test set's own min/max; 'last week' is the same script scoring test with "
                    "the z-score preprocess()",
                curves=curves)


# ----------------------------------------------------------------------------- main
BUILDERS = [run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12]


def main():
    results = {}
    for fn in BUILDERS:
        name = fn.__name__
        print(f"[{name}]", flush=True)
        results[name] = fn()
    if RUNS.exists():
        shutil.rmtree(RUNS)
    truth = {}
    for name, r in results.items():
        d = RUNS / name
        d.mkdir(parents=True)
        for fname, text in r["files"].items():
            (d / fname).write_text(text if text.endswith("\n") else text + "\n")
        truth[name] = {"truth": r["truth"], "symptom": r["symptom"], "how": r["how"]}
    (OUT / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    print("\n| run | truth | files | what the curves show |")
    print("|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {r['truth']} | {', '.join(sorted(r['files']))} | {r['curves']} |")


if __name__ == "__main__":
    main()
