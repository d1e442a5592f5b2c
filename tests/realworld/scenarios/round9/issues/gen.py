#!/usr/bin/env python
"""Generator for 12 benchmark-style training runs (GitHub-issue style), round 7.

Usage:  /work/main/.venv/bin/python gen.py     (writes runs/* and truth.json under $OUTDIR, default /tmp/p62b)
Every run is a real CPU training (torch.set_num_threads(1), fixed seeds); the logs pasted into each
issue.md are the real merged stdout/stderr of the scripts below (paths in tracebacks rewritten to a
plausible user home). Only run11's timing numbers vary between invocations.
"""

# ------------------------------------------------------------------ the users' scripts and configs
SOURCES = {}
SOURCES['run01_train.py'] = r'''import argparse
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)


class SmallCNN(nn.Module):
    def __init__(self, channels=(16, 32), dropout=0.1, n_classes=10):
        super().__init__()
        c1, c2 = channels
        self.conv1 = nn.Conv2d(1, c1, 3, padding=1)
        self.conv2 = nn.Conv2d(c1, c2, 3, padding=1)
        self.drop = nn.Dropout(dropout)
        self.fc = nn.Linear(c2 * 2 * 2, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = self.drop(x.flatten(1))
        return self.fc(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["data"]["seed"])

    digits = load_digits()
    X = (digits.images / 16.0).astype(np.float32)[:, None]
    y = digits.target.astype(np.int64)
    Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=cfg["data"]["val_fraction"],
                                          random_state=cfg["data"]["seed"], stratify=y)
    tcfg = cfg["train"]
    train_loader = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)),
                              batch_size=tcfg["batch_size"], shuffle=True)
    val_loader = DataLoader(TensorDataset(torch.from_numpy(Xva), torch.from_numpy(yva)),
                            batch_size=256)

    model = SmallCNN(cfg["model"]["channels"], cfg["model"]["dropout"])
    optimizer = torch.optim.SGD(model.parameters(), lr=tcfg["lr"], momentum=tcfg["momentum"],
                                weight_decay=tcfg["weight_decay"])
    sch = tcfg["scheduler"]
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=sch["step_size"], gamma=sch["gamma"])

    for epoch in range(1, tcfg["epochs"] + 1):
        model.train()
        total, n = 0.0, 0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            total += loss.item() * len(yb)
            n += len(yb)

        model.eval()
        correct, vloss, m = 0, 0.0, 0
        with torch.no_grad():
            for xb, yb in val_loader:
                out = model(xb)
                vloss += F.cross_entropy(out, yb, reduction="sum").item()
                correct += (out.argmax(1) == yb).sum().item()
                m += len(yb)
        lr = optimizer.param_groups[0]["lr"]
        print(f"epoch {epoch:3d} | train_loss {total / n:.4f} | val_loss {vloss / m:.4f} "
              f"| val_acc {correct / m:.4f} | lr {lr:.2e}", flush=True)


if __name__ == "__main__":
    main()
'''

SOURCES['run01_config.yaml'] = r'''# digits cnn baseline
data:
  val_fraction: 0.2
  seed: 0
model:
  channels: [16, 32]
  dropout: 0.1
train:
  epochs: 40
  batch_size: 32
  optimizer: sgd
  lr: 0.05
  momentum: 0.9
  weight_decay: 0.0005
  scheduler:
    name: step
    step_size: 15   # halve lr every 15 epochs
    gamma: 0.5
'''

SOURCES['run02_train.py'] = r'''import json
import sys
import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

torch.set_num_threads(1)
args = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "args.json"))
torch.manual_seed(args["seed"])
np.random.seed(args["seed"])

X, y = make_classification(n_samples=args["n_samples"], n_features=args["n_features"], n_informative=12,
                           n_redundant=4, n_classes=args["n_classes"], class_sep=1.5,
                           random_state=args["seed"])
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=args["seed"])
scaler = StandardScaler().fit(X_tr)
X_tr = torch.tensor(scaler.transform(X_tr), dtype=torch.float32)
X_te = torch.tensor(scaler.transform(X_te), dtype=torch.float32)
y_tr = torch.tensor(y_tr)
y_te = torch.tensor(y_te)

layers, d = [], args["n_features"]
for h in args["hidden"]:
    layers += [nn.Linear(d, h), nn.ReLU(), nn.Dropout(args["dropout"])]
    d = h
layers.append(nn.Linear(d, args["n_classes"]))
net = nn.Sequential(*layers)

opt = torch.optim.AdamW(net.parameters(), lr=args["lr"], weight_decay=args["weight_decay"])
crit = nn.CrossEntropyLoss()
bs = args["batch_size"]

for ep in range(args["epochs"]):
    net.train()
    perm = torch.randperm(len(X_tr))
    losses, accs = [], []
    for i in range(0, len(perm), bs):
        idx = perm[i:i + bs]
        logits = net(X_tr[idx])
        loss = crit(logits, y_tr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        accs.append((logits.argmax(1) == y_tr[idx]).float().mean().item())
    net.eval()
    with torch.no_grad():
        out = net(X_te)
        te_loss = crit(out, y_te).item()
        te_acc = (out.argmax(1) == y_te).float().mean().item()
    print(f"[{ep + 1:02d}/{args['epochs']}] loss={np.mean(losses):.4f} acc={np.mean(accs):.3f} "
          f"test_loss={te_loss:.4f} test_acc={te_acc:.3f}")
'''

SOURCES['run02_args.json'] = r'''{
  "n_samples": 3000,
  "n_features": 20,
  "n_classes": 4,
  "hidden": [128, 64],
  "dropout": 0.2,
  "lr": 0.001,
  "weight_decay": 0.0001,
  "batch_size": 64,
  "epochs": 30,
  "seed": 7
}
'''

SOURCES['run03_train.py'] = r'''import torch
import torch.nn as nn
from sklearn.datasets import load_digits
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(1)

digits = load_digits()
features = torch.tensor(digits.data / 16.0, dtype=torch.float32)
labels = torch.tensor(digits.target, dtype=torch.long)
NUM_CLASSES = int(labels.max())

loader = DataLoader(TensorDataset(features, labels), batch_size=128, shuffle=True)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, NUM_CLASSES))
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
loss_fn = nn.CrossEntropyLoss()

print(f"samples={len(features)} classes={NUM_CLASSES}")
for epoch in range(20):
    running = 0.0
    for step, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        out = model(x)
        loss = loss_fn(out, y)
        loss.backward()
        optimizer.step()
        running += loss.item()
    print(f"epoch {epoch}: loss {running / (step + 1):.4f}")
'''

SOURCES['run04_train.py'] = r'''import argparse
import math
import torch
import torch.nn as nn
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--bs", type=int, default=50)
parser.add_argument("--seed", type=int, default=3)
args = parser.parse_args()
torch.manual_seed(args.seed)

X, y = make_classification(n_samples=2500, n_features=30, n_informative=15, n_classes=3,
                           n_clusters_per_class=2, random_state=args.seed)
X = (X - X.mean(0)) / X.std(0)
Xtr, Xval, ytr, yval = train_test_split(X, y, test_size=0.2, random_state=args.seed)
to_t = lambda a, dt: torch.tensor(a, dtype=dt)
train_dl = DataLoader(TensorDataset(to_t(Xtr, torch.float32), to_t(ytr, torch.long)),
                      batch_size=args.bs, shuffle=True)
Xval, yval = to_t(Xval, torch.float32), to_t(yval, torch.long)


class MLP(nn.Module):
    def __init__(self, d_in, d_hidden, n_out):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(d_in, d_hidden), nn.ReLU(),
            nn.Linear(d_hidden, d_hidden), nn.ReLU(),
        )
        self.out = nn.Linear(d_hidden, n_out)

    def forward(self, x):
        return self.out(self.body(x))


model = MLP(30, 64, 3)
opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.0)
criterion = nn.CrossEntropyLoss()

for epoch in range(1, args.epochs + 1):
    model.train()
    tot_loss, tot_gn, nb = 0.0, 0.0, 0
    for xb, yb in train_dl:
        loss = criterion(model(xb), yb)
        loss.backward()
        gn = math.sqrt(sum(p.grad.pow(2).sum().item() for p in model.parameters()))
        opt.step()
        tot_loss += loss.item()
        tot_gn += gn
        nb += 1
    model.eval()
    with torch.no_grad():
        logits = model(Xval)
        val_loss = criterion(logits, yval).item()
        val_acc = (logits.argmax(1) == yval).float().mean().item()
    print(f"epoch={epoch} train_loss={tot_loss / nb:.4f} grad_norm={tot_gn / nb:.3f} "
          f"val_loss={val_loss:.4f} val_acc={val_acc:.3f}", flush=True)
'''

SOURCES['run05_train.py'] = r'''import json
import torch
import torch.nn as nn
from sklearn.datasets import load_diabetes
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.set_num_threads(1)
cfg = json.load(open("args.json"))
torch.manual_seed(cfg["seed"])

df = load_diabetes(as_frame=True).frame
feature_cols = [c for c in df.columns if c != cfg["target"]]
y_mean, y_std = df[cfg["target"]].mean(), df[cfg["target"]].std()
df[cfg["target"]] = (df[cfg["target"]] - y_mean) / y_std

X = torch.from_numpy(df[feature_cols].values)
y = torch.from_numpy(df[cfg["target"]].values).float().unsqueeze(1)
ds = TensorDataset(X, y)
n_val = int(len(ds) * cfg["val_split"])
train_ds, val_ds = random_split(ds, [len(ds) - n_val, n_val])
train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
val_loader = DataLoader(val_ds, batch_size=256)

model = nn.Sequential(
    nn.Linear(len(feature_cols), cfg["hidden_dim"]), nn.GELU(),
    nn.Linear(cfg["hidden_dim"], cfg["hidden_dim"]), nn.GELU(),
    nn.Linear(cfg["hidden_dim"], 1),
)
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
mse = nn.MSELoss()
print(f"train={len(train_ds)} val={len(val_ds)} features={len(feature_cols)}")

for epoch in range(cfg["epochs"]):
    model.train()
    for xb, yb in train_loader:
        pred = model(xb)
        loss = mse(pred, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    if epoch % 10 == 0:
        model.eval()
        with torch.no_grad():
            val = sum(mse(model(xb), yb).item() * len(xb) for xb, yb in val_loader) / len(val_ds)
        print(f"epoch {epoch} train_mse {loss.item():.4f} val_mse {val:.4f}")
'''

SOURCES['run05_args.json'] = r'''{
  "target": "target",
  "hidden_dim": 64,
  "epochs": 100,
  "batch_size": 32,
  "lr": 0.0005,
  "val_split": 0.15,
  "seed": 11
}
'''

SOURCES['run06_train.py'] = r'''import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import make_classification
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(0)

BATCH_SIZE = 64
EPOCHS = 8
LR = 2e-3


class BatchStandardize(nn.Module):
    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        mu = x.mean(dim=0, keepdim=True)
        sd = x.std(dim=0, keepdim=True)
        return (x - mu) / (sd + self.eps)


class Classifier(nn.Module):
    def __init__(self, d_in, n_cls):
        super().__init__()
        self.norm = BatchStandardize()
        self.net = nn.Sequential(nn.Linear(d_in, 96), nn.Tanh(), nn.Linear(96, 48), nn.Tanh(),
                                 nn.Linear(48, n_cls))

    def forward(self, x):
        return self.net(self.norm(x))


X, y = make_classification(n_samples=1601, n_features=16, n_informative=10, n_classes=5,
                           random_state=42)
X = X * np.random.RandomState(42).uniform(0.5, 50.0, size=16)
X, y = torch.tensor(X, dtype=torch.float32), torch.tensor(y)
X_train, y_train, X_val, y_val = X[:1281], y[:1281], X[1281:], y[1281:]
loader = DataLoader(TensorDataset(X_train, y_train), batch_size=BATCH_SIZE, shuffle=True)

model = Classifier(16, 5)
opt = torch.optim.Adam(model.parameters(), lr=LR)
ce = nn.CrossEntropyLoss()

step = 0
for epoch in range(EPOCHS):
    model.train()
    ep_losses = []
    for xb, yb in loader:
        loss = ce(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        ep_losses.append(loss.item())
        if step % 5 == 0:
            print(f"  step {step:4d}  loss {loss.item():.4f}")
        step += 1
    model.eval()
    with torch.no_grad():
        out = model(X_val)
        vl = ce(out, y_val).item()
        va = (out.argmax(-1) == y_val).float().mean().item()
    print(f"epoch {epoch + 1}/{EPOCHS}  train_loss {np.mean(ep_losses):.4f}  val_loss {vl:.4f}  val_acc {va:.3f}")
'''

SOURCES['run07_train.py'] = r'''import yaml
import torch
import torch.nn as nn
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

d = cfg["data"]
X, y = make_classification(n_samples=d["n_samples"], n_features=d["n_features"], n_informative=16,
                           class_sep=d["class_sep"], flip_y=0.0, random_state=cfg["seed"])
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=d["test_size"], random_state=cfg["seed"])
sc = StandardScaler().fit(Xtr)
Xtr = torch.tensor(sc.transform(Xtr), dtype=torch.float32)
Xte = torch.tensor(sc.transform(Xte), dtype=torch.float32)
ytr = torch.tensor(ytr, dtype=torch.float32)
yte = torch.tensor(yte, dtype=torch.float32)

m = cfg["model"]
layers, width = [], d["n_features"]
for _ in range(m["depth"]):
    layers += [nn.Linear(width, m["hidden"]), nn.ReLU()]
    width = m["hidden"]
layers.append(nn.Linear(width, 1))
model = nn.Sequential(*layers)


def bce(logits, target):
    p = torch.sigmoid(logits)
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


o = cfg["optim"]
opt = torch.optim.Adam(model.parameters(), lr=o["lr"])
for epoch in range(1, o["epochs"] + 1):
    model.train()
    perm = torch.randperm(len(Xtr))
    tot, nb = 0.0, 0
    for i in range(0, len(perm), o["batch_size"]):
        idx = perm[i:i + o["batch_size"]]
        loss = bce(model(Xtr[idx]).squeeze(1), ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item()
        nb += 1
    model.eval()
    with torch.no_grad():
        logit_te = model(Xte).squeeze(1)
        te_loss = bce(logit_te, yte).item()
        te_acc = ((logit_te > 0).float() == yte).float().mean().item()
    if epoch % cfg["log_every"] == 0:
        print(f"epoch {epoch:02d} train_bce={tot / nb:.5f} test_bce={te_loss:.5f} test_acc={te_acc:.4f}")
'''

SOURCES['run07_config.yaml'] = r'''experiment: churn_binary_mlp
seed: 21
data:
  n_samples: 4000
  n_features: 24
  class_sep: 1.2
  test_size: 0.25
model:
  hidden: 64
  depth: 2
optim:
  name: adam
  lr: 0.0005
  batch_size: 128
  epochs: 60
log_every: 1
'''

SOURCES['run08_train.py'] = r'''import math
import yaml
import torch
import torch.nn as nn

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
dc, mc, tc = cfg["data"], cfg["model"], cfg["training"]


def make_split(n, g):
    labels = torch.randint(0, dc["n_classes"], (n,), generator=g)
    t = torch.arange(dc["seq_len"], dtype=torch.float32)
    freq = 0.2 + 0.25 * labels.float()
    phase = torch.rand(n, generator=g) * 2 * math.pi
    sig = torch.sin(freq[:, None] * t[None, :] + phase[:, None])
    x = sig + dc["noise"] * torch.randn(n, dc["seq_len"], generator=g)
    return x.unsqueeze(-1), labels


g = torch.Generator().manual_seed(cfg["seed"])
x_train, y_train = make_split(dc["n_train"], g)
x_val, y_val = make_split(dc["n_val"], g)


class SeqClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(1, mc["hidden_size"], num_layers=mc["num_layers"], batch_first=True)
        self.head = nn.Linear(mc["hidden_size"], dc["n_classes"])

    def forward(self, x):
        _, h = self.rnn(x)
        return self.head(h[-1])


model = SeqClassifier()
opt = torch.optim.SGD(model.parameters(), lr=tc["lr"], momentum=tc["momentum"])
loss_fn = nn.CrossEntropyLoss()

step = 0
while step < tc["max_steps"]:
    perm = torch.randperm(dc["n_train"])
    for i in range(0, dc["n_train"] - tc["batch_size"] + 1, tc["batch_size"]):
        if step >= tc["max_steps"]:
            break
        idx = perm[i:i + tc["batch_size"]]
        model.train()
        logits = model(x_train[idx])
        loss = loss_fn(logits, y_train[idx])
        opt.zero_grad()
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), tc["grad_clip"])
        opt.step()
        step += 1
        if step % tc["log_interval"] == 0:
            print(f"step {step:5d} | loss {loss.item():.4f} | grad_norm {gnorm.item():.3f}")
        if step % tc["eval_interval"] == 0:
            model.eval()
            with torch.no_grad():
                vl = model(x_val)
                print(f"step {step:5d} | val_loss {loss_fn(vl, y_val).item():.4f} | "
                      f"val_acc {(vl.argmax(1) == y_val).float().mean().item():.4f}")
'''

SOURCES['run08_config.yaml'] = r'''data:
  n_train: 4000
  n_val: 500
  seq_len: 30
  n_classes: 3
  noise: 0.8
model:
  type: gru
  hidden_size: 32
  num_layers: 1
training:
  optimizer: sgd
  lr: 0.05
  momentum: 0.9
  batch_size: 16
  max_steps: 1000
  log_interval: 5
  eval_interval: 100
  grad_clip: 1.0
seed: 5
'''

SOURCES['run09_train.py'] = r'''import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
args = json.load(open("args.json"))
torch.manual_seed(args["seed"])

d = load_digits()
Xtr, Xva, ytr, yva = train_test_split(d.data.astype(np.float32), d.target, test_size=args["val_size"],
                                      random_state=args["seed"], stratify=d.target)
mu, sd = Xtr.mean(0), Xtr.std(0) + 1e-6
xtr, xva = torch.from_numpy((Xtr - mu) / sd), torch.from_numpy((Xva - mu) / sd)
ytr, yva = torch.from_numpy(ytr), torch.from_numpy(yva)

act = {"tanh": nn.Tanh, "relu": nn.ReLU}[args["activation"]]
layers, prev = [], 64
for h in args["hidden_sizes"]:
    layers += [nn.Linear(prev, h), act()]
    prev = h
net = nn.Sequential(*layers, nn.Linear(prev, 10))
opt = torch.optim.SGD(net.parameters(), lr=args["lr"], momentum=args["momentum"])

it = 0
for ep in range(args["epochs"]):
    perm = torch.randperm(len(xtr))
    net.train()
    for b in range(0, len(perm), args["batch_size"]):
        idx = perm[b:b + args["batch_size"]]
        loss = F.cross_entropy(net(xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        gn = torch.norm(torch.stack([p.grad.norm() for p in net.parameters()])).item()
        opt.step()
        if it % args["log_every"] == 0:
            print(f"it {it:4d}  loss {loss.item():8.4f}  grad_norm {gn:8.3f}  lr {opt.param_groups[0]['lr']}")
        it += 1
    net.eval()
    with torch.no_grad():
        out = net(xva)
        print(f"== epoch {ep + 1:2d}  val_loss {F.cross_entropy(out, yva).item():.4f}  "
              f"val_acc {(out.argmax(1) == yva).float().mean().item():.4f}")
'''

SOURCES['run09_args.json'] = r'''{
  "dataset": "digits",
  "val_size": 0.2,
  "hidden_sizes": [256, 128],
  "activation": "tanh",
  "optimizer": "sgd",
  "lr": 1.0,
  "momentum": 0.9,
  "batch_size": 64,
  "epochs": 20,
  "log_every": 10,
  "seed": 0
}
'''

SOURCES['run10_train.py'] = r'''import argparse
import torch
import torch.nn.functional as F
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from model import EncoderClassifier

torch.set_num_threads(1)
p = argparse.ArgumentParser()
p.add_argument("--ckpt", default="digits_encoder.pt")
p.add_argument("--epochs", type=int, default=15)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--batch-size", type=int, default=32)
p.add_argument("--seed", type=int, default=1)
args = p.parse_args()
torch.manual_seed(args.seed)

# new task: group digits into 3 buckets
CLASS_NAMES = ["low", "mid", "high"]
d = load_digits()
X = torch.tensor(d.images / 16.0, dtype=torch.float32)[:, None]
y = torch.tensor(d.target // 4).clamp(max=2)
idx_tr, idx_va = train_test_split(range(len(X)), test_size=0.25, random_state=args.seed, stratify=y)
Xtr, ytr, Xva, yva = X[idx_tr], y[idx_tr], X[idx_va], y[idx_va]

model = EncoderClassifier(num_classes=10)
model.load_state_dict(torch.load(args.ckpt))
model.freeze_encoder()
optimizer = torch.optim.Adam([q for q in model.parameters() if q.requires_grad], lr=args.lr)
n_trainable = sum(q.numel() for g in optimizer.param_groups for q in g["params"])
print(f"loaded {args.ckpt}; trainable params: {n_trainable}")

model.reset_classifier(len(CLASS_NAMES))

for epoch in range(args.epochs):
    model.train()
    perm = torch.randperm(len(Xtr))
    tl, tc, gsum, nb = 0.0, 0, 0.0, 0
    for b in range(0, len(perm), args.batch_size):
        i = perm[b:b + args.batch_size]
        out = model(Xtr[i])
        loss = F.cross_entropy(out, ytr[i])
        optimizer.zero_grad()
        loss.backward()
        gsq = sum(q.grad.pow(2).sum().item() for g in optimizer.param_groups for q in g["params"]
                  if q.grad is not None)
        optimizer.step()
        tl += loss.item() * len(i)
        tc += (out.argmax(1) == ytr[i]).sum().item()
        gsum += gsq ** 0.5
        nb += 1
    model.eval()
    with torch.no_grad():
        o = model(Xva)
        vl = F.cross_entropy(o, yva).item()
        va = (o.argmax(1) == yva).float().mean().item()
    print(f"ep {epoch:02d}  loss {tl / len(Xtr):.4f}  acc {tc / len(Xtr):.3f}  "
          f"grad_norm {gsum / nb:.4f}  val_loss {vl:.4f}  val_acc {va:.3f}")
'''

SOURCES['run10_model.py'] = r'''import torch.nn as nn


class EncoderClassifier(nn.Module):
    def __init__(self, num_classes=10, feat_dim=64):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(32 * 4 * 4, feat_dim), nn.ReLU(),
        )
        self.feat_dim = feat_dim
        self.head = nn.Linear(feat_dim, num_classes)

    def forward(self, x):
        return self.head(self.encoder(x))

    def freeze_encoder(self):
        for p in self.encoder.parameters():
            p.requires_grad = False

    def reset_classifier(self, num_classes):
        self.head = nn.Linear(self.feat_dim, num_classes)
'''

SOURCES['run10_pretrain.py'] = r'''import torch, torch.nn as nn, torch.nn.functional as F
from sklearn.datasets import load_digits
from model import EncoderClassifier
torch.set_num_threads(1)
torch.manual_seed(0)
d = load_digits()
X = torch.tensor(d.images / 16.0, dtype=torch.float32)[:, None]
y = torch.tensor(d.target)
m = EncoderClassifier(num_classes=10)
opt = torch.optim.Adam(m.parameters(), lr=2e-3)
for ep in range(12):
    perm = torch.randperm(len(X))
    for b in range(0, len(X), 64):
        idx = perm[b:b + 64]
        loss = F.cross_entropy(m(X[idx]), y[idx])
        opt.zero_grad(); loss.backward(); opt.step()
with torch.no_grad():
    print("pretrain acc", (m(X).argmax(1) == y).float().mean().item())
torch.save(m.state_dict(), "digits_encoder.pt")
'''

SOURCES['run11_train.py'] = r'''import time
import math
import random
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
random.seed(cfg["seed"])
np.random.seed(cfg["seed"])


def bilinear_resize(img, out_h, out_w):
    in_h, in_w = len(img), len(img[0])
    out = [[0.0] * out_w for _ in range(out_h)]
    for i in range(out_h):
        y = (i + 0.5) * in_h / out_h - 0.5
        y0 = max(0, min(in_h - 1, int(math.floor(y))))
        y1 = min(in_h - 1, y0 + 1)
        wy = y - y0
        for j in range(out_w):
            x = (j + 0.5) * in_w / out_w - 0.5
            x0 = max(0, min(in_w - 1, int(math.floor(x))))
            x1 = min(in_w - 1, x0 + 1)
            wx = x - x0
            top = img[y0][x0] * (1 - wx) + img[y0][x1] * wx
            bot = img[y1][x0] * (1 - wx) + img[y1][x1] * wx
            out[i][j] = top * (1 - wy) + bot * wy
    return out


def random_rotate(img, max_deg=15):
    h, w = len(img), len(img[0])
    a = math.radians(random.uniform(-max_deg, max_deg))
    ca, sa = math.cos(a), math.sin(a)
    cy, cx = (h - 1) / 2, (w - 1) / 2
    out = [[0.0] * w for _ in range(h)]
    for i in range(h):
        for j in range(w):
            ys = ca * (i - cy) - sa * (j - cx) + cy
            xs = sa * (i - cy) + ca * (j - cx) + cx
            yi, xi = int(round(ys)), int(round(xs))
            if 0 <= yi < h and 0 <= xi < w:
                out[i][j] = img[yi][xi]
    return out


class BlobImages(Dataset):
    """raw 64x64 uint8 images with 1-4 gaussian blobs; label = number of blobs - 1"""

    def __init__(self, n, raw_size, input_size, augment):
        rng = np.random.RandomState(cfg["seed"])
        self.labels = rng.randint(0, 4, size=n)
        yy, xx = np.mgrid[0:raw_size, 0:raw_size]
        self.raw = []
        for k in self.labels:
            im = np.zeros((raw_size, raw_size))
            for _ in range(k + 1):
                cy, cx = rng.uniform(8, raw_size - 8, size=2)
                im += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * 3.0 ** 2))
            im += 0.1 * rng.rand(raw_size, raw_size)
            self.raw.append((255 * im / im.max()).astype(np.uint8))
        self.input_size = input_size
        self.augment = augment

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        img = self.raw[idx].tolist()
        img = [[p / 255.0 for p in row] for row in img]
        if self.augment:
            img = random_rotate(img)
        img = bilinear_resize(img, self.input_size, self.input_size)
        flat = [p for row in img for p in row]
        mean = sum(flat) / len(flat)
        std = (sum((p - mean) ** 2 for p in flat) / len(flat)) ** 0.5
        img = [[(p - mean) / (std + 1e-6) for p in row] for row in img]
        return torch.tensor(img, dtype=torch.float32).unsqueeze(0), int(self.labels[idx])


dc, tc = cfg["data"], cfg["train"]
ds = BlobImages(dc["n_images"], dc["raw_size"], dc["input_size"], dc["augment"])
loader = DataLoader(ds, batch_size=tc["batch_size"], shuffle=True, num_workers=dc["num_workers"])

w = cfg["model"]["base_width"]
model = nn.Sequential(
    nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(w, 2 * w, 3, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(2 * w, 4 * w, 3, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * w, 4),
)
opt = torch.optim.Adam(model.parameters(), lr=tc["lr"])

print(f"dataset: {len(ds)} images, {len(loader)} batches/epoch, num_workers={dc['num_workers']}")
for epoch in range(tc["epochs"]):
    model.train()
    ep_start = time.time()
    data_t, comp_t, losses, correct, seen = 0.0, 0.0, [], 0, 0
    end = time.time()
    for i, (x, y) in enumerate(loader):
        t_data = time.time() - end
        t0 = time.time()
        out = model(x)
        loss = F.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        t_comp = time.time() - t0
        data_t += t_data
        comp_t += t_comp
        losses.append(loss.item())
        correct += (out.argmax(1) == y).sum().item()
        seen += len(y)
        if i % tc["print_freq"] == 0:
            print(f"Epoch [{epoch}][{i:3d}/{len(loader)}]  loss {loss.item():.4f}  "
                  f"data {t_data:.3f}s  compute {t_comp:.3f}s  batch {t_data + t_comp:.3f}s")
        end = time.time()
    ep_time = time.time() - ep_start
    print(f"Epoch {epoch} done in {ep_time:.1f}s  ({seen / ep_time:.1f} img/s)  loss {np.mean(losses):.4f}  "
          f"acc {correct / seen:.3f}  | total data {data_t:.1f}s  total compute {comp_t:.1f}s")
'''

SOURCES['run11_config.yaml'] = r'''data:
  n_images: 1600
  raw_size: 64
  input_size: 32
  num_workers: 0
  augment: true
model:
  base_width: 16
train:
  epochs: 3
  batch_size: 32
  lr: 0.002
  print_freq: 10
seed: 3
'''

SOURCES['run12_train.py'] = r'''import argparse
import os
import yaml
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

torch.set_num_threads(1)
ap = argparse.ArgumentParser()
ap.add_argument("--config", default="config.yaml")
ap.add_argument("--resume", default=None)
args = ap.parse_args()
cfg = yaml.safe_load(open(args.config))
torch.manual_seed(cfg["seed"])

dc = cfg["data"]
X, y = make_classification(n_samples=dc["n_samples"], n_features=dc["n_features"], n_informative=20,
                           n_redundant=10, n_classes=dc["n_classes"], n_clusters_per_class=2,
                           class_sep=1.0, random_state=cfg["seed"])
Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=dc["val_frac"], random_state=cfg["seed"])
sc = StandardScaler().fit(Xtr)
Xtr, Xva = [torch.tensor(sc.transform(a), dtype=torch.float32) for a in (Xtr, Xva)]
ytr, yva = torch.tensor(ytr), torch.tensor(yva)


class Block(nn.Module):
    def __init__(self, w, p):
        super().__init__()
        self.ln = nn.LayerNorm(w)
        self.fc1 = nn.Linear(w, w)
        self.fc2 = nn.Linear(w, w)
        self.drop = nn.Dropout(p)

    def forward(self, x):
        return x + self.fc2(self.drop(F.gelu(self.fc1(self.ln(x)))))


class Net(nn.Module):
    def __init__(self, d_in, n_cls, w, blocks, p):
        super().__init__()
        self.inp = nn.Linear(d_in, w)
        self.blocks = nn.Sequential(*[Block(w, p) for _ in range(blocks)])
        self.out = nn.Sequential(nn.LayerNorm(w), nn.Linear(w, n_cls))

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))


mc, oc, tc = cfg["model"], cfg["optim"], cfg["train"]
model = Net(dc["n_features"], dc["n_classes"], mc["width"], mc["blocks"], mc["dropout"])
optimizer = torch.optim.AdamW(model.parameters(), lr=oc["lr"], weight_decay=oc["weight_decay"],
                              betas=tuple(oc["betas"]))
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=tc["epochs"],
                                                       eta_min=cfg["sched"]["min_lr"])
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    start_epoch = ckpt["epoch"] + 1
    print(f"=> resumed from {args.resume} (epoch {ckpt['epoch']}, val_acc {ckpt['val_acc']:.4f})")

os.makedirs(tc["ckpt_dir"], exist_ok=True)
for epoch in range(start_epoch, tc["epochs"]):
    model.train()
    perm = torch.randperm(len(Xtr))
    tot, n = 0.0, 0
    for b in range(0, len(perm), tc["batch_size"]):
        idx = perm[b:b + tc["batch_size"]]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(idx)
        n += len(idx)
    lr_now = optimizer.param_groups[0]["lr"]
    scheduler.step()
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    torch.save({"model": model.state_dict(), "epoch": epoch, "val_acc": va},
               os.path.join(tc["ckpt_dir"], "last.pt"))
    print(f"epoch {epoch:3d}/{tc['epochs']}  lr {lr_now:.6f}  train_loss {tot / n:.4f}  "
          f"val_loss {vl:.4f}  val_acc {va:.4f}", flush=True)
'''

SOURCES['run12_config.yaml'] = r'''run_name: tabnet-lite-v3
seed: 17
data:
  n_samples: 6000
  n_features: 40
  n_classes: 6
  val_frac: 0.2
model:
  width: 256
  blocks: 3
  dropout: 0.1
optim:
  lr: 0.003
  weight_decay: 0.01
  betas: [0.9, 0.999]
sched:
  type: cosine
  min_lr: 0.0
train:
  epochs: 40
  batch_size: 128
  ckpt_dir: checkpoints
'''

# ----------------------------------------------------------------------------------------------
# Everything below is the driver: it writes each run's files into a scratch folder, really runs
# them with the venv python (stdout+stderr merged, as a terminal shows them), checks that the
# planted behaviour shows in the output, and writes runs/<name>/ + truth.json.
# ----------------------------------------------------------------------------------------------
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

PY = "/work/main/.venv/bin/python"
OUT = Path(os.environ.get("OUTDIR", "/tmp/p62b"))
RUNS = OUT / "runs"
SITE = "/work/main/.venv/lib/python3.11/site-packages"


def versions():
    code = ("import sys, torch, numpy, sklearn, platform;"
            "print(sys.version.split()[0], torch.__version__, numpy.__version__, sklearn.__version__, platform.platform())")
    return subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True).stdout.split()


PYV, TORCHV, NPV, SKV, PLAT = versions()


def execute(wd, cmd, kill_on=None):
    env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    p = subprocess.Popen(cmd, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines = []
    for line in p.stdout:
        lines.append(line)
        if kill_on and re.search(kill_on, line):
            p.send_signal(signal.SIGKILL)
            break
    p.wait()
    return "".join(lines), p.returncode


def sanitize(text, wd, home):
    user_root = home.rsplit("/", 1)[0]
    text = text.replace(SITE, f"{user_root}/.venv/lib/python3.11/site-packages")
    return text.replace(str(wd), home)


def tail(text, n):
    lines = text.rstrip("\n").split("\n")
    return "\n".join(lines[-n:])


def head(text, n):
    return "\n".join(text.rstrip("\n").split("\n")[:n])


def env_block(extra=""):
    s = (f"- OS: {PLAT}\n- Python: {PYV}\n- PyTorch: {TORCHV} (CPU only)\n"
         f"- numpy {NPV}, scikit-learn {SKV}\n")
    return s + extra


def main():
    if RUNS.exists():
        shutil.rmtree(RUNS)
    RUNS.mkdir(parents=True)
    work = Path(tempfile.mkdtemp(prefix="bench_work_"))
    try:
        build_all(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def build_all(work):
    truth = {}
    summary = {}
    for name, spec in SPECS.items():
        wd = work / name
        wd.mkdir()
        for fn, src in spec["files"].items():
            (wd / fn).write_text(SOURCES[src])
        for cmd in spec.get("setup", []):
            out, rc = execute(wd, cmd)
            assert rc == 0, (name, out)
        logs = []
        for step in spec["cmds"]:
            out, rc = execute(wd, step["cmd"], step.get("kill_on"))
            logs.append((sanitize(out, wd, spec["home"]), rc))
        ok, note = spec["check"]([o for o, _ in logs], [r for _, r in logs])
        assert ok, (name, note, logs)
        summary[name] = note
        rd = RUNS / name
        rd.mkdir()
        for fn in spec["ship"]:
            shutil.copy(wd / fn, rd / fn)
        (rd / "issue.md").write_text(spec["issue"](logs).strip() + "\n")
        truth[name] = {"truth": spec["truth"], "symptom": spec["symptom"], "how": spec["how"]}
        print(f"{name:6s} {spec['truth']:24s} {note}", flush=True)
    (OUT / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")


# ------------------------------------------------------------------ checks (numbers from the logs)
def nums(text, key):
    return [float(x) for x in re.findall(key + r"[ =:]+\s*([-+0-9.eE]+|nan)", text)]


def chk_run01(outs, rcs):
    lr = nums(outs[0], "lr")
    va = nums(outs[0], "val_acc")
    vl = nums(outs[0], "val_loss")
    ok = rcs[0] == 0 and lr[-1] < 1e-30 and lr[0] < 0.05 / 4 and max(va) < 0.85 and abs(vl[-1] - vl[5]) < 1e-3
    return ok, f"lr {lr[0]:.1e}->{lr[-1]:.1e} after ep1; val_acc frozen at {va[-1]:.3f} from ep~5 (max {max(va):.3f})"


def chk_run02(outs, rcs):
    acc = nums(outs[0], "test_acc")
    loss = nums(outs[0], "loss")
    return rcs[0] == 0 and acc[-1] > 0.93 and loss[-1] < loss[0] / 4, f"train loss {loss[0]:.3f}->{loss[-1]:.3f}, test_acc {acc[0]:.3f}->{acc[-1]:.3f}"


def chk_run03(outs, rcs):
    return rcs[0] == 1 and "IndexError: Target 9 is out of bounds." in outs[0], "crash at first batch: IndexError Target 9 is out of bounds (head has 9 outputs)"


def chk_run04(outs, rcs):
    gn = nums(outs[0], "grad_norm")
    tl = nums(outs[0], "train_loss")
    vl = nums(outs[0], "val_loss")
    mono = sum(b > a for a, b in zip(gn, gn[1:])) >= len(gn) - 3
    ok = rcs[0] == 0 and mono and gn[-1] > 20 * gn[0] and min(tl) < tl[-1] / 3 and vl[-1] > 10 * min(vl)
    gn2 = nums(outs[1], "grad_norm")
    tl2 = nums(outs[1], "train_loss")
    va2 = nums(outs[1], "val_acc")
    ok = ok and tl2[-1] > 3 * min(tl2) and va2[-1] < 0.4 and gn2[-1] > 20 * gn2[0]
    return ok, (f"grad_norm climbs {gn[0]:.1f}->{gn[-1]:.1f} every epoch; train loss {tl[0]:.2f}->min {min(tl):.2f}->{tl[-1]:.2f}; "
                f"val_loss min {min(vl):.2f}->{vl[-1]:.1f}; at lr 0.01 train loss {min(tl2):.2f}->{tl2[-1]:.2f} (chance), val_acc ->{va2[-1]:.2f}")


def chk_run05(outs, rcs):
    return rcs[0] == 1 and "mat1 and mat2 must have the same dtype, but got Double and Float" in outs[0], "crash in first forward: Double vs Float in F.linear"


def chk_run06(outs, rcs):
    steps = re.findall(r"step\s+(\d+)\s+loss ([0-9.]+|nan)", outs[0])
    first_nan = next(int(s) for s, v in steps if v == "nan")
    ok = rcs[0] == 0 and "degrees of freedom is <= 0" in outs[0] and first_nan == 20 and all(v != "nan" for s, v in steps if int(s) < 20)
    return ok, "finite, falling loss for steps 0-19, std() dof<=0 warning, NaN from step 20 (last batch of epoch 1 has 1 sample) onward"


def chk_run07(outs, rcs):
    tr = nums(outs[0], "train_bce")
    k = next(i for i, v in enumerate(tr) if v != v)
    ok = rcs[0] == 0 and k >= 10 and all(b < a for a, b in zip(tr[:k], tr[1:k])) and all(v != v for v in tr[k:])
    return ok, f"train_bce falls monotonically {tr[0]:.3f}->{tr[k - 1]:.3f} over {k} epochs, then NaN at epoch {k + 1} and stays NaN (test_acc -> 0.49)"


def chk_run08(outs, rcs):
    va = nums(outs[0], "val_acc")
    ls = nums(outs[0], r"\| loss")
    ok = rcs[0] == 0 and va[0] < 0.4 and va[-1] > 0.9 and max(ls[60:]) > 0.3
    return ok, f"batch loss ~1.1 (chance) for ~500 steps, then drops; noisy batch losses; val_acc {va[0]:.2f}->{va[-1]:.3f}"


def chk_run09(outs, rcs):
    vl = nums(outs[0], "val_loss")
    ls = re.findall(r"it\s+\d+\s+loss\s+([0-9.]+)\s+grad_norm\s+([0-9.]+)", outs[0])
    ls = [(float(a), float(b)) for a, b in ls]
    ok = rcs[0] == 0 and min(vl[:2]) < 1.1 and vl[-1] > 2 * min(vl[:2]) and max(a for a, _ in ls[10:]) > 2.5
    return ok, (f"val_loss {vl[0]:.2f} at ep1 then 1.5-2.8; batch loss oscillates "
                f"{min(a for a, _ in ls[5:]):.2f}-{max(a for a, _ in ls[5:]):.2f}, grad_norm spikes to {max(b for _, b in ls):.1f}")


def chk_run10(outs, rcs):
    gn = nums(outs[0], "grad_norm")
    tl = nums(outs[0], " loss")
    ok = rcs[0] == 0 and all(g == 0 for g in gn) and max(tl) - min(tl) < 0.01
    return ok, f"train loss flat {min(tl):.4f}-{max(tl):.4f} for 15 epochs, grad_norm 0.0000, acc ~0.58"


def chk_run11(outs, rcs):
    d = nums(outs[0], "total data")
    c = nums(outs[0], "total compute")
    ok = rcs[0] == 0 and all(a > 2.5 * b for a, b in zip(d, c))
    return ok, "data time " + ", ".join(f"{a:.1f}s vs compute {b:.1f}s" for a, b in zip(d, c)) + " per epoch"


def chk_run12(outs, rcs):
    outs = ["\n".join(l for l in o.splitlines() if l.startswith("epoch")) for o in outs]
    lr1, lr2 = nums(outs[0], "lr"), nums(outs[1], "lr")
    tl1, tl2 = nums(outs[0], "train_loss"), nums(outs[1], "train_loss")
    va1, va2 = nums(outs[0], "val_acc"), nums(outs[1], "val_acc")
    ok = rcs[0] == -9 and rcs[1] == 0 and lr2[0] > 4 * lr1[-1] and tl2[0] > 10 * tl1[-1] and va2[0] < va1[-1] - 0.03
    return ok, (f"killed after ep29 (lr {lr1[-1]:.6f}, loss {tl1[-1]:.4f}, val_acc {va1[-1]:.3f}); resume: lr {lr2[0]:.6f}, "
                f"loss {tl2[0]:.4f}, val_acc {va2[0]:.3f}, never recovers (end {va2[-1]:.3f})")


# ------------------------------------------------------------------ issue texts
def fence(text, lang=""):
    return f"```{lang}\n{text.rstrip()}\n```"


def issue_run01(logs):
    out = logs[0][0]
    return f"""
### Describe the bug

I'm training a small 2-layer CNN on the sklearn 8x8 digits set as a baseline before moving to a bigger dataset.
The loss goes down nicely for the first 2-3 epochs and then the run just... stops. From epoch ~5 on the
val loss is identical to 4 decimals and val accuracy sits at 79.7% for the remaining 35 epochs. Train loss
wiggles a tiny bit (dropout I guess) but never goes down again.

A logistic regression on the same data gets ~96%, so 80% for a CNN seems way too low.

Config and script attached (`config.yaml`, `train.py`).

### To Reproduce

{fence("python train.py --config config.yaml", "bash")}

### Expected behavior

Loss keeps decreasing over the 40 epochs, lr halves every 15 epochs as configured, val acc in the high 90s.

### Environment

{env_block()}
### Logs

Full stdout:

{fence(out)}
"""


def issue_run02(logs):
    out = logs[0][0]
    return f"""
### Describe the bug

Not sure this is a bug, more a sanity check. First time I train an MLP on tabular data (synthetic, 4 classes)
and I don't have a feeling yet for what "good" looks like. Test acc goes up to ~95% and then hovers, and at the end
the test loss is a bit higher than the train loss. Is this run OK or am I overfitting / doing something wrong?

Hyper-parameters are in the attached `args.json` (AdamW, lr 1e-3, 2 hidden layers 128/64, dropout 0.2, 30 epochs).

### To Reproduce

{fence("python train.py args.json", "bash")}

### Expected behavior

Not sure - that's the question :)

### Environment

{env_block()}
### Logs

{fence(out)}
"""


def issue_run03(logs):
    out = logs[0][0]
    return f"""
### Describe the bug

Crashes on the very first batch, simple MLP on sklearn digits. What am I missing?

### To Reproduce

{fence("python train.py", "bash")}

### Expected behavior

It trains.

### Environment

- python {PYV}, torch {TORCHV}

### Logs

{fence(out)}
"""


def issue_run04(logs):
    out, out_hi = logs[0][0], logs[1][0]
    return f"""
### Describe the bug

3-class MLP on a make_classification dataset (30 features, standardized). Training starts fine, but after
~12 epochs the val loss starts climbing and ends at >10, and after ~20 epochs the *train* loss goes back up too.
The thing I find weird is the grad norm I log: it goes up every single epoch, from 2.5 to ~75, and never comes
down even when the loss was at its lowest.

With the default lr of 0.01 it was even worse (train loss back to ~1.1 and val acc down to 0.31 at the end), so
I lowered it to 0.003, which is what the log below is. Script attached.

### To Reproduce

{fence("python train.py --lr 0.003   # (first attempt was: python train.py --lr 0.01)", "bash")}

### Expected behavior

Train loss goes down and stays down, grad norm shrinks as the model converges.

### Environment

{env_block()}
### Logs

`python train.py --lr 0.003`:

{fence(out)}

<details><summary>the earlier run with --lr 0.01 (last 12 epochs)</summary>

{fence(tail(out_hi, 12))}

</details>
"""


def issue_run05(logs):
    out = logs[0][0]
    PANDAS_LINE = "- pandas 3.1.1\n"
    return f"""
### Describe the bug

Trying to fit a small MLP regressor on the sklearn diabetes data frame (10 features, target standardized).
I get a RuntimeError in the first forward pass. I cast `y` with `.float()`, so I don't get where the Double
comes from. There's also a UserWarning about a non-writable numpy array right before it, not sure if related.

Config attached (`args.json`).

### To Reproduce

{fence("python train.py", "bash")}

### Expected behavior

Training runs and prints train/val mse every 10 epochs.

### Environment

{env_block(PANDAS_LINE)}
### Logs

{fence(out)}
"""


def issue_run06(logs):
    out = logs[0][0]
    return f"""
### Describe the bug

My loss turns into `nan` at the end of the first epoch, every single run, and the model is dead after that
(val acc stuck at 0.231 = it predicts one class). It's always at step 20, which is the last step of epoch 1.
Before that the loss is totally normal and decreasing.

Things I checked:
- no NaN / inf in the data (`np.isfinite(X).all()` is True). The features have very different scales,
  which is why I standardize inside the model.
- the lr is 2e-3 with Adam, nothing crazy.

I get a UserWarning from `std()` just before it, but I add an eps to the denominator, so I thought that covered
division by zero?

Script attached, it is self-contained (synthetic data).

### To Reproduce

{fence("python train.py", "bash")}

### Expected behavior

Finite loss, training continues normally through 8 epochs.

### Environment

{env_block()}
### Logs

{fence(out)}
"""


def issue_run07(logs):
    out = logs[0][0]
    loss_src = SOURCES["run07_train.py"]
    m = re.search(r"def bce\(logits, target\):\n(?:    .*\n)+", loss_src)
    return f"""
### Describe the bug

Binary classifier (3-layer MLP, Adam) on a tabular churn-like dataset. Training looks great for ~20 epochs
(test acc 97%) and then out of nowhere the loss is `nan` and test acc drops to 0.49 and stays there. There is no
upward trend in the loss before it, it goes straight from 0.045 to nan.

I'm using my own BCE (I want to add per-sample weights later), it's the textbook formula:

{fence(m.group(0), "python")}

Config: see attached `config.yaml` (lr 5e-4, batch 128, 60 epochs).

### To Reproduce

{fence("python train.py", "bash")}

### Expected behavior

Loss keeps decreasing (or at least stays finite).

### Environment

{env_block()}
### Logs

first 30 epochs (it stays nan until epoch 60):

{fence(head(out, 30))}
"""


def issue_run08(logs):
    out = logs[0][0]
    return f"""
### Describe the bug

GRU sequence classifier (3 classes, synthetic noisy sine waves of different frequencies). For the first ~500
steps the loss sits at ~1.10 (=ln 3) and val acc is at chance. Then it suddenly drops and val acc gets to 98%.
Also the per-batch losses are super jumpy late in training (e.g. 0.04 at step 890, 0.55 at step 900),
and grad norm sometimes goes to 7-15 before clipping.

Is this normal, or is something off with my setup? I was going to lower the lr / add a scheduler but didn't want to
change things blindly.

Config in `config.yaml` (SGD momentum 0.9, lr 0.05, batch 16, clip 1.0, 1000 steps).

### To Reproduce

{fence("python train.py", "bash")}

### Expected behavior

A smoother loss curve? Not sure.

### Environment

{env_block()}
### Logs

<details><summary>full log</summary>

{fence(out)}

</details>
"""


def issue_run09(logs):
    out = logs[0][0]
    return f"""
### Describe the bug

MLP (tanh, 256-128) on digits. val loss is best after epoch 1 and then gets worse and worse, while val acc stays
~0.87-0.91. The train loss printed every 10 iterations is all over the place (0.16 ... 3.2).
I'm using the SGD hyper-params from the paper I'm reproducing (`args.json` attached).

### To Reproduce

{fence("python train.py", "bash")}

### Expected behavior

val loss should go down, val acc should get to ~97% like reported.

### Environment

{env_block()}
### Logs

{fence(out)}
"""


def issue_run10(logs):
    out = logs[0][0]
    return f"""
### Describe the bug

I pretrained a small conv encoder on the 10 digit classes (100% train acc, checkpoint `digits_encoder.pt`) and now
want a linear probe on a new 3-class task (digits bucketed into low / mid / high). Encoder is frozen on purpose,
only the classifier should train.

The loss doesn't move at all: 1.486 at epoch 0, 1.487 at epoch 14, train acc ~0.58 the whole time.
`grad_norm` (I compute it over the params in the optimizer) prints 0.0000 every epoch. I'd expect a linear layer
on top of features that separate all 10 digits to learn 3 buckets trivially.

`train.py` and `model.py` attached. The checkpoint loads without errors/missing keys.

### To Reproduce

{fence("python train.py --ckpt digits_encoder.pt --epochs 15 --lr 1e-3", "bash")}

### Expected behavior

Linear probe reaches >95% acc within a few epochs.

### Environment

{env_block()}
### Logs

{fence(out)}
"""


def issue_run11(logs):
    out = logs[0][0]
    CPU_LINE = "- 2 CPU cores, no GPU\n"
    return f"""
### Describe the bug

Training is much slower than I expected: ~350 images/s for a 3-conv CNN on 32x32 single-channel images, batch 32.
The model is tiny: the log says forward+backward is ~0.017s per batch of 32, i.e. ~1900 img/s. CPU shows one core at
100% the whole time. Accuracy is fine, it's just slow. I plan to scale to ~200k images so this matters.

Script + config attached. Images are generated once in `__init__` (64x64 uint8), then each sample gets a small
random rotation, a resize to 32x32, and per-image standardization.

### To Reproduce

{fence("python train.py", "bash")}

### Expected behavior

Throughput limited by the model, thousands of img/s.

### Environment

{env_block(CPU_LINE)}
### Logs

{fence(out)}
"""


def issue_run12(logs):
    out1, out2 = logs[0][0], logs[1][0]
    CMDS = ("python train.py --config config.yaml\n# ... job killed after epoch 29 ...\n"
            "python train.py --config config.yaml --resume checkpoints/last.pt")
    return f"""
### Describe the bug

My job was preempted after epoch 29 (of 40). I resumed from `checkpoints/last.pt` with `--resume` and
the first resumed epoch is way worse than where it stopped: train loss 0.006 -> 0.156, val acc 0.897 -> 0.828.
It never gets back to the pre-preemption numbers, the final val acc is 0.87 while an uninterrupted run of the
same config ends at 0.903.

Is resuming supposed to work like this? `train.py` and `config.yaml` attached.

### To Reproduce

{fence(CMDS, "bash")}

### Expected behavior

The resumed run continues from where it stopped: same loss level, and finishes around 0.90 val acc.

### Environment

{env_block()}
### Logs

first run (tail, until it was killed):

{fence(tail(out1, 10))}

resumed run:

{fence(out2)}

for reference, uninterrupted run of the same config, last 3 epochs:

{fence(tail(logs[2][0], 3))}
"""


def chk_run12_wrap(outs, rcs):
    ok, note = chk_run12(outs[:2], rcs[:2])
    va3 = nums(outs[2], "val_acc")
    return ok and rcs[2] == 0 and va3[-1] > nums(outs[1], "val_acc")[-1], note + f"; uninterrupted run ends {va3[-1]:.3f}"


SPECS = {
    "run01": dict(
        truth="lr_schedule_bug", home="/home/arun/work/digits-cnn",
        files={"train.py": "run01_train.py", "config.yaml": "run01_config.yaml"},
        ship=["train.py", "config.yaml"],
        cmds=[{"cmd": [PY, "train.py", "--config", "config.yaml"]}],
        check=chk_run01, issue=issue_run01,
        symptom="My digits CNN learns for 2-3 epochs and then completely stops improving; val loss is identical for 35 epochs at ~80% accuracy.",
        how="StepLR(step_size=15, gamma=0.5) meant per epoch (config comment says so) but scheduler.step() is called inside the batch loop (45 batches/epoch): lr 0.05 -> 6e-3 after epoch 1 -> 1e-5 by epoch 4 -> 4e-38 at the end."),
    "run02": dict(
        truth="healthy", home="/home/mei/tab-mlp",
        files={"train.py": "run02_train.py", "args.json": "run02_args.json"},
        ship=["args.json"],
        cmds=[{"cmd": [PY, "train.py", "args.json"]}],
        check=chk_run02, issue=issue_run02,
        symptom="First tabular MLP I train: test acc plateaus around 95% and test loss ends a bit above train loss - is this run ok?",
        how="No fault: standardized make_classification data, 2-layer MLP, AdamW lr 1e-3, shuffled minibatches, proper zero_grad/eval."),
    "run03": dict(
        truth="label_out_of_range", home="/home/tk/mlp-digits",
        files={"train.py": "run03_train.py"},
        ship=[],
        cmds=[{"cmd": [PY, "train.py"]}],
        check=chk_run03, issue=issue_run03,
        symptom="Simple MLP on digits crashes on the very first batch with an IndexError in the loss.",
        how="NUM_CLASSES = int(labels.max()) gives 9 for labels 0..9, so the head has 9 outputs and label 9 is out of range for CrossEntropyLoss."),
    "run04": dict(
        truth="missing_zero_grad", home="/home/ola/proj/mlp3",
        files={"train.py": "run04_train.py"},
        ship=["train.py"],
        cmds=[{"cmd": [PY, "train.py", "--lr", "0.003"]}, {"cmd": [PY, "train.py", "--lr", "0.01"]}],
        check=chk_run04, issue=issue_run04,
        symptom="Loss goes down for a while and then comes back up, val loss explodes, and the gradient norm I log grows every single epoch.",
        how="optimizer.zero_grad() never called in the training loop: .grad accumulates over all steps (SGD, momentum 0), logged grad norm is the accumulated sum and rises monotonically 2.5 -> ~75; the accumulated update acts like ever-growing momentum."),
    "run05": dict(
        truth="dtype_mismatch", home="/home/jlopez/code/diabetes-reg",
        files={"train.py": "run05_train.py", "args.json": "run05_args.json"},
        ship=["args.json"],
        cmds=[{"cmd": [PY, "train.py"]}],
        check=chk_run05, issue=issue_run05,
        symptom="My regression MLP on a pandas dataframe crashes in the first forward pass with a RuntimeError about Double and Float.",
        how="X = torch.from_numpy(df[cols].values) keeps float64 (only y is cast with .float()), fed to float32 nn.Linear."),
    "run06": dict(
        truth="zero_variance_statistic", home="/home/sv/exp/featnorm",
        files={"train.py": "run06_train.py"},
        ship=["train.py"],
        cmds=[{"cmd": [PY, "train.py"]}],
        check=chk_run06, issue=issue_run06,
        symptom="Loss becomes nan at the end of the first epoch every run (always step 20) even though the data has no NaNs and the loss was decreasing.",
        how="In-model per-batch standardization x.std(dim=0) with 1281 training samples and batch 64: the last batch has one sample, std with correction=1 is NaN (warning 'degrees of freedom is <= 0'), eps does not help, NaN weights after that step."),
    "run07": dict(
        truth="numerical_instability", home="/home/rb/churn",
        files={"train.py": "run07_train.py", "config.yaml": "run07_config.yaml"},
        ship=["config.yaml"],
        cmds=[{"cmd": [PY, "train.py"]}],
        check=chk_run07, issue=issue_run07,
        symptom="Binary classifier trains well for ~20 epochs and then the loss suddenly becomes nan with no warning and accuracy drops to chance.",
        how="Hand-written BCE -(y*log(sigmoid(z)) + (1-y)*log(1-sigmoid(z))): once a logit exceeds ~17 sigmoid rounds to 1.0 in float32, log(0) = -inf and 0*-inf = NaN; fix is BCEWithLogitsLoss / logsigmoid."),
    "run08": dict(
        truth="healthy", home="/home/pf/seqcls",
        files={"train.py": "run08_train.py", "config.yaml": "run08_config.yaml"},
        ship=["config.yaml"],
        cmds=[{"cmd": [PY, "train.py"]}],
        check=chk_run08, issue=issue_run08,
        symptom="GRU loss sits at ln(3) for 500 steps, then drops suddenly, and batch losses stay jumpy - is this normal?",
        how="No fault: GRU on a genuinely hard-to-start frequency task with batch 16 SGD + clipping; long initial plateau then learns to 98% val acc; noise is minibatch noise."),
    "run09": dict(
        truth="lr_too_high", home="/home/nz/repro/mlp-digits",
        files={"train.py": "run09_train.py", "args.json": "run09_args.json"},
        ship=["args.json"],
        cmds=[{"cmd": [PY, "train.py"]}],
        check=chk_run09, issue=issue_run09,
        symptom="Validation loss is best after the first epoch and then keeps getting worse, and the training loss jumps around a lot.",
        how="SGD lr 1.0 with momentum 0.9 (batch 64) on a tanh MLP: loss falls in epoch 1 then oscillates 0.2-3.2 with grad-norm spikes, val loss 1.03 -> 2.3-2.8."),
    "run10": dict(
        truth="frozen_parameters", home="/home/ik/probe",
        files={"train.py": "run10_train.py", "model.py": "run10_model.py", "pretrain.py": "run10_pretrain.py"},
        setup=[[PY, "pretrain.py"]],
        ship=["train.py", "model.py"],
        cmds=[{"cmd": [PY, "train.py", "--ckpt", "digits_encoder.pt", "--epochs", "15", "--lr", "1e-3"]}],
        check=chk_run10, issue=issue_run10,
        symptom="Linear probe on a frozen pretrained encoder: the loss does not move at all and the grad norm prints 0.",
        how="Encoder frozen (intended) and optimizer built from the trainable params, then model.reset_classifier() replaces the head: the new head is not in the optimizer and the old one is no longer in the graph, so nothing is updated."),
    "run11": dict(
        truth="dataloader_bottleneck", home="/home/cw/blobs",
        files={"train.py": "run11_train.py", "config.yaml": "run11_config.yaml"},
        ship=["train.py", "config.yaml"],
        cmds=[{"cmd": [PY, "train.py"]}],
        check=chk_run11, issue=issue_run11,
        symptom="Training a tiny CNN on 32x32 images is very slow (~350 img/s) even though the model is small.",
        how="__getitem__ converts each 64x64 image to Python lists and does rotation, bilinear resize and standardization in pure-Python loops, num_workers=0: data time ~0.075s vs compute ~0.017s per batch."),
    "run12": dict(
        truth="resume_mismatch", home="/home/dg/tabnet-lite",
        files={"train.py": "run12_train.py", "config.yaml": "run12_config.yaml"},
        ship=["train.py", "config.yaml"],
        cmds=[{"cmd": [PY, "train.py", "--config", "config.yaml"], "kill_on": r"^epoch\s+29/"},
              {"cmd": [PY, "train.py", "--config", "config.yaml", "--resume", "checkpoints/last.pt"]},
              {"cmd": [PY, "train.py", "--config", "config.yaml"]}],
        check=chk_run12_wrap, issue=issue_run12,
        symptom="After resuming from a checkpoint the training loss jumps up and validation accuracy drops, and it never gets back to where it was.",
        how="Checkpoint saves only model weights + epoch; on --resume the AdamW state is fresh and CosineAnnealingLR is re-created from step 0, so lr jumps 0.0005 -> 0.003 at epoch 30."),
}

if __name__ == "__main__":
    main()
