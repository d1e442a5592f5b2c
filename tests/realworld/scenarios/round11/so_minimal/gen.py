"""Generator for the so_minimal benchmark runs (round 11).

Each run is a self-contained user script (train.py) that is really executed
with the CPU python; its combined stdout/stderr is captured and the question.md
is assembled from a code excerpt of that script and lines copied verbatim from
that captured output.  Seeds are fixed inside every script.
"""
import json, os, re, shutil, subprocess, sys, textwrap

PY = "/work/main/.venv/bin/python"
OUT = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(OUT, "runs")
SRC = os.path.join(OUT, "_src")     # every script, shipped or not (not part of the runs)
LOGS = os.path.join(OUT, "_logs")   # full captured output, for checking

S = {}   # key -> script text
META = {}

# ---------------------------------------------------------------- lr_too_high
S["lr_high"] = r'''
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(0)
rng = np.random.default_rng(0)

def moons(n, noise=0.15):
    n1 = n // 2
    t1 = rng.uniform(0, np.pi, n1)
    t2 = rng.uniform(0, np.pi, n - n1)
    a = np.stack([np.cos(t1), np.sin(t1)], 1)
    b = np.stack([1 - np.cos(t2), 0.5 - np.sin(t2)], 1)
    X = np.concatenate([a, b]) + rng.normal(0, noise, (n, 2))
    y = np.concatenate([np.zeros(n1), np.ones(n - n1)])
    return X.astype(np.float32), y.astype(np.int64)

X, y = moons(2000)
X = torch.tensor(X); y = torch.tensor(y)
perm = torch.randperm(len(X))
X, y = X[perm], y[perm]
Xtr, ytr, Xva, yva = X[:1600], y[:1600], X[1600:], y[1600:]

model = nn.Sequential(
    nn.Linear(2, 128), nn.ReLU(),
    nn.Linear(128, 128), nn.ReLU(),
    nn.Linear(128, 2),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1.5, momentum=0.9)

batch_size = 64
step = 0
for epoch in range(1, 11):
    model.train()
    idx = torch.randperm(len(Xtr))
    total = 0.0
    for i in range(0, len(Xtr), batch_size):
        b = idx[i:i + batch_size]
        optimizer.zero_grad()
        loss = criterion(model(Xtr[b]), ytr[b])
        loss.backward()
        optimizer.step()
        total += loss.item() * len(b)
        step += 1
        if step % 5 == 0:
            print(f"step {step:4d}  loss={loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        acc = (model(Xva).argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch:02d}  loss={total / len(Xtr):.4f}  val_acc={acc:.3f}")
'''
META["lr_high"] = dict(
    truth="lr_too_high",
    how="SGD(lr=1.5, momentum=0.9) on a 3-layer MLP for two-moons; the lr is ~100x too large.",
    symptom="The loss goes down nicely for the first epoch, then climbs and turns into nan, and accuracy drops to 50%.",
    title="Loss decreases for one epoch then explodes on a simple two-moons MLP (PyTorch)",
    prose=["I'm training a tiny MLP on a two-moons toy dataset that I generate myself (2000 points, 80/20 split).",
           "The first epoch looks fine (val acc 0.88), then during the second epoch the loss starts climbing, explodes and is nan from then on, and validation accuracy sits at 0.5.",
           "The data is just two features in roughly [-1, 2], so I don't think it's a scaling problem. What am I missing?"],
    excerpt=("model = nn.Sequential(", "optimizer.step()"),
    out="lrh", ship=False)

# ---------------------------------------------------------- missing_zero_grad
S["nozg"] = r'''
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(1)
np.random.seed(1)

N_CLASSES, DIM = 10, 20
centers = np.random.randn(N_CLASSES, DIM) * 2.0
labels = np.random.randint(0, N_CLASSES, 6000)
feats = centers[labels] + np.random.randn(6000, DIM)
ds = TensorDataset(torch.tensor(feats, dtype=torch.float32), torch.tensor(labels))
train_ds, val_ds = torch.utils.data.random_split(ds, [5000, 1000], generator=torch.Generator().manual_seed(1))
loader = DataLoader(train_ds, batch_size=50, shuffle=True)

class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(DIM, 64)
        self.fc2 = nn.Linear(64, 64)
        self.out = nn.Linear(64, N_CLASSES)
    def forward(self, x):
        return self.out(F.relu(self.fc2(F.relu(self.fc1(x)))))

model = Classifier()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

step = 0
for epoch in range(2):
    for xb, yb in loader:
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)
        loss.backward()
        gnorm = math.sqrt(sum(p.grad.pow(2).sum().item() for p in model.parameters()))
        opt.step()
        step += 1
        if step % 10 == 0:
            print(f"step {step:4d} | loss {loss.item():.4f} | grad_norm {gnorm:.3f}")
        if step == 200:
            break

xv, yv = val_ds[:]
with torch.no_grad():
    print("val acc:", (model(xv).argmax(1) == yv).float().mean().item())
'''
META["nozg"] = dict(
    truth="missing_zero_grad",
    how="optimizer.zero_grad() never called in the loop (SGD momentum 0.9), so .grad accumulates over all 200 steps.",
    symptom="The grad norm keeps climbing every step and the loss gets worse instead of better on an easy blob dataset.",
    title="Gradient norm keeps growing every step and loss goes up, 10-class MLP with SGD",
    prose=["I'm printing the gradient norm while training a 3-layer MLP on well separated Gaussian blobs (10 classes, 20 features).",
           "The loss dips at first, but the grad norm grows with every logged step by several orders of magnitude, then sticks at the exact same huge value, and the loss ends up far above where it started (val acc is at chance).",
           "I already lowered the learning rate to 0.01 and it still happens. Is there something wrong with my loop?"],
    excerpt=("model = Classifier()", "print(f\"step"),
    out="head_tail", ship=False)

# ------------------------------------------------------------ double_softmax
S["dsm"] = r'''
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(2)
rng = np.random.default_rng(2)

# 8x8 "glyphs": one random template per class plus pixel noise and small shifts
templates = (rng.random((10, 8, 8)) > 0.55).astype(np.float32)
def make(n):
    y = rng.integers(0, 10, n)
    x = templates[y].copy()
    for i in range(n):
        x[i] = np.roll(x[i], rng.integers(-1, 2), axis=int(rng.integers(0, 2)))
    x += rng.normal(0, 0.35, x.shape)
    return torch.tensor(x.reshape(n, 64), dtype=torch.float32), torch.tensor(y)

Xtr, ytr = make(3000)
Xte, yte = make(600)
train_loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=32, shuffle=True)

net = nn.Sequential(
    nn.Linear(64, 128),
    nn.ReLU(),
    nn.Linear(128, 10),
    nn.Softmax(dim=1),
)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

for epoch in range(25):
    net.train()
    running = 0.0
    for xb, yb in train_loader:
        optimizer.zero_grad()
        out = net(xb)
        loss = loss_fn(out, yb)
        loss.backward()
        optimizer.step()
        running += loss.item()
    net.eval()
    with torch.no_grad():
        test_acc = (net(Xte).argmax(dim=1) == yte).float().mean().item()
    print(f"Epoch [{epoch+1}/25] train_loss: {running/len(train_loader):.4f} test_acc: {test_acc*100:.2f}%")
'''
META["dsm"] = dict(
    truth="double_softmax",
    how="nn.Softmax(dim=1) as the last layer of the model, then nn.CrossEntropyLoss on its output.",
    symptom="Accuracy is good but the training loss refuses to go below about 1.5, no matter how long I train.",
    title="CrossEntropyLoss stuck around 1.5 even though test accuracy is high",
    prose=["I'm classifying small 8x8 glyph images (flattened to 64 features) into 10 classes with a one-hidden-layer network and Adam.",
           "Test accuracy climbs nicely, but the training loss plateaus at about 1.5 and barely moves for the remaining epochs.",
           "I expected the loss to get close to 0 when the accuracy is this high. Why is it stuck?"],
    excerpt=("net = nn.Sequential(", "loss.backward()"),
    out="head_tail", ship=True)

# ------------------------------------------------------- unnormalized_inputs
S["unnorm"] = r'''
import numpy as np
import pandas as pd
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(3)
rng = np.random.default_rng(3)

n = 4000
df = pd.DataFrame({
    "annual_income": rng.normal(62000, 18000, n).clip(12000),
    "loan_amount": rng.normal(14000, 6000, n).clip(1000),
    "credit_score": rng.normal(680, 55, n).clip(300, 850),
    "age": rng.integers(21, 70, n),
    "months_employed": rng.integers(0, 360, n),
})
z = (-(df.annual_income - 62000) / 18000 + 1.5 * (df.loan_amount - 14000) / 6000
     - 1.2 * (df.credit_score - 680) / 55 - 0.4 * (df.months_employed - 180) / 104)
df["default"] = (rng.random(n) < 1 / (1 + np.exp(-1.5 * z))).astype(int)
print(df.describe().loc[["mean", "std"]].round(1).to_string())

features = ["annual_income", "loan_amount", "credit_score", "age", "months_employed"]
X = torch.tensor(df[features].values, dtype=torch.float32)
y = torch.tensor(df["default"].values, dtype=torch.float32)
X_train, y_train, X_val, y_val = X[:3200], y[:3200], X[3200:], y[3200:]

model = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()

for epoch in range(30):
    model.train()
    perm = torch.randperm(len(X_train))
    losses = []
    for i in range(0, len(perm), 128):
        b = perm[i:i + 128]
        opt.zero_grad()
        loss = bce(model(X_train[b]).squeeze(1), y_train[b])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        val_acc = ((model(X_val).squeeze(1) > 0).float() == y_val).float().mean().item()
    print(f"epoch={epoch+1} train_bce={np.mean(losses):.3f} val_acc={val_acc:.3f}")
'''
META["unnorm"] = dict(
    truth="unnormalized_inputs",
    how="Raw tabular features (income ~6e4, loan ~1.4e4, credit score ~680, ...) fed to the MLP without any scaling.",
    symptom="Loan default classifier: the BCE loss starts far above 1 and keeps jumping around, and validation accuracy swings between epochs and stays mediocre.",
    title="BCE loss starts at 70 and keeps jumping around for a simple loan-default MLP",
    prose=["I have a small tabular dataset (5 numeric columns, binary target about 50/50) in a pandas DataFrame and train a 3-layer MLP with Adam at lr 1e-3.",
           "The BCE loss starts around 70 (!), and even after it comes down it bounces between 1.5 and 3.5 from epoch to epoch while validation accuracy jumps between 0.55 and 0.77.",
           "A logistic-regression-like problem shouldn't be this hard. The column stats and the log are below."],
    excerpt=("features = [", "opt = torch.optim.Adam"),
    out="unnorm", ship=False)

# ------------------------------------------------------- eval_mode_forgotten
S["evalmode"] = r'''
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(4)
rng = np.random.default_rng(4)

K, D = 5, 16
W = rng.normal(size=(D, K))
def sample(n):
    x = rng.normal(size=(n, D)).astype(np.float32)
    y = (x @ W + 0.5 * rng.normal(size=(n, K))).argmax(1)
    return torch.from_numpy(x), torch.from_numpy(y)

x_train, y_train = sample(4000)
x_test, y_test = sample(1000)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(D, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(128, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.5),
        )
        self.head = nn.Linear(128, K)
    def forward(self, x):
        return self.head(self.body(x))

model = Net()
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
lossf = nn.CrossEntropyLoss()

for epoch in range(1, 21):
    model.train()
    idx = torch.randperm(len(x_train))
    correct, tot_loss = 0, 0.0
    for i in range(0, len(idx), 100):
        b = idx[i:i + 100]
        optimizer.zero_grad()
        out = model(x_train[b])
        loss = lossf(out, y_train[b])
        loss.backward()
        optimizer.step()
        tot_loss += loss.item() * len(b)
        correct += (out.argmax(1) == y_train[b]).sum().item()
    if epoch % 5 == 0:
        print(f"[epoch {epoch}] loss {tot_loss/len(x_train):.4f} train_acc {correct/len(x_train):.4f}")

torch.save(model.state_dict(), "mlp_bn_dropout.pt")

def evaluate(model, x, y):
    with torch.no_grad():
        pred = model(x).argmax(1)
    return (pred == y).float().mean().item(), pred

acc1, p1 = evaluate(model, x_test, y_test)
acc2, p2 = evaluate(model, x_test, y_test)
print(f"test accuracy (run 1): {acc1:.4f}")
print(f"test accuracy (run 2): {acc2:.4f}")
print("first 12 predictions run 1:", p1[:12].tolist())
print("first 12 predictions run 2:", p2[:12].tolist())
print("predictions that differ between runs:", (p1 != p2).sum().item(), "of", len(p1))
'''
META["evalmode"] = dict(
    truth="eval_mode_forgotten",
    how="evaluate() wraps the forward in torch.no_grad() but model.eval() is never called, so Dropout(0.5) and BatchNorm batch statistics stay active at test time.",
    symptom="Evaluating the same trained model twice on the same test set gives different accuracies and different predictions.",
    title="Same model, same test set, different predictions every time I evaluate",
    prose=["After training a small MLP (BatchNorm + Dropout) I evaluate it on a fixed test set, inside torch.no_grad().",
           "Calling the same evaluate function twice in a row gives different accuracy and a good share of the predictions change, with no training in between.",
           "I thought no_grad would make inference deterministic. Where does the randomness come from?"],
    excerpt=("def evaluate(model, x, y):", "print(\"predictions that differ"),
    out="evalmode", ship=False)

# ---------------------------------------------------- zero_variance_statistic
S["zerovar"] = r'''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(5)
rng = np.random.default_rng(5)

# three waveform classes: sine, square, sawtooth, random freq/phase, noisy, random offset and gain
def waves(n, L=64):
    t = np.linspace(0, 1, L)
    y = rng.integers(0, 3, n)
    f = rng.uniform(2, 6, n)[:, None]
    ph = rng.uniform(0, 2 * np.pi, n)[:, None]
    s = np.sin(2 * np.pi * f * t + ph)
    x = np.where(y[:, None] == 0, s, np.where(y[:, None] == 1, np.sign(s), ((f * t + ph / 6.283) % 1) * 2 - 1))
    x = x * rng.uniform(0.5, 3, (n, 1)) + rng.uniform(-2, 2, (n, 1)) + rng.normal(0, 0.2, (n, L))
    return torch.tensor(x[:, None, :], dtype=torch.float32), torch.tensor(y)

X, Y = waves(1601)
loader = DataLoader(TensorDataset(X, Y), batch_size=64, shuffle=True)

model = nn.Sequential(
    nn.Conv1d(1, 16, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
    nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
    nn.Flatten(), nn.Linear(32, 3),
)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
crit = nn.CrossEntropyLoss()

for epoch in range(8):
    tot, n = 0.0, 0
    for xb, yb in loader:
        xb = (xb - xb.mean(dim=0)) / xb.std(dim=0)
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
        tot += loss.item() * len(yb)
        n += len(yb)
    print(f"epoch {epoch}: mean loss {tot / n:.4f}")
'''
META["zerovar"] = dict(
    truth="zero_variance_statistic",
    how="Per-batch standardisation x=(x-x.mean(0))/x.std(0); 1601 samples with batch 64 leave a last batch of one, whose std is NaN (torch warns 'std(): degrees of freedom is <= 0'), which poisons the weights.",
    symptom="My 1D CNN gives a NaN loss from the very first epoch, and there's a warning about degrees of freedom that I don't understand.",
    title="Loss is nan from epoch 0 in a small Conv1d classifier, plus a 'degrees of freedom' warning",
    prose=["I'm classifying synthetic waveforms (sine / square / sawtooth, length 64) with a tiny Conv1d network.",
           "Every epoch prints a NaN mean loss, starting at epoch 0, and I get a UserWarning once at the beginning.",
           "There are no NaNs in X (I checked with torch.isnan(X).any()) and the lr is only 3e-3."],
    excerpt=[("X, Y = waves(1601)", "loader = DataLoader("), ("for epoch in range(8):", "print(f\"epoch")],
    out="zerovar", ship=True)

# ---------------------------------------------------------- data_not_shuffled
S["noshuf"] = r'''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(6)
rng = np.random.default_rng(6)

# recordings were exported one activity after another: walk, run, stairs
means = rng.normal(0, 0.4, (3, 12))
def export(n_per_class):
    x = np.concatenate([means[c] + rng.normal(0, 1.0, (n_per_class, 12)) for c in range(3)])
    y = np.repeat(np.arange(3), n_per_class)
    return x.astype(np.float32), y

class SensorDataset(Dataset):
    def __init__(self, x, y):
        self.x, self.y = torch.from_numpy(x), torch.from_numpy(y)
    def __len__(self):
        return len(self.y)
    def __getitem__(self, i):
        return self.x[i], self.y[i]

train_set = SensorDataset(*export(600))
val_set = SensorDataset(*export(100))

train_loader = DataLoader(train_set, batch_size=30, shuffle=False)
val_loader = DataLoader(val_set, batch_size=100)

model = nn.Sequential(nn.Linear(12, 48), nn.Tanh(), nn.Linear(48, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9)
criterion = nn.CrossEntropyLoss()

for epoch in range(1, 7):
    model.train()
    for step, (xb, yb) in enumerate(train_loader):
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(f"ep {epoch} it {step:02d} loss {loss.item():.4f}")
    model.eval()
    correct = total = 0
    preds = []
    with torch.no_grad():
        for xb, yb in val_loader:
            p = model(xb).argmax(1)
            preds.append(p)
            correct += (p == yb).sum().item(); total += len(yb)
    print(f"ep {epoch} VAL acc {correct/total:.3f} pred counts {torch.bincount(torch.cat(preds), minlength=3).tolist()}")
'''
META["noshuf"] = dict(
    truth="data_not_shuffled",
    how="Training set stored class by class (600 of class 0, then 1, then 2) and DataLoader(shuffle=False); each epoch ends on a block of class 2.",
    symptom="Training loss looks tiny most of the time but jumps at the same points every epoch, and validation predicts almost only one class.",
    title="Loss spikes at the same iterations every epoch and validation never predicts class 0",
    prose=["I'm training a small MLP on 12-feature sensor windows with 3 activity classes (600 training windows per class).",
           "Within each epoch the loss is large at iterations 0, 20 and 40 and much smaller in between, the same pattern every epoch, and validation accuracy stays between 0.36 and 0.50 with class 0 almost never predicted.",
           "The validation set is balanced (100 per class) and the classes should be reasonably separable, so I don't understand why it can't learn all three."],
    excerpt=("train_loader = DataLoader(", "optimizer.step()"),
    out="noshuf", ship=False)

# ---------------------------------------------------------------- shape_mismatch
S["shape"] = r'''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(8)

t = np.arange(3000)
series = (np.sin(2 * np.pi * t / 48) + 0.3 * np.sin(2 * np.pi * t / 365)
          + 0.1 * np.random.default_rng(7).normal(size=t.size)).astype(np.float32)

class WindowDataset(Dataset):
    def __init__(self, s, window=48, horizon=6):
        self.s, self.window, self.horizon = torch.from_numpy(s), window, horizon
    def __len__(self):
        return len(self.s) - self.window
    def __getitem__(self, i):
        x = self.s[i:i + self.window]
        y = self.s[i + self.window:i + self.window + self.horizon]
        return x.unsqueeze(-1), y

ds = WindowDataset(series)
loader = DataLoader(ds, batch_size=32, shuffle=True)

class Forecaster(nn.Module):
    def __init__(self, hidden=32, horizon=6):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, horizon)
    def forward(self, x):
        _, h = self.gru(x)
        return self.fc(h[-1])

model = Forecaster()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
mse = nn.MSELoss()

for epoch in range(3):
    for it, (xb, yb) in enumerate(loader):
        opt.zero_grad()
        loss = mse(model(xb), yb)
        loss.backward()
        opt.step()
        if it % 10 == 0:
            print(f"epoch {epoch} iter {it} mse {loss.item():.5f}")
'''
META["shape"] = dict(
    truth="shape_mismatch",
    how="WindowDataset.__len__ returns len(s)-window instead of len(s)-window-horizon+1, so the last windows have targets shorter than the horizon and default_collate fails to stack them.",
    symptom="My GRU forecaster trains for a while and then crashes in the DataLoader with a 'stack expects each tensor to be equal size' error.",
    title="RuntimeError: stack expects each tensor to be equal size, only after some iterations",
    prose=["I'm training a GRU to forecast the next 6 values of a univariate series from a 48-step window, with a custom Dataset and the default DataLoader.",
           "It trains fine for some iterations and then crashes inside the DataLoader; the iteration at which it crashes changes when I change the seed.",
           "Every window has the same length, so I don't see where a tensor of a different size comes from."],
    excerpt=("class WindowDataset(Dataset):", "loader = DataLoader("),
    out="shape", ship=True)

# ------------------------------------------------------------ label_out_of_range
S["lbl"] = r'''
import numpy as np
import pandas as pd
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(8)
rng = np.random.default_rng(8)

# wine-quality style table: 11 measurements, quality grade 1..10
n = 3000
proto = rng.normal(0, 1, (10, 11))
grade = rng.integers(1, 11, n)
df = pd.DataFrame(proto[grade - 1] + rng.normal(0, 0.8, (n, 11)),
                  columns=[f"m{i}" for i in range(11)])
df["quality"] = grade

num_classes = df["quality"].nunique()
print("rows:", len(df), "classes:", num_classes, "labels:", sorted(df["quality"].unique().tolist()))

X = torch.tensor(df.drop(columns="quality").values, dtype=torch.float32)
y = torch.tensor(df["quality"].values, dtype=torch.long)

model = nn.Sequential(nn.Linear(11, 64), nn.ReLU(), nn.Linear(64, num_classes))
opt = torch.optim.RMSprop(model.parameters(), lr=1e-3)
ce = nn.CrossEntropyLoss()

for epoch in range(10):
    perm = torch.randperm(n)
    for i in range(0, n, 256):
        b = perm[i:i + 256]
        opt.zero_grad()
        loss = ce(model(X[b]), y[b])
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
'''
META["lbl"] = dict(
    truth="label_out_of_range",
    how="Quality grades run 1..10 and the model has num_classes = nunique() = 10 outputs; label 10 is passed unchanged to CrossEntropyLoss.",
    symptom="Training crashes on the first batch with an IndexError from the loss even though I have exactly 10 classes and 10 outputs.",
    title="IndexError: Target 10 is out of bounds, but I have 10 classes",
    prose=["I'm training a classifier on a table with 11 numeric columns and a quality grade as the target.",
           "I take the number of classes from the data with nunique(), which gives 10, and build the last layer with that many outputs.",
           "Training dies on the very first batch inside CrossEntropyLoss."],
    excerpt=("num_classes = df[", "loss = ce("),
    out="lbl", ship=False)

# ------------------------------------------------------------- frozen_parameters
S["frozen"] = r'''
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(9)
rng = np.random.default_rng(9)

class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.fc = nn.Linear(64, 8)
    def forward(self, x):
        return self.fc(self.net(x))

# "pretrained" encoder: fit on an 8-way task first
A = rng.normal(size=(32, 8))
def data8(n):
    x = rng.normal(size=(n, 32)).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy((x @ A).argmax(1))
model = Encoder()
pre_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for _ in range(300):
    xb, yb = data8(128)
    pre_opt.zero_grad(); nn.functional.cross_entropy(model(xb), yb).backward(); pre_opt.step()

# fine-tune on the new 5-way task, keep the encoder fixed
B = rng.normal(size=(32, 5))
x_new = torch.from_numpy(rng.normal(size=(2500, 32)).astype(np.float32))
y_new = (x_new @ torch.from_numpy(B).float()).argmax(1)

for p in model.parameters():
    p.requires_grad = False
optimizer = torch.optim.Adam(model.fc.parameters(), lr=1e-3)
model.fc = nn.Linear(64, 5)
criterion = nn.CrossEntropyLoss()

for epoch in range(1, 16):
    perm = torch.randperm(len(x_new))
    losses, correct = [], 0
    for i in range(0, len(perm), 50):
        b = perm[i:i + 50]
        optimizer.zero_grad()
        out = model(x_new[b])
        loss = criterion(out, y_new[b])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        correct += (out.argmax(1) == y_new[b]).sum().item()
    gn = model.fc.weight.grad.norm().item()
    print(f"epoch {epoch:2d}  loss {np.mean(losses):.4f}  acc {correct/len(x_new):.3f}  head_grad_norm {gn:.4f}")
'''
META["frozen"] = dict(
    truth="frozen_parameters",
    how="The optimizer is built from the old model.fc parameters before model.fc is replaced by a new 5-way head, so the new head (the only part with requires_grad) is never in the optimizer.",
    symptom="Fine-tuning a new head on a fixed pretrained encoder: loss and accuracy don't change at all over 15 epochs, even though the head has gradients.",
    title="Fine-tuning a new classification head: loss identical every epoch although grads are non-zero",
    prose=["I pretrained a small encoder on an 8-class task and now want to train only a new 5-class head on top of it, keeping the encoder weights fixed.",
           "The loss and accuracy are the same in every epoch (~chance for 5 classes), but the head's weight.grad is clearly not zero.",
           "So backward works, but it looks like the step does nothing. What's going on?"],
    excerpt=("for p in model.parameters():\n    p.requires_grad = False", "optimizer.step()"),
    out="head_tail", ship=False)

# ----------------------------------------------------------------- healthy, clean
S["healthy_cnn"] = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(10)
rng = np.random.default_rng(10)

def bars(n, size=12):
    """4 classes: horizontal, vertical, diagonal, anti-diagonal bar, random position, noisy."""
    X = rng.normal(0, 0.3, (n, 1, size, size)).astype(np.float32)
    y = rng.integers(0, 4, n)
    for i in range(n):
        k = rng.integers(2, size - 2)
        if y[i] == 0: X[i, 0, k, :] += 1
        elif y[i] == 1: X[i, 0, :, k] += 1
        elif y[i] == 2: X[i, 0] += np.eye(size, k=k - size // 2)
        else: X[i, 0] += np.fliplr(np.eye(size, k=k - size // 2))
    return torch.from_numpy(X), torch.from_numpy(y)

Xtr, ytr = bars(3000)
Xva, yva = bars(600)
mean, std = Xtr.mean(), Xtr.std()
Xtr, Xva = (Xtr - mean) / std, (Xva - mean) / std
train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True)

class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 3 * 3, 4)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))

model = SmallCNN()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(12):
    model.train()
    tl = 0.0
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        tl += loss.item() * len(yb)
    model.eval()
    with torch.no_grad():
        vlogits = model(Xva)
        vloss = F.cross_entropy(vlogits, yva).item()
        vacc = (vlogits.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch+1:2d} train_loss {tl/len(Xtr):.4f} val_loss {vloss:.4f} val_acc {vacc:.4f}")
'''
META["healthy_cnn"] = dict(
    truth="healthy",
    how="No fault: normalised synthetic bar images, small CNN, Adam 1e-3, shuffled loader, eval() for validation.",
    symptom="Is this run ok? Validation accuracy gets very high very quickly and I'm not sure I should trust it.",
    title="Is this CNN training curve normal or too good to be true?",
    prose=["This is my first CNN: 12x12 synthetic images with a bar in one of four orientations, 3000 train / 600 validation images, Adam at 1e-3.",
           "Validation accuracy is near 100% after a few epochs and val loss tracks train loss.",
           "Is this run OK, or is something leaking between train and validation?"],
    excerpt=("Xtr, ytr = bars(3000)", "train_dl = DataLoader("),
    out="head_tail", ship=True)

# ----------------------------------------------------------------- healthy, noisy
S["healthy_gru"] = r'''
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(11)
rng = np.random.default_rng(11)

# sequences of length 20 with values in [-1, 1]; label = 1 if the sum of the last 10 values is positive
def batch(n):
    x = rng.uniform(-1, 1, (n, 20, 1)).astype(np.float32)
    y = (x[:, 10:, 0].sum(1) > 0).astype(np.int64)
    return torch.from_numpy(x), torch.from_numpy(y)

class SeqClf(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(1, 24, batch_first=True)
        self.out = nn.Linear(24, 2)
    def forward(self, x):
        h, _ = self.rnn(x)
        return self.out(h[:, -1])

model = SeqClf()
optim = torch.optim.SGD(model.parameters(), lr=0.1)
crit = nn.CrossEntropyLoss()
x_val, y_val = batch(1000)

ema = None
for step in range(1, 1001):
    xb, yb = batch(8)
    optim.zero_grad()
    loss = crit(model(xb), yb)
    loss.backward()
    optim.step()
    ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
    if step % 5 == 0:
        with torch.no_grad():
            vacc = (model(x_val).argmax(1) == y_val).float().mean().item()
        print(f"step {step:4d}  batch_loss {loss.item():.4f}  smoothed {ema:.4f}  val_acc {vacc:.3f}")
'''
META["healthy_gru"] = dict(
    truth="healthy",
    how="No fault: GRU on a synthetic sum-sign task, SGD lr 0.1 with batch size 8; per-batch loss is noisy and progress is gradual, but the smoothed loss falls and val accuracy rises steadily.",
    symptom="Is this run ok? The batch loss jumps all over the place and it learns slowly.",
    title="GRU batch loss jumps all over the place - is training actually working?",
    prose=["I'm training a small GRU to decide whether the sum of the last 10 values of a length-20 sequence is positive, with plain SGD (lr 0.1) and batches of 8.",
           "The per-batch loss swings a lot from log line to log line (0.08 and then 0.48 five steps later), and progress looks slow: nothing happens for the first ~100 steps.",
           "I log a smoothed loss and validation accuracy every 5 steps (200 lines in total); a few of them are below. Is this run OK or is something broken?"],
    excerpt=("model = SeqClf()", "ema = loss.item()"),
    out="gru", ship=False)

# run names: fixed shuffled assignment
ORDER = ["unnorm", "healthy_gru", "shape", "nozg", "evalmode", "dsm",
         "frozen", "healthy_cnn", "lbl", "noshuf", "lr_high", "zerovar"]


def run_script(key, name):
    path = os.path.join(SRC, name + ".py")
    with open(path, "w") as f:
        f.write(S[key].lstrip("\n"))
    env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1", PYTHONWARNINGS="default")
    # run as "train.py" from a scratch folder so tracebacks show the user's file name
    scratch = os.path.join("/tmp/u11", name)
    os.makedirs(scratch, exist_ok=True)
    shutil.copy(path, os.path.join(scratch, "train.py"))
    p = subprocess.run([PY, "train.py"], cwd=scratch, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env, timeout=120)
    shutil.rmtree(scratch)
    return p.stdout, p.returncode


def excerpt(src, spec):
    if isinstance(spec, list):
        parts = [_range(src, sp) for sp in spec]
        chunk = "\n\n# ...\n\n".join(parts)
        assert 5 <= len(chunk.split("\n")) <= 20, spec
        return chunk
    chunk = _range(src, spec)
    assert 5 <= len(chunk.split("\n")) <= 20, (spec, len(chunk.split("\n")))
    return chunk


def _range(src, spec):
    lines = src.strip("\n").split("\n")
    start, end = spec
    first = start.split("\n")[0]
    i = next(k for k, l in enumerate(lines) if l.startswith(first) or l.strip().startswith(first))
    j = next(k for k in range(i + 1, len(lines)) if end in lines[k])
    return "\n".join(lines[i:j + 1])


def pick_output(kind, lines):
    lines = [l.rstrip() for l in lines if l.strip()]
    E = "..."
    if kind == "head_tail":
        return lines[:3] + [E] + lines[-3:]
    if kind == "tail":
        return lines[-6:] if len(lines) >= 6 else lines
    if kind == "unnorm":
        ep = [l for l in lines if l.startswith("epoch=")]
        return lines[:3] + ep[:3] + [E] + ep[-2:]
    if kind == "evalmode":
        return [l for l in lines if l.startswith("[epoch 20]")] + lines[-5:]
    if kind == "zerovar":
        warn = [l for l in lines if "Warning" in l or "xb.std" in l]
        ep = [l for l in lines if l.startswith("epoch ")]
        return warn[:2] + ep[:3] + [E] + ep[-1:]
    if kind == "noshuf":
        ep5 = [l for l in lines if l.startswith("ep 5")]
        return ep5[:7] + [l for l in lines if l.startswith("ep 6 VAL")]
    if kind == "shape":
        return [l for l in lines if l.startswith("epoch ")] + [E] + lines[-3:]
    if kind == "lrh":
        want = ["step   10", "step   35", "step   40", "step   45", "step   50", "epoch 02", "step   55", "step   60"]
        return [next(l for l in lines if l.startswith(w)) for w in want] + [E, lines[-1]]
    if kind == "lbl":
        tb = [l for l in lines if l.startswith("Traceback")]
        return lines[:1] + lines[1:2] + [E] + lines[-4:]
    if kind == "gru":
        sel = [lines[0], lines[1], lines[2], E, lines[99], lines[100], E, lines[-2], lines[-1]]
        return sel
    raise KeyError(kind)


def main():
    only = sys.argv[1:]
    for d in (RUNS, SRC, LOGS):
        if not only:
            shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d, exist_ok=True)
    truth = {}
    for n, key in enumerate(ORDER, 1):
        name = f"run{n:02d}"
        m = META[key]
        if only and key not in only:
            continue
        out, rc = run_script(key, name)
        with open(os.path.join(LOGS, name + ".log"), "w") as f:
            f.write(out + f"\n[exit code {rc}]\n")
        src = S[key].lstrip("\n")
        out_lines = pick_output(m["out"], out.split("\n"))
        for l in out_lines:
            assert l == "..." or l in out, l
        rd = os.path.join(RUNS, name)
        shutil.rmtree(rd, ignore_errors=True)
        os.makedirs(rd)
        q = [f"# {m['title']}", "", " ".join(m["prose"]), "", "```python",
             excerpt(src, m["excerpt"]), "```", "", "Output:", "", "```", *out_lines, "```", ""]
        with open(os.path.join(rd, "question.md"), "w") as f:
            f.write("\n".join(q))
        if m["ship"]:
            with open(os.path.join(rd, "train.py"), "w") as f:
                f.write(src)
        truth[name] = {"truth": m["truth"], "symptom": m["symptom"], "how": m["how"]}
        print(name, key, "rc", rc, flush=True)
    if not only:
        with open(os.path.join(OUT, "truth.json"), "w") as f:
            json.dump(truth, f, indent=2)


if __name__ == "__main__":
    main()
