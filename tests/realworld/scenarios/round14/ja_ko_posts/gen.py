#!/usr/bin/env python3
"""Generate 12 benchmark runs styled as Japanese / Korean Q&A posts.

Each run's user script is really executed on CPU (torch.set_num_threads(1)) in a scratch
work folder; its console output becomes runs/<name>/train_log.txt. Only what a poster would
attach lands in runs/<name>/ (question.md, train_log.txt, and for some runs train.py or a
verbatim excerpt snippet.py). The ground truth goes to truth.json.

Usage: /work/main/.venv/bin/python gen.py [run01 run05 ...]
"""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent
RUNS = OUT / "runs"
WORK = OUT / "_work"
PY = sys.executable

# ---------------------------------------------------------------- data preparation scripts
PREP04 = r'''
import numpy as np
rng = np.random.default_rng(4)
n, d, k = 6000, 16, 3
centers = rng.normal(0, 1.6, (k, d))
y = rng.integers(0, k, n)
X = centers[y] + rng.normal(0, 1.0, (n, d))
np.save("features.npy", X.astype(np.float32))
np.save("labels.npy", y.astype(np.int64))
'''

PREP05 = r'''
import numpy as np, pandas as pd
rng = np.random.default_rng(5)
n = 4000
age = rng.integers(22, 70, n)
income = np.round(rng.lognormal(np.log(5.0e6), 0.45, n), -3)
years = np.clip(age - 22 - rng.integers(0, 10, n), 0, None)
loan = np.round(income * rng.uniform(0.2, 3.0, n), -3)
accounts = rng.integers(1, 8, n)
late = rng.poisson(0.6, n)
z = 1.6 * np.log(loan / income) + 0.9 * late - 0.04 * years + 0.15 * accounts - 0.3 + 0.5 * rng.standard_normal(n)
default = (z > 0).astype(int)
pd.DataFrame(dict(age=age, annual_income=income.astype(int), years_employed=years, loan_amount=loan.astype(int),
                  num_accounts=accounts, late_payments=late, default=default)).to_csv("loan_data.csv", index=False)
'''

PREP08 = r'''
import numpy as np, torch, torch.nn as nn
torch.set_num_threads(1)
torch.manual_seed(8)
rng = np.random.default_rng(8)
yy, xx = np.mgrid[0:16, 0:16]
def img(c):
    cy, cx = rng.uniform(5, 11, 2); r = rng.uniform(2.5, 5)
    d = np.hypot(yy - cy, xx - cx)
    m = [np.abs(d - r) < 0.8, d < r, (np.abs(yy - cy) < r) & (np.abs(xx - cx) < r),
         (np.abs(yy - cy) < 0.8) & (np.abs(xx - cx) < r + 1), (np.abs(xx - cx) < 0.8) & (np.abs(yy - cy) < r + 1),
         ((np.abs(yy - cy) < 0.8) | (np.abs(xx - cx) < 0.8)) & (d < r + 1)][c]
    return (m + 0.35 * rng.standard_normal((16, 16))).astype(np.float32)
def make(n, classes):
    y = rng.choice(classes, n)
    return np.stack([img(c) for c in y])[:, None], y
class FeatureNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Flatten(), nn.Linear(512, 64), nn.ReLU())
    def forward(self, x): return self.conv(x)
# source task: 3 classes (circle ring, disk, square)
Xs, ys = make(3000, [0, 1, 2])
Xs_t, ys_t = torch.tensor(Xs), torch.tensor(ys)
fn = FeatureNet(); head = nn.Linear(64, 3)
opt = torch.optim.Adam(list(fn.parameters()) + list(head.parameters()), 1e-3)
for ep in range(6):
    perm = torch.randperm(len(Xs_t))
    for i in range(0, len(perm), 64):
        b = perm[i:i+64]; opt.zero_grad()
        l = nn.functional.cross_entropy(head(fn(Xs_t[b])), ys_t[b]); l.backward(); opt.step()
    print('pretrain', ep, l.item())
torch.save(fn.state_dict(), "backbone.pt")
Xt, yt = make(2000, [0, 1, 2, 3, 4, 5]); Xv, yv = make(500, [0, 1, 2, 3, 4, 5])
np.savez("shapes_train.npz", x=Xt, y=yt); np.savez("shapes_val.npz", x=Xv, y=yv)
'''

PREP11 = r'''
import numpy as np, pandas as pd
rng = np.random.default_rng(11)
n = 5000
tenure = rng.integers(1, 72, n)
monthly = np.round(rng.uniform(20, 120, n), 2)
support_calls = rng.poisson(1.5, n)
contract = rng.choice([0, 1, 2], n, p=[0.5, 0.3, 0.2])
age = rng.integers(18, 80, n)
data_gb = np.round(rng.gamma(2.0, 8.0, n), 1)
z = -0.035 * tenure + 0.018 * monthly + 0.35 * support_calls - 0.8 * contract - 0.4 + 1.0 * rng.standard_normal(n)
churn = (z > 0).astype(int)
cancel_requests = np.where(churn == 1, rng.poisson(1.2, n) + 1, 0)
cancel_requests[(churn == 0) & (rng.random(n) < 0.01)] = 1
df = pd.DataFrame(dict(customer_id=[f"C{100000+i}" for i in range(n)], tenure_months=tenure, monthly_fee=monthly,
                       support_calls=support_calls, contract_type=contract, age=age, data_usage_gb=data_gb,
                       cancel_requests=cancel_requests, churn=churn))
df.to_csv("customers.csv", index=False); print(churn.mean())
'''

# ---------------------------------------------------------------- the users' scripts
S01 = r'''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
np.random.seed(7)
torch.manual_seed(7)

N, D = 360, 60
X = np.random.randn(N, D).astype(np.float32)
w = np.zeros(D, dtype=np.float32)
w[:6] = [1.4, -1.8, 1.0, 0.9, -1.1, 0.7]
score = X @ w + 1.2 * np.random.randn(N)
y = (score > 0).astype(np.int64)

X_train, y_train = X[:220], y[:220]
X_val, y_val = X[220:], y[220:]

train_loader = DataLoader(TensorDataset(torch.tensor(X_train), torch.tensor(y_train)), batch_size=32, shuffle=True)
X_val_t, y_val_t = torch.tensor(X_val), torch.tensor(y_val)

model = nn.Sequential(
    nn.Linear(D, 512), nn.ReLU(),
    nn.Linear(512, 512), nn.ReLU(),
    nn.Linear(512, 2),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)

EPOCHS = 120
for epoch in range(1, EPOCHS + 1):
    model.train()
    tot, correct, n = 0.0, 0, 0
    for xb, yb in train_loader:
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(xb)
        correct += (out.argmax(1) == yb).sum().item()
        n += len(xb)
    model.eval()
    with torch.no_grad():
        vo = model(X_val_t)
        vloss = criterion(vo, y_val_t).item()
        vacc = (vo.argmax(1) == y_val_t).float().mean().item()
    print(f"Epoch {epoch:03d}/{EPOCHS} - loss: {tot/n:.4f} - accuracy: {correct/n:.4f} - val_loss: {vloss:.4f} - val_accuracy: {vacc:.4f}")
'''
S02 = r'''
import math
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(0)
np.random.seed(0)


def make_moons(n, noise=0.2):
    n1 = n // 2
    n2 = n - n1
    t1 = np.linspace(0, math.pi, n1)
    t2 = np.linspace(0, math.pi, n2)
    x1 = np.stack([np.cos(t1), np.sin(t1)], 1)
    x2 = np.stack([1 - np.cos(t2), 0.5 - np.sin(t2)], 1)
    X = np.concatenate([x1, x2]) + noise * np.random.randn(n, 2)
    y = np.concatenate([np.zeros(n1), np.ones(n2)])
    return X.astype(np.float32), y.astype(np.int64)


X, y = make_moons(2000)
perm = np.random.permutation(len(X))
X, y = X[perm], y[perm]
X_train, y_train = torch.tensor(X[:1600]), torch.tensor(y[:1600])
X_test, y_test = torch.tensor(X[1600:]), torch.tensor(y[1600:])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 32)
        self.fc2 = nn.Linear(32, 32)
        self.fc3 = nn.Linear(32, 2)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        return self.fc3(x)


model = Net()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

batch_size = 32
steps_per_epoch = len(X_train) // batch_size
epochs = 8
step = 0
for epoch in range(epochs):
    idx = torch.randperm(len(X_train))
    for i in range(steps_per_epoch):
        b = idx[i * batch_size:(i + 1) * batch_size]
        xb, yb = X_train[b], y_train[b]
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        grad_norm = math.sqrt(sum(p.grad.pow(2).sum().item() for p in model.parameters()))
        optimizer.step()
        step += 1
        if step % 25 == 0:
            with torch.no_grad():
                acc = (model(X_test).argmax(1) == y_test).float().mean().item()
            print(f"step {step:4d} | epoch {epoch + 1}/{epochs} | 損失: {loss.item():.4f} | 勾配ノルム: {grad_norm:.2f} | テスト正解率: {acc:.3f}")
'''
S03 = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(42)
rng = np.random.default_rng(42)

IMG = 16
CLASSES = ["横線", "縦線", "斜線", "四角", "十字"]


def draw(c):
    img = np.zeros((IMG, IMG), dtype=np.float32)
    r, s = rng.integers(3, IMG - 3), rng.integers(3, IMG - 3)
    if c == 0:
        img[r, 2:IMG - 2] = 1
    elif c == 1:
        img[2:IMG - 2, s] = 1
    elif c == 2:
        for k in range(2, IMG - 2):
            img[k, k] = 1
        img = np.roll(img, rng.integers(-3, 4), axis=1)
    elif c == 3:
        a = rng.integers(2, 7)
        img[a:a + 7, a] = img[a:a + 7, a + 6] = 1
        img[a, a:a + 7] = img[a + 6, a:a + 7] = 1
    else:
        img[r, s - 3:s + 4] = 1
        img[r - 3:r + 4, s] = 1
    img += 0.45 * rng.standard_normal((IMG, IMG)).astype(np.float32)
    return img


def make_set(n):
    y = rng.integers(0, len(CLASSES), n)
    X = np.stack([draw(c) for c in y])[:, None]
    return torch.tensor(X), torch.tensor(y)


X_tr, y_tr = make_set(2500)
X_va, y_va = make_set(600)
mean, std = X_tr.mean(), X_tr.std()
X_tr, X_va = (X_tr - mean) / std, (X_va - mean) / std
train_dl = DataLoader(TensorDataset(X_tr, y_tr), batch_size=64, shuffle=True)
val_dl = DataLoader(TensorDataset(X_va, y_va), batch_size=256)


class SmallCNN(nn.Module):
    def __init__(self, n_cls):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, n_cls)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


model = SmallCNN(len(CLASSES))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()

print(f"train: {len(X_tr)}  val: {len(X_va)}  classes: {CLASSES}")
for ep in range(1, 15):
    model.train()
    tl, tc, tn = 0.0, 0, 0
    for xb, yb in train_dl:
        opt.zero_grad()
        out = model(xb)
        loss = loss_fn(out, yb)
        loss.backward()
        opt.step()
        tl += loss.item() * len(yb)
        tc += (out.argmax(1) == yb).sum().item()
        tn += len(yb)
    model.eval()
    vl, vc, vn = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in val_dl:
            out = model(xb)
            vl += loss_fn(out, yb).item() * len(yb)
            vc += (out.argmax(1) == yb).sum().item()
            vn += len(yb)
    print(f"[epoch {ep:2d}/14] train loss {tl/tn:.4f}, train acc {100*tc/tn:.2f}% | val loss {vl/vn:.4f}, val acc {100*vc/vn:.2f}%")
'''
S04 = r'''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
np.random.seed(1234)
torch.manual_seed(1234)

X = np.load("features.npy")
y = np.load("labels.npy")
print("X:", X.shape, "y:", y.shape, "클래스별 개수:", np.bincount(y))

np.random.shuffle(X)
np.random.shuffle(y)

n_train = int(len(X) * 0.8)
X_train, X_val = X[:n_train], X[n_train:]
y_train, y_val = y[:n_train], y[n_train:]

mu, sigma = X_train.mean(0), X_train.std(0)
X_train = (X_train - mu) / sigma
X_val = (X_val - mu) / sigma

train_loader = DataLoader(TensorDataset(torch.from_numpy(X_train), torch.from_numpy(y_train)),
                          batch_size=64, shuffle=True)
val_loader = DataLoader(TensorDataset(torch.from_numpy(X_val), torch.from_numpy(y_val)), batch_size=256)

model = nn.Sequential(
    nn.Linear(16, 32),
    nn.ReLU(),
    nn.Linear(32, 32),
    nn.ReLU(),
    nn.Linear(32, 3),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

num_epochs = 20
for epoch in range(num_epochs):
    model.train()
    total_loss, correct, count = 0.0, 0, 0
    for xb, yb in train_loader:
        optimizer.zero_grad()
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * xb.size(0)
        correct += (logits.argmax(dim=1) == yb).sum().item()
        count += xb.size(0)

    model.eval()
    v_loss, v_correct, v_count = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in val_loader:
            logits = model(xb)
            v_loss += criterion(logits, yb).item() * xb.size(0)
            v_correct += (logits.argmax(dim=1) == yb).sum().item()
            v_count += xb.size(0)

    print(f"에폭 {epoch + 1}/{num_epochs} 손실: {total_loss / count:.4f} 정확도: {correct / count:.2f} "
          f"검증 손실: {v_loss / v_count:.4f} 검증 정확도: {v_correct / v_count:.2f}")
'''
S05 = r'''
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(0)

df = pd.read_csv("loan_data.csv")
print(df.head())
print(df.describe().T[["mean", "std", "min", "max"]])

feature_cols = ["age", "annual_income", "years_employed", "loan_amount", "num_accounts", "late_payments"]
X = torch.tensor(df[feature_cols].values, dtype=torch.float32)
y = torch.tensor(df["default"].values, dtype=torch.long)

g = torch.Generator().manual_seed(0)
perm = torch.randperm(len(X), generator=g)
train_idx, test_idx = perm[:3200], perm[3200:]
train_loader = DataLoader(TensorDataset(X[train_idx], y[train_idx]), batch_size=64, shuffle=True)
X_test, y_test = X[test_idx], y[test_idx]

model = nn.Sequential(
    nn.Linear(len(feature_cols), 64),
    nn.ReLU(),
    nn.Linear(64, 32),
    nn.ReLU(),
    nn.Linear(32, 2),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(1, 31):
    model.train()
    running = 0.0
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        running += loss.item()
    model.eval()
    with torch.no_grad():
        out = model(X_test)
        test_loss = criterion(out, y_test).item()
        test_acc = (out.argmax(1) == y_test).float().mean().item()
    print(f"エポック {epoch}/30 損失: {running / len(train_loader):.4f} テスト損失: {test_loss:.4f} 正解率: {test_acc:.3f}")
'''
S06 = r'''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(3)


class ShapeDataset(Dataset):
    """16x16 흑백 도형 이미지 (원, 삼각형, 사각형, X)"""

    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        yy, xx = np.mgrid[0:16, 0:16]
        self.x = np.zeros((n, 1, 16, 16), dtype=np.float32)
        self.y = rng.integers(0, 4, n)
        for i, c in enumerate(self.y):
            cy, cx = rng.uniform(5, 11, 2)
            r = rng.uniform(3, 5)
            if c == 0:
                m = np.abs(np.hypot(yy - cy, xx - cx) - r) < 0.8
            elif c == 1:
                m = (yy - cy < r) & (yy - cy > -r) & (np.abs(xx - cx) < (yy - cy + r) / 2)
            elif c == 2:
                m = (np.abs(yy - cy) < r) & (np.abs(xx - cx) < r)
            else:
                m = ((np.abs((yy - cy) - (xx - cx)) < 1) | (np.abs((yy - cy) + (xx - cx)) < 1)) & (np.abs(yy - cy) < r)
            self.x[i, 0] = m + 0.3 * rng.standard_normal((16, 16))
        self.x = (self.x - 0.2) / 0.45

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), int(self.y[i])


train_ds = ShapeDataset(3000, seed=10)
val_ds = ShapeDataset(800, seed=11)
train_loader = DataLoader(train_ds, batch_size=50, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=200)

model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(32 * 4 * 4, 64), nn.ReLU(),
    nn.Linear(64, 4),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)

EPOCHS = 20
for epoch in range(EPOCHS):
    model.train()
    loss_sum, correct = 0.0, 0
    for images, labels in train_loader:
        optimizer.zero_grad()
        outputs = model(images)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        loss_sum += loss.item() * images.size(0)
        correct += (outputs.argmax(1) == labels).sum().item()
    model.eval()
    val_loss, val_correct = 0.0, 0
    with torch.no_grad():
        for images, labels in val_loader:
            outputs = model(images)
            val_loss += criterion(outputs, labels).item() * images.size(0)
            val_correct += (outputs.argmax(1) == labels).sum().item()
    print(f"Epoch [{epoch + 1}/{EPOCHS}] loss: {loss_sum / len(train_ds):.4f} acc: {100 * correct / len(train_ds):.1f}% "
          f"| val_loss: {val_loss / len(val_ds):.4f} val_acc: {100 * val_correct / len(val_ds):.1f}%")
'''
S07 = r'''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.set_num_threads(1)
torch.manual_seed(11)
rng = np.random.default_rng(11)

# annotated data (10 classes)
K, D, N = 10, 20, 5000
centers = rng.normal(0, 2.2, (K, D))
y_true = rng.integers(0, K, N)
X = centers[y_true] + rng.normal(0, 1.0, (N, D))
y = y_true.copy()
flip = rng.random(N) < 0.38
y[flip] = rng.integers(0, K, flip.sum())

ds = TensorDataset(torch.tensor(X, dtype=torch.float32), torch.tensor(y))
train_ds, val_ds = random_split(ds, [4000, 1000], generator=torch.Generator().manual_seed(11))
train_dl = DataLoader(train_ds, batch_size=64, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=500)

model = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, K))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()


def evaluate(dl):
    model.eval()
    tot, cor, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in dl:
            o = model(xb)
            tot += crit(o, yb).item() * len(yb)
            cor += (o.argmax(1) == yb).sum().item()
            n += len(yb)
    return tot / n, cor / n


for epoch in range(1, 41):
    model.train()
    for xb, yb in train_dl:
        opt.zero_grad()
        crit(model(xb), yb).backward()
        opt.step()
    if epoch == 1 or epoch % 5 == 0:
        tl, ta = evaluate(train_dl)
        vl, va = evaluate(val_dl)
        print(f"エポック {epoch}/40 損失: {tl:.4f} 正解率: {ta:.2f} val損失: {vl:.4f} val正解率: {va:.2f}")
'''
S08 = r'''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(0)


class FeatureNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(512, 64), nn.ReLU(),
        )

    def forward(self, x):
        return self.conv(x)


class Classifier(nn.Module):
    def __init__(self, backbone, num_classes):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, num_classes))

    def forward(self, x):
        return self.head(self.backbone(x))


train = np.load("shapes_train.npz")
val = np.load("shapes_val.npz")
train_loader = DataLoader(TensorDataset(torch.tensor(train["x"]), torch.tensor(train["y"])), batch_size=32, shuffle=True)
val_loader = DataLoader(TensorDataset(torch.tensor(val["x"]), torch.tensor(val["y"])), batch_size=250)
num_classes = int(train["y"].max()) + 1

backbone = FeatureNet()
backbone.load_state_dict(torch.load("backbone.pt"))
for p in backbone.parameters():
    p.requires_grad = False

model = Classifier(backbone, num_classes)
optimizer = torch.optim.Adam(backbone.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

print(f"num_classes={num_classes}, train={len(train['y'])}, val={len(val['y'])}")
for epoch in range(1, 16):
    model.train()
    total, correct, seen = 0.0, 0, 0
    for x, y in train_loader:
        optimizer.zero_grad()
        logits = model(x)
        loss = criterion(logits, y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(y)
        correct += (logits.argmax(1) == y).sum().item()
        seen += len(y)
    model.eval()
    v_total, v_correct = 0.0, 0
    with torch.no_grad():
        for x, y in val_loader:
            logits = model(x)
            v_total += criterion(logits, y).item() * len(y)
            v_correct += (logits.argmax(1) == y).sum().item()
    n_val = len(val_loader.dataset)
    print(f"epoch {epoch:02d} | train_loss {total / seen:.4f} | train_acc {correct / seen:.3f} | "
          f"val_loss {v_total / n_val:.4f} | val_acc {v_correct / n_val:.3f}")
'''
S09 = r'''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(2024)
rng = np.random.default_rng(2024)

K, D = 8, 24
centers = rng.normal(0, 1.0, (K, D))
def sample(n):
    y = rng.integers(0, K, n)
    return (centers[y] + rng.normal(0, 0.9, (n, D))).astype(np.float32), y

Xtr, ytr = sample(4000)
Xva, yva = sample(1000)
train_dl = DataLoader(TensorDataset(torch.tensor(Xtr), torch.tensor(ytr)), batch_size=128, shuffle=True)
Xva_t, yva_t = torch.tensor(Xva), torch.tensor(yva)

model = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, K))
opt = torch.optim.SGD(model.parameters(), lr=0.45, momentum=0.9)
crit = nn.CrossEntropyLoss()

EPOCHS = 20
for ep in range(1, EPOCHS + 1):
    model.train()
    losses, gns, correct = [], [], 0
    for xb, yb in train_dl:
        opt.zero_grad()
        out = model(xb)
        loss = crit(out, yb)
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        opt.step()
        losses.append(loss.item()); gns.append(gn.item())
        correct += (out.argmax(1) == yb).sum().item()
    model.eval()
    with torch.no_grad():
        vo = model(Xva_t)
        vl = crit(vo, yva_t).item()
        va = (vo.argmax(1) == yva_t).float().mean().item()
    print(f"エポック {ep}/{EPOCHS} 損失: {np.mean(losses):.4f} 正解率: {correct/len(ytr):.3f} val_loss: {vl:.4f} val_acc: {va:.3f} grad_norm(max): {max(gns):.2f}")
'''
S10 = r'''
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(5)
rng = np.random.default_rng(5)


def two_spirals(n, noise):
    t = np.sqrt(rng.random(n)) * 2.5 * np.pi
    cls = rng.integers(0, 2, n)
    r = t / (2.5 * np.pi) * 2
    ang = t + np.pi * cls
    x = np.stack([r * np.cos(ang), r * np.sin(ang)], 1) + noise * rng.standard_normal((n, 2))
    return torch.tensor(x, dtype=torch.float32), torch.tensor(cls)


x_train, y_train = two_spirals(1200, 0.18)
x_val, y_val = two_spirals(400, 0.18)

model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.03)
loss_fn = nn.CrossEntropyLoss()
batch_size = 8
epochs = 40

step = 0
for epoch in range(1, epochs + 1):
    model.train()
    order = torch.randperm(len(x_train))
    for i in range(0, len(order), batch_size):
        idx = order[i:i + batch_size]
        optimizer.zero_grad()
        loss = loss_fn(model(x_train[idx]), y_train[idx])
        loss.backward()
        optimizer.step()
        step += 1
        if step % 50 == 0:
            print(f"[epoch {epoch} step {step}] loss={loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        out = model(x_val)
        val_loss = loss_fn(out, y_val).item()
        val_acc = (out.argmax(1) == y_val).float().mean().item()
    print(f"===> epoch {epoch} 검증 loss={val_loss:.4f} 검증 정확도={val_acc:.4f}")
'''
S11 = r'''
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(42)

df = pd.read_csv("customers.csv")
print(df.shape)
print(list(df.columns))

X = df.drop(columns=["customer_id", "churn"]).values.astype(np.float32)
y = df["churn"].values

rng = np.random.default_rng(42)
idx = rng.permutation(len(df))
n_tr = int(len(df) * 0.8)
tr, te = idx[:n_tr], idx[n_tr:]
mean, std = X[tr].mean(axis=0), X[tr].std(axis=0)
X = (X - mean) / std

train_loader = DataLoader(TensorDataset(torch.tensor(X[tr]), torch.tensor(y[tr])), batch_size=128, shuffle=True)
X_te, y_te = torch.tensor(X[te]), torch.tensor(y[te])


class ChurnNet(nn.Module):
    def __init__(self, n_in):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_in, 64), nn.ReLU(), nn.Dropout(0.3),
            nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.3),
            nn.Linear(32, 2),
        )

    def forward(self, x):
        return self.net(x)


model = ChurnNet(X.shape[1])
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)

for epoch in range(1, 21):
    model.train()
    losses, hit, cnt = [], 0, 0
    for xb, yb in train_loader:
        optimizer.zero_grad()
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        hit += (logits.argmax(1) == yb).sum().item()
        cnt += len(yb)
    model.eval()
    with torch.no_grad():
        logits = model(X_te)
        te_loss = criterion(logits, y_te).item()
        te_acc = (logits.argmax(1) == y_te).float().mean().item()
    print(f"에폭 {epoch}/20 손실: {np.mean(losses):.4f} 정확도: {hit / cnt:.4f} | 테스트 손실: {te_loss:.4f} 테스트 정확도: {te_acc:.4f}")
'''
S12 = r'''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(123)
rng = np.random.default_rng(123)

# 16x16 のテクスチャ画像 (4クラス: 縞の向き)
def make_images(n):
    yy, xx = np.mgrid[0:16, 0:16]
    labels = rng.integers(0, 4, n)
    imgs = np.empty((n, 1, 16, 16), dtype=np.float32)
    for i, c in enumerate(labels):
        theta = c * np.pi / 4 + rng.normal(0, 0.15)
        freq = rng.uniform(0.6, 1.0)
        phase = rng.uniform(0, 2 * np.pi)
        wave = np.sin(freq * (np.cos(theta) * xx + np.sin(theta) * yy) + phase)
        imgs[i, 0] = 0.6 * wave + 0.8 * rng.standard_normal((16, 16))
    return torch.tensor(imgs), torch.tensor(labels)


x_train, y_train = make_images(3000)
x_test, y_test = make_images(800)
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=64, shuffle=True)
test_loader = DataLoader(TensorDataset(x_test, y_test), batch_size=16, shuffle=False)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Dropout(0.5), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 4)
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def evaluate(model, loader):
    correct, total, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            loss_sum += criterion(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            total += len(y)
    return loss_sum / total, correct / total


model = Net()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(1, 13):
    model.train()
    run_loss, run_correct, n = 0.0, 0, 0
    for x, y in train_loader:
        optimizer.zero_grad()
        out = model(x)
        loss = criterion(out, y)
        loss.backward()
        optimizer.step()
        run_loss += loss.item() * len(y)
        run_correct += (out.argmax(1) == y).sum().item()
        n += len(y)
    test_loss, test_acc = evaluate(model, test_loader)
    print(f"Epoch {epoch:2d} train_loss={run_loss / n:.4f} train_acc={run_correct / n:.4f} test_loss={test_loss:.4f} test_acc={test_acc:.4f}")

print("--- 同じテストデータでもう一度評価 ---")
for k in range(3):
    test_loss, test_acc = evaluate(model, test_loader)
    print(f"評価{k + 1}回目: test_loss={test_loss:.4f} test_acc={test_acc:.4f}")

print("--- 1枚ずつ予測 (先頭12枚) ---")
for k in range(2):
    preds = []
    with torch.no_grad():
        for i in range(12):
            img = x_test[i].unsqueeze(0)
            preds.append(model(img).argmax(1).item())
    print(f"予測{k + 1}回目: {preds}")
print(f"正解     : {y_test[:12].tolist()}")
'''

# ---------------------------------------------------------------- posts
# Placeholders: <<LOG:a-b>> inserts log lines a..b (1-based, inclusive), <<LOGTAIL:n>> the last n lines,
# <<LOG:all>> the whole log.
Q01 = r'''# [PyTorch] train loss는 0까지 떨어지는데 val_loss는 계속 올라가요

안녕하세요. 딥러닝 독학 중인 직장인입니다.

회사 설비 센서 데이터(특성 60개)로 정상/이상 이진 분류 모델을 만들고 있습니다.
데이터가 많지 않아서 전체 360개 중 220개는 학습용, 140개는 검증용으로 나눠서 쓰고 있어요.

**모델 / 설정**
- MLP: Linear(60, 512) → ReLU → Linear(512, 512) → ReLU → Linear(512, 2)
- CrossEntropyLoss, Adam(lr=3e-4), batch_size=32
- 120 에폭

**문제**
전체 로그는 train_log.txt로 첨부했습니다.
10에폭 정도까지는 val_loss가 0.44까지 잘 내려가는데, 그 다음부터는 에폭마다 조금씩 계속 올라가서 마지막에는 0.83이 됩니다.
반대로 train loss는 거의 0(0.0001)이고 accuracy는 11에폭부터 계속 1.0으로 찍힙니다. val_accuracy는 0.80 근처에서 더 안 올라가고요.

```
<<LOG:8-12>>
...
<<LOGTAIL:3>>
```

**해본 것**
- lr을 1e-3으로 올려봤는데 그래프 모양은 비슷했습니다.
- 에폭을 늘려봐도 val_loss만 더 올라갑니다.

val_loss는 올라가는데 val_accuracy는 그대로인 것도 잘 이해가 안 되네요.
코드에 버그가 있는 건지, 모델 구조를 바꿔야 하는 건지 조언 부탁드립니다 🙏
'''

Q02 = r'''# PyTorchで学習の途中からlossが暴れ始め、テスト正解率が下がっていく

### 前提
PyTorchの勉強のため、三日月型の2クラスのデータ(sklearnのmake_moonsと同じようなものを自分で作りました)を小さいMLPで分類しています。
環境: Python 3.11 / PyTorch(CPU版)

### 発生している問題
200ステップあたりまではテスト正解率が0.9〜0.95くらいまで順調に上がるのですが、そのあとlossが大きく上下するようになり、最後はテスト正解率が0.7前後まで落ちてしまいます。
学習の様子を見るために勾配ノルムも出力してみたところ、最初は7くらいだったのが最後は100前後と、ほぼずっと増え続けています。

```
<<LOG:all>>
```

### 該当のソースコード
train.py を添付します(全文です)。

### 試したこと
- エポック数を12まで増やしてみましたが、正解率は0.9前後を行ったり来たりするだけで安定しませんでした。

### 補足情報
データが単純なのでもっと高い正解率で安定すると思っていました。
モデルが小さすぎるのでしょうか?それとも学習率の問題でしょうか?
'''

Q03 = r'''# 図形画像のCNN分類、この学習結果で問題ないでしょうか

初めて自分でCNNを組んでみた初心者です。
16x16の白黒画像(横線・縦線・斜線・四角・十字の5クラス、ノイズ入り)を分類するCNN(畳み込み2層+全結合2層)を作りました。
学習データ2500枚、検証データ600枚、Adam(lr=1e-3)、バッチサイズ64で14エポック学習させたときの出力が train_log.txt です。

最終的に val acc は95%台になっていますが、train acc(98%台)との差が少しあるのと、途中で val loss が上がったり下がったりしているのが気になっています。
これは過学習しているということでしょうか?
このモデルをこのまま使っても大丈夫か、直した方がいいところがあれば教えてください。
'''

Q04 = r'''# 3클래스 분류에서 정확도가 33%(찍는 수준)에서 안 올라갑니다

제목 그대로입니다 ㅠㅠ
센서에서 뽑은 특징 16개로 3개 클래스를 분류하는 모델을 만들고 있는데, 학습을 아무리 돌려도 검증 정확도가 0.32~0.34에서 움직이지 않습니다.
손실도 처음부터 끝까지 1.07~1.10 근처고요.

데이터는 미리 features.npy, labels.npy로 저장해 둔 걸 불러와서 씁니다.
6000개이고 클래스별 개수는 1987 / 1984 / 2029로 균형은 맞아요.
예전에 데이터 확인할 때 클래스별로 특징 평균을 찍어보면 꽤 차이가 나서 쉽게 분류될 줄 알았는데...

- 모델: Linear(16,32)-ReLU-Linear(32,32)-ReLU-Linear(32,3)
- Adam lr=1e-3, 배치 64, 20에폭
- 표준화(평균/표준편차)는 학습 데이터 기준으로 하고 있습니다.
- 은닉층을 64로 키워봤더니 학습 정확도만 조금 더 올라가고 검증 정확도는 그대로 33% 근처였습니다.

```
<<LOG:1-4>>
...
<<LOGTAIL:2>>
```

데이터 불러오는 부분 코드(snippet.py)랑 전체 로그(train_log.txt) 첨부합니다.
어디를 봐야 할지 감이 안 와서 질문드립니다. 도와주세요!
'''

Q05 = r'''# ローンの貸し倒れ予測で、lossが数千のまま下がらず正解率もバラバラになる

### 実現したいこと
CSV(loan_data.csv、4000行)の6つの特徴量(年齢、年収、勤続年数、借入額、口座数、延滞回数)から、貸し倒れになるかどうか(default列、0/1)をPyTorchのMLPで予測したいです。

### 発生している問題
lossが1エポック目で2万近くあり、その後も数千の間を行ったり来たりしてなかなか下がりません。
テストの正解率もエポックごとに0.28〜0.82と大きくばらつきます。
2値分類のCrossEntropyLossでこんなに大きな値になるのはおかしい気がするのですが、原因が分かりません。

```
<<LOG:15-24>>
```

### 該当のソースコード
train.py(全文)を添付します。実行時の出力は全部 train_log.txt に貼りました。

### 試したこと
- エポック数を増やしてみましたが、正解率は相変わらず安定しません。
- 隠れ層のユニット数を変えてみましたが、あまり変わりませんでした。

### 補足情報(FW/ツールのバージョンなど)
Python 3.10, PyTorch(CPU), pandas 2.x
'''

Q06 = r'''# [PyTorch] CNN 학습이 안 돼요.. loss가 1.38에서 거의 그대로입니다

도형 이미지(원, 삼각형, 사각형, X 4종류, 16x16 흑백) 분류를 CNN으로 연습하고 있습니다.
train 3000장 / val 800장이고, 모델은 Conv(16)-Pool-Conv(32)-Pool-FC(64)-FC(4) 구조입니다.

설정은 이렇습니다.
- loss: CrossEntropyLoss
- optimizer: SGD, lr=1e-4
- batch_size=50, 20 epoch
- 입력은 평균/표준편차로 정규화했습니다

20 에폭을 돌렸는데 loss가 1.3883 → 1.3810으로 거의 안 변하고, 정확도도 30% 언저리(4클래스니까 찍는 거랑 비슷하죠..)에서 왔다 갔다 합니다.

```
<<LOG:1-3>>
...
<<LOGTAIL:2>>
```

에러는 전혀 안 나고 학습은 끝까지 잘 돌아갑니다.
도형이 단순해서 금방 90% 넘을 줄 알았는데 ㅠ 모델이 너무 작아서 그런 걸까요? 어디부터 의심해 봐야 할지 모르겠습니다.
'''

Q07 = r'''# 正解率が0.67から全く上がりません

10クラス分類のMLP(入力20次元→64→64→10)をAdam(lr=1e-3)で学習しています。
データは社内で集めたもので5000件、4000/1000に分けています。

40エポック回しましたが、trainもvalも正解率が0.67のまま動きません。
lossは少しずつ下がっているのに、正解率が変わらないのはなぜでしょうか。

```
<<LOG:all>>
```
'''

Q08 = r'''# 파인튜닝할 때 loss랑 정확도가 에폭마다 소수점까지 똑같이 나옵니다

안녕하세요. 전이학습을 연습하고 있습니다.

다른 도형 데이터(3클래스)로 미리 학습시켜 둔 CNN backbone(backbone.pt)을 불러와서,
새 데이터(6클래스, train 2000 / val 500)로 분류기를 학습하려고 합니다.
backbone은 고정하고 뒤에 붙인 head(Linear 두 개)만 학습시키는 게 목표입니다.

그런데 15에폭 동안 train_loss 1.8960, val_loss 1.9201, 정확도 0.181 / 0.132가 소수점 넷째 자리까지 전부 똑같이 나옵니다.
에러나 경고는 하나도 없습니다.

```
<<LOG:1-4>>
...
<<LOGTAIL:1>>
```

lr을 1e-2로 올려서도 돌려봤는데 결과가 똑같았습니다.
사전학습할 때는 loss가 잘 내려갔어서 backbone 자체는 문제없을 것 같은데... 전체 코드(train.py) 첨부합니다.
'''

Q09 = r'''# 1エポック目は正解率9割なのに、その後lossが跳ね上がって学習しなくなる

24次元の特徴量で8クラス分類をするMLP(24→128→128→8、ReLU)を学習しています。
optimizerはSGD(lr=0.45, momentum=0.9)、バッチサイズ128、訓練4000件/検証1000件です。

1エポック目はval_accが0.933と良い感じなのですが、2エポック目からlossが1.16→4.58→36.5と増えていき、
その後はlossが2.08〜2.09、正解率が0.12〜0.13(8クラスなのでほぼランダム)のまま全く動かなくなります。
勾配ノルム(clip_grad_norm_の戻り値のエポック内最大値をログに出しています)も4エポック目に176まで上がって、それ以降は0.15前後です。

```
<<LOG:1-8>>
```

ログ全体は train_log.txt です。
NaNにはならないのですが、途中で何かが壊れているような気がします。何が原因として考えられるでしょうか?
'''

Q10 = r'''# 배치 loss가 너무 들쭉날쭉한데 학습이 제대로 되고 있는 건가요?

two spirals(나선 두 개) 데이터로 이진 분류를 연습 중입니다.

- train 1200개 / val 400개, 입력 2차원
- MLP: 2 → 32 → 32 → 2 (Tanh)
- SGD(lr=0.03), batch_size=8, 40 에폭
- 50 step마다 그 배치의 loss를, 에폭이 끝날 때마다 검증 loss/정확도를 출력합니다 (train_log.txt)

궁금한 점이 두 가지 있습니다.

1. step별 loss가 너무 들쭉날쭉합니다. 같은 에폭 안에서도 0.03이었다가 바로 0.67로 튀기도 하고요(27에폭). 이게 정상인가요?
2. 처음 12에폭 정도는 검증 정확도가 0.62~0.66에서 거의 안 움직이다가 13에폭부터 갑자기 올라갑니다.

마지막에는 검증 정확도가 0.955까지 나오긴 했는데, 이 학습 과정이 괜찮은 건지,
배치 크기나 lr을 바꿔야 하는 건지 판단이 안 서서 질문드립니다.
'''

Q11 = r'''# 고객 이탈 예측 모델 정확도가 첫 에폭부터 98%... 믿어도 되나요?

회사에서 고객 이탈(churn) 예측 모델을 만들고 있는 주니어입니다.
고객 데이터 5000건(customers.csv)으로 이탈 여부(churn, 0/1)를 예측하는 MLP를 PyTorch로 학습했는데, 결과가 너무 좋게 나와서 오히려 불안합니다.

- 첫 에폭부터 테스트 정확도 0.983
- 2에폭 이후로는 테스트 정확도가 계속 0.99 이상
- 매 에폭 테스트 정확도가 학습 정확도보다 높음

```
<<LOG:3-7>>
...
<<LOGTAIL:1>>
```

이탈률이 39% 정도라서 전부 0으로 찍어도 61%인데, 예전에 다른 분이 만든 모델은 정확도가 70%대였다고 들었습니다.
Dropout을 넣었으니 학습 정확도가 테스트보다 낮은 건 그렇다 쳐도, 이렇게까지 잘 나와도 되는 건지 모르겠습니다.
팀장님께 보고하기 전에 한번 확인받고 싶어요.

데이터 전처리 부분 코드(snippet.py)와 학습 로그(train_log.txt) 첨부합니다.
'''

Q12 = r'''# 学習中のテスト精度は93%なのに、1枚ずつ推論すると全然当たらず毎回結果が変わる

縞模様の画像(16x16、縞の向きで4クラス)を分類するCNNを作りました。BatchNormとDropoutを入れています。
学習中に毎エポック出しているテスト正解率は、最終的に0.94くらいまで上がりました。

ところが、

1. 学習後に同じテストデータで何回か評価すると、毎回少しずつ違う値になります(0.9325 / 0.9300 / 0.9375)。
2. 実際に使うときのように画像を1枚ずつモデルに入れて予測させると、ほとんど当たらず、同じ画像でも実行するたびに予測が変わります。

```
<<LOGTAIL:8>>
```

seedは固定していて、推論は torch.no_grad() の中でやっています。
評価用の関数と推論部分のコードを snippet.py に、実行結果の全体を train_log.txt に貼ります。
1枚だけ入れるのがまずいのでしょうか?
'''

# ---------------------------------------------------------------- run table
# ship: "train" ships the script as train.py; "snippet" ships the lines from the first line that
# contains snippet[0] through the first later line that contains snippet[1], verbatim.
# must: strings the generated log has to contain (the posts quote these numbers).
RUNS_SPEC = [
    dict(name="run01", lang="ko", truth="overfitting", script=S01, ship=None, question=Q01,
         symptom="train loss는 0까지 떨어지는데 val_loss는 10에폭 이후로 계속 올라가고 val_accuracy는 0.80에서 안 올라가요.",
         how="MLP 60->512->512->2 (~290k params) trained 120 epochs with Adam 3e-4 and no regularisation on only 220 samples "
             "of 60 features (6 informative, noisy targets); val_loss bottoms at epoch 10 then climbs while train loss -> 0.",
         must=["Epoch 010/120", "val_loss: 0.4449", "val_loss: 0.8355"]),
    dict(name="run02", lang="ja", truth="missing_zero_grad", script=S02, ship="train", question=Q02,
         symptom="学習の途中からlossが大きく上下し始めてテスト正解率が0.95から0.7前後まで下がり、勾配ノルムもずっと増え続ける。",
         how="train loop calls loss.backward() and optimizer.step() but never optimizer.zero_grad(), so .grad accumulates "
             "over all steps (Adam 1e-3, 2-class moons MLP); logged grad norm climbs 7 -> ~100 and test acc degrades.",
         must=["step  400", "テスト正解率: 0.685"]),
    dict(name="run03", lang="ja", truth="healthy", script=S03, ship=None, question=Q03,
         symptom="この学習結果で問題ないでしょうか?train accとval accの差があって過学習していないか心配です。",
         how="healthy: small CNN, Adam 1e-3, normalised 16x16 synthetic shapes (5 classes, noise 0.45), 14 epochs; "
             "train and val loss fall together to ~0.06 / ~0.11, val acc ~95%.",
         must=["[epoch 14/14]"]),
    dict(name="run04", lang="ko", truth="label_misalignment", script=S04, ship="snippet", question=Q04,
         snippet=("X = np.load", "X_val = (X_val - mu) / sigma"), prep=PREP04,
         symptom="손실이 1.09 근처에서 안 내려가고 검증 정확도가 33%(찍는 수준)에서 안 올라가요.",
         how="features and labels are shuffled with two independent np.random.shuffle calls, destroying the pairing; "
             "3 balanced classes, loss stays ~ln 3 = 1.10, val acc ~0.33 (train loss creeps to 1.07 by memorising).",
         must=["1987 1984 2029", "에폭 20/20"]),
    dict(name="run05", lang="ja", truth="unnormalized_inputs", script=S05, ship="train", question=Q05, prep=PREP05,
         symptom="lossが数千のまま下がらず、テスト正解率もエポックごとに0.28〜0.82と大きくばらつく。",
         how="raw tabular features fed to the MLP without any scaling (annual_income ~5.6e6, loan_amount ~8.9e6 next to "
             "counts 0-7); CrossEntropy loss in the thousands, erratic test accuracy around the 0.66 majority rate.",
         must=["エポック 1/30 損失: 20914.7817", "正解率: 0.278", "正解率: 0.819"]),
    dict(name="run06", lang="ko", truth="lr_too_low", script=S06, ship=None, question=Q06,
         symptom="20에폭을 돌려도 loss가 1.38에서 거의 안 내려가고 정확도가 30% 근처예요.",
         how="plain SGD (no momentum) with lr=1e-4 on a small CNN; loss falls linearly and very slowly "
             "1.3883 -> 1.3810 over 20 epochs, accuracy near chance (4 classes).",
         must=["loss: 1.3883", "loss: 1.3810"]),
    dict(name="run07", lang="ja", truth="label_noise", script=S07, ship=None, question=Q07,
         symptom="何エポック回してもtrainもvalも正解率が0.67で止まったまま上がらない。",
         how="38% of all labels (train and val) replaced with uniform random classes on otherwise well-separated "
             "10-class data; train/val acc capped at 0.67, train loss floors ~1.3 and only slowly falls (memorising) "
             "while val loss rises.",
         must=["エポック 40/40"]),
    dict(name="run08", lang="ko", truth="frozen_parameters", script=S08, ship="train", question=Q08, prep=PREP08,
         symptom="파인튜닝할 때 loss와 정확도가 에폭마다 소수점까지 완전히 똑같이 나와요.",
         how="backbone frozen with requires_grad=False and the optimizer built over backbone.parameters() only, so the "
             "new head is never updated: nothing trains, identical loss/acc every epoch at ~chance (6 classes).",
         must=["train_loss 1.8960", "val_loss 1.9201", "epoch 15"]),
    dict(name="run09", lang="ja", truth="lr_too_high", script=S09, ship=None, question=Q09,
         symptom="1エポック目は正解率9割なのに、その後lossが跳ね上がって、最後は正解率がランダム並みのまま戻らない。",
         how="SGD momentum 0.9 with lr=0.45 on an MLP; after a good first epoch the loss rises 0.37 -> 1.16 -> 4.58 -> 36.5 "
             "with max grad norm 2.4 -> 176, then the net collapses to ln 8 = 2.08 with ~chance accuracy.",
         must=["val_acc: 0.933", "損失: 36.5003", "grad_norm(max): 176.21"]),
    dict(name="run10", lang="ko", truth="healthy", script=S10, ship=None, question=Q10,
         symptom="step별 loss가 너무 들쭉날쭉하고 초반에 한참 정체하는데, 이 학습 괜찮은 건가요?",
         how="healthy but noisy/slow: two-spirals MLP (tanh) with SGD lr 0.03 and batch 8; per-batch loss is noisy, "
             "val acc sits ~0.63 for 12 epochs then climbs steadily to 0.955.",
         must=["epoch 40 검증", "검증 정확도=0.9550"]),
    dict(name="run11", lang="ko", truth="data_leakage", script=S11, ship="snippet", question=Q11, prep=PREP11,
         snippet=('df = pd.read_csv("customers.csv")', "X = (X - mean) / std"),
         symptom="첫 에폭부터 테스트 정확도가 98% 이상이고 매 에폭 학습 정확도보다 높게 나와서 이상해요.",
         how="the feature matrix keeps the column cancel_requests, which is >0 almost only for churned customers "
             "(target leak); test acc 0.983 at epoch 1 and ~0.995 after, above train acc (dropout), "
             "whereas the honest features give ~0.78.",
         must=["테스트 정확도: 0.9830", "cancel_requests"]),
    dict(name="run12", lang="ja", truth="eval_mode_forgotten", script=S12, ship="snippet", question=Q12,
         snippet=("def evaluate(model, loader):", "return loss_sum / total, correct / total"),
         snippet2=('print("--- 1枚ずつ予測', 'print(f"正解'),
         symptom="同じテストデータで評価しても毎回結果が変わり、1枚ずつ推論するとほとんど当たらない。",
         how="evaluate() and the per-image prediction never call model.eval(): BatchNorm uses batch statistics and "
             "Dropout stays on at test time; repeated evals differ (0.9325/0.9300/0.9375), single-image predictions "
             "are near chance and change between calls (the same model in eval mode scores 0.98).",
         must=["評価1回目: test_loss=0.1915 test_acc=0.9325", "予測2回目"]),
]


def extract(src, start, end):
    lines = src.splitlines()
    i = next(k for k, l in enumerate(lines) if start in l)
    j = next(k for k in range(i, len(lines)) if end in lines[k])
    return "\n".join(lines[i:j + 1]) + "\n"


def fill(template, log):
    lines = log.rstrip("\n").splitlines()

    def sub(m):
        kind, arg = m.group(1), m.group(2)
        if kind == "LOGTAIL":
            return "\n".join(lines[-int(arg):])
        if arg == "all":
            return "\n".join(lines)
        a, b = (int(v) for v in arg.split("-"))
        return "\n".join(lines[a - 1:b])

    return re.sub(r"<<(LOG|LOGTAIL):([^>]+)>>", sub, template)


def run_one(spec):
    name = spec["name"]
    work = WORK / name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0",
               PYTHONIOENCODING="utf-8", COLUMNS="100")
    if spec.get("prep"):
        (work / "prep.py").write_text(spec["prep"], encoding="utf-8")
        subprocess.run([PY, "prep.py"], cwd=work, env=env, check=True, capture_output=True)
    (work / "train.py").write_text(spec["script"].lstrip("\n"), encoding="utf-8")
    proc = subprocess.run([PY, "train.py"], cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    log = proc.stdout.decode("utf-8")
    if proc.returncode != 0:
        raise SystemExit(f"{name} failed:\n{log[-3000:]}")
    for s in spec["must"]:
        assert s in log, f"{name}: expected {s!r} in the log"

    run_dir = RUNS / name
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    (run_dir / "train_log.txt").write_text(log, encoding="utf-8")
    (run_dir / "question.md").write_text(fill(spec["question"], log), encoding="utf-8")
    src = spec["script"].lstrip("\n")
    if spec["ship"] == "train":
        (run_dir / "train.py").write_text(src, encoding="utf-8")
    elif spec["ship"] == "snippet":
        parts = [extract(src, *spec["snippet"])]
        if spec.get("snippet2"):
            parts.append("\n# ...\n\n" + extract(src, *spec["snippet2"]))
        (run_dir / "snippet.py").write_text("".join(parts), encoding="utf-8")
    shutil.rmtree(work, ignore_errors=True)
    print(f"{name}: {len(log.splitlines())} log lines")


def main():
    wanted = set(sys.argv[1:])
    for spec in RUNS_SPEC:
        if not wanted or spec["name"] in wanted:
            run_one(spec)
    truth = {s["name"]: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]} for s in RUNS_SPEC}
    (OUT / "truth.json").write_text(json.dumps(truth, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    if WORK.exists() and not any(WORK.iterdir()):
        WORK.rmdir()


if __name__ == "__main__":
    main()
