#!/usr/bin/env python
"""Generate 12 benchmark run folders (forum-post style) by really training small torch models on CPU.

Usage:  /work/main/.venv/bin/python gen.py
Writes: runs/<name>/post.md (+ train.py for some runs), truth.json, and the full stdout of every
training under _work/<name>/ (kept for checking, not part of the runs).
All seeds are fixed, each training uses one thread and takes a few seconds.
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent
PY = sys.executable

SCRIPTS = {}
SCRIPTS['lr_too_high'] = r'''import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
torch.manual_seed(4)

X, y = make_moons(n_samples=2000, noise=0.2, random_state=4)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=4)
X_tr, X_te = torch.tensor(X_tr, dtype=torch.float32), torch.tensor(X_te, dtype=torch.float32)
y_tr, y_te = torch.tensor(y_tr), torch.tensor(y_te)

LR = 0.2
EPOCHS = 20
BATCH = 50

model = nn.Sequential(
    nn.Linear(2, 64), nn.Tanh(),
    nn.Linear(64, 64), nn.Tanh(),
    nn.Linear(64, 2),
)
opt = torch.optim.RMSprop(model.parameters(), lr=LR)
loss_fn = nn.CrossEntropyLoss()

for ep in range(EPOCHS):
    perm = torch.randperm(len(X_tr))
    losses, accs = [], []
    for i in range(0, len(perm), BATCH):
        idx = perm[i:i + BATCH]
        out = model(X_tr[idx])
        loss = loss_fn(out, y_tr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        accs.append((out.argmax(1) == y_tr[idx]).float().mean().item())
    with torch.no_grad():
        te_out = model(X_te)
        val_loss = loss_fn(te_out, y_te).item()
        val_acc = (te_out.argmax(1) == y_te).float().mean().item()
    print(f"Epoch {ep + 1}/{EPOCHS} - loss: {np.mean(losses):.4f} - acc: {np.mean(accs):.2f} - "
          f"val_loss: {val_loss:.4f} - val_acc: {val_acc:.2f} - lr: {LR}")
'''

SCRIPTS['frozen_parameters'] = r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(11)
rng = np.random.default_rng(11)
IMG = 16


def draw(kind):
    img = np.zeros((IMG, IMG), dtype=np.float32)
    r, c = rng.integers(2, IMG - 10, size=2)
    if kind == "hbar":
        img[r + 4, c:c + 8] = 1
    elif kind == "vbar":
        img[r:r + 8, c + 4] = 1
    elif kind == "box":
        img[r:r + 8, c] = img[r:r + 8, c + 7] = 1
        img[r, c:c + 8] = img[r + 7, c:c + 8] = 1
    elif kind == "plus":
        img[r + 4, c:c + 8] = 1
        img[r:r + 8, c + 4] = 1
    elif kind == "diag":
        for k in range(8):
            img[r + k, c + k] = 1
    elif kind == "antidiag":
        for k in range(8):
            img[r + k, c + 7 - k] = 1
    elif kind == "blob":
        img[r + 2:r + 6, c + 2:c + 6] = 1
    img += rng.normal(0, 0.3, size=img.shape).astype(np.float32)
    return img


def make_dataset(kinds, n_per_class):
    xs, ys = [], []
    for label, kind in enumerate(kinds):
        for _ in range(n_per_class):
            xs.append(draw(kind))
            ys.append(label)
    x = torch.tensor(np.stack(xs)).unsqueeze(1)
    return TensorDataset(x, torch.tensor(ys))


class ConvNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(32 * 4 * 4, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def run_epoch(model, loader, criterion, optimizer=None):
    model.train(optimizer is not None)
    tot, correct, n = 0.0, 0, 0
    with torch.set_grad_enabled(optimizer is not None):
        for xb, yb in loader:
            out = model(xb)
            loss = criterion(out, yb)
            if optimizer is not None:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            tot += loss.item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    return tot / n, correct / n


criterion = nn.CrossEntropyLoss()

# ---- stage 1: pretrain on the base shapes ----
base = make_dataset(["hbar", "vbar", "box", "plus"], 400)
model = ConvNet(n_classes=4)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
base_loader = DataLoader(base, batch_size=64, shuffle=True)
for epoch in range(4):
    loss, acc = run_epoch(model, base_loader, criterion, opt)
    print(f"pretrain epoch {epoch + 1}/4  loss {loss:.4f}  acc {acc:.3f}")
torch.save(model.state_dict(), "pretrained_shapes.pt")

# ---- stage 2: fine-tune on the new shapes ----
new_train = make_dataset(["diag", "antidiag", "blob"], 300)
new_val = make_dataset(["diag", "antidiag", "blob"], 100)
train_loader = DataLoader(new_train, batch_size=32, shuffle=True)
val_loader = DataLoader(new_val, batch_size=128)

for p in model.features.parameters():
    p.requires_grad = False
optimizer = torch.optim.Adam(model.classifier.parameters(), lr=1e-3)
model.classifier = nn.Linear(32 * 4 * 4, 3)

EPOCHS = 12
for epoch in range(EPOCHS):
    tr_loss, tr_acc = run_epoch(model, train_loader, criterion, optimizer)
    va_loss, va_acc = run_epoch(model, val_loader, criterion)
    print(f"ft epoch {epoch + 1}/{EPOCHS}  train_loss {tr_loss:.4f}  train_acc {tr_acc:.3f}  "
          f"val_loss {va_loss:.4f}  val_acc {va_acc:.3f}")
'''

SCRIPTS['healthy_noisy'] = r'''import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(1)
rng = np.random.default_rng(1)

SEQ_LEN, N_FEAT = 24, 4


def make_split(n):
    x = rng.normal(size=(n, SEQ_LEN, N_FEAT)).astype(np.float32)
    # target: does channel 0 have a larger sum in the first half than in the second half
    y = (x[:, :SEQ_LEN // 2, 0].sum(1) > x[:, SEQ_LEN // 2:, 0].sum(1)).astype(np.int64)
    return torch.from_numpy(x), torch.from_numpy(y)


x_train, y_train = make_split(3000)
x_val, y_val = make_split(600)


class SeqClassifier(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.rnn = nn.GRU(N_FEAT, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 2)

    def forward(self, x):
        _, h = self.rnn(x)
        return self.out(h[-1])


model = SeqClassifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
batch_size = 16
epochs = 8
it = 0

for epoch in range(epochs):
    model.train()
    order = torch.randperm(len(x_train))
    for start in range(0, len(order), batch_size):
        idx = order[start:start + batch_size]
        logits = model(x_train[idx])
        loss = loss_fn(logits, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        it += 1
        if it % 50 == 0:
            print(f"iter {it} | loss {loss.item():.4f} | lr {optimizer.param_groups[0]['lr']:.0e}")
    model.eval()
    with torch.no_grad():
        val_logits = model(x_val)
        val_loss = loss_fn(val_logits, y_val).item()
        val_acc = (val_logits.argmax(1) == y_val).float().mean().item()
    print(f"== epoch {epoch + 1} done | val_loss {val_loss:.4f} | val_acc {val_acc:.3f}")
'''

SCRIPTS['double_softmax'] = r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
torch.manual_seed(3)

data = load_digits()
X = (data.data / 16.0).astype(np.float32)
y = data.target.astype(np.int64)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=3)

train_dl = DataLoader(TensorDataset(torch.from_numpy(X_train), torch.from_numpy(y_train)),
                      batch_size=32, shuffle=True)
X_test, y_test = torch.from_numpy(X_test), torch.from_numpy(y_test)


class DigitNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(64, 128),
            nn.ReLU(),
            nn.Linear(128, 64),
            nn.ReLU(),
            nn.Linear(64, 10),
            nn.Softmax(dim=1),
        )

    def forward(self, x):
        return self.layers(x)


net = DigitNet()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)

for epoch in range(1, 41):
    net.train()
    total, n, hits = 0.0, 0, 0
    for xb, yb in train_dl:
        optimizer.zero_grad()
        probs = net(xb)
        loss = criterion(probs, yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(yb)
        n += len(yb)
        hits += (probs.argmax(1) == yb).sum().item()
    net.eval()
    with torch.no_grad():
        p = net(X_test)
        test_loss = criterion(p, y_test).item()
        test_acc = (p.argmax(1) == y_test).float().mean().item()
    if epoch % 4 == 0 or epoch == 1:
        print(f"epoch {epoch:02d}: train_loss={total / n:.4f} train_acc={hits / n:.3f} | "
              f"test_loss={test_loss:.4f} test_acc={test_acc:.3f}")
'''

SCRIPTS['label_noise'] = r'''import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
torch.manual_seed(13)
rng = np.random.default_rng(13)


def load_annotated_digits():
    d = load_digits()
    X = (d.data / 16.0).astype(np.float32)
    X_tr, X_va, y_tr, y_va = train_test_split(X, d.target, test_size=0.25, random_state=13)
    # training labels come from the crowd-sourced annotation batch, val labels were checked by hand
    flip = rng.random(len(y_tr)) < 0.4
    y_tr = y_tr.copy()
    y_tr[flip] = rng.integers(0, 10, flip.sum())
    return X_tr, y_tr, X_va, y_va


X_tr, y_tr, X_va, y_va = load_annotated_digits()
X_tr, X_va = torch.from_numpy(X_tr), torch.from_numpy(X_va)
y_tr, y_va = torch.from_numpy(y_tr), torch.from_numpy(y_va)

model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
EPOCHS, BS = 150, 64

for ep in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(len(X_tr))
    for i in range(0, len(perm), BS):
        b = perm[i:i + BS]
        opt.zero_grad()
        loss = crit(model(X_tr[b]), y_tr[b])
        loss.backward()
        opt.step()
    if ep == 1 or ep % 10 == 0:
        model.eval()
        with torch.no_grad():
            o_tr, o_va = model(X_tr), model(X_va)
            tl, ta = crit(o_tr, y_tr).item(), (o_tr.argmax(1) == y_tr).float().mean().item()
            vl, va = crit(o_va, y_va).item(), (o_va.argmax(1) == y_va).float().mean().item()
        print(f"[ep {ep:3d}/{EPOCHS}] train_loss {tl:.3f}  train_acc {ta:.3f}  val_loss {vl:.3f}  val_acc {va:.3f}")
'''

SCRIPTS['missing_zero_grad'] = r'''import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

torch.set_num_threads(1)
torch.manual_seed(7)

X, y = make_classification(n_samples=4000, n_features=20, n_informative=12, n_classes=3,
                           n_clusters_per_class=2, random_state=7)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=7)
scaler = StandardScaler().fit(X_train)
X_train = torch.tensor(scaler.transform(X_train), dtype=torch.float32)
X_test = torch.tensor(scaler.transform(X_test), dtype=torch.float32)
y_train = torch.tensor(y_train)
y_test = torch.tensor(y_test)

model = nn.Sequential(
    nn.Linear(20, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 3),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=32, shuffle=True)

EPOCHS = 10
step = 0
model.train()
optimizer.zero_grad()
for epoch in range(EPOCHS):
    for xb, yb in train_loader:
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=float("inf"))
        optimizer.step()
        step += 1
        if step % 25 == 0:
            print(f"[epoch {epoch}] step {step} loss={loss.item():.4f} gnorm={gnorm.item():.2f}")
    with torch.no_grad():
        test_acc = (model(X_test).argmax(1) == y_test).float().mean().item()
    print(f"[epoch {epoch}] test_acc={test_acc:.3f}")
'''

SCRIPTS['eval_mode_forgotten'] = r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

torch.set_num_threads(1)
torch.manual_seed(21)
np.random.seed(21)

X, y = make_classification(n_samples=5000, n_features=30, n_informative=15, n_redundant=5,
                           n_classes=4, n_clusters_per_class=1, class_sep=1.2, random_state=21)
X_tmp, X_test, y_tmp, y_test = train_test_split(X, y, test_size=0.2, random_state=21)
X_train, X_val, y_train, y_val = train_test_split(X_tmp, y_tmp, test_size=0.2, random_state=21)
sc = StandardScaler().fit(X_train)


def to_loader(X, y, bs, shuffle):
    ds = TensorDataset(torch.tensor(sc.transform(X), dtype=torch.float32), torch.tensor(y))
    return DataLoader(ds, batch_size=bs, shuffle=shuffle)


train_loader = to_loader(X_train, y_train, 64, True)
val_loader = to_loader(X_val, y_val, 16, False)
test_loader = to_loader(X_test, y_test, 16, False)


class Classifier(nn.Module):
    def __init__(self, d_in, n_out, hidden=256, p=0.5):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, n_out),
        )

    def forward(self, x):
        return self.net(x)


def evaluate(model, loader):
    correct, total, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for xb, yb in loader:
            out = model(xb)
            loss_sum += nn.functional.cross_entropy(out, yb, reduction="sum").item()
            correct += (out.argmax(1) == yb).sum().item()
            total += len(yb)
    return loss_sum / total, correct / total


model = Classifier(30, 4)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
best_acc = 0.0

for epoch in range(1, 21):
    model.train()
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
    tr_loss, tr_acc = evaluate(model, train_loader)
    val_loss, val_acc = evaluate(model, val_loader)
    if val_acc > best_acc:
        best_acc = val_acc
        torch.save(model.state_dict(), "best.pt")
    print(f"epoch {epoch:2d}  train_loss={tr_loss:.4f} train_acc={tr_acc:.4f}  "
          f"val_loss={val_loss:.4f} val_acc={val_acc:.4f}")

model = Classifier(30, 4)
model.load_state_dict(torch.load("best.pt"))
for trial in range(3):
    test_loss, test_acc = evaluate(model, test_loader)
    print(f"[best.pt] test_loss={test_loss:.4f} test_acc={test_acc:.4f}")
'''

SCRIPTS['healthy_good'] = r'''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
torch.manual_seed(0)
np.random.seed(0)

digits = load_digits()
X = digits.images.astype(np.float32) / 16.0
y = digits.target
X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.2, random_state=42, stratify=y)
X_tr = torch.tensor(X_tr).unsqueeze(1)
X_va = torch.tensor(X_va).unsqueeze(1)
y_tr = torch.tensor(y_tr)
y_va = torch.tensor(y_va)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 2 * 2, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.flatten(1)
        return self.fc2(F.relu(self.fc1(x)))


model = SmallCNN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
EPOCHS = 15
BATCH_SIZE = 64

for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(X_tr))
    running_loss, correct = 0.0, 0
    for i in range(0, len(perm), BATCH_SIZE):
        idx = perm[i:i + BATCH_SIZE]
        xb, yb = X_tr[idx], y_tr[idx]
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * len(idx)
        correct += (out.argmax(1) == yb).sum().item()

    model.eval()
    with torch.no_grad():
        out = model(X_va)
        val_loss = criterion(out, y_va).item()
        val_acc = (out.argmax(1) == y_va).float().mean().item()
    print(f"Epoch {epoch + 1}/{EPOCHS} - loss: {running_loss / len(X_tr):.4f} - acc: {correct / len(X_tr):.4f}"
          f" - val_loss: {val_loss:.4f} - val_acc: {val_acc:.4f}")

torch.save(model.state_dict(), "digits_cnn.pt")
'''

SCRIPTS['data_not_shuffled'] = r'''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from sklearn.datasets import load_digits

torch.set_num_threads(1)
torch.manual_seed(2)
rng = np.random.default_rng(2)

digits = load_digits()
train_x, train_y, test_x, test_y = [], [], [], []
for cls in range(10):
    imgs = digits.images[digits.target == cls].astype(np.float32) / 16.0
    idx = rng.permutation(len(imgs))
    n_test = len(imgs) // 5
    test_x.append(imgs[idx[:n_test]])
    train_x.append(imgs[idx[n_test:]])
    test_y += [cls] * n_test
    train_y += [cls] * (len(imgs) - n_test)

train_ds = TensorDataset(torch.tensor(np.concatenate(train_x)).unsqueeze(1), torch.tensor(train_y))
test_ds = TensorDataset(torch.tensor(np.concatenate(test_x)).unsqueeze(1), torch.tensor(test_y))
train_loader = DataLoader(train_ds, batch_size=8)
test_loader = DataLoader(test_ds, batch_size=256)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 20, 3, padding=1)
        self.fc1 = nn.Linear(20 * 4 * 4, 100)
        self.fc2 = nn.Linear(100, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return F.log_softmax(self.fc2(x), dim=1)


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

for epoch in range(1, 6):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % 6 == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)} "
                  f"({100. * batch_idx / len(train_loader):.0f}%)]\tLoss: {loss.item():.6f}")
    model.eval()
    test_loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            correct += (output.argmax(1) == target).sum().item()
    n = len(test_loader.dataset)
    print(f"\nTest set: Average loss: {test_loss / n:.4f}, Accuracy: {correct}/{n} ({100. * correct / n:.0f}%)\n")
'''

SCRIPTS['numerical_instability'] = r'''import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

torch.set_num_threads(1)
torch.manual_seed(17)

X, y = make_classification(n_samples=4000, n_features=12, n_informative=8, class_sep=2.0,
                           flip_y=0.0, random_state=17)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=17)
sc = StandardScaler().fit(X_tr)
X_tr = torch.tensor(sc.transform(X_tr), dtype=torch.float32)
X_te = torch.tensor(sc.transform(X_te), dtype=torch.float32)
y_tr = torch.tensor(y_tr, dtype=torch.float32)
y_te = torch.tensor(y_te, dtype=torch.float32)


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, 1)

    def forward(self, x):
        return self.head(self.body(x)).squeeze(-1)


def bce(logits, target):
    p = torch.sigmoid(logits)
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


model = Scorer()
lr = 3e-3
optimizer = torch.optim.Adam(model.parameters(), lr=lr)
batch_size = 128
it = 0
for epoch in range(16):
    perm = torch.randperm(len(X_tr))
    for s in range(0, len(perm), batch_size):
        idx = perm[s:s + batch_size]
        loss = bce(model(X_tr[idx]), y_tr[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        it += 1
        if it % 20 == 0:
            print(f"iter {it} | loss {loss.item():.4f} | lr {lr:.0e}")
    with torch.no_grad():
        acc = ((model(X_te) > 0).float() == y_te).float().mean().item()
    print(f"epoch {epoch + 1} | test acc {acc:.4f}")
'''

SCRIPTS['unnormalized_inputs'] = r'''import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(8)
rng = np.random.default_rng(8)

# customer table (exported from the CRM)
n = 6000
df = pd.DataFrame({
    "age": rng.integers(18, 80, n),
    "income": rng.lognormal(10.8, 0.5, n).round(2),
    "balance": np.clip(rng.normal(60000, 45000, n), 0, None).round(2),
    "tenure_months": rng.integers(0, 120, n),
    "num_products": rng.integers(1, 5, n),
    "is_active": rng.integers(0, 2, n),
    "credit_score": rng.integers(350, 850, n),
})
z = lambda c: (df[c] - df[c].mean()) / df[c].std()
logit = (-1.0 + 1.2 * z("age") - 0.8 * z("tenure_months") + 0.9 * z("balance")
         - 1.1 * df["is_active"] + 0.6 * (df["num_products"] >= 3) - 0.5 * z("credit_score"))
df["churn"] = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
df.to_csv("customers.csv", index=False)

df = pd.read_csv("customers.csv")
features = ["age", "income", "balance", "tenure_months", "num_products", "is_active", "credit_score"]
X = torch.tensor(df[features].values, dtype=torch.float32)
y = torch.tensor(df["churn"].values, dtype=torch.float32)
split = int(0.8 * n)
train_dl = DataLoader(TensorDataset(X[:split], y[:split]), batch_size=64, shuffle=True)
X_val, y_val = X[split:], y[split:]

model = nn.Sequential(nn.Linear(len(features), 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.BCEWithLogitsLoss()

for epoch in range(1, 31):
    model.train()
    tot, cnt = 0.0, 0
    for xb, yb in train_dl:
        optimizer.zero_grad()
        loss = criterion(model(xb).squeeze(1), yb)
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(yb)
        cnt += len(yb)
    model.eval()
    with torch.no_grad():
        v = model(X_val).squeeze(1)
        val_loss = criterion(v, y_val).item()
        val_acc = ((v > 0).float() == y_val).float().mean().item()
    print(f"epoch {epoch:02d}  loss {tot / cnt:.4f}  val_loss {val_loss:.4f}  val_acc {val_acc:.4f}")
print("baseline (always predict majority):", max(y_val.mean().item(), 1 - y_val.mean().item()))
'''

SCRIPTS['label_misalignment'] = r'''import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
torch.manual_seed(5)
np.random.seed(5)

X, y = make_classification(n_samples=6000, n_features=16, n_informative=10, n_redundant=2,
                           n_classes=5, class_sep=1.5, random_state=5)
X = ((X - X.mean(0)) / X.std(0)).astype(np.float32)

X_train, X_val = train_test_split(X, test_size=0.2, shuffle=True)
y_train, y_val = train_test_split(y, test_size=0.2, shuffle=True)

X_train, X_val = torch.from_numpy(X_train), torch.from_numpy(X_val)
y_train, y_val = torch.from_numpy(y_train), torch.from_numpy(y_val)

model = nn.Sequential(
    nn.Linear(16, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 5),
)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
loss_fn = nn.CrossEntropyLoss()

EPOCHS, BS = 25, 64
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(len(X_train))
    ep_loss, ep_correct = 0.0, 0
    for i in range(0, len(perm), BS):
        b = perm[i:i + BS]
        logits = model(X_train[b])
        loss = loss_fn(logits, y_train[b])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ep_loss += loss.item() * len(b)
        ep_correct += (logits.argmax(1) == y_train[b]).sum().item()
    model.eval()
    with torch.no_grad():
        vl = model(X_val)
        val_loss = loss_fn(vl, y_val).item()
        val_acc = (vl.argmax(1) == y_val).float().mean().item()
    if epoch <= 3 or epoch % 5 == 0:
        print(f"Epoch {epoch}/{EPOCHS} | train_loss {ep_loss / len(X_train):.4f} | "
              f"train_acc {ep_correct / len(X_train):.3f} | val_loss {val_loss:.4f} | val_acc {val_acc:.3f}")
'''


def block(lines, lang=""):
    return "```" + lang + "\n" + "\n".join(lines) + "\n```\n"


def snippet(src, start, end):
    """Copy lines of train.py verbatim, from the first line containing `start` to the first later
    line containing `end` (inclusive)."""
    lines = src.splitlines()
    i = next(k for k, l in enumerate(lines) if start in l)
    j = next(k for k in range(i, len(lines)) if end in lines[k])
    return lines[i:j + 1]


def first_nan(L):
    return next(k for k, l in enumerate(L) if "nan" in l)


RUNS = [
    dict(
        name="run01", key="lr_too_high", truth="lr_too_high", ship_code=False,
        snippet=("LR = 0.2", "opt.step()"),
        pick=lambda L: L[:15],
        intro="Fitting a small MLP (2 hidden layers, tanh) on sklearn make_moons with RMSprop, 20 epochs, batch 50.",
        question="On this 2-class problem the train loss never gets below 1 and val_loss jumps around between 0.6 and 12 from one epoch to the next.",
        outro="Accuracy is sort of ok-ish (80-90%) so I'm not sure if I should worry. Is something wrong with my setup?",
        how="RMSprop with lr=0.2 (about 100-200x a sane value) on a small tanh MLP; a copy with lr=1e-3 trains smoothly.",
    ),
    dict(
        name="run02", key="frozen_parameters", truth="frozen_parameters", ship_code=True,
        snippet=("new_train = make_dataset", 'f"val_loss {va_loss:.4f}'),
        pick=lambda L: L[:13],
        intro="I pretrain a small CNN on four synthetic shapes and then fine-tune it on three new shapes (the idea is to keep the pretrained conv layers and only train a new linear head). Pretraining works great, 99% acc.",
        question="In the fine-tune stage the loss and accuracy are identical to four decimals every single epoch, why isn't anything changing?",
        outro="Full train.py is attached, the relevant part is below.",
        how="Stage 2 builds the optimizer from model.classifier.parameters() and only then replaces model.classifier with a new nn.Linear; the conv features have requires_grad=False, so the optimizer holds only the old, detached head and no parameter in the model is ever updated.",
    ),
    dict(
        name="run03", key="healthy_noisy", truth="healthy", ship_code=False,
        snippet=None,
        pick=lambda L: L[8:23],
        intro="Training a 1-layer GRU (hidden 32) to classify synthetic sequences, plain SGD with momentum 0.9, lr 0.02, batch size 16.",
        question="The printed loss jumps around a lot from one print to the next (0.12, then 0.46, then 0.42...), is this run ok or is something broken?",
        outro="Val accuracy goes up to ~0.85-0.88 and then sort of sits there.",
        how="No fault: GRU on a learnable synthetic sequence task with small batches (16); the per-iteration loss printed is a single noisy batch, val loss falls from 0.60 to ~0.28-0.30 and val acc rises from 0.66 to ~0.85-0.88.",
    ),
    dict(
        name="run04", key="double_softmax", truth="double_softmax", ship_code=False,
        snippet=("class DigitNet", "optimizer = torch.optim.SGD"),
        pick=lambda L: L,
        intro="MLP on the sklearn digits (8x8), SGD with momentum, 40 epochs.",
        question="Train accuracy gets to 99.6% and test to 97%, but the loss won't go below ~1.47 no matter how long I train; shouldn't cross-entropy be close to 0 when accuracy is that high?",
        outro="Model and loss below.",
        how="The model ends in nn.Softmax(dim=1) and its output is fed to nn.CrossEntropyLoss (which applies log_softmax again); the loss floors at ~1.466, near the 10-class floor 1.461 for probabilities used as logits, while accuracy is high.",
    ),
    dict(
        name="run05", key="label_noise", truth="label_noise", ship_code=False,
        snippet=None,
        pick=lambda L: L[:2] + L[3:],
        intro="Weird one. 2-hidden-layer MLP (256 units) on the digits data, Adam 1e-3, 150 epochs, full-batch train/val metrics every 10 epochs.",
        question="Why is my validation accuracy (~94%) so much higher than my training accuracy (~63%) for the first 40 or so epochs, and why does val drop once train accuracy finally goes up?",
        outro="I'd expect train to be at least as good as val. The val set is a held-out 25% of the same data.",
        how="40% of the training labels were replaced by uniformly random classes inside the data-loading function (val labels clean); train acc plateaus at ~0.63-0.66 with train loss ~1.2-1.4 while val is 0.94, then the model memorises the wrong labels (train acc 0.98) and val falls to 0.75.",
    ),
    dict(
        name="run06", key="missing_zero_grad", truth="missing_zero_grad", ship_code=True,
        snippet=("criterion = nn.CrossEntropyLoss()", 'print(f"[epoch {epoch}] step'),
        pick=lambda L: L[:9] + L[15:19] + L[-2:],
        intro="Simple 3-layer MLP on a tabular 3-class dataset (make_classification, standardised), SGD lr 0.01 momentum 0.9.",
        question="After the first epoch my loss blows up into the tens and hundreds, test accuracy drops to 33%, and the grad norm I print keeps climbing, even though the lr is only 0.01.",
        outro="Training loop below, train.py attached. What am I missing?",
        how="optimizer.zero_grad() is called once before the training loop instead of every step, so gradients accumulate across steps; grad norm climbs 6 -> 29 -> 68 -> 242 -> 2492 and the loss goes from ~1.0 to >100.",
    ),
    dict(
        name="run07", key="eval_mode_forgotten", truth="eval_mode_forgotten", ship_code=True,
        snippet=("def evaluate(model, loader)", "val_loss, val_acc = evaluate(model, val_loader)"),
        pick=lambda L: L[8:],
        intro="MLP with BatchNorm + Dropout on a 4-class tabular problem. I keep the checkpoint with the best val accuracy and evaluate it on the test set at the end.",
        question="Running evaluate() three times on the same loaded checkpoint gives three different test accuracies, shouldn't evaluating a fixed model be deterministic?",
        outro="Val accuracy also bounces around between epochs. Code attached (train.py), the eval part is below.",
        how="evaluate() never calls model.eval(), so Dropout(0.5) stays active and BatchNorm uses (and updates) batch statistics of 16-sample eval batches; repeated test evaluations of best.pt give 0.915/0.916/0.930, while the same best.pt in eval mode scores 0.972 every time.",
    ),
    dict(
        name="run08", key="healthy_good", truth="healthy", ship_code=True,
        snippet=None,
        pick=lambda L: L,
        intro="First time training a CNN, on the sklearn 8x8 digits (2 conv layers, Adam 1e-3, 15 epochs). Full train.py is attached.",
        question="Does this run look ok, or is there anything I should fix before I move to a bigger dataset?",
        outro="",
        how="No fault: small CNN on digits, Adam 1e-3, proper zero_grad/eval/shuffling; loss 2.28 -> 0.12, val_acc 0.27 -> 0.956, val tracks train closely.",
    ),
    dict(
        name="run09", key="data_not_shuffled", truth="data_not_shuffled", ship_code=False,
        snippet=("for cls in range(10):", "test_loader = DataLoader"),
        pick=lambda L: L[:10] + [l for l in L if l.startswith("Test set")][:1] + [l for l in L if l.startswith("Test set")][-2:],
        intro="Small CNN on the sklearn digits, SGD lr 0.05, batch size 8, 5 epochs. I build the train/test split per class (20% of each digit goes to test).",
        question="Test accuracy is stuck at 10% (chance) after 5 epochs, even though the training loss regularly drops to ~0.03, and the train loss keeps spiking to ~5 and falling back almost to zero over and over.",
        outro="Here's how I build the data. What am I doing wrong?",
        how="Training data is concatenated class by class and the DataLoader has no shuffle=True, so every batch holds one class; the logged loss is an epoch-aligned saw-tooth (~5 at each class boundary, ~0.03 at the end of each class block) and test accuracy stays at 10-11%.",
    ),
    dict(
        name="run10", key="numerical_instability", truth="numerical_instability", ship_code=True,
        snippet=("def bce(logits, target):", "loss = bce(model(X_tr[idx]), y_tr[idx])"),
        pick=lambda L: L[:1] + L[first_nan(L) - 9:first_nan(L) + 5],
        intro="Binary classifier (MLP) on tabular data, Adam lr 3e-3, batch 128.",
        question="My classifier trains great (99.9% test accuracy, loss around 0.001), then around iteration 260 the loss suddenly becomes nan and test accuracy falls to 51% and never recovers.",
        outro="The loss was going down the whole time before, no spike. Where does the nan come from? train.py attached, loss function and loop below.",
        how="Hand-written BCE: torch.log(torch.sigmoid(z)) and torch.log(1 - torch.sigmoid(z)); once a logit exceeds ~17, sigmoid rounds to 1.0 in float32, log(0) = -inf and 0 * -inf = nan, so the loss turns nan at iteration ~251 straight after values of ~0.001 and the weights become nan.",
    ),
    dict(
        name="run11", key="unnormalized_inputs", truth="unnormalized_inputs", ship_code=False,
        snippet=('df = pd.read_csv("customers.csv")', "criterion = nn.BCEWithLogitsLoss()"),
        pick=lambda L: L[:12] + L[-1:],
        intro="I'm trying to predict churn from a customer table (age, income, balance, tenure, ...) with a small MLP, Adam with lr=1e-3, nothing exotic.",
        question="The loss starts at ~38, then just bounces between 3 and 15, and val accuracy hovers around the 66% you'd get by predicting 'no churn' for everyone; why won't it learn?",
        outro="Data prep and model below.",
        how="Raw features go straight into the MLP without scaling (income ~5e4, balance up to ~2e5, credit_score 350-850, next to 0/1 flags); the loss starts at 38.7, bounces between ~3 and ~15 for 30 epochs and val_acc wanders 0.40-0.72 around the 0.66 majority baseline, while the same model on standardised features reaches val_loss ~0.41 and val_acc ~0.82.",
    ),
    dict(
        name="run12", key="label_misalignment", truth="label_misalignment", ship_code=True,
        snippet=("X, y = make_classification", "y_train, y_val = torch.from_numpy(y_train)"),
        pick=lambda L: L,
        intro="5-class tabular problem (make_classification, 10 informative features, class_sep 1.5), small MLP with AdamW. The data should be easy to learn.",
        question="Val accuracy sits at ~20% (chance for 5 classes) from the very first epoch and never moves, while the train loss only creeps down slowly.",
        outro="Data split below, full train.py attached.",
        how="X and y are split by two separate train_test_split calls without a shared random_state, so each gets a different permutation and inputs are paired with random targets; val loss stays at ln5 = 1.609 and above and val_acc at ~0.20 while train loss creeps from 1.61 to 1.45 by memorisation.",
    ),
]


def post_md(run, stdout_lines, src):
    parts = [run["intro"] + " " + run["question"]]
    if run["outro"]:
        parts[0] += " " + run["outro"]
    parts.append(block(run["pick"](stdout_lines)))
    if run["snippet"]:
        parts.append(block(snippet(src, *run["snippet"]), "python"))
    return "\n\n".join(p.rstrip("\n") for p in parts) + "\n"


def main():
    runs_dir, work_dir = OUT / "runs", OUT / "_work"
    for d in (runs_dir, work_dir):
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
    truth = {}
    for run in RUNS:
        name, src = run["name"], SCRIPTS[run["key"]]
        wd = work_dir / name
        wd.mkdir()
        (wd / "train.py").write_text(src)
        print(f"training {name} ...", flush=True)
        proc = subprocess.run([PY, "train.py"], cwd=wd, capture_output=True, text=True, timeout=300,
                              env={"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
        (wd / "stdout.txt").write_text(proc.stdout)
        (wd / "stderr.txt").write_text(proc.stderr)
        if proc.returncode != 0:
            raise SystemExit(f"{name} failed:\n{proc.stderr}")
        lines = [l.rstrip() for l in proc.stdout.splitlines() if l.strip()]
        rd = runs_dir / name
        rd.mkdir()
        (rd / "post.md").write_text(post_md(run, lines, src))
        if run["ship_code"]:
            (rd / "train.py").write_text(src)
        truth[name] = {"truth": run["truth"], "symptom": run["question"], "how": run["how"]}
    (OUT / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    print("done")


if __name__ == "__main__":
    main()
