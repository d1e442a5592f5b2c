"""Generator for round 13 / prose_numbers: trains 12 small runs for real and writes
runs/<name>/post.md (+ train.py for some) and truth.json. Deterministic seeds."""
import io, json, math, os, contextlib, textwrap
import torch
torch.set_num_threads(1)
OUT = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(OUT, "runs")

COMMON_DATA = '''
def make_tabular(n, d=20, k=4, informative=8, seed=0, sep=1.2):
    g = np.random.RandomState(seed)
    centers = g.randn(k, informative) * sep
    y = g.randint(0, k, n)
    X = g.randn(n, d)
    X[:, :informative] += centers[y]
    return X.astype(np.float32), y.astype(np.int64)
'''

SCRIPTS = {}

# ---------------- run01: lr too high ----------------
SCRIPTS["run01"] = '''import numpy as np
import torch
import torch.nn as nn
torch.set_num_threads(1)
torch.manual_seed(1)

g = np.random.RandomState(1)
X = g.randn(4000, 16).astype(np.float32)
w = g.randn(16).astype(np.float32)
y = (X @ w + 0.5 * np.sin(3 * X[:, 0]) + 0.3 * g.randn(4000)).astype(np.float32)
X, y = torch.tensor(X), torch.tensor(y)

model = nn.Sequential(nn.Linear(16, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.12)
loss_fn = nn.MSELoss()

history = []
step = 0
for epoch in range(15):
    perm = torch.randperm(len(X))
    for i in range(0, len(X), 64):
        idx = perm[i:i+64]
        pred = model(X[idx]).squeeze(1)
        loss = loss_fn(pred, y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 25 == 0:
            history.append((step, loss.item()))
            print(f"step {step} mse {loss.item():.4f}")
'''

# ---------------- run02: lr too low ----------------
SCRIPTS["run02"] = '''import numpy as np
import torch
import torch.nn as nn
torch.set_num_threads(1)
torch.manual_seed(2)
''' + COMMON_DATA + '''
X, y = make_tabular(3000, d=64, k=10, informative=16, seed=22, sep=1.5)
X = (X - X.mean(0)) / X.std(0)
Xtr, ytr = torch.tensor(X[:2500]), torch.tensor(y[:2500])
Xva, yva = torch.tensor(X[2500:]), torch.tensor(y[2500:])

model = nn.Sequential(nn.Linear(64, 128), nn.Tanh(), nn.Linear(128, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
criterion = nn.CrossEntropyLoss()

history = []
for epoch in range(10):
    perm = torch.randperm(len(Xtr))
    tot = 0.0
    for i in range(0, len(Xtr), 32):
        idx = perm[i:i+32]
        optimizer.zero_grad()
        loss = criterion(model(Xtr[idx]), ytr[idx])
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(idx)
    with torch.no_grad():
        acc = (model(Xva).argmax(1) == yva).float().mean().item()
    history.append((epoch + 1, tot / len(Xtr), acc))
    print(f"epoch {epoch+1}: loss={tot/len(Xtr):.4f} val_acc={acc:.3f}")
'''

# ---------------- run03: overfitting ----------------
SCRIPTS["run03"] = '''import numpy as np
import torch
import torch.nn as nn
torch.set_num_threads(1)
torch.manual_seed(3)
''' + COMMON_DATA + '''
X, y = make_tabular(1300, d=40, k=3, informative=6, seed=33, sep=0.9)
X = (X - X.mean(0)) / X.std(0)
Xtr, ytr = torch.tensor(X[:300]), torch.tensor(y[:300])
Xva, yva = torch.tensor(X[300:]), torch.tensor(y[300:])

net = nn.Sequential(nn.Linear(40, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 3))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
ce = nn.CrossEntropyLoss()

history = []
for ep in range(120):
    net.train()
    perm = torch.randperm(300)
    for i in range(0, 300, 50):
        idx = perm[i:i+50]
        opt.zero_grad()
        l = ce(net(Xtr[idx]), ytr[idx])
        l.backward()
        opt.step()
    net.eval()
    with torch.no_grad():
        tl = ce(net(Xtr), ytr).item()
        vo = net(Xva)
        vl = ce(vo, yva).item()
        va = (vo.argmax(1) == yva).float().mean().item()
        ta = (net(Xtr).argmax(1) == ytr).float().mean().item()
    history.append((ep + 1, tl, vl, ta, va))
    print(f"ep {ep+1} train_loss {tl:.4f} val_loss {vl:.4f} train_acc {ta:.3f} val_acc {va:.3f}")
'''

# ---------------- run04: data leakage (val drawn from train) ----------------
SCRIPTS["run04"] = '''import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(4)
rng = np.random.RandomState(4)


def load_data(n=2400, d=24, k=4):
    centers = rng.randn(k, 10) * 0.8
    y = rng.randint(0, k, n)
    X = rng.randn(n, d)
    X[:, :10] += centers[y]
    flip = rng.rand(n) < 0.15
    y[flip] = rng.randint(0, k, flip.sum())
    return X.astype(np.float32), y.astype(np.int64)


X, y = load_data()
X = (X - X.mean(0)) / X.std(0)

# hold out a test set for the final number
X_test, y_test = torch.tensor(X[2000:]), torch.tensor(y[2000:])
X, y = X[:2000], y[:2000]

idx = rng.permutation(len(X))
n_val = 400
train_idx = idx
val_idx = idx[:n_val]

X_train, y_train = torch.tensor(X[train_idx]), torch.tensor(y[train_idx])
X_val, y_val = torch.tensor(X[val_idx]), torch.tensor(y[val_idx])

model = nn.Sequential(
    nn.Linear(24, 256), nn.ReLU(),
    nn.Linear(256, 256), nn.ReLU(),
    nn.Linear(256, 4),
)
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
loss_fn = nn.CrossEntropyLoss()


def accuracy(X, y):
    model.eval()
    with torch.no_grad():
        return (model(X).argmax(1) == y).float().mean().item()


history = []
for epoch in range(1, 31):
    model.train()
    perm = torch.randperm(len(X_train))
    running = 0.0
    for i in range(0, len(X_train), 64):
        b = perm[i:i + 64]
        optimizer.zero_grad()
        loss = loss_fn(model(X_train[b]), y_train[b])
        loss.backward()
        optimizer.step()
        running += loss.item() * len(b)
    train_loss = running / len(X_train)
    val_acc = accuracy(X_val, y_val)
    history.append((epoch, train_loss, val_acc))
    print(f"Epoch {epoch:02d} | train loss {train_loss:.4f} | val acc {val_acc*100:.1f}%")

test_acc = accuracy(X_test, y_test)
print(f"Test accuracy: {test_acc*100:.1f}%")
'''

# ---------------- run05: label misalignment ----------------
SCRIPTS["run05"] = '''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.set_num_threads(1)
torch.manual_seed(5)

def make_images(n, seed):
    g = np.random.RandomState(seed)
    protos = np.random.RandomState(55).rand(10, 1, 12, 12) > 0.6
    y = g.randint(0, 10, n)
    X = protos[y].astype(np.float32) + 0.4 * g.randn(n, 1, 12, 12).astype(np.float32)
    return X, y.astype(np.int64)

X, y = make_images(3000, 50)
X = torch.tensor(X); y = torch.tensor(y)
# shuffle before splitting
X = X[torch.randperm(len(X))]
y = y[torch.randperm(len(y))]
Xtr, ytr, Xva, yva = X[:2500], y[:2500], X[2500:], y[2500:]

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 3 * 3, 10)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))

model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
history = []
for epoch in range(12):
    model.train()
    perm = torch.randperm(2500)
    tot = 0.0
    for i in range(0, 2500, 64):
        b = perm[i:i+64]
        opt.zero_grad()
        loss = F.cross_entropy(model(Xtr[b]), ytr[b])
        loss.backward()
        opt.step()
        tot += loss.item() * len(b)
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
        vl = F.cross_entropy(vo, yva).item()
        va = (vo.argmax(1) == yva).float().mean().item()
    history.append((epoch + 1, tot / 2500, vl, va))
    print(f"epoch {epoch+1} train_loss {tot/2500:.4f} val_loss {vl:.4f} val_acc {va:.4f}")
'''

# ---------------- run06: missing zero_grad ----------------
SCRIPTS["run06"] = '''import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(6)


def moons(n, noise=0.15, seed=0):
    g = np.random.RandomState(seed)
    n1 = n // 2
    t1 = np.pi * g.rand(n1)
    t2 = np.pi * g.rand(n - n1)
    a = np.stack([np.cos(t1), np.sin(t1)], 1)
    b = np.stack([1 - np.cos(t2), 0.5 - np.sin(t2)], 1)
    X = np.concatenate([a, b]) + noise * g.randn(n, 2)
    y = np.concatenate([np.zeros(n1), np.ones(n - n1)])
    return X.astype(np.float32), y.astype(np.int64)


X, y = moons(2000, seed=6)
p = np.random.RandomState(0).permutation(len(X))
X, y = X[p], y[p]
X_train, y_train = torch.tensor(X[:1600]), torch.tensor(y[:1600])
X_val, y_val = torch.tensor(X[1600:]), torch.tensor(y[1600:])

model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.03)
criterion = nn.CrossEntropyLoss()

history = []
step = 0
for epoch in range(10):
    perm = torch.randperm(len(X_train))
    for i in range(0, len(X_train), 32):
        idx = perm[i:i + 32]
        logits = model(X_train[idx])
        loss = criterion(logits, y_train[idx])
        loss.backward()
        gnorm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
        optimizer.step()
        step += 1
        if step % 10 == 0:
            history.append((step, loss.item(), gnorm))
            print(f"step {step}  loss {loss.item():.4f}  grad_norm {gnorm:.2f}")
    with torch.no_grad():
        acc = (model(X_val).argmax(1) == y_val).float().mean().item()
    print(f"epoch {epoch + 1} val_acc {acc:.3f}")
'''

# ---------------- run07: unnormalized inputs ----------------
SCRIPTS["run07"] = '''import numpy as np
import pandas as pd
import torch
import torch.nn as nn
torch.set_num_threads(1)
torch.manual_seed(7)

# synthetic "housing-like" table: sqft, year, income, rooms, distance ... -> price bucket
g = np.random.RandomState(7)
n = 3000
df = pd.DataFrame({
    "sqft": g.normal(1800, 600, n).clip(300),
    "year_built": g.randint(1900, 2020, n).astype(float),
    "income": g.lognormal(11, 0.5, n),
    "rooms": g.randint(1, 8, n).astype(float),
    "dist_km": g.exponential(8, n),
})
score = (df.sqft - 1800) / 600 + (df.year_built - 1960) / 35 + (np.log(df.income) - 11) / 0.5 - df.dist_km / 8
df["label"] = pd.qcut(score + 0.3 * g.randn(n), 3, labels=False)

feats = df.drop(columns="label").values.astype(np.float32)
labels = df["label"].values.astype(np.int64)
X, y = torch.tensor(feats), torch.tensor(labels)
Xtr, ytr, Xva, yva = X[:2500], y[:2500], X[2500:], y[2500:]

model = nn.Sequential(nn.Linear(5, 64), nn.ReLU(), nn.Linear(64, 3))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
lossf = nn.CrossEntropyLoss()
history = []
for epoch in range(25):
    perm = torch.randperm(2500)
    tot = 0.0
    for i in range(0, 2500, 50):
        b = perm[i:i+50]
        opt.zero_grad()
        loss = lossf(model(Xtr[b]), ytr[b])
        loss.backward()
        opt.step()
        tot += loss.item()
    with torch.no_grad():
        va = (model(Xva).argmax(1) == yva).float().mean().item()
    history.append((epoch + 1, tot / 50, va))
    print(f"epoch {epoch+1} loss {tot/50:.4f} val_acc {va:.3f}")
'''

# ---------------- run08: eval mode forgotten ----------------
SCRIPTS["run08"] = '''import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(8)
g = np.random.RandomState(8)

# 3-class toy problem, 16 features
k, d, n = 3, 16, 3000
centers = g.randn(k, d) * 0.7
y = g.randint(0, k, n)
X = (g.randn(n, d) + centers[y]).astype(np.float32)
y = y.astype(np.int64)
X_train, y_train = torch.tensor(X[:2400]), torch.tensor(y[:2400])
X_val, y_val = torch.tensor(X[2400:]), torch.tensor(y[2400:])


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.6),
            nn.Linear(128, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.6),
            nn.Linear(128, k),
        )

    def forward(self, x):
        return self.net(x)


model = Classifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()


def evaluate(model, X, y, bs=2):
    correct = 0
    with torch.no_grad():
        for i in range(0, len(X), bs):
            out = model(X[i:i + bs])
            correct += (out.argmax(1) == y[i:i + bs]).sum().item()
    return correct / len(X)


history = []
for epoch in range(20):
    model.train()
    perm = torch.randperm(len(X_train))
    total = 0.0
    for i in range(0, len(X_train), 64):
        b = perm[i:i + 64]
        optimizer.zero_grad()
        loss = criterion(model(X_train[b]), y_train[b])
        loss.backward()
        optimizer.step()
        total += loss.item() * len(b)
    val_acc = evaluate(model, X_val, y_val)
    history.append((epoch + 1, total / len(X_train), val_acc))
    print(f"epoch {epoch + 1:2d}  train_loss {total / len(X_train):.4f}  val_acc {val_acc:.3f}")

# sanity check: evaluate the final model a few more times
final_accs = [evaluate(model, X_val, y_val) for _ in range(3)]
print("final val acc:", final_accs)
'''

# ---------------- run09: double softmax ----------------
SCRIPTS["run09"] = '''import numpy as np
import torch
import torch.nn as nn
torch.set_num_threads(1)
torch.manual_seed(9)
''' + COMMON_DATA + '''
X, y = make_tabular(3000, d=30, k=10, informative=12, seed=99, sep=0.9)
X = (X - X.mean(0)) / X.std(0)
Xtr, ytr = torch.tensor(X[:2500]), torch.tensor(y[:2500])
Xva, yva = torch.tensor(X[2500:]), torch.tensor(y[2500:])

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(30, 128), nn.ReLU(), nn.Linear(128, 10))
        self.out = nn.Softmax(dim=1)
    def forward(self, x):
        return self.out(self.body(x))

model = MLP()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
history = []
for epoch in range(30):
    perm = torch.randperm(2500)
    tot = 0.0
    for i in range(0, 2500, 64):
        b = perm[i:i+64]
        opt.zero_grad()
        loss = crit(model(Xtr[b]), ytr[b])
        loss.backward()
        opt.step()
        tot += loss.item() * len(b)
    with torch.no_grad():
        vo = model(Xva)
        vl = crit(vo, yva).item()
        va = (vo.argmax(1) == yva).float().mean().item()
    history.append((epoch + 1, tot / 2500, vl, va))
    print(f"epoch {epoch+1} loss {tot/2500:.4f} val_loss {vl:.4f} val_acc {va:.3f}")
'''

# ---------------- run10: nan in data ----------------
SCRIPTS["run10"] = '''import numpy as np
import pandas as pd
import torch
import torch.nn as nn
torch.set_num_threads(1)
torch.manual_seed(10)

g = np.random.RandomState(10)
n = 4000
df = pd.DataFrame(g.randn(n, 8), columns=[f"f{i}" for i in range(8)])
df["target"] = ((df.f0 + 0.8 * df.f1 - 0.5 * df.f2 + 0.3 * g.randn(n)) > 0).astype(int)
# a few sensor readings were missing in the export
df.loc[g.choice(n, 3, replace=False), "f5"] = np.nan

X = torch.tensor(df.drop(columns="target").values, dtype=torch.float32)
y = torch.tensor(df.target.values, dtype=torch.long)
Xtr, ytr = X[:3500], y[:3500]

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
lossf = nn.CrossEntropyLoss()
history = []
step = 0
for epoch in range(5):
    perm = torch.randperm(3500)
    for i in range(0, 3500, 32):
        b = perm[i:i+32]
        opt.zero_grad()
        loss = lossf(model(Xtr[b]), ytr[b])
        loss.backward()
        opt.step()
        step += 1
        history.append((step, loss.item()))
        if step % 20 == 0:
            print(f"step {step} loss {loss.item():.4f}")
'''

# ---------------- run11: healthy, converges ----------------
SCRIPTS["run11"] = '''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(11)


def make_images(n, seed):
    g = np.random.RandomState(seed)
    protos = np.random.RandomState(111).rand(10, 1, 12, 12) > 0.6
    y = g.randint(0, 10, n)
    X = protos[y].astype(np.float32) + 0.6 * g.randn(n, 1, 12, 12).astype(np.float32)
    return X, y.astype(np.int64)


X, y = make_images(3000, 11)
X = (X - X.mean()) / X.std()
X, y = torch.tensor(X), torch.tensor(y)
X_train, y_train = X[:2500], y[:2500]
X_val, y_val = X[2500:], y[2500:]


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.drop = nn.Dropout(0.25)
        self.fc = nn.Linear(32 * 3 * 3, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(self.drop(x.flatten(1)))


model = SmallCNN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=15)

history = []
for epoch in range(15):
    model.train()
    perm = torch.randperm(len(X_train))
    total = 0.0
    for i in range(0, len(X_train), 64):
        b = perm[i:i + 64]
        optimizer.zero_grad()
        loss = F.cross_entropy(model(X_train[b]), y_train[b])
        loss.backward()
        optimizer.step()
        total += loss.item() * len(b)
    scheduler.step()
    model.eval()
    with torch.no_grad():
        out = model(X_val)
        val_loss = F.cross_entropy(out, y_val).item()
        val_acc = (out.argmax(1) == y_val).float().mean().item()
    history.append((epoch + 1, total / len(X_train), val_loss, val_acc))
    print(f"[{epoch + 1}/15] train_loss={total / len(X_train):.4f} val_loss={val_loss:.4f} val_acc={val_acc:.4f}")
'''

# ---------------- run12: healthy, noisy/slow ----------------
SCRIPTS["run12"] = '''import numpy as np
import torch
import torch.nn as nn
torch.set_num_threads(1)
torch.manual_seed(12)

def moons(n, noise, seed):
    g = np.random.RandomState(seed)
    n1 = n // 2
    t1, t2 = np.pi * g.rand(n1), np.pi * g.rand(n - n1)
    X = np.concatenate([np.stack([np.cos(t1), np.sin(t1)], 1),
                        np.stack([1 - np.cos(t2), 0.5 - np.sin(t2)], 1)]) + noise * g.randn(n, 2)
    y = np.concatenate([np.zeros(n1), np.ones(n - n1)])
    return X.astype(np.float32), y.astype(np.int64)

X, y = moons(1500, 0.35, 12)
X = (X - X.mean(0)) / X.std(0)
p = np.random.RandomState(0).permutation(1500)
X, y = torch.tensor(X[p]), torch.tensor(y[p])
Xtr, ytr, Xva, yva = X[:1200], y[:1200], X[1200:], y[1200:]

model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.5)
crit = nn.CrossEntropyLoss()
history = []
step = 0
for epoch in range(12):
    perm = torch.randperm(1200)
    for i in range(0, 1200, 8):
        b = perm[i:i+8]
        opt.zero_grad()
        loss = crit(model(Xtr[b]), ytr[b])
        loss.backward()
        opt.step()
        step += 1
        if step % 50 == 0:
            history.append((step, loss.item()))
    with torch.no_grad():
        vo = model(Xva)
        va = (vo.argmax(1) == yva).float().mean().item()
        vl = crit(vo, yva).item()
    history.append(("epoch", epoch + 1, vl, va))
    print(f"epoch {epoch+1} last_batch_loss {loss.item():.3f} val_loss {vl:.3f} val_acc {va:.3f}")
'''


def run(name):
    ns = {"__name__": "__main__"}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(SCRIPTS[name], f"{name}/train.py", "exec"), ns)
    return ns, buf.getvalue()


if __name__ == "__main__":
    import sys, pickle, time
    names = sys.argv[1:] or sorted(SCRIPTS)
    os.makedirs(os.path.join(OUT, "raw"), exist_ok=True)
    for nm in names:
        t = time.time()
        ns, out = run(nm)
        with open(os.path.join(OUT, "raw", nm + ".log"), "w") as f:
            f.write(out)
        res = {k: ns[k] for k in ("history", "test_acc", "final_accs") if k in ns}
        with open(os.path.join(OUT, "raw", nm + ".json"), "w") as f:
            json.dump(res, f)
        print(nm, f"{time.time()-t:.1f}s", flush=True)


# ---------------------------------------------------------------- posts
SHIP_TRAIN = {"run04", "run06", "run08", "run11"}


def excerpt(name, start, end):
    lines = SCRIPTS[name].splitlines()
    i = next(k for k, l in enumerate(lines) if start in l)
    j = next(k for k, l in enumerate(lines) if k > i and end in l)
    return "\n".join(lines[i:j + 1])


def pct(x):
    return f"{100 * x:.0f}%"


def build_posts():
    H = {n: json.load(open(os.path.join(OUT, "raw", n + ".json"))) for n in SCRIPTS}
    posts, truth = {}, {}

    h = H["run01"]["history"]; ls = [l for _, l in h]
    lo = min(ls); lo_s = h[ls.index(lo)][0]; hi = max(ls[8:]); hi_s = h[ls.index(hi)][0]
    posts["run01"] = (f"# MSE bounces all over the place with a plain MLP regressor\n\n"
        f"Small regression problem (16 features, 4000 rows), 3-layer ReLU MLP, plain SGD, MSE loss. "
        f"The loss starts around {ls[0]:.1f} and does come down, at step {lo_s} I saw {lo:.2f}, but it never settles: "
        f"a few hundred steps later it's back up to {hi:.1f} (step {hi_s}) and after 15 epochs it's still jumping "
        f"between roughly {min(ls[-8:]):.1f} and {max(ls[-8:]):.1f}. The data is just standard-normal features so I don't "
        f"think it's a scaling thing.\n\n```python\n{excerpt('run01', 'model = nn.Sequential', 'loss_fn =')}\n```\n\n"
        f"Should I be clipping gradients or is something else going on?\n")
    truth["run01"] = {"truth": "lr_too_high", "symptom": "my regression loss goes down at first but then keeps jumping back up by 10x and never settles",
                      "how": "SGD lr=0.12 on an MSE MLP regressor (stable around 0.01-0.04); loss falls then oscillates with large spikes"}

    h = H["run02"]["history"]
    posts["run02"] = (f"# Loss barely moves after 10 epochs\n\n"
        f"Training a 1-hidden-layer MLP on a 10-class tabular dataset (64 features, 2500 train rows). "
        f"After 10 epochs the loss only went from {h[0][1]:.2f} to {h[-1][1]:.2f} and val accuracy is {pct(h[-1][2])} "
        f"(it was {pct(h[0][2])} after the first epoch), so basically chance. It is going down every epoch, just super slowly, "
        f"almost a straight line. Features are standardized.\n\n```python\n{excerpt('run02', 'model = nn.Sequential', 'criterion =')}\n```\n\n"
        f"Is the model too small? Do I just need to train for 500 epochs?\n")
    truth["run02"] = {"truth": "lr_too_low", "symptom": "after 10 epochs the loss has barely moved and accuracy is still about chance",
                      "how": "plain SGD with lr=1e-4 on a small MLP; loss decreases almost linearly and very slowly"}

    h = H["run03"]["history"]; vls = [r[2] for r in h]; best = min(vls); be = h[vls.index(best)][0]
    posts["run03"] = (f"# Validation loss goes up while train loss goes to ~0\n\n"
        f"I have only 300 labelled rows (40 features, 3 classes) and 1000 for validation. MLP with two 512 hidden layers, Adam 1e-3, 120 epochs. "
        f"Train loss drops to {h[-1][1]:.4f} and train acc hits 100% by epoch {next(r[0] for r in h if r[3] >= 0.999)}. "
        f"Val loss is lowest at epoch {be} ({best:.2f}) and then climbs the whole rest of the run, ending at {h[-1][2]:.2f}. "
        f"Val accuracy just sits around {pct(h[-1][4])} the whole time.\n\n"
        f"Why would val loss increase if val accuracy isn't changing? Which checkpoint should I keep?\n")
    truth["run03"] = {"truth": "overfitting", "symptom": "train loss goes to basically zero but val loss keeps going up after the first few epochs",
                      "how": "300 training rows, 2x512 MLP, no regularisation, 120 epochs; val loss minimum early then rising"}

    h = H["run04"]["history"]; ta = H["run04"]["test_acc"]
    e100 = next(r[0] for r in h if r[2] >= 0.9995)
    posts["run04"] = (f"# 100% validation accuracy but only {ta*100:.0f}% on test?\n\n"
        f"My val accuracy climbs from {h[0][2]*100:.0f}% at epoch 1 to {h[-1][2]*100:.0f}% (from epoch {e100} on) while the train loss goes down "
        f"to {h[-1][1]:.3f}, which looked amazing. But on the 400 rows I held out as a test set I get {ta*100:.1f}%. "
        f"Test and val come from the same data file, shuffled, so I don't understand how they can differ this much. Full script is in train.py.\n\n"
        f"Is my test set somehow different or am I computing accuracy wrong?\n")
    truth["run04"] = {"truth": "data_leakage", "symptom": "validation accuracy reaches 100% but the held-out test accuracy is only about 75%",
                      "how": "train_idx = idx (whole permutation) while val_idx = idx[:400], so every val row is also a training row; test rows are truly held out"}

    h = H["run05"]["history"]
    posts["run05"] = (f"# CNN stuck at chance on a simple 10-class image set\n\n"
        f"12x12 grayscale images, 10 classes, small 2-conv CNN with Adam 1e-3. Val loss starts at {h[0][2]:.2f} and is {h[-1][2]:.2f} after 12 epochs, "
        f"val acc stays between {pct(min(r[3] for r in h))} and {pct(max(r[3] for r in h))}. Train loss creeps down a bit ({h[0][1]:.2f} -> {h[-1][1]:.2f}) "
        f"but val doesn't follow. The classes are really easy to tell apart visually, so I expected >90%.\n\n"
        f"```python\n{excerpt('run05', 'X = torch.tensor(X)', 'Xtr, ytr')}\n```\n\nAny idea what could keep it at chance?\n")
    truth["run05"] = {"truth": "label_misalignment", "symptom": "my CNN stays at 10% validation accuracy and the loss stays around 2.3",
                      "how": "X and y shuffled with two different torch.randperm calls, breaking the input/label pairing"}

    h = H["run06"]["history"]; g0, g1 = h[0][2], h[-1][2]
    mid = h[len(h) // 2]
    lmax = max(r[1] for r in h[len(h) // 2:])
    posts["run06"] = (f"# Grad norm keeps growing on a toy two-moons problem\n\n"
        f"I log the global grad norm every 10 steps. It starts at {g0:.1f}, is {mid[2]:.1f} by step {mid[0]} and {g1:.1f} at step {h[-1][0]}, "
        f"it basically never goes down. The loss was basically zero for a while (printed {min(r[1] for r in h):.4f} at one point) but in the second half it keeps spiking, "
        f"up to {lmax:.2f}. Plain SGD lr 0.03, batch 32, 2-layer MLP. Full script attached (train.py).\n\n"
        f"Why would the gradients grow when the model is already fitting the data?\n")
    truth["run06"] = {"truth": "missing_zero_grad", "symptom": "the gradient norm keeps climbing the whole run and the loss starts spiking later on",
                      "how": "optimizer.zero_grad() never called in the loop; gradients accumulate across steps"}

    h = H["run07"]["history"]
    posts["run07"] = (f"# First epoch loss is {h[0][1]:,.0f}, then stuck at {h[-1][1]:.3f}\n\n"
        f"Tabular data (square footage, year built, household income, rooms, distance) -> 3 price buckets. Tiny MLP, SGD lr 1e-3. "
        f"The average loss for epoch 1 is {h[0][1]:,.0f}, after that it drops to {h[1][1]:.4f} and stays there for all 25 epochs "
        f"(last one {h[-1][1]:.4f}). Val acc is {pct(h[-1][2])} every single epoch, which is exactly one class out of three.\n\n"
        f"```python\n{excerpt('run07', 'feats = df.drop', 'opt = torch.optim')}\n```\n\n"
        f"lr 1e-3 is already pretty small, I don't get how the loss can be that big.\n")
    truth["run07"] = {"truth": "unnormalized_inputs", "symptom": "the loss is huge in the first epoch and then gets stuck with validation accuracy at one-in-three",
                      "how": "raw features (sqft ~1800, year ~1960, income ~60000) fed to the MLP without scaling; the first steps blow the ReLUs dead"}

    h = H["run08"]["history"]; fa = H["run08"]["final_accs"]; vas = [r[2] for r in h]
    posts["run08"] = (f"# Val accuracy much lower than expected and different every time I evaluate\n\n"
        f"MLP with BatchNorm + Dropout on a 3-class dataset. Train loss goes from {h[0][1]:.2f} to {h[-1][1]:.2f}, but val accuracy hovers between "
        f"{pct(min(vas))} and {pct(max(vas))} for all 20 epochs. Weirder: at the end I evaluate the same final model three times on the same "
        f"val set and get {', '.join(f'{a*100:.1f}%' for a in fa)}. Nothing is being trained there, so why does the number change? "
        f"Full train.py attached.\n")
    truth["run08"] = {"truth": "eval_mode_forgotten", "symptom": "validation accuracy is low and changes every time I evaluate the same model",
                      "how": "evaluate() never calls model.eval(): dropout 0.6 and BatchNorm (batch of 2) stay in training mode during validation"}

    h = H["run09"]["history"]
    posts["run09"] = (f"# Cross-entropy won't go below ~{h[-1][1]:.2f}\n\n"
        f"10-class classifier, 30 features, Adam 1e-3, 30 epochs. Loss goes {h[0][1]:.2f} -> {h[9][1]:.2f} in 10 epochs and then flattens, "
        f"ending at {h[-1][1]:.4f} (val {h[-1][2]:.4f}). Val acc is {pct(h[-1][3])}, so it does learn something, but the loss number "
        f"seems way too high for that accuracy and it trains slower than I'd expect.\n\n"
        f"```python\n{excerpt('run09', 'class MLP', 'crit =')}\n```\n")
    truth["run09"] = {"truth": "double_softmax", "symptom": "accuracy is decent but the loss is stuck around 1.5-1.6 and won't go lower",
                      "how": "model ends with nn.Softmax and its output is passed to nn.CrossEntropyLoss"}

    h = H["run10"]["history"]
    first_nan = next(s for s, l in h if l != l)
    before = h[first_nan - 2][1]
    posts["run10"] = (f"# Loss suddenly becomes nan after ~{first_nan - 1} steps\n\n"
        f"Binary classifier on a sensor CSV (8 float columns), Adam 3e-3, batch 32. The first {first_nan - 1} steps look normal, "
        f"the loss right before was {before:.3f}, then at step {first_nan} it's nan and it stays nan for the rest of the run "
        f"(all {h[-1][0]} steps). No spike beforehand, it just flips.\n\n"
        f"```python\n{excerpt('run10', 'X = torch.tensor', 'lossf =')}\n```\n")
    truth["run10"] = {"truth": "nan_in_data", "symptom": "training is fine and then the loss becomes nan out of nowhere and stays nan",
                      "how": "3 NaN values injected into column f5 of the CSV-like DataFrame; the first batch containing one poisons the weights"}

    h = H["run11"]["history"]
    posts["run11"] = (f"# Is this training run ok? (small CNN, 15 epochs)\n\n"
        f"First time training a CNN myself. Train loss {h[0][1]:.2f} -> {h[-1][1]:.3f}, val loss {h[0][2]:.2f} -> {h[-1][2]:.3f}, "
        f"val acc {pct(h[0][3])} after epoch 1 and {h[-1][3]*100:.1f}% at the end. Val loss is lower than train loss the whole time, "
        f"which I read can be a bad sign? Script attached.\n")
    truth["run11"] = {"truth": "healthy", "symptom": "is this run ok? my val loss is lower than my train loss",
                      "how": "no fault: small CNN, normalised inputs, Adam + cosine schedule, dropout (explains val < train loss)"}

    h = H["run12"]["history"]; steps = [r for r in h if r[0] != "epoch"]; eps = [r for r in h if r[0] == "epoch"]
    bl = [r[1] for r in steps]
    posts["run12"] = (f"# Very noisy loss on two-moons, is something wrong?\n\n"
        f"Batch size 8, SGD lr 0.02. The batch loss I print jumps around a lot, anywhere from {min(bl):.2f} to {max(bl):.2f}. "
        f"Val loss goes {eps[0][2]:.3f} -> {eps[-1][2]:.3f} over 12 epochs and val acc {eps[0][3]*100:.1f}% -> {eps[-1][3]*100:.1f}%. "
        f"I expected something closer to 100% on moons. The data has quite a lot of noise (I generated it with noise=0.35).\n")
    truth["run12"] = {"truth": "healthy", "symptom": "the loss is really noisy and accuracy stops at about 89%, is something wrong?",
                      "how": "no fault: noisy moons (noise 0.35 caps accuracy near 89%), batch 8 makes per-batch loss noisy; val loss still falls"}

    for n, text in posts.items():
        d = os.path.join(RUNS, n)
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, "post.md"), "w").write(text)
        if n in SHIP_TRAIN:
            open(os.path.join(d, "train.py"), "w").write(SCRIPTS[n])
    json.dump(truth, open(os.path.join(OUT, "truth.json"), "w"), indent=2)


if __name__ == "__main__":
    build_posts()
