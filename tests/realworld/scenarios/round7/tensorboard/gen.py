#!/usr/bin/env python
"""Generate the 12 benchmark runs into ./runs (next to this file) and truth.json.

Each run's script is executed as-is (cwd = run folder, writes TensorBoard events to ./tb);
stdout is kept as train.log (full or the last lines only). Scripts marked include=True are
left in the run folder as train.py. Run with the torch venv python: python gen.py
"""
import json, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")

SCRIPTS = {}
SCRIPTS['run01'] = r'''import numpy as np
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(1)
torch.set_num_threads(1)
rng = np.random.default_rng(1)

# 8x8 "digits": 10 prototype strokes, random jitter, pixel noise
protos = rng.random((10, 8, 8)) ** 3 * 16.0

def make_digits(n):
    labels = rng.integers(0, 10, n)
    imgs = protos[labels] * rng.uniform(0.6, 1.4, (n, 1, 1)) + rng.normal(0, 10.0, (n, 8, 8))
    return imgs.reshape(n, 64).astype(np.float32), labels

X_train, y_train = make_digits(3000)
X_val, y_val = make_digits(800)
mean, std = X_train.mean(0), X_train.std(0) + 1e-6
X_train = torch.tensor((X_train - mean) / std)
X_val = torch.tensor((X_val - mean) / std)
y_train, y_val = torch.tensor(y_train), torch.tensor(y_val)

model = nn.Sequential(
    nn.Linear(64, 128), nn.ReLU(),
    nn.Linear(128, 64), nn.ReLU(),
    nn.Linear(64, 10),
)

num_epochs = 40
batch_size = 64
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scheduler = StepLR(optimizer, step_size=10, gamma=0.5)
criterion = nn.CrossEntropyLoss()
writer = SummaryWriter("tb")

for epoch in range(num_epochs):
    model.train()
    perm = torch.randperm(len(X_train))
    epoch_loss = 0.0
    for i in range(0, len(X_train), batch_size):
        idx = perm[i:i + batch_size]
        optimizer.zero_grad()
        loss = criterion(model(X_train[idx]), y_train[idx])
        loss.backward()
        optimizer.step()
        scheduler.step()
        epoch_loss += loss.item() * len(idx)
    epoch_loss /= len(X_train)

    model.eval()
    with torch.no_grad():
        out = model(X_val)
        val_loss = criterion(out, y_val).item()
        val_acc = (out.argmax(1) == y_val).float().mean().item()
    lr_now = optimizer.param_groups[0]["lr"]
    writer.add_scalar("loss/train", epoch_loss, epoch)
    writer.add_scalar("loss/val", val_loss, epoch)
    writer.add_scalar("acc/val", val_acc, epoch)
    writer.add_scalar("lr", lr_now, epoch)
    print(f"epoch {epoch+1:3d} | lr {lr_now:.3e} | train {epoch_loss:.4f} | val {val_loss:.4f} | acc {val_acc:.4f}")

writer.close()
'''

SCRIPTS['run02'] = r'''import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(2)
np.random.seed(2)
torch.set_num_threads(1)


def make_shapes(n, rng, size=16):
    """4 classes: horizontal bar, vertical bar, diagonal, square blob."""
    X = np.zeros((n, 1, size, size), dtype=np.float32)
    y = rng.integers(0, 4, n)
    for i in range(n):
        r, c = rng.integers(3, size - 3, 2)
        t = rng.integers(1, 3)
        if y[i] == 0:
            X[i, 0, r:r + t, 2:size - 2] = 1.0
        elif y[i] == 1:
            X[i, 0, 2:size - 2, c:c + t] = 1.0
        elif y[i] == 2:
            for k in range(-5, 6):
                rr, cc = r + k, c + k
                if 0 <= rr < size and 0 <= cc < size:
                    X[i, 0, rr, cc:cc + t] = 1.0
        else:
            X[i, 0, r - 2:r + 2, c - 2:c + 2] = 1.0
    X += rng.normal(0, 0.6, X.shape).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(y).long()


class SmallCNN(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


rng = np.random.default_rng(2)
Xtr, ytr = make_shapes(2400, rng)
Xva, yva = make_shapes(600, rng)
train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True)

model = SmallCNN()
EPOCHS = 15
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS)
writer = SummaryWriter("tb")

step = 0
for epoch in range(EPOCHS):
    model.train()
    run_loss, n = 0.0, 0
    for xb, yb in train_dl:
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        opt.zero_grad()
        loss.backward()
        gnorm = torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters()))
        opt.step()
        step += 1
        run_loss += loss.item() * len(xb)
        n += len(xb)
        if step % 10 == 0:
            writer.add_scalar("train/loss", loss.item(), step)
            writer.add_scalar("grad/global_norm", gnorm.item(), step)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vloss = F.cross_entropy(out, yva).item()
        vacc = (out.argmax(1) == yva).float().mean().item()
    writer.add_scalar("val/loss", vloss, step)
    writer.add_scalar("val/acc", vacc, step)
    writer.add_scalar("lr", opt.param_groups[0]["lr"], step)
    print(f"epoch {epoch + 1}/{EPOCHS}  train_loss {run_loss / n:.4f}  val_loss {vloss:.4f}  val_acc {vacc:.4f}  lr {opt.param_groups[0]['lr']:.2e}")
    sched.step()
writer.close()
'''

SCRIPTS['run03'] = r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
torch.manual_seed(3)
np.random.seed(3)

# 4 gaussian clusters in 16-d (linearly separable enough)
K, D = 4, 16
means = np.random.randn(K, D) * 2.0
ytr = np.random.randint(0, K, 4000); Xtr = means[ytr] + np.random.randn(4000, D)
yva = np.random.randint(0, K, 1000); Xva = means[yva] + np.random.randn(1000, D)
Xtr, Xva = torch.tensor(Xtr, dtype=torch.float32), torch.tensor(Xva, dtype=torch.float32)
ytr, yva = torch.tensor(ytr), torch.tensor(yva)


class DeepMLP(nn.Module):
    def __init__(self, d_in, width, depth, n_out):
        super().__init__()
        dims = [d_in] + [width] * depth
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:])])
        self.out = nn.Linear(width, n_out)

    def forward(self, x):
        for layer in self.layers:
            x = torch.sigmoid(layer(x))
        return self.out(x)


model = DeepMLP(D, 64, 12, K)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
loss_fn = nn.CrossEntropyLoss()
writer = SummaryWriter("tb")

global_step = 0
for epoch in range(20):
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), 32):
        idx = perm[i:i + 32]
        loss = loss_fn(model(Xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        if global_step % 25 == 0:
            total = 0.0
            for name, p in model.named_parameters():
                if name.endswith("weight"):
                    writer.add_scalar(f"grad_norm/{name}", p.grad.norm().item(), global_step)
                total += p.grad.pow(2).sum().item()
            writer.add_scalar("grad/global_norm", total ** 0.5, global_step)
            writer.add_scalar("train/loss", loss.item(), global_step)
        opt.step()
        global_step += 1
    with torch.no_grad():
        logits = model(Xva)
        vloss = loss_fn(logits, yva).item()
        vacc = (logits.argmax(1) == yva).float().mean().item()
    writer.add_scalar("val/loss", vloss, global_step)
    writer.add_scalar("val/acc", vacc, global_step)
    print(f"epoch {epoch:02d} loss {loss.item():.4f} val_loss {vloss:.4f} val_acc {vacc:.3f}")
writer.close()
'''

SCRIPTS['run04'] = r'''import math
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(4)
torch.set_num_threads(1)


def make_moons(n, noise=0.15):
    n1 = n // 2
    n2 = n - n1
    t1 = torch.rand(n1) * math.pi
    t2 = torch.rand(n2) * math.pi
    upper = torch.stack([torch.cos(t1), torch.sin(t1)], 1)
    lower = torch.stack([1 - torch.cos(t2), 0.5 - torch.sin(t2)], 1)
    X = torch.cat([upper, lower]) + noise * torch.randn(n, 2)
    y = torch.cat([torch.zeros(n1), torch.ones(n2)])
    p = torch.randperm(n)
    return X[p], y[p]


X_train, y_train = make_moons(2000)
X_val, y_val = make_moons(500)

model = nn.Sequential(
    nn.Linear(2, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 1),
)


def bce(logits, target):
    p = torch.sigmoid(logits).squeeze(1)
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


opt = torch.optim.Adam(model.parameters(), lr=1e-2)
tb = SummaryWriter("tb")

step = 0
for epoch in range(30):
    model.train()
    perm = torch.randperm(len(X_train))
    for i in range(0, len(X_train), 50):
        idx = perm[i:i + 50]
        loss = bce(model(X_train[idx]), y_train[idx])
        opt.zero_grad()
        loss.backward()
        gn = sum(p.grad.pow(2).sum() for p in model.parameters()).sqrt()
        opt.step()
        if step % 10 == 0:
            tb.add_scalar("train/loss", loss.item(), step)
            tb.add_scalar("train/grad_norm", gn.item(), step)
        step += 1
    model.eval()
    with torch.no_grad():
        logits = model(X_val)
        vloss = bce(logits, y_val).item()
        vacc = ((logits.squeeze(1) > 0).float() == y_val).float().mean().item()
    tb.add_scalar("val/loss", vloss, epoch)
    tb.add_scalar("val/acc", vacc, epoch)
    print(f"epoch {epoch:2d}  loss {loss.item():.5f}  val_loss {vloss:.5f}  val_acc {vacc:.3f}")
tb.close()
'''

SCRIPTS['run05'] = r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(5)
torch.set_num_threads(1)
rs = np.random.RandomState(5)

# binary task: label depends on 5 of 50 features, the rest is noise
def make(n):
    X = rs.randn(n, 50).astype(np.float32)
    score = X[:, 0] + 0.8 * X[:, 1] - 0.6 * X[:, 2] + 0.5 * X[:, 3] * X[:, 4]
    y = (score + 0.7 * rs.randn(n) > 0).astype(np.int64)
    return torch.from_numpy(X), torch.from_numpy(y)

X_train, y_train = make(300)
X_valid, y_valid = make(1000)

model = nn.Sequential(
    nn.Linear(50, 512), nn.ReLU(),
    nn.Linear(512, 512), nn.ReLU(),
    nn.Linear(512, 2),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
criterion = nn.CrossEntropyLoss()
writer = SummaryWriter("tb")

EPOCHS = 150
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(len(X_train))
    correct, total_loss = 0, 0.0
    for i in range(0, len(X_train), 32):
        idx = perm[i:i + 32]
        out = model(X_train[idx])
        loss = criterion(out, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * len(idx)
        correct += (out.argmax(1) == y_train[idx]).sum().item()
    train_loss = total_loss / len(X_train)
    train_acc = correct / len(X_train)
    model.eval()
    with torch.no_grad():
        out = model(X_valid)
        valid_loss = criterion(out, y_valid).item()
        valid_acc = (out.argmax(1) == y_valid).float().mean().item()
    writer.add_scalar("Loss/train", train_loss, epoch)
    writer.add_scalar("Loss/valid", valid_loss, epoch)
    writer.add_scalar("Acc/train", train_acc, epoch)
    writer.add_scalar("Acc/valid", valid_acc, epoch)
    if epoch % 10 == 0 or epoch == 1:
        print(f"epoch {epoch:3d}  train_loss={train_loss:.4f} train_acc={train_acc:.3f}  valid_loss={valid_loss:.4f} valid_acc={valid_acc:.3f}")
writer.close()
'''

SCRIPTS['run06'] = r'''import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(6)
torch.set_num_threads(1)

# synthetic tabular task: 4 classes from two nonlinear rules on 10 features
N, D, K = 4000, 10, 4
X = torch.randn(N, D)
y = ((torch.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] > 0).long() * 2
     + (X[:, 3] ** 2 + X[:, 4] ** 2 > 1.4).long())
X_train, y_train, X_val, y_val = X[:3200], y[:3200], X[3200:], y[3200:]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(D, 64)
        self.fc2 = nn.Linear(64, 64)
        self.fc3 = nn.Linear(64, K)

    def forward(self, x):
        h1 = F.relu(self.fc1(x))
        h2 = F.relu(self.fc2(h1))
        return self.fc3(h2), (h1, h2)


net = Net()
optimizer = torch.optim.SGD(net.parameters(), lr=0.3, momentum=0.9)
writer = SummaryWriter("tb")

step = 0
for epoch in range(25):
    net.train()
    perm = torch.randperm(len(X_train))
    for i in range(0, len(X_train), 32):
        idx = perm[i:i + 32]
        logits, _ = net(X_train[idx])
        loss = F.cross_entropy(logits, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        if step % 20 == 0:
            writer.add_scalar("Loss/train", loss.item(), step)
            for name in ["fc1.weight", "fc2.weight", "fc3.weight"]:
                p = dict(net.named_parameters())[name]
                writer.add_scalar(f"grad_norm/{name}", p.grad.norm().item(), step)
        optimizer.step()
        step += 1

    net.eval()
    with torch.no_grad():
        logits, (h1, h2) = net(X_val)
        val_loss = F.cross_entropy(logits, y_val).item()
        val_acc = (logits.argmax(1) == y_val).float().mean().item()
        zero1 = (h1 == 0).float().mean().item()
        zero2 = (h2 == 0).float().mean().item()
    writer.add_scalar("Loss/val", val_loss, step)
    writer.add_scalar("Acc/val", val_acc, step)
    writer.add_scalar("activations/fc1_zero_frac", zero1, step)
    writer.add_scalar("activations/fc2_zero_frac", zero2, step)
    print(f"Epoch {epoch + 1}/25 - loss: {loss.item():.4f} - val_loss: {val_loss:.4f} - val_acc: {val_acc:.4f}")
writer.close()
'''

SCRIPTS['run07'] = r'''import numpy as np
import torch
from torch import nn
from torch.utils.tensorboard import SummaryWriter

SEED = 7
torch.manual_seed(SEED)
torch.set_num_threads(1)
rng = np.random.default_rng(SEED)

# --- data: 6 overlapping gaussian blobs, 2 per class-pair, in 24-d ---
N_CLASSES, DIM = 6, 24
centers = rng.normal(0, 1.0, size=(N_CLASSES * 2, DIM))

def sample(n):
    comp = rng.integers(0, N_CLASSES * 2, n)
    x = centers[comp] + rng.normal(0, 1.9, size=(n, DIM))
    y = comp % N_CLASSES
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)

x_train, y_train = sample(8000)
x_val, y_val = sample(1500)
mu, sd = x_train.mean(0), x_train.std(0)
x_train, x_val = (x_train - mu) / sd, (x_val - mu) / sd

net = nn.Sequential(
    nn.Linear(DIM, 64), nn.ReLU(), nn.Dropout(0.3),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, N_CLASSES),
)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.002, momentum=0.9)
BATCH = 16
EPOCHS = 30

tb = SummaryWriter("tb")
it = 0
for ep in range(1, EPOCHS + 1):
    net.train()
    order = torch.randperm(len(x_train))
    correct = 0
    for s in range(0, len(order), BATCH):
        idx = order[s:s + BATCH]
        logits = net(x_train[idx])
        loss = loss_fn(logits, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        correct += (logits.argmax(1) == y_train[idx]).sum().item()
        it += 1
        if it % 25 == 0:
            tb.add_scalar("Loss/train", loss.item(), it)
    net.eval()
    with torch.no_grad():
        logits = net(x_val)
        val_loss = loss_fn(logits, y_val).item()
        val_acc = (logits.argmax(1) == y_val).float().mean().item()
    train_acc = correct / len(x_train)
    tb.add_scalar("Accuracy/train", train_acc, ep)
    tb.add_scalar("Loss/val", val_loss, ep)
    tb.add_scalar("Accuracy/val", val_acc, ep)
    print(f"[{ep:02d}] loss={loss.item():.3f} train_acc={train_acc:.3f} val_loss={val_loss:.3f} val_acc={val_acc:.3f}")
tb.close()
'''

SCRIPTS['run08'] = r'''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(8)
torch.set_num_threads(1)
rng = np.random.default_rng(8)

# 10-class problem, 32 features
N_FEAT, N_CLASS = 32, 10
W_true = rng.normal(size=(N_FEAT, N_CLASS))
def gen(n):
    x = rng.normal(size=(n, N_FEAT)).astype(np.float32)
    logits = x @ W_true + 0.5 * np.sin(3 * x[:, :N_CLASS])
    return torch.from_numpy(x), torch.from_numpy(logits.argmax(1))

x_tr, y_tr = gen(6000)
x_va, y_va = gen(1000)


class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.linears = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.reset_parameters()

    def reset_parameters(self):
        for lin in self.linears:
            nn.init.normal_(lin.weight, mean=0.0, std=1.0)
            nn.init.zeros_(lin.bias)

    def forward(self, x):
        for lin in self.linears[:-1]:
            x = F.relu(lin(x))
        return self.linears[-1](x)


model = MLP([N_FEAT, 256, 256, 256, 256, 256, 256, 256, N_CLASS])
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
writer = SummaryWriter("tb")

step = 0
for epoch in range(10):
    perm = torch.randperm(len(x_tr))
    for i in range(0, len(x_tr), 128):
        b = perm[i:i + 128]
        loss = F.cross_entropy(model(x_tr[b]), y_tr[b])
        opt.zero_grad()
        loss.backward()
        sq = 0.0
        for name, p in model.named_parameters():
            if p.grad is None:
                continue
            n = p.grad.norm().item()
            sq += n * n
            if name.endswith("weight") and step % 5 == 0:
                writer.add_scalar(f"grad_norm/{name}", n, step)
        writer.add_scalar("train/loss", loss.item(), step)
        writer.add_scalar("grad/global_norm", sq ** 0.5, step)
        opt.step()
        step += 1
    with torch.no_grad():
        out = model(x_va)
        vl = F.cross_entropy(out, y_va).item()
        va = (out.argmax(1) == y_va).float().mean().item()
    writer.add_scalar("val/loss", vl, step)
    writer.add_scalar("val/acc", va, step)
    print(f"epoch {epoch}: train loss {loss.item():.4g}  val loss {vl:.4g}  val acc {va:.3f}")
writer.close()
'''

SCRIPTS['run09'] = r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
torch.manual_seed(9)
g = np.random.default_rng(9)

# make_classification-ish: 3 classes, 8 informative + 12 noise features
n, n_inf, n_noise = 10000, 8, 12
y = g.integers(0, 3, n)
protos = g.normal(0, 1.2, (3, 4, n_inf))
sub = g.integers(0, 4, n)
X_inf = protos[y, sub] + g.normal(0, 1.0, (n, n_inf))
X = np.hstack([X_inf, g.normal(0, 1.0, (n, n_noise))]).astype(np.float32)
X = (X - X.mean(0)) / X.std(0)
X, y = torch.from_numpy(X), torch.from_numpy(y)
Xtr, ytr, Xte, yte = X[:8000], y[:8000], X[8000:], y[8000:]

model = nn.Sequential(nn.Linear(20, 128), nn.GELU(), nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 3))
PEAK_LR = 0.8
WARMUP = 300
EPOCHS = 12
BS = 128
opt = torch.optim.SGD(model.parameters(), lr=PEAK_LR, momentum=0.9)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / WARMUP))
crit = nn.CrossEntropyLoss()
w = SummaryWriter("tb")

step = 0
for epoch in range(EPOCHS):
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), BS):
        b = perm[i:i + BS]
        loss = crit(model(Xtr[b]), ytr[b])
        opt.zero_grad()
        loss.backward()
        gn = nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        w.add_scalar("train/loss", loss.item(), step)
        w.add_scalar("grad/global_norm", gn.item(), step)
        w.add_scalar("lr", opt.param_groups[0]["lr"], step)
        opt.step()
        sched.step()
        step += 1
    with torch.no_grad():
        logits = model(Xte)
        vl = crit(logits, yte).item()
        va = (logits.argmax(-1) == yte).float().mean().item()
    w.add_scalar("val/loss", vl, step)
    w.add_scalar("val/acc", va, step)
    print("epoch %d | train loss %.4f | val loss %.4f | val acc %.3f | grad norm %.2f | lr %.3f" % (epoch, loss.item(), vl, va, gn.item(), opt.param_groups[0]["lr"]))
w.close()
'''

SCRIPTS['run10'] = r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(10)
torch.set_num_threads(1)
rng = np.random.default_rng(10)

# tabular regression: predict a sale price (in dollars) from 12 numeric features
N, F = 6000, 12
X = rng.normal(size=(N, F)).astype(np.float32)
coef = rng.uniform(5_000, 15_000, size=F)
price = 90_000 + X @ coef + 4_000 * X[:, 0] * X[:, 1] + rng.normal(0, 5_000, size=N)
price = np.clip(price, 20_000, None).astype(np.float32)
X_train, X_val = torch.from_numpy(X[:5000]), torch.from_numpy(X[5000:])
y_train, y_val = torch.from_numpy(price[:5000])[:, None], torch.from_numpy(price[5000:])[:, None]

model = nn.Sequential(
    nn.Linear(F, 256), nn.ReLU(),
    nn.Linear(256, 256), nn.ReLU(),
    nn.Linear(256, 1),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cpu")
loss_fn = nn.MSELoss()
writer = SummaryWriter("tb")

EPOCHS, BS = 30, 100
step = 0
for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(X_train))
    for i in range(0, len(X_train), BS):
        idx = perm[i:i + BS]
        optimizer.zero_grad()
        with torch.autocast(device_type="cpu", dtype=torch.float16):
            pred = model(X_train[idx])
            loss = loss_fn(pred.float(), y_train[idx])
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        scaler.step(optimizer)
        scaler.update()
        writer.add_scalar("train/loss", loss.item(), step)
        writer.add_scalar("train/grad_norm", gnorm.item(), step)
        writer.add_scalar("amp/loss_scale", scaler.get_scale(), step)
        step += 1
    model.eval()
    with torch.no_grad(), torch.autocast(device_type="cpu", dtype=torch.float16):
        pv = model(X_val).float()
    rmse = torch.sqrt(((pv - y_val) ** 2).mean()).item()
    mae = (pv - y_val).abs().mean().item()
    writer.add_scalar("val/rmse", rmse, step)
    writer.add_scalar("val/mae", mae, step)
    print(f"epoch {epoch:02d} | loss {loss.item():.4g} | val_rmse {rmse:.1f} | val_mae {mae:.1f} | scale {scaler.get_scale():.3g}")
writer.close()
'''

SCRIPTS['run11'] = r'''import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
torch.manual_seed(11)
rs = np.random.RandomState(11)

IMG = 12
N_CLS = 6

# synthetic "glyphs": each class is a fixed random template, samples are shifted + noisy copies
templates = (rs.rand(N_CLS, IMG, IMG) > 0.6).astype(np.float32)

def make(n):
    y = rs.randint(0, N_CLS, n)
    x = np.zeros((n, 1, IMG, IMG), np.float32)
    for i in range(n):
        t = np.roll(templates[y[i]], rs.randint(-2, 3), axis=0)
        t = np.roll(t, rs.randint(-2, 3), axis=1)
        x[i, 0] = t + rs.normal(0, 0.5, (IMG, IMG))
    return torch.tensor(x), torch.tensor(y, dtype=torch.long)

xtr, ytr = make(3000)
xva, yva = make(600)
loader = DataLoader(TensorDataset(xtr, ytr), batch_size=50, shuffle=True)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.head = nn.Linear(32 * 3 * 3, N_CLS)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.head(x.flatten(1))

net = Net()
opt = torch.optim.SGD(net.parameters(), lr=5e-4)
sw = SummaryWriter("tb")

for epoch in range(40):
    net.train()
    tot, cnt = 0.0, 0
    for xb, yb in loader:
        loss = F.cross_entropy(net(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(yb); cnt += len(yb)
    net.eval()
    with torch.no_grad():
        o = net(xva)
        vloss = F.cross_entropy(o, yva).item()
        vacc = (o.argmax(1) == yva).float().mean().item()
    sw.add_scalar("train_loss", tot / cnt, epoch)
    sw.add_scalar("val_loss", vloss, epoch)
    sw.add_scalar("val_accuracy", vacc, epoch)
    sw.add_scalar("learning_rate", opt.param_groups[0]["lr"], epoch)
    print(f"Epoch {epoch:2d}: train_loss={tot / cnt:.4f} val_loss={vloss:.4f} val_acc={vacc:.3f}")
sw.close()
'''

SCRIPTS['run12'] = r'''import json
import math
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

CONFIG = {
    "seed": 12,
    "seq_len": 40,
    "n_train": 3000,
    "n_val": 600,
    "hidden": 48,
    "batch_size": 64,
    "epochs": 30,
    "optimizer": {"name": "adam", "lr": 1e-3, "betas": [0.9, 0.999], "eps": 1.0, "weight_decay": 0.0},
}

torch.manual_seed(CONFIG["seed"])
torch.set_num_threads(1)


def make_waves(n, T):
    """3 classes of noisy 2-channel signals: different frequencies / phase relations."""
    t = torch.arange(T).float()
    y = torch.randint(0, 3, (n,))
    freq = torch.tensor([0.15, 0.3, 0.3])[y] * (1 + 0.1 * torch.randn(n))
    lag = torch.tensor([0.0, 0.0, math.pi / 2])[y]
    ph = 2 * math.pi * torch.rand(n)
    a = torch.sin(freq[:, None] * t + ph[:, None])
    b = torch.sin(freq[:, None] * t + ph[:, None] + lag[:, None])
    amp = torch.tensor([1.0, 0.7, 1.3])[y]
    x = amp[:, None, None] * torch.stack([a, b], -1) + 0.6 * torch.randn(n, T, 2)
    return x, y


class GRUClassifier(nn.Module):
    def __init__(self, hidden, n_classes=3):
        super().__init__()
        self.gru = nn.GRU(2, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        _, h = self.gru(x)
        return self.head(h[-1])


x_train, y_train = make_waves(CONFIG["n_train"], CONFIG["seq_len"])
x_val, y_val = make_waves(CONFIG["n_val"], CONFIG["seq_len"])

model = GRUClassifier(CONFIG["hidden"])
oc = CONFIG["optimizer"]
optimizer = torch.optim.Adam(model.parameters(), lr=oc["lr"], betas=tuple(oc["betas"]),
                             eps=oc["eps"], weight_decay=oc["weight_decay"])
criterion = nn.CrossEntropyLoss()

writer = SummaryWriter("tb")
writer.add_text("config", json.dumps(CONFIG, indent=2))

step = 0
for epoch in range(CONFIG["epochs"]):
    model.train()
    perm = torch.randperm(CONFIG["n_train"])
    losses = []
    for i in range(0, CONFIG["n_train"], CONFIG["batch_size"]):
        idx = perm[i:i + CONFIG["batch_size"]]
        loss = criterion(model(x_train[idx]), y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9)
        optimizer.step()
        losses.append(loss.item())
        writer.add_scalar("train/loss", loss.item(), step)
        writer.add_scalar("grad/global_norm", gn.item(), step)
        step += 1
    model.eval()
    with torch.no_grad():
        logits = model(x_val)
        val_loss = criterion(logits, y_val).item()
        val_acc = (logits.argmax(-1) == y_val).float().mean().item()
    writer.add_scalar("val/loss", val_loss, step)
    writer.add_scalar("val/acc", val_acc, step)
    writer.add_scalar("lr", optimizer.param_groups[0]["lr"], step)
    print(f"ep {epoch:02d} train_loss {sum(losses) / len(losses):.4f} val_loss {val_loss:.4f} val_acc {val_acc:.3f}")
writer.close()
'''

META = {'run01': {'how': "StepLR(step_size=10, gamma=0.5) meant as 'halve every 10 epochs' but scheduler.step() is "
                  'called inside the batch loop (47 batches/epoch), so lr halves every 10 batches: 3e-3 '
                  'after epoch 1, ~1e-7 by epoch 4, ~1e-58 at the end. Same script with a per-epoch step '
                  'reaches ~0.90 val acc.',
           'include': True,
           'log': ('all',),
           'symptom': 'Loss drops in the first epoch and then freezes completely for the remaining 39 '
                      'epochs; accuracy never gets past ~66%.',
           'truth': 'lr_schedule_bug'},
 'run02': {'how': 'Small 2-conv CNN on synthetic 16x16 bar/diagonal/blob images (noise 0.6), Adam 1e-3 with '
                  'cosine decay, 15 epochs. Nothing planted.',
           'include': False,
           'log': ('all',),
           'symptom': 'Is this run ok? Just want a sanity check before I scale it up.',
           'truth': 'healthy'},
 'run03': {'how': '12 hidden Linear layers of width 64 with sigmoid activations, default init, plain SGD lr '
                  '0.05, no normalisation or residuals. Gradient at layers.0 ~1e-10 vs ~0.5 at the output '
                  'layer; loss pinned at ln 4.',
           'include': False,
           'log': ('all',),
           'symptom': 'Loss does not go down at all, accuracy stays around 25% on what should be an easy '
                      '4-cluster problem.',
           'truth': 'vanishing_gradients'},
 'run04': {'how': 'Hand-written BCE: log(sigmoid(x)) and log(1 - sigmoid(x)). Once a logit passes ~17, '
                  'sigmoid rounds to exactly 1.0 in fp32, log(1-p) = -inf, and 0 * -inf = nan; the nan '
                  'gradient poisons all weights (first nan at step ~440, epoch 11, with finite loss '
                  '~0.002-0.05 just before). Data has no NaN; BCEWithLogitsLoss would be stable.',
           'include': True,
           'log': ('tail', 14),
           'symptom': 'Training looked great (99% val acc) and then around epoch 10 the loss suddenly became '
                      'nan and never came back.',
           'truth': 'numerical_instability'},
 'run05': {'how': 'Two 512-wide hidden layers on only 300 training samples with 50 features (5 informative), '
                  'Adam 1e-4, 150 epochs, no regularisation or early stopping. Val loss bottoms at 0.47 '
                  'around epoch 21 then climbs to 0.87 while train loss -> 1e-3.',
           'include': False,
           'log': ('all',),
           'symptom': 'Train loss goes basically to zero but my validation loss keeps getting worse the '
                      'longer I train.',
           'truth': 'overfitting'},
 'run06': {'how': 'ReLU MLP (10-64-64-4) trained with SGD lr 0.3 momentum 0.9: large early updates push '
                  'pre-activations negative; the share of zero activations in fc2 goes 0.91 -> 0.99 and fc1 '
                  '~0.87, gradients through the dead units vanish, loss stalls near 1.2-1.3.',
           'include': False,
           'log': ('all',),
           'symptom': 'The network learns something in the first epoch and then just stops improving; val '
                      'accuracy drifts down to ~35%.',
           'truth': 'dead_relu'},
 'run07': {'how': 'MLP with dropout on heavily overlapping 6-class Gaussian mixture (Bayes-limited), SGD lr '
                  '0.002 momentum 0.9 with batch 16, so per-step loss is noisy; val loss decreases steadily '
                  'and flattens, train and val stay close. Nothing planted.',
           'include': True,
           'log': ('tail', 10),
           'symptom': 'Training loss is super jumpy and val accuracy only creeps up to ~73%. Is something '
                      'wrong or is this just the data?',
           'truth': 'healthy'},
 'run08': {'how': '8-layer ReLU MLP (width 256) whose reset_parameters() uses nn.init.normal_(std=1.0) for '
                  'every weight instead of a fan-in-scaled init; activations grow ~11x per layer, step-0 '
                  'loss 2e8 and grad norm 2e8, Adam at 1e-3 cannot recover.',
           'include': True,
           'log': ('all',),
           'symptom': 'My loss starts in the hundreds of millions and is still in the millions after 10 '
                      'epochs, accuracy is stuck at ~35%.',
           'truth': 'bad_initialization'},
 'run09': {'how': 'SGD momentum 0.9 with linear warm-up over 300 steps to a peak lr of 0.8 (far too high for '
                  'this GELU MLP). Loss falls while lr < ~0.5, then rises/oscillates with grad-norm spikes '
                  'as lr reaches 0.8, and the model collapses to chance (~1.1) by epoch 8. Peak 0.05 trains '
                  'fine.',
           'include': False,
           'log': ('all',),
           'symptom': 'Loss went down nicely for the first couple of epochs and then started bouncing around '
                      'and got worse until accuracy fell to chance.',
           'truth': 'lr_too_high'},
 'run10': {'how': 'fp16 autocast on a price regression with raw-dollar targets (~90k, up to ~200k). As '
                  'predictions approach the targets they exceed the fp16 max (65504) and overflow to inf; '
                  'GradScaler skips every step and halves the scale until it reaches 0, then loss stays nan. '
                  'The same script with autocast disabled (fp32) trains normally to val RMSE ~12k after 30 '
                  'epochs.',
           'include': True,
           'log': ('all',),
           'symptom': 'Loss was decreasing for a few epochs and then it went inf and then nan for the rest '
                      'of training.',
           'truth': 'mixed_precision_overflow'},
 'run11': {'how': 'Plain SGD (no momentum) with lr 5e-4 on a small CNN; loss drops almost linearly from 1.80 '
                  'to ~1.76 over 40 epochs, val acc 0.19 -> ~0.3. The same model with lr 5e-2 reaches ~95% '
                  'in 30 epochs.',
           'include': False,
           'log': ('tail', 10),
           'symptom': 'After 40 epochs my CNN is barely better than guessing; the loss moves but painfully '
                      'slowly.',
           'truth': 'lr_too_low'},
 'run12': {'how': 'Adam configured with eps=1.0 (config dict); the denominator sqrt(v)+eps is dominated by '
                  'eps, so updates shrink to ~lr*grad (~1e-5) and the loss barely moves from ln 3. The '
                  'identical config with eps=1e-8 reaches 99% val acc.',
           'include': True,
           'log': ('all',),
           'symptom': 'GRU classifier with Adam at lr 1e-3 does not learn anything in 30 epochs, loss just '
                      'sits at ~1.10.',
           'truth': 'optimizer_misconfigured'}}


def run_one(name):
    m = META[name]
    rdir = os.path.join(RUNS, name)
    shutil.rmtree(rdir, ignore_errors=True)
    os.makedirs(rdir)
    tmp = None
    if m["include"]:
        script = os.path.join(rdir, "train.py")
    else:
        tmp = tempfile.mkdtemp()
        script = os.path.join(tmp, "train.py")
    with open(script, "w") as f:
        f.write(SCRIPTS[name])
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    p = subprocess.run([sys.executable, script], cwd=rdir, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{name} failed:\n{p.stderr[-3000:]}")
    lines = p.stdout.splitlines()
    if m["log"][0] == "tail":
        lines = lines[-m["log"][1]:]
    with open(os.path.join(rdir, "train.log"), "w") as f:
        f.write("\n".join(lines) + "\n")
    if tmp:
        shutil.rmtree(tmp)
    print(f"{name}: done ({len(p.stdout.splitlines())} stdout lines)", flush=True)


def main():
    names = sys.argv[1:] or sorted(META)
    os.makedirs(RUNS, exist_ok=True)
    for n in names:
        run_one(n)
    truth = {n: {"truth": META[n]["truth"], "symptom": META[n]["symptom"], "how": META[n]["how"]} for n in sorted(META)}
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)


if __name__ == "__main__":
    main()
