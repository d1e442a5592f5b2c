#!/usr/bin/env python3
"""Generate the round-11 "fit tables" runs: each script below is a plain torch training script
that prints a wrapper-style epoch table (fastai / skorch / ignite).  The generator runs each one
on CPU (deterministic seeds), captures stdout+stderr into the run folder, and for about half of
the runs also ships the script as train.py.  Usage:  python gen.py [OUTDIR]"""
import json, os, re, shutil, subprocess, sys, tempfile

PY = os.environ.get("PY", "/work/main/.venv/bin/python")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))

SCRIPTS = {}
SCRIPTS['overfit'] = r'''import time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(99)
rng = np.random.default_rng(99)


def make_moons(n, noise):
    n1 = n // 2
    t1 = rng.uniform(0, np.pi, n1)
    t2 = rng.uniform(0, np.pi, n - n1)
    a = np.column_stack([np.cos(t1), np.sin(t1)])
    b = np.column_stack([1 - np.cos(t2), 0.5 - np.sin(t2)])
    X = np.vstack([a, b]) + rng.normal(0, noise, (n, 2))
    y = np.r_[np.zeros(n1), np.ones(n - n1)].astype(np.int64)
    return X, y


X, y = make_moons(1400, 0.35)
X = np.hstack([X, rng.normal(0, 1, (len(X), 18))]).astype(np.float32)   # + 18 extra sensor channels
p = rng.permutation(len(X))
X, y = X[p], y[p]
X_train, y_train = X[:160], y[:160]
X_valid, y_valid = X[160:], y[160:]

train_iter = DataLoader(TensorDataset(torch.tensor(X_train), torch.tensor(y_train)), batch_size=32, shuffle=True)
valid_iter = DataLoader(TensorDataset(torch.tensor(X_valid), torch.tensor(y_valid)), batch_size=620)

module = nn.Sequential(nn.Linear(20, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                       nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 2))
optimizer = torch.optim.Adam(module.parameters(), lr=5e-4)
criterion = nn.CrossEntropyLoss()

keys = ["epoch", "train_loss", "valid_acc", "valid_loss", "dur"]
widths = [max(len(k) + 2, 6) for k in keys]
print("  ".join(k.rjust(w) for k, w in zip(keys, widths)))
print("  ".join("-" * w for w in widths))
for epoch in range(1, 151):
    tic = time.time()
    module.train()
    acc_loss, seen = 0.0, 0
    for xb, yb in train_iter:
        optimizer.zero_grad()
        loss = criterion(module(xb), yb)
        loss.backward()
        optimizer.step()
        acc_loss += loss.item() * len(yb)
        seen += len(yb)
    module.eval()
    vloss, vcorrect, vseen = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in valid_iter:
            logits = module(xb)
            vloss += criterion(logits, yb).item() * len(yb)
            vcorrect += (logits.argmax(1) == yb).sum().item()
            vseen += len(yb)
    row = [str(epoch), f"{acc_loss / seen:.4f}", f"{vcorrect / vseen:.4f}", f"{vloss / vseen:.4f}", f"{time.time() - tic:.4f}"]
    print("  ".join(r.rjust(w) for r, w in zip(row, widths)), flush=True)
'''

SCRIPTS['evalmode'] = r'''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(21)
rng = np.random.default_rng(21)

CLASSES = ["circle", "square", "triangle", "cross", "ring"]
S = 16
yy, xx = np.mgrid[0:S, 0:S]


def draw(c, cx, cy, r):
    if c == 0:
        m = (xx - cx) ** 2 + (yy - cy) ** 2 <= r ** 2
    elif c == 1:
        m = (abs(xx - cx) <= r) & (abs(yy - cy) <= r)
    elif c == 2:
        m = (yy - cy <= r) & (yy - cy >= -r) & (abs(xx - cx) <= (yy - cy + r) / 2)
    elif c == 3:
        m = ((abs(xx - cx) <= 1) & (abs(yy - cy) <= r)) | ((abs(yy - cy) <= 1) & (abs(xx - cx) <= r))
    else:
        d = (xx - cx) ** 2 + (yy - cy) ** 2
        m = (d <= r ** 2) & (d >= (r - 2) ** 2)
    return m.astype(np.float32)


def load_split(n_per_class, seed):
    g = np.random.default_rng(seed)
    xs, ys = [], []
    for c in range(len(CLASSES)):          # one folder per class
        for _ in range(n_per_class):
            img = draw(c, g.integers(5, 11), g.integers(5, 11), g.integers(3, 6))
            img = img * g.uniform(0.5, 1.0) + g.normal(0, 0.25, (S, S))
            xs.append(img)
            ys.append(c)
    return np.stack(xs)[:, None].astype(np.float32), np.array(ys)


x_tr, y_tr = load_split(600, 1)
x_va, y_va = load_split(150, 2)
mu, sd = x_tr.mean(), x_tr.std()
x_tr, x_va = (x_tr - mu) / sd, (x_va - mu) / sd

train_loader = DataLoader(TensorDataset(torch.tensor(x_tr), torch.tensor(y_tr)), batch_size=64, shuffle=True)
train_eval_loader = DataLoader(TensorDataset(torch.tensor(x_tr), torch.tensor(y_tr)), batch_size=150, shuffle=True)
val_loader = DataLoader(TensorDataset(torch.tensor(x_va), torch.tensor(y_va)), batch_size=150, shuffle=False)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(64, len(CLASSES))

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = self.drop(F.relu(self.fc1(x.flatten(1))))
        return self.fc2(x)


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
criterion = nn.CrossEntropyLoss()
log_interval = 10


def evaluate(loader):
    total, correct, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            loss_sum += criterion(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            total += len(y)
    return correct / total, loss_sum / total


for epoch in range(1, 13):
    model.train()
    for i, (x, y) in enumerate(train_loader, 1):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        if i % log_interval == 0:
            print(f"Epoch[{epoch}] Iteration[{i}/{len(train_loader)}] Loss: {loss.item():.2f}")
    acc, avg = evaluate(train_eval_loader)
    print(f"Training Results - Epoch: {epoch}  Avg accuracy: {acc:.2f} Avg loss: {avg:.2f}")
    acc, avg = evaluate(val_loader)
    print(f"Validation Results - Epoch: {epoch}  Avg accuracy: {acc:.2f} Avg loss: {avg:.2f}", flush=True)
'''

SCRIPTS['healthy_fast'] = r'''import time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(0)
rng = np.random.default_rng(0)

# 4 gaussian clusters in 20-d, 8 informative dims
n, d, k = 4000, 20, 4
centers = rng.normal(0, 1.6, size=(k, 8))
y = rng.integers(0, k, size=n)
X = rng.normal(0, 1, size=(n, d))
X[:, :8] += centers[y]
X = (X - X.mean(0)) / X.std(0)

idx = rng.permutation(n)
tr, va = idx[:3200], idx[3200:]
train_ds = TensorDataset(torch.tensor(X[tr], dtype=torch.float32), torch.tensor(y[tr]))
valid_ds = TensorDataset(torch.tensor(X[va], dtype=torch.float32), torch.tensor(y[va]))
train_dl = DataLoader(train_ds, batch_size=64, shuffle=True)
valid_dl = DataLoader(valid_ds, batch_size=256)

model = nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, k))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()

names = ["epoch", "train_loss", "valid_loss", "accuracy", "time"]
names = [s + " " * (8 - len(s)) if len(s) < 8 else s for s in names]
print("  ".join(names))

smooth, n_seen, beta = 0.0, 0, 0.98
for epoch in range(12):
    t0 = time.time()
    model.train()
    for xb, yb in train_dl:
        loss = loss_fn(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        n_seen += 1
        smooth = beta * smooth + (1 - beta) * loss.item()
    train_loss = smooth / (1 - beta ** n_seen)

    model.eval()
    tot, correct, count = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in valid_dl:
            out = model(xb)
            tot += loss_fn(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            count += len(yb)
    el = int(time.time() - t0)
    vals = [str(epoch), f"{train_loss:.6f}", f"{tot / count:.6f}", f"{correct / count:.6f}", f"{el // 60:02d}:{el % 60:02d}"]
    print("".join(v + " " * (2 + len(nm) - len(v)) for v, nm in zip(vals, names)), flush=True)
'''

SCRIPTS['unnorm'] = r'''import time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(42)
rng = np.random.default_rng(42)

n = 6000
age = rng.uniform(21, 70, n)
income = rng.lognormal(10.8, 0.5, n)
loan_amount = rng.lognormal(9.5, 0.8, n)
credit_lines = rng.poisson(4, n)
utilization = rng.beta(2, 5, n)
months_employed = rng.integers(0, 360, n)
score = (0.03 * (age - 45) + 1.2 * np.log(income / loan_amount) - 4.0 * utilization
         + 0.004 * months_employed - 0.15 * credit_lines + rng.normal(0, 0.6, n))
y = (score > np.median(score)).astype(np.int64)
X = np.column_stack([age, income, loan_amount, credit_lines, utilization, months_employed]).astype(np.float32)

idx = rng.permutation(n)
tr, va = idx[:4800], idx[4800:]
train_dl = DataLoader(TensorDataset(torch.tensor(X[tr]), torch.tensor(y[tr])), batch_size=64, shuffle=True)
valid_dl = DataLoader(TensorDataset(torch.tensor(X[va]), torch.tensor(y[va])), batch_size=600)

net = nn.Sequential(nn.Linear(6, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 2))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

cols = ["epoch", "train_loss", "valid_acc", "valid_loss", "dur"]
w = [max(len(c) + 2, 6) for c in cols]
print("  ".join(c.rjust(k) for c, k in zip(cols, w)))
print("  ".join("-" * k for k in w))
for epoch in range(1, 26):
    t0 = time.time()
    net.train()
    s, m = 0.0, 0
    for xb, yb in train_dl:
        optimizer.zero_grad()
        loss = criterion(net(xb), yb)
        loss.backward()
        optimizer.step()
        s += loss.item() * len(yb)
        m += len(yb)
    net.eval()
    with torch.no_grad():
        xb, yb = next(iter(valid_dl))
        out = net(xb)
        vloss = criterion(out, yb).item()
        vacc = (out.argmax(1) == yb).float().mean().item()
    vals = [f"{epoch}", f"{s / m:.4f}", f"{vacc:.4f}", f"{vloss:.4f}", f"{time.time() - t0:.4f}"]
    print("  ".join(v.rjust(k) for v, k in zip(vals, w)), flush=True)
'''

SCRIPTS['misalign'] = r'''import time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
np.random.seed(11)
torch.manual_seed(11)

N_CLASSES, SIZE = 10, 12


def render(n_per_class):
    protos = np.random.rand(N_CLASSES, SIZE, SIZE) > 0.55
    imgs, labels = [], []
    for c in range(N_CLASSES):
        for _ in range(n_per_class):
            img = protos[c].astype(np.float32)
            img = np.roll(img, np.random.randint(-1, 2), axis=np.random.randint(0, 2))
            img = img + np.random.normal(0, 0.5, img.shape)
            imgs.append(img)
            labels.append(c)
    return np.stack(imgs)[:, None].astype(np.float32), np.array(labels)


images, labels = render(400)
images = (images - images.mean()) / images.std()

np.random.shuffle(images)
np.random.shuffle(labels)

n_valid = 800
x_train, y_train = images[n_valid:], labels[n_valid:]
x_valid, y_valid = images[:n_valid], labels[:n_valid]

train_dl = DataLoader(TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train)), batch_size=64, shuffle=True)
valid_dl = DataLoader(TensorDataset(torch.from_numpy(x_valid), torch.from_numpy(y_valid)), batch_size=256)

model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(32 * 3 * 3, 64), nn.ReLU(), nn.Linear(64, N_CLASSES),
)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-2)
loss_func = nn.CrossEntropyLoss()

cols = ["epoch", "train_loss", "valid_loss", "accuracy", "time"]
cols = [c.ljust(8) for c in cols]
print("  ".join(cols))
for epoch in range(10):
    start = time.time()
    model.train()
    run, nb = 0.0, 0
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = loss_func(model(xb), yb)
        loss.backward()
        opt.step()
        run += loss.item(); nb += 1
    model.eval()
    vloss, vacc, vn = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in valid_dl:
            p = model(xb)
            vloss += loss_func(p, yb).item() * len(yb)
            vacc += (p.argmax(-1) == yb).sum().item()
            vn += len(yb)
    secs = int(time.time() - start)
    out = [f"{epoch}", f"{run / nb:.6f}", f"{vloss / vn:.6f}", f"{vacc / vn:.6f}", f"{secs // 60:02d}:{secs % 60:02d}"]
    print("".join(o.ljust(len(c) + 2) for o, c in zip(out, cols)), flush=True)
'''

SCRIPTS['oor'] = r'''import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(4)
rng = np.random.default_rng(4)

VOCAB, MAXLEN, N_STARS = 2000, 40, 5


def fake_reviews(n):
    # token ids; tokens 1..50 lean negative, 51..100 lean positive, rest neutral
    stars = rng.integers(1, N_STARS + 1, n)
    rows = []
    for s in stars:
        L = rng.integers(12, MAXLEN)
        toks = rng.integers(101, VOCAB, L)
        k = rng.integers(2, 6)
        pos = rng.choice(L, k, replace=False)
        if s <= 2:
            toks[pos] = rng.integers(1, 51, k)
        elif s >= 4:
            toks[pos] = rng.integers(51, 101, k)
        if s in (1, 5):
            toks[rng.choice(L, 2, replace=False)] = rng.integers(1, 51, 2) if s == 1 else rng.integers(51, 101, 2)
        rows.append(" ".join(map(str, toks)))
    return pd.DataFrame({"text": rows, "stars": stars})


train_df = fake_reviews(6000)
val_df = fake_reviews(1000)


class Reviews(Dataset):
    def __init__(self, texts, labels):
        self.texts, self.labels = list(texts), list(labels)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        ids = [int(t) for t in self.texts[i].split()]
        ids = (ids + [0] * MAXLEN)[:MAXLEN]
        return torch.tensor(ids), torch.tensor(self.labels[i])


train_ds = Reviews(train_df.text, train_df.stars - 1)
val_ds = Reviews(val_df.text, val_df.stars)
train_loader = DataLoader(train_ds, batch_size=50, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=250)


class BagModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(VOCAB, 64, mode="mean", padding_idx=0)
        self.fc = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, N_STARS))

    def forward(self, ids):
        return self.fc(self.emb(ids))


model = BagModel()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
criterion = nn.CrossEntropyLoss()

for epoch in range(1, 11):
    model.train()
    for i, (ids, y) in enumerate(train_loader, 1):
        optimizer.zero_grad()
        loss = criterion(model(ids), y)
        loss.backward()
        optimizer.step()
        if i % 20 == 0:
            print("Epoch[{}] Iteration[{}/{}] Loss: {:.2f}".format(epoch, i, len(train_loader), loss.item()))
    model.eval()
    n_ok, n, tot = 0, 0, 0.0
    with torch.no_grad():
        for ids, y in val_loader:
            out = model(ids)
            tot += criterion(out, y).item() * len(y)
            n_ok += (out.argmax(1) == y).sum().item()
            n += len(y)
    print("Validation Results - Epoch: {}  Avg accuracy: {:.2f} Avg loss: {:.2f}".format(epoch, n_ok / n, tot / n), flush=True)
'''

SCRIPTS['frozen'] = r'''import time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(8)
rng = np.random.default_rng(8)

D = 30
proj = rng.normal(0, 1, (6, D))


def make_task(n, n_classes, spread):
    z_centers = rng.normal(0, spread, (n_classes, 6))
    y = rng.integers(0, n_classes, n)
    z = z_centers[y] + rng.normal(0, 1, (n, 6))
    X = z @ proj + rng.normal(0, 0.5, (n, D))
    return X.astype(np.float32), y


def loaders(X, y, n_val):
    tr = DataLoader(TensorDataset(torch.tensor(X[n_val:]), torch.tensor(y[n_val:])), batch_size=64, shuffle=True)
    va = DataLoader(TensorDataset(torch.tensor(X[:n_val]), torch.tensor(y[:n_val])), batch_size=256)
    return tr, va


class Net(nn.Module):
    def __init__(self, n_out):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU())
        self.head = nn.Linear(64, n_out)

    def forward(self, x):
        return self.head(self.body(x))


def fit(model, optimizer, train_dl, valid_dl, epochs):
    crit = nn.CrossEntropyLoss()
    cols = ["epoch", "train_loss", "valid_acc", "valid_loss", "dur"]
    w = [max(len(c) + 2, 6) for c in cols]
    print("  ".join(c.rjust(k) for c, k in zip(cols, w)))
    print("  ".join("-" * k for k in w))
    for ep in range(1, epochs + 1):
        t0 = time.time()
        model.train()
        tot, cnt = 0.0, 0
        for xb, yb in train_dl:
            optimizer.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            optimizer.step()
            tot += loss.item() * len(yb)
            cnt += len(yb)
        model.eval()
        vl, vc, vn = 0.0, 0, 0
        with torch.no_grad():
            for xb, yb in valid_dl:
                out = model(xb)
                vl += crit(out, yb).item() * len(yb)
                vc += (out.argmax(1) == yb).sum().item()
                vn += len(yb)
        row = [f"{ep}", f"{tot / cnt:.4f}", f"{vc / vn:.4f}", f"{vl / vn:.4f}", f"{time.time() - t0:.4f}"]
        print("  ".join(r.rjust(k) for r, k in zip(row, w)), flush=True)


# stage 1: pretrain on the big source task
Xs, ys = make_task(8000, 10, 2.0)
src_train, src_valid = loaders(Xs, ys, 1000)
model = Net(10)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
print("Pretraining on source task (10 classes)")
fit(model, optimizer, src_train, src_valid, epochs=6)

# stage 2: fine-tune a new head on the small target task
Xt, yt = make_task(1200, 3, 1.5)
tgt_train, tgt_valid = loaders(Xt, yt, 300)
for p in model.body.parameters():
    p.requires_grad = False
model.head = nn.Linear(64, 3)
print()
print("Fine-tuning on target task (3 classes)")
fit(model, optimizer, tgt_train, tgt_valid, epochs=20)
'''

SCRIPTS['preproc'] = r'''import time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(17)
rng = np.random.default_rng(17)

N_CLASSES, H = 8, 20


def synth_textures(n):
    # 8 texture classes: oriented stripes at different angles/frequencies, uint8 like a PNG folder
    yy, xx = np.mgrid[0:H, 0:H]
    labels = rng.integers(0, N_CLASSES, n)
    imgs = np.empty((n, H, H), dtype=np.uint8)
    for i, c in enumerate(labels):
        ang = np.pi * (c % 4) / 4 + rng.normal(0, 0.12)
        freq = 0.25 if c < 4 else 0.5
        phase = rng.uniform(0, 2 * np.pi)
        pat = np.sin(freq * (xx * np.cos(ang) + yy * np.sin(ang)) + phase)
        img = 150 + 70 * pat + rng.normal(0, 40, (H, H))
        imgs[i] = np.clip(img, 0, 255).astype(np.uint8)
    return imgs, labels


class ImageSet(Dataset):
    def __init__(self, imgs, labels, tfm):
        self.imgs, self.labels, self.tfm = imgs, labels, tfm

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.tfm(self.imgs[i]), int(self.labels[i])


MEAN, STD = 150.0, 55.0


def train_tfm(img):
    x = torch.from_numpy(img).float()
    if torch.rand(1).item() < 0.5:
        x = x.flip(0).flip(1)
    return ((x - MEAN) / STD)[None]


def valid_tfm(img):
    return (torch.from_numpy(img).float() / 255.0)[None]


imgs, labels = synth_textures(4000)
train_ds = ImageSet(imgs[:3200], labels[:3200], train_tfm)
valid_ds = ImageSet(imgs[3200:], labels[3200:], valid_tfm)
train_dl = DataLoader(train_ds, batch_size=64, shuffle=True)
valid_dl = DataLoader(valid_ds, batch_size=200)

model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
    nn.Flatten(), nn.Linear(32, N_CLASSES),
)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
loss_func = nn.CrossEntropyLoss()

names = [c.ljust(8) for c in ["epoch", "train_loss", "valid_loss", "accuracy", "time"]]
print("  ".join(names))
avg, steps = 0.0, 0
for epoch in range(8):
    t = time.time()
    model.train()
    for xb, yb in train_dl:
        loss = loss_func(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        steps += 1
        avg = 0.98 * avg + 0.02 * loss.item()
    model.eval()
    vl, va, vn = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in valid_dl:
            p = model(xb)
            vl += loss_func(p, yb).item() * len(yb)
            va += (p.argmax(1) == yb).sum().item()
            vn += len(yb)
    s = int(time.time() - t)
    row = [str(epoch), f"{avg / (1 - 0.98 ** steps):.6f}", f"{vl / vn:.6f}", f"{va / vn:.6f}", f"{s // 60:02d}:{s % 60:02d}"]
    print("".join(r.ljust(len(nm) + 2) for r, nm in zip(row, names)), flush=True)
'''

SCRIPTS['nozero'] = r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(13)
rng = np.random.default_rng(13)

SEQ_LEN, N_CLASSES = 30, 4


def make_sequences(n):
    # each class is a sine burst with its own frequency, placed at a random offset, in noise
    freqs = [0.15, 0.3, 0.45, 0.6]
    y = rng.integers(0, N_CLASSES, n)
    t = np.arange(SEQ_LEN)
    X = rng.normal(0, 0.5, (n, SEQ_LEN))
    for i in range(n):
        start = rng.integers(0, SEQ_LEN - 16)
        X[i, start:start + 16] += 1.5 * np.sin(2 * np.pi * freqs[y[i]] * t[:16] + rng.uniform(0, 6.28))
    return torch.tensor(X[..., None], dtype=torch.float32), torch.tensor(y)


x_train, y_train = make_sequences(4000)
x_val, y_val = make_sequences(800)
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=32, shuffle=True)
val_loader = DataLoader(TensorDataset(x_val, y_val), batch_size=200)


class GRUClassifier(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.out = nn.Linear(hidden, N_CLASSES)

    def forward(self, x):
        _, h = self.gru(x)
        return self.out(h[-1])


model = GRUClassifier()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
criterion = nn.CrossEntropyLoss()

for epoch in range(1, 9):
    model.train()
    for it, (x, y) in enumerate(train_loader, 1):
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        if it % 25 == 0:
            print("Epoch[{}] Iteration[{}/{}] Loss: {:.2f}".format(epoch, it, len(train_loader), loss.item()))
    model.eval()
    correct, total, val_loss = 0, 0, 0.0
    with torch.no_grad():
        for x, y in val_loader:
            logits = model(x)
            val_loss += criterion(logits, y).item() * len(y)
            correct += (logits.argmax(1) == y).sum().item()
            total += len(y)
    print("Validation Results - Epoch: {}  Avg accuracy: {:.2f} Avg loss: {:.2f}".format(epoch, correct / total, val_loss / total), flush=True)
'''

SCRIPTS['healthy_noisy'] = r'''import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(7)
rng = np.random.default_rng(7)


def make_glyphs(n, n_classes=6, size=16, noise=1.8):
    # smooth random templates, randomly shifted and noised
    base = rng.normal(size=(n_classes, size, size))
    k = np.ones(5) / 5
    for _ in range(2):
        base = np.apply_along_axis(lambda r: np.convolve(r, k, mode="same"), 1, base)
        base = np.apply_along_axis(lambda r: np.convolve(r, k, mode="same"), 2, base)
    base = (base - base.mean()) / base.std()
    base = 0.6 * base.mean(0, keepdims=True) + 0.4 * base
    y = rng.integers(0, n_classes, size=n)
    X = np.empty((n, 1, size, size), dtype=np.float32)
    for i in range(n):
        dx, dy = rng.integers(-3, 4, size=2)
        X[i, 0] = np.roll(np.roll(base[y[i]], dx, 0), dy, 1) + rng.normal(0, noise, (size, size))
    return X, y


X, y = make_glyphs(6000)
X = (X - X.mean()) / X.std()
Xtr, ytr, Xva, yva = X[:5400], y[:5400], X[5400:], y[5400:]

train_dl = DataLoader(TensorDataset(torch.tensor(Xtr), torch.tensor(ytr)), batch_size=16, shuffle=True)
valid_dl = DataLoader(TensorDataset(torch.tensor(Xva), torch.tensor(yva)), batch_size=128)


class SmallCNN(nn.Module):
    def __init__(self, n_classes=6):
        super().__init__()
        self.c1 = nn.Conv2d(1, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, padding=1)
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(16 * 4 * 4, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(self.drop(x.flatten(1)))


model = SmallCNN()
opt = torch.optim.SGD(model.parameters(), lr=0.004, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()

names = ["epoch", "train_loss", "valid_loss", "error_rate", "time"]
names = [s + " " * (8 - len(s)) if len(s) < 8 else s for s in names]
print("  ".join(names))

smooth, n_seen, beta = 0.0, 0, 0.98
for epoch in range(20):
    t0 = time.time()
    model.train()
    for xb, yb in train_dl:
        loss = loss_fn(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        n_seen += 1
        smooth = beta * smooth + (1 - beta) * loss.item()
    train_loss = smooth / (1 - beta ** n_seen)
    model.eval()
    tot, wrong, count = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in valid_dl:
            out = model(xb)
            tot += loss_fn(out, yb).item() * len(yb)
            wrong += (out.argmax(1) != yb).sum().item()
            count += len(yb)
    el = int(time.time() - t0)
    vals = [str(epoch), f"{train_loss:.6f}", f"{tot / count:.6f}", f"{wrong / count:.6f}", f"{el // 60:02d}:{el % 60:02d}"]
    print("".join(v + " " * (2 + len(nm) - len(v)) for v, nm in zip(vals, names)), flush=True)
'''

SCRIPTS['leak'] = r'''import time
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(3)
rng = np.random.default_rng(3)

# --- build the customer table -------------------------------------------------
n = 5000
df = pd.DataFrame({
    "tenure_months": rng.integers(1, 72, n),
    "monthly_charges": rng.normal(70, 25, n).clip(15, 150),
    "support_calls": rng.poisson(1.5, n),
    "contract_len": rng.choice([1, 12, 24], n, p=[0.5, 0.3, 0.2]),
    "late_payments": rng.poisson(0.7, n),
})
logit = (-0.04 * df.tenure_months + 0.015 * df.monthly_charges + 0.35 * df.support_calls
         - 0.06 * df.contract_len + 0.4 * df.late_payments - 0.4 + rng.normal(0, 1.2, n))
df["churned"] = (logit > 0).astype(int)
df["account_status_code"] = np.where(df.churned == 1, rng.integers(3, 6, n), rng.integers(0, 3, n))
df["days_since_last_login"] = rng.exponential(10, n) + 20 * df.churned

features = ["tenure_months", "monthly_charges", "support_calls", "contract_len",
            "late_payments", "account_status_code", "days_since_last_login"]
X = df[features].values.astype(np.float32)
y = df["churned"].values
X = (X - X.mean(0)) / X.std(0)

perm = rng.permutation(n)
tr, va = perm[:4000], perm[4000:]
train_dl = DataLoader(TensorDataset(torch.tensor(X[tr]), torch.tensor(y[tr])), batch_size=128, shuffle=True)
valid_dl = DataLoader(TensorDataset(torch.tensor(X[va]), torch.tensor(y[va])), batch_size=512)

model = nn.Sequential(nn.Linear(len(features), 32), nn.ReLU(), nn.Dropout(0.2),
                      nn.Linear(32, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 2))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
crit = nn.CrossEntropyLoss()

header = ["epoch", "train_loss", "valid_acc", "valid_loss", "dur"]
widths = [len(h) + 2 if h != "dur" else 6 for h in header]
print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
print("  ".join("-" * w for w in widths))
for epoch in range(1, 16):
    t0 = time.time()
    model.train()
    tl, tn = 0.0, 0
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
        tl += loss.item() * len(yb)
        tn += len(yb)
    model.eval()
    vl, vc, vn = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in valid_dl:
            out = model(xb)
            vl += crit(out, yb).item() * len(yb)
            vc += (out.argmax(1) == yb).sum().item()
            vn += len(yb)
    row = [str(epoch), f"{tl / tn:.4f}", f"{vc / vn:.4f}", f"{vl / vn:.4f}", f"{time.time() - t0:.4f}"]
    print("  ".join(v.rjust(w) for v, w in zip(row, widths)), flush=True)
'''

SCRIPTS['noshuffle'] = r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(5)
rng = np.random.default_rng(5)

# sensor windows exported per activity class (walk, run, sit, stand, stairs)
n_classes, per_class, n_feat = 5, 500, 24
means = rng.normal(0, 1.0, (n_classes, n_feat))
X = np.concatenate([means[c] + rng.normal(0, 2.0, (per_class, n_feat)) for c in range(n_classes)])
y = np.repeat(np.arange(n_classes), per_class)
Xv = np.concatenate([means[c] + rng.normal(0, 2.0, (100, n_feat)) for c in range(n_classes)])
yv = np.repeat(np.arange(n_classes), 100)
mu, sd = X.mean(0), X.std(0)
X, Xv = (X - mu) / sd, (Xv - mu) / sd

train_loader = DataLoader(TensorDataset(torch.tensor(X, dtype=torch.float32), torch.tensor(y)), batch_size=25)
val_loader = DataLoader(TensorDataset(torch.tensor(Xv, dtype=torch.float32), torch.tensor(yv)), batch_size=100)

model = nn.Sequential(nn.Linear(n_feat, 48), nn.Tanh(), nn.Linear(48, n_classes))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
criterion = nn.CrossEntropyLoss()

for epoch in range(1, 7):
    model.train()
    for it, (xb, yb) in enumerate(train_loader, 1):
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        if it % 4 == 0:
            print("Epoch[{}] Iteration[{}/{}] Loss: {:.2f}".format(epoch, it, len(train_loader), loss.item()))
    model.eval()
    with torch.no_grad():
        correct, total, ls = 0, 0, 0.0
        for xb, yb in val_loader:
            out = model(xb)
            ls += criterion(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            total += len(yb)
    print("Validation Results - Epoch: {}  Avg accuracy: {:.2f} Avg loss: {:.2f}".format(epoch, correct / total, ls / total), flush=True)
'''

# name, script, style, log file, ship train.py, truth, symptom, how
RUNS = [
 ('run01', 'overfit', 'skorch', 'train.log', False, 'overfitting', 'Validation loss went down for the first few epochs but since then it only goes up, while train loss keeps dropping to ~0. Valid accuracy also slipped a bit. Should I just stop early or is something else wrong?', '160 training samples (2 moons + 18 pure-noise features), 3x256 MLP, Adam 5e-4, no regularisation, 150 epochs; 1240 validation samples.'),
 ('run02', 'evalmode', 'ignite', 'output.txt', True, 'eval_mode_forgotten', 'Training accuracy climbs to ~93% but validation accuracy stays around 55-60% with validation loss ~1.3, even though the validation images are drawn the same way as the training ones.', 'CNN with BatchNorm and Dropout(0.5); evaluate() never calls model.eval(), and the validation set is stored class by class with shuffle=False, so BatchNorm uses batch statistics of single-class batches and dropout stays on.'),
 ('run03', 'healthy_fast', 'fastai', 'output.txt', True, 'healthy', 'Is this run ok? Anything I should fix before I scale it up?', 'Standardised 4-class Gaussian-cluster data, 2x64 MLP, Adam 1e-3, 12 epochs; nothing planted.'),
 ('run04', 'unnorm', 'skorch', 'train.log', False, 'unnormalized_inputs', "The loss of my binary classifier is in the tens and jumps around every epoch, and validation accuracy bounces between 53% and 77%. What's wrong with it?", 'Raw tabular features fed to the MLP without scaling (income ~5e4, loan amount ~1e4, age ~45, utilisation ~0.3); Adam 1e-3. Same script with standardised features reaches valid_loss ~0.30, acc ~0.87.'),
 ('run05', 'misalign', 'fastai', 'train.log', True, 'label_misalignment', 'My small CNN never gets above ~10% validation accuracy on 10 classes and the validation loss sits at 2.30 the whole time; train loss only starts to creep down near the end.', 'images and labels shuffled with two separate np.random.shuffle calls before the split, so every pairing is random. With a single shared permutation the same script reaches 99% accuracy.'),
 ('run06', 'oor', 'ignite', 'output.txt', False, 'label_out_of_range', 'Training crashed at the end of the first epoch, right when validation starts. Training loss looked fine.', 'Star ratings 1..5 shifted to 0..4 for the training Dataset (stars - 1) but passed raw for validation; the 5-way head gets target 5 -> IndexError: Target 5 is out of bounds in cross_entropy.'),
 ('run07', 'frozen', 'skorch', 'output.txt', True, 'frozen_parameters', 'Pretraining looked fine, but during fine-tuning every number is exactly the same from one epoch to the next.', 'After pretraining, the body is frozen (requires_grad=False) and a new head replaces model.head, but the optimizer built before the swap is reused: it holds only the frozen body and the discarded old head, so no parameter of the model is updated.'),
 ('run08', 'preproc', 'fastai', 'train.log', False, 'preprocessing_mismatch', 'Training loss goes down nicely but validation accuracy is at chance and the validation loss gets worse every epoch, from the very first one.', 'Training transform standardises uint8 images with (x-150)/55 (plus 180-degree flips); the validation transform only divides by 255. With the same transform on both, valid accuracy is ~99%.'),
 ('run09', 'nozero', 'ignite', 'train.log', True, 'missing_zero_grad', "Loss goes down for the first couple of epochs and then keeps climbing; by the end it's much worse than at the start and validation accuracy is back to chance.", 'optimizer.zero_grad() is never called in the GRU training loop (Adam 3e-3), so gradients accumulate across all steps. With zero_grad the same script reaches 99% validation accuracy.'),
 ('run10', 'healthy_noisy', 'fastai', 'output.txt', False, 'healthy', 'Validation error jumps around from epoch to epoch and only improves slowly. Is this run fine or is something broken?', 'Hard, noisy 6-class synthetic image task, small CNN with dropout, SGD lr 0.004 momentum 0.9, batch 16, 20 epochs; nothing planted (noisy, slow but improving).'),
 ('run11', 'leak', 'skorch', 'train.log', True, 'data_leakage', 'Validation accuracy is 97% after one epoch and 100% by epoch 5, with validation loss below training loss. Our previous model only got about 75% on this churn data. Is this real?', 'Two input columns are built from the target (account_status_code ranges 3-5 for churners and 0-2 otherwise; days_since_last_login gets +20 for churners). Without these two columns the same model reaches ~0.75 valid accuracy.'),
 ('run12', 'noshuffle', 'ignite', 'output.txt', False, 'data_not_shuffled', 'The logged batch loss spikes to 5-20 at the same points in every epoch and the validation loss is huge, even though accuracy creeps up slowly.', 'Training data stored class by class (5 blocks of 500) and the DataLoader has no shuffle=True; SGD 0.05 momentum 0.9. With shuffle=True validation reaches ~0.80 accuracy and loss ~0.57.'),
]

USERS = ["mkovacs", "jdiaz", "priya", "tom", "lwei", "sara"]


def sanitize(text, tmpdir, name, i):
    home = "/home/" + USERS[i % len(USERS)]
    text = text.replace(tmpdir, home + "/projects/" + name)
    text = re.sub(r'File "[^"]*/site-packages/', 'File "' + home + '/.venv/lib/python3.11/site-packages/', text)
    return text


def main():
    runs_dir = os.path.join(OUT, "runs")
    os.makedirs(runs_dir, exist_ok=True)
    truth = {}
    for i, (name, key, style, logname, ship, tru, symptom, how) in enumerate(RUNS):
        rd = os.path.join(runs_dir, name)
        shutil.rmtree(rd, ignore_errors=True)
        os.makedirs(rd)
        with tempfile.TemporaryDirectory() as td:
            with open(os.path.join(td, "train.py"), "w") as f:
                f.write(SCRIPTS[key])
            env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1")
            p = subprocess.run([PY, "train.py"], cwd=td, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            log = sanitize(p.stdout, td, name, i)
        with open(os.path.join(rd, logname), "w") as f:
            f.write(log)
        if ship:
            with open(os.path.join(rd, "train.py"), "w") as f:
                f.write(SCRIPTS[key])
        truth[name] = {"truth": tru, "symptom": symptom, "how": how}
        print(f"{name}: rc={p.returncode} lines={log.count(chr(10))} ({style}, {tru})", flush=True)
    with open(os.path.join(OUT, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
