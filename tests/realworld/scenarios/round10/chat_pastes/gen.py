#!/usr/bin/env python
"""Generator for the 12 benchmark runs under runs/.

Every run is a real training script (kept below as a string) that is executed on CPU with
a fixed seed; its real stdout/stderr is captured and a few consecutive lines of it are pasted
into runs/<name>/message.txt, the way a user asks for help in a chat. About half of the runs
also ship the script as train.py. The hidden ground truth goes to truth.json.

usage:  python gen.py            # build everything
        python gen.py run05      # rerun one script only (prints its full log)
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

OUT = os.path.dirname(os.path.abspath(__file__))
RUNS_DIR = os.path.join(OUT, "runs")
WORK = "/tmp/p63a_work"      # scratch: where scripts run and data files live
LOGS = "/tmp/p63a_logs"      # scratch: full captured logs (not part of the runs)
PY = sys.executable


# ----------------------------------------------------------------------------------------
# data files some scripts read (written by the generator, not shipped with the runs)
# ----------------------------------------------------------------------------------------
def write_gestures_csv(d):
    rng = np.random.default_rng(104)
    n, k, f = 2400, 10, 16
    centers = rng.normal(0, 1.0, size=(k, f))
    g = rng.integers(1, k + 1, size=n)
    X = centers[g - 1] * 3.0 + rng.normal(0, 1.0, size=(n, f)) + 5.0
    import pandas as pd
    df = pd.DataFrame(X.round(4), columns=[f"f{i}" for i in range(f)])
    df.insert(0, "subject", rng.integers(1, 13, size=n))
    df["gesture"] = g
    df.to_csv(os.path.join(d, "gestures.csv"), index=False)


def write_sensor_csv(d):
    rng = np.random.default_rng(108)
    n = 5000
    base = rng.normal(0, 1, size=(n, 12))
    scale = np.array([1, 5, 20, 0.5, 100, 2, 3, 1, 50, 10, 0.1, 7.0])
    offset = np.array([20, 300, 1000, 1, 5000, 40, 60, 2, 800, 90, 0.3, 150.0])
    X = base * scale + offset
    logit = 1.2 * base[:, 0] - 0.9 * base[:, 4] + 0.7 * base[:, 8] * base[:, 1] - 1.0
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    import pandas as pd
    df = pd.DataFrame(X.round(3), columns=[f"s{i:02d}" for i in range(1, 13)])
    # a handful of readings dropped by the logger (empty cells in the csv)
    for r, c in [(1241, 4), (2710, 8), (4101, 1)]:
        df.iat[r, c] = np.nan
    df["failure"] = y
    df.to_csv(os.path.join(d, "sensor_log.csv"), index=False)


def write_reviews_tsv(d):
    rng = np.random.default_rng(110)
    pos = "great excellent loved wonderful fun amazing solid recommend enjoyable perfect".split()
    neg = "awful boring hated terrible waste broken poor disappointing dull worst".split()
    neutral = ("the a movie film plot acting it was and this i of to story characters "
               "really very but not just too some ending scenes music").split()
    lines = []
    for _ in range(1800):
        lab = int(rng.integers(0, 2))
        L = int(rng.integers(6, 40))
        words = list(rng.choice(neutral, size=L))
        for _ in range(int(rng.integers(1, 4))):
            words.insert(int(rng.integers(0, len(words))), str(rng.choice(pos if lab else neg)))
        lines.append(f"{lab}\t{' '.join(words)}")
    with open(os.path.join(d, "reviews.tsv"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


# ----------------------------------------------------------------------------------------
# the scripts
# ----------------------------------------------------------------------------------------
S = {}

S["run01"] = r'''import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(0)
rng = np.random.default_rng(0)

N_CLASSES, DIM, N = 4, 10, 20000
X = rng.normal(size=(N, DIM))
W1 = rng.normal(size=(DIM, 16))
W2 = rng.normal(size=(16, N_CLASSES))
y = (np.tanh(X @ W1) @ W2).argmax(1)

perm = rng.permutation(N)
X, y = X[perm], y[perm]
n_val = 2000
X_tr = torch.tensor(X[n_val:], dtype=torch.float32)
y_tr = torch.tensor(y[n_val:])
X_va = torch.tensor(X[:n_val], dtype=torch.float32)
y_va = torch.tensor(y[:n_val])

train_dl = DataLoader(TensorDataset(X_tr, y_tr), batch_size=64, shuffle=True)

model = nn.Sequential(
    nn.Linear(DIM, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, N_CLASSES),
)
EPOCHS = 25
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS)
loss_fn = nn.CrossEntropyLoss()

for epoch in range(1, EPOCHS + 1):
    model.train()
    total, count = 0.0, 0
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
        count += len(xb)
    sched.step()
    model.eval()
    with torch.no_grad():
        out = model(X_va)
        val_loss = loss_fn(out, y_va).item()
        val_acc = (out.argmax(1) == y_va).float().mean().item()
    print(f"Epoch {epoch:02d}/{EPOCHS}  train_loss={total / count:.4f}  val_loss={val_loss:.4f}  val_acc={val_acc:.3f}")

torch.save(model.state_dict(), "model.pt")
'''

S["run02"] = r'''import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(1)
np.random.seed(1)

n = 3200
X = np.random.randn(n, 8).astype(np.float32)
w = np.random.randn(8).astype(np.float32)
y = X @ w + 0.5 * np.sin(2 * X[:, 0]) + 0.1 * np.random.randn(n).astype(np.float32)
y = (y - y.mean()) / y.std()

X = torch.from_numpy(X)
y = torch.from_numpy(y.astype(np.float32)).unsqueeze(1)

model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.03)
criterion = nn.MSELoss()

batch_size = 64
step = 0
recent = []
optimizer.zero_grad()
for epoch in range(4):
    idx = torch.randperm(n)
    for i in range(0, n, batch_size):
        b = idx[i:i + batch_size]
        pred = model(X[b])
        loss = criterion(pred, y[b])
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        optimizer.step()
        step += 1
        recent.append(loss.item())
        if step % 10 == 0:
            print(f"step {step:4d} | loss {sum(recent[-10:]) / 10:.4f} | grad_norm {gnorm.item():.3f}")
'''

S["run03"] = r'''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(3)
rng = np.random.default_rng(3)

SIZE = 16


def make_shapes(n):
    imgs = np.zeros((n, 1, SIZE, SIZE), dtype=np.float32)
    labels = rng.integers(0, 4, size=n)
    for i, c in enumerate(labels):
        r, s = rng.integers(4, SIZE - 4, size=2)
        if c == 0:
            imgs[i, 0, r, 2:-2] = 1.0
        elif c == 1:
            imgs[i, 0, 2:-2, s] = 1.0
        elif c == 2:
            imgs[i, 0, r - 3:r + 4, s - 3] = imgs[i, 0, r - 3:r + 4, s + 3] = 1.0
            imgs[i, 0, r - 3, s - 3:s + 4] = imgs[i, 0, r + 3, s - 3:s + 4] = 1.0
        else:
            imgs[i, 0, r, s - 3:s + 4] = 1.0
            imgs[i, 0, r - 3:r + 4, s] = 1.0
    imgs += rng.normal(0, 0.3, size=imgs.shape).astype(np.float32)
    return torch.from_numpy(imgs), torch.from_numpy(labels)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


x_train, y_train = make_shapes(2000)
x_val, y_val = make_shapes(500)

model = Net()
lr = 2e-4
optimizer = torch.optim.SGD(model.parameters(), lr=lr)

for ep in range(1, 21):
    model.train()
    perm = torch.randperm(len(x_train))
    losses = []
    for i in range(0, len(x_train), 32):
        idx = perm[i:i + 32]
        loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        acc = (model(x_val).argmax(1) == y_val).float().mean().item()
    print(f"[ep {ep:2d}] lr={lr:.1e} loss={np.mean(losses):.4f} val_acc={acc * 100:.1f}%")
'''

S["run04"] = r'''import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(4)

df = pd.read_csv("gestures.csv")
feature_cols = [c for c in df.columns if c.startswith("f")]
X = torch.tensor(df[feature_cols].values, dtype=torch.float32)
y = torch.tensor(df["gesture"].values, dtype=torch.long)
num_classes = df["gesture"].nunique()
print(f"loaded {len(df)} samples, {len(feature_cols)} features, {num_classes} classes")

X = (X - X.mean(0)) / X.std(0)
loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)

model = nn.Sequential(
    nn.Linear(len(feature_cols), 128),
    nn.ReLU(),
    nn.Dropout(0.2),
    nn.Linear(128, num_classes),
)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-2)
criterion = nn.CrossEntropyLoss()

print("starting training")
for epoch in range(30):
    model.train()
    running = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        running += loss.item()
    print(f"epoch {epoch + 1}: loss {running / len(loader):.4f}")
'''

S["run05"] = r'''import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(5)
rs = np.random.RandomState(5)

D = 50
X = rs.randn(1200, D).astype(np.float32)
w = np.zeros(D, dtype=np.float32)
w[:5] = rs.randn(5)
y = ((X @ w + 0.5 * rs.randn(1200)) > 0).astype(np.float32)
flip = rs.rand(1200) < 0.1
y[flip] = 1 - y[flip]

Xtr, ytr = torch.tensor(X[:200]), torch.tensor(y[:200])
Xva, yva = torch.tensor(X[200:]), torch.tensor(y[200:])

net = nn.Sequential(
    nn.Linear(D, 256), nn.ReLU(),
    nn.Linear(256, 256), nn.ReLU(),
    nn.Linear(256, 1),
)
opt = torch.optim.Adam(net.parameters(), lr=2e-4)
bce = nn.BCEWithLogitsLoss()

for ep in range(1, 201):
    net.train()
    perm = torch.randperm(200)
    for i in range(0, 200, 32):
        b = perm[i:i + 32]
        opt.zero_grad()
        l = bce(net(Xtr[b]).squeeze(1), ytr[b])
        l.backward()
        opt.step()
    if ep == 1 or ep % 10 == 0:
        net.eval()
        with torch.no_grad():
            tr_out = net(Xtr).squeeze(1)
            va_out = net(Xva).squeeze(1)
            tl = bce(tr_out, ytr).item()
            vl = bce(va_out, yva).item()
            ta = ((tr_out > 0).float() == ytr).float().mean().item()
            va = ((va_out > 0).float() == yva).float().mean().item()
        print(f"ep {ep:3d}: train {tl:.4f} (acc {ta:.3f}) / val {vl:.4f} (acc {va:.3f})")
'''

S["run06"] = r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(6)
rng = np.random.default_rng(6)

K, D = 10, 32
means = rng.normal(0, 1.0, size=(K, D))
labels = rng.integers(0, K, size=6000)
feats = means[labels] + rng.normal(0, 2.0, size=(6000, D))

x = torch.tensor(feats, dtype=torch.float32)
t = torch.tensor(labels, dtype=torch.long)
train_ds = TensorDataset(x[:5000], t[:5000])
x_test, t_test = x[5000:], t[5000:]
loader = DataLoader(train_ds, batch_size=128, shuffle=True)

model = nn.Sequential(
    nn.Linear(D, 128),
    nn.ReLU(),
    nn.Linear(128, 64),
    nn.ReLU(),
    nn.Linear(64, K),
    nn.Softmax(dim=1),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for epoch in range(40):
    model.train()
    tot, correct, seen = 0.0, 0, 0
    for xb, tb in loader:
        out = model(xb)
        loss = criterion(out, tb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(tb)
        correct += (out.argmax(1) == tb).sum().item()
        seen += len(tb)
    model.eval()
    with torch.no_grad():
        test_acc = (model(x_test).argmax(1) == t_test).float().mean().item()
    print(f"epoch {epoch + 1}  loss {tot / seen:.4f}  acc {correct / seen:.4f}  test_acc {test_acc:.4f}")
'''

S["run07"] = r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(7)
np.random.seed(7)

WAVES = ["sine", "square", "saw", "triangle", "noise"]
SEQ_LEN = 128
t = np.linspace(0, 1, SEQ_LEN)


def synth(kind):
    phase = 2 * np.pi * np.random.uniform(2, 8) * t + np.random.uniform(0, 2 * np.pi)
    if kind == "sine":
        s = np.sin(phase)
    elif kind == "square":
        s = np.sign(np.sin(phase))
    elif kind == "saw":
        s = 2 * ((phase / (2 * np.pi)) % 1) - 1
    elif kind == "triangle":
        s = 2 * np.abs(2 * ((phase / (2 * np.pi)) % 1) - 1) - 1
    else:
        s = np.random.uniform(-1, 1, SEQ_LEN)
    return s + 0.2 * np.random.randn(SEQ_LEN)


y = np.random.randint(0, len(WAVES), size=2500)
X = np.stack([synth(WAVES[c]) for c in y]).astype(np.float32)

perm = np.random.permutation(len(X))
X = X[perm]
split = int(0.8 * len(X))
X_train, X_val = X[:split], X[split:]
y_train, y_val = y[:split], y[split:]

train_dl = DataLoader(TensorDataset(torch.tensor(X_train).unsqueeze(1), torch.tensor(y_train)), batch_size=64, shuffle=True)
val_x, val_y = torch.tensor(X_val).unsqueeze(1), torch.tensor(y_val)

model = nn.Sequential(
    nn.Conv1d(1, 16, 7, padding=3), nn.ReLU(), nn.MaxPool1d(4),
    nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
    nn.Flatten(), nn.Linear(32, len(WAVES)),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()

for ep in range(1, 16):
    model.train()
    tl = []
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
        tl.append(loss.item())
    model.eval()
    with torch.no_grad():
        out = model(val_x)
        vl = crit(out, val_y).item()
        va = (out.argmax(1) == val_y).float().mean().item()
    print(f"ep {ep} train_loss {np.mean(tl):.4f} val_loss {vl:.4f} val_acc {va:.3f}")
'''

S["run08"] = r'''import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(8)

df = pd.read_csv("sensor_log.csv")
sensors = [c for c in df.columns if c.startswith("s")]
X = df[sensors]
X = (X - X.mean()) / X.std()
y = df["failure"].values

X_t = torch.tensor(X.values, dtype=torch.float32)
y_t = torch.tensor(y, dtype=torch.float32)
print(f"{len(df)} rows, {len(sensors)} sensors, failure rate {y.mean():.3f}")

dl = DataLoader(TensorDataset(X_t, y_t), batch_size=32, shuffle=True)
model = nn.Sequential(nn.Linear(len(sensors), 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.BCEWithLogitsLoss()

step = 0
for epoch in range(3):
    for xb, yb in dl:
        logits = model(xb).squeeze(1)
        loss = crit(logits, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 10 == 0:
            print(f"epoch {epoch} step {step:4d}  loss {loss.item():.4f}")
    print(f"== epoch {epoch} done")
'''

S["run09"] = r'''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(9)
rng = np.random.default_rng(9)


def draw(c, img, r, s):
    if c == 0:
        img[r, 2:-2] = 1
    elif c == 1:
        img[2:-2, s] = 1
    elif c == 2:
        img[r - 3:r + 4, s - 3] = img[r - 3:r + 4, s + 3] = 1
        img[r - 3, s - 3:s + 4] = img[r + 3, s - 3:s + 4] = 1
    elif c == 3:
        img[r, s - 3:s + 4] = 1
        img[r - 3:r + 4, s] = 1
    elif c == 4:
        for k in range(-3, 4):
            img[r + k, s + k] = 1
    else:
        for k in range(-3, 4):
            img[r + k, s - k] = 1


def make_shapes(n, n_classes):
    x = np.zeros((n, 1, 16, 16), dtype=np.float32)
    y = rng.integers(0, n_classes, size=n)
    for i in range(n):
        r, s = rng.integers(4, 12, size=2)
        draw(y[i], x[i, 0], r, s)
    x += rng.normal(0, 0.3, size=x.shape).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y)


class SmallCNN(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(),
        )
        self.head = nn.Linear(32 * 4 * 4, n_classes)

    def forward(self, x):
        return self.head(self.features(x))


def train_one_epoch(model, optimizer, x, y, bs=64):
    model.train()
    perm = torch.randperm(len(x))
    total = 0.0
    for i in range(0, len(x), bs):
        idx = perm[i:i + bs]
        loss = F.cross_entropy(model(x[idx]), y[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(idx)
    return total / len(x)


@torch.no_grad()
def evaluate(model, x, y):
    model.eval()
    out = model(x)
    return F.cross_entropy(out, y).item(), (out.argmax(1) == y).float().mean().item()


model = SmallCNN(n_classes=4)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

xp, yp = make_shapes(3000, 4)
xp_val, yp_val = make_shapes(500, 4)
print("pretraining on 4 shape classes")
for ep in range(1, 6):
    loss = train_one_epoch(model, optimizer, xp, yp)
    vl, va = evaluate(model, xp_val, yp_val)
    print(f"pretrain ep {ep}: loss {loss:.4f} val_loss {vl:.4f} val_acc {va:.3f}")

xf, yf = make_shapes(1200, 6)
xf_val, yf_val = make_shapes(400, 6)
model.head = nn.Linear(32 * 4 * 4, 6)
for p in model.features.parameters():
    p.requires_grad = False

print("finetuning on 6 classes")
for ep in range(1, 9):
    loss = train_one_epoch(model, optimizer, xf, yf)
    vl, va = evaluate(model, xf_val, yf_val)
    print(f"finetune ep {ep}: loss {loss:.4f} val_loss {vl:.4f} val_acc {va:.3f}")
'''

S["run10"] = r'''from collections import Counter

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)
torch.manual_seed(10)

rows = [line.rstrip("\n").split("\t") for line in open("reviews.tsv")]
labels = [int(r[0]) for r in rows]
texts = [r[1].lower().split() for r in rows]

counts = Counter(w for t in texts for w in t)
vocab = {"<pad>": 0, "<unk>": 1}
for w, c in counts.most_common():
    if c >= 2:
        vocab[w] = len(vocab)
print(f"{len(texts)} reviews, vocab size {len(vocab)}")


class ReviewDataset(Dataset):
    def __init__(self, texts, labels):
        self.texts, self.labels = texts, labels

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, i):
        ids = [vocab.get(w, 1) for w in self.texts[i]]
        return torch.tensor(ids), torch.tensor(self.labels[i])


class GRUClassifier(nn.Module):
    def __init__(self, vocab_size, dim=64):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.fc = nn.Linear(dim, 2)

    def forward(self, x):
        _, h = self.gru(self.emb(x))
        return self.fc(h[-1])


train_dl = DataLoader(ReviewDataset(texts[:1500], labels[:1500]), batch_size=32, shuffle=True)
model = GRUClassifier(len(vocab))
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
loss_fn = nn.CrossEntropyLoss()

for epoch in range(10):
    print(f"epoch {epoch + 1}")
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
'''

S["run11"] = r'''import math
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(11)
gen = np.random.default_rng(11)

T = 50


def sample(n):
    cls = gen.integers(0, 3, size=n)
    level = np.array([-0.4, 0.0, 0.4])[cls]
    tt = np.arange(T) / T
    x = level[:, None] + 0.5 * np.sin(2 * math.pi * gen.uniform(1, 3, size=(n, 1)) * tt)
    x = x + gen.normal(0, 1.0, size=(n, T))
    return torch.tensor(x, dtype=torch.float32).unsqueeze(-1), torch.tensor(cls)


class SeqClf(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.rnn = nn.GRU(1, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 3)

    def forward(self, x):
        h, _ = self.rnn(x)
        return self.out(h[:, -1])


xs_train, ys_train = sample(4000)
xs_val, ys_val = sample(800)

clf = SeqClf()
opt = torch.optim.SGD(clf.parameters(), lr=0.005, momentum=0.9)
ce = nn.CrossEntropyLoss()

BS = 16
for it in range(1, 1201):
    clf.train()
    idx = torch.randint(0, len(xs_train), (BS,))
    logits = clf(xs_train[idx])
    loss = ce(logits, ys_train[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 40 == 0:
        bacc = (logits.argmax(1) == ys_train[idx]).float().mean().item()
        print(f"it {it:04d}  loss {loss.item():.4f}  batch_acc {bacc:.2f}")
    if it % 200 == 0:
        clf.eval()
        with torch.no_grad():
            vo = clf(xs_val)
            print(f"   val @ {it}: loss {ce(vo, ys_val).item():.4f}  acc {(vo.argmax(1) == ys_val).float().mean().item():.3f}")
'''

S["run12"] = r'''import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(12)
rng = np.random.default_rng(12)


def make_moons(n, noise=0.15):
    n1 = n // 2
    a = np.linspace(0, np.pi, n1)
    b = np.linspace(0, np.pi, n - n1)
    upper = np.stack([np.cos(a), np.sin(a)], 1)
    lower = np.stack([1 - np.cos(b), 0.5 - np.sin(b)], 1)
    X = np.concatenate([upper, lower]) + rng.normal(0, noise, size=(n, 2))
    y = np.concatenate([np.zeros(n1), np.ones(n - n1)])
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y, dtype=torch.long)


X, y = make_moons(2000)
perm = torch.randperm(len(X))
X, y = X[perm], y[perm]
Xtr, ytr, Xte, yte = X[:1600], y[:1600], X[1600:], y[1600:]

model = nn.Sequential(
    nn.Linear(2, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 2),
)
LR = 1.0
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
criterion = nn.CrossEntropyLoss()

for epoch in range(1, 31):
    model.train()
    losses, norms = [], []
    order = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), 50):
        idx = order[i:i + 50]
        optimizer.zero_grad()
        loss = criterion(model(Xtr[idx]), ytr[idx])
        loss.backward()
        norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9).item())
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        acc = (model(Xte).argmax(1) == yte).float().mean().item()
    print(f"epoch {epoch:2d} | loss {np.mean(losses):.4f} | max grad_norm {max(norms):.2f} | lr {LR} | test acc {acc:.3f}")
'''


# ----------------------------------------------------------------------------------------
# per-run metadata: what the user says, which stdout lines they paste, ground truth
# ----------------------------------------------------------------------------------------
def lines_matching(lines, pattern):
    return [i for i, l in enumerate(lines) if pattern in l]


def sel_tail(n):
    return lambda L: (len(L) - n, len(L))


def sel_head(n, start=0):
    return lambda L: (start, start + n)


def sel_around_first(pattern, before, after, occurrence=0):
    def f(L):
        i = lines_matching(L, pattern)[occurrence]
        return (max(0, i - before), i + after + 1)
    return f


META = {
    "run01": dict(
        data=None, ship_train=True,
        say="is this run ok? first time training something like this and I want to make sure the numbers look normal before I move on",
        select=sel_tail(6), code=None,
        truth="healthy",
        how="no fault: 4-class synthetic data labelled by a random tanh teacher (10-d, 20k samples), MLP 10-64-64-4, Adam 3e-3 with cosine decay, batch 64, 25 epochs"),
    "run02": dict(
        data=None, ship_train=False,
        say="loss hovers around 0.4 for the first ~120 steps and then starts climbing, and grad_norm just keeps growing the whole time. lr is only 0.03 with plain SGD, loop below",
        select=sel_tail(8), code=("optimizer.zero_grad()", 14),
        truth="missing_zero_grad",
        how="optimizer.zero_grad() called once before the training loop instead of every step, so gradients accumulate (tanh MLP regression, SGD lr 0.03, 200 steps)"),
    "run03": dict(
        data=None, ship_train=True,
        say="my little cnn barely learns anything, 20 epochs in and the loss has hardly moved and val acc is near chance. what am I missing?",
        select=sel_tail(6), code=None,
        truth="lr_too_low",
        how="plain SGD with lr=2e-4 (no momentum) on a small CNN / 4-class synthetic shape images; loss falls almost linearly and very slowly"),
    "run04": dict(
        data=write_gestures_csv, ship_train=True,
        say="crashes right on the first batch. the csv loads fine and the shapes look right to me, no idea what it wants",
        select=sel_tail(7), code=None,
        truth="label_out_of_range",
        how="gesture labels in the csv are 1..10 while the model has num_classes=nunique()=10 outputs; CrossEntropyLoss raises 'Target 10 is out of bounds'"),
    "run05": dict(
        data=None, ship_train=False,
        say="val loss gets worse the longer I train even though train loss keeps dropping, is something broken in my eval?",
        select=sel_head(8), code=None,
        truth="overfitting",
        how="200 training samples, 50 features (5 informative, 10% label flips), MLP 50-256-256-1 with Adam and no regularisation for 200 epochs"),
    "run06": dict(
        data=None, ship_train=True,
        say="loss won't go below ~1.53 and barely moves after the first few epochs, test acc is stuck around 0.82. here's the model + loss:",
        select=sel_tail(5), code=("model = nn.Sequential(", 10),
        truth="double_softmax",
        how="nn.Softmax(dim=1) as the last layer of the model followed by nn.CrossEntropyLoss (10 classes, SGD 0.05 momentum 0.9, 40 epochs)"),
    "run07": dict(
        data=None, ship_train=False,
        say="loss sits at 1.609 from the first epoch and val acc is ~20%, the model never seems to pick anything up. data prep:",
        select=sel_head(6), code=("y = np.random.randint", 8),
        truth="label_misalignment",
        how="X is permuted before the train/val split but y is not, so inputs and labels are unpaired (1D CNN, 5 waveform classes, 15 epochs)"),
    "run08": dict(
        data=write_sensor_csv, ship_train=False,
        say="training goes fine for a while then the loss turns into nan and never comes back. adam lr 1e-3, nothing fancy, any idea?",
        select=sel_around_first("loss nan", 4, 2), code=None,
        truth="nan_in_data",
        how="sensor_log.csv has 3 empty cells (NaN after read_csv); pandas mean/std skip them so normalisation keeps the NaNs and the first batch holding one makes the loss and then the weights NaN"),
    "run09": dict(
        data=None, ship_train=True,
        say="finetuning does nothing at all, loss and val numbers are the same every epoch after the pretraining part (which works fine)",
        select=sel_tail(6), code=None,
        truth="frozen_parameters",
        how="after pretraining, model.head is replaced by a new nn.Linear and the backbone frozen, but the old Adam optimizer (holding the old head's params) is reused, so no trainable parameter is ever updated"),
    "run10": dict(
        data=write_reviews_tsv, ship_train=False,
        say="dataloader blows up on the very first batch, what does this mean?",
        select=sel_tail(4), code=None,
        truth="shape_mismatch",
        how="Dataset returns variable-length token-id tensors and the DataLoader uses the default collate (no padding), so torch.stack fails"),
    "run11": dict(
        data=None, ship_train=False,
        say="is this normal? the loss jumps all over the place between iterations and it took ages to get anywhere, but I think it's fine?",
        select=sel_tail(8), code=None,
        truth="healthy",
        how="no fault: GRU on noisy sequences (3 classes by mean level, Bayes acc ~0.88), batch 16, SGD lr 0.005 momentum 0.9, 1200 iterations; per-batch loss noisy, val improves steadily"),
    "run12": dict(
        data=None, ship_train=True,
        say="loss drops for a couple of epochs and then goes back up and bounces around, and grad_norm gets huge at times. what's going on?",
        select=sel_head(8), code=None,
        truth="lr_too_high",
        how="SGD lr=1.0 with momentum 0.9 on a 2-64-64-2 ReLU MLP for two-moons (lr 0.1 trains fine)"),
}


def run_script(name):
    wd = os.path.join(WORK, name)
    if os.path.isdir(wd):
        shutil.rmtree(wd)
    os.makedirs(wd)
    if META[name]["data"] is not None:
        META[name]["data"](wd)
    with open(os.path.join(wd, "train.py"), "w") as fh:
        fh.write(S[name])
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    p = subprocess.run([PY, "-u", "train.py"], cwd=wd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=300)
    log = p.stdout
    os.makedirs(LOGS, exist_ok=True)
    with open(os.path.join(LOGS, name + ".log"), "w") as fh:
        fh.write(log)
    return log, p.returncode


def build_message(name, log):
    m = META[name]
    lines = log.rstrip("\n").split("\n")
    a, b = m["select"](lines)
    pasted = lines[a:b]
    assert 3 <= len(pasted) <= 8, (name, len(pasted))
    msg = m["say"] + "\n\n```\n" + "\n".join(pasted) + "\n```\n"
    if m["code"] is not None:
        marker, n = m["code"]
        src = S[name].split("\n")
        i = [k for k, l in enumerate(src) if l.startswith(marker)][0]
        excerpt = src[i:i + n]
        while excerpt and not excerpt[-1].strip():
            excerpt.pop()
        assert 5 <= len(excerpt) <= 15
        msg += "\n```python\n" + "\n".join(excerpt) + "\n```\n"
    return msg


def main(argv):
    only = argv[1:] or sorted(S)
    if argv[1:]:
        for name in only:
            log, rc = run_script(name)
            print(f"===== {name} (rc={rc})\n{log}")
        return
    if os.path.isdir(RUNS_DIR):
        shutil.rmtree(RUNS_DIR)
    truth = {}
    for name in only:
        log, rc = run_script(name)
        d = os.path.join(RUNS_DIR, name)
        os.makedirs(d)
        with open(os.path.join(d, "message.txt"), "w") as fh:
            fh.write(build_message(name, log))
        if META[name]["ship_train"]:
            with open(os.path.join(d, "train.py"), "w") as fh:
                fh.write(S[name])
        truth[name] = {"truth": META[name]["truth"], "symptom": META[name]["say"], "how": META[name]["how"]}
        print(f"{name}: rc={rc}, {len(log.splitlines())} log lines")
    with open(os.path.join(OUT, "truth.json"), "w") as fh:
        json.dump(truth, fh, indent=2)


if __name__ == "__main__":
    main(sys.argv)
