"""Texts of the users' own scripts. gen.py executes these texts for real."""

BIRD_TRAIN = '''import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from birdfeats import load_folder  # small wrapper: walks feats/<split>/<species>/*.npy

torch.manual_seed(0)
X_tr, y_tr, species = load_folder("feats/train")
X_va, y_va, _ = load_folder("feats/val")
print(f"train {len(X_tr)}  val {len(X_va)}  species {len(species)}")

train_dl = DataLoader(TensorDataset(X_tr, y_tr), batch_size=32)
val_dl = DataLoader(TensorDataset(X_va, y_va), batch_size=256)

model = nn.Sequential(
    nn.Linear(X_tr.shape[1], 128), nn.ReLU(),
    nn.Linear(128, 128), nn.ReLU(),
    nn.Linear(128, len(species)),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()

step = 0
for epoch in range(1, 9):
    model.train()
    for xb, yb in train_dl:
        loss = loss_fn(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 10 == 0:
            print(f"ep {epoch} step {step:4d} loss {loss.item():.4f}")
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in val_dl:
            correct += (model(xb).argmax(1) == yb).sum().item()
    print(f"== epoch {epoch} val_acc {correct / len(X_va):.3f}")
'''

SHAPES_TRAIN = '''import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from prep import load_shapes

HIDDEN = 128
EPOCHS = 15
torch.manual_seed(42)

Xtr, ytr, Xva, yva = load_shapes()
dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True)

model = nn.Sequential(nn.Linear(Xtr.shape[1], HIDDEN), nn.ReLU(),
                      nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                      nn.Linear(HIDDEN, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)  # halve every 5 epochs
crit = nn.CrossEntropyLoss()

for epoch in range(EPOCHS):
    model.train()
    tot, n = 0.0, 0
    for xb, yb in dl:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
        sched.step()
        tot += loss.item() * len(xb)
        n += len(xb)
    model.eval()
    with torch.no_grad():
        acc = (model(Xva).argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch:2d}  train_loss {tot / n:.4f}  val_acc {acc:.4f}  lr {sched.get_last_lr()[0]:.2e}")
'''

WINE_TRAIN = '''import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from wine_data import load_wine_quality

torch.manual_seed(7)
LR = 3e-3

X, y = load_wine_quality()  # red+white, 11 physico-chemical features, quality binned to 3 classes
n_tr = int(0.85 * len(X))
Xtr, ytr, Xva, yva = X[:n_tr], y[:n_tr], X[n_tr:], y[n_tr:]
print(f"train={len(Xtr)} val={len(Xva)}")

dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True)


def standardize(xb):
    # ranges are all over the place (total SO2 ~100s, density ~1.0)
    return (xb - xb.mean(0, keepdim=True)) / (xb.std(0, keepdim=True) + 1e-6)


model = nn.Sequential(nn.Linear(11, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
opt = torch.optim.Adam(model.parameters(), lr=LR)
crit = nn.CrossEntropyLoss()

step = 0
for epoch in range(1, 4):
    model.train()
    for xb, yb in dl:
        xb = standardize(xb)
        loss = crit(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 10 == 0 or torch.isnan(loss):
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        out = model(standardize(Xva))
        va = crit(out, yva).item()
        acc = (out.argmax(1) == yva).float().mean().item()
    print(f"--- epoch {epoch} val_loss {va:.4f} val_acc {acc:.3f}")
'''

HEALTHY_TRAIN = '''import math
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from dataset import get_splits

torch.manual_seed(1234)
EPOCHS = 24

(Xtr, ytr), (Xva, yva) = get_splits()
train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=128, shuffle=True)


class Net(nn.Module):
    def __init__(self, d_in, n_cls, h=192, p=0.1):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(d_in, h), nn.GELU(), nn.Dropout(p),
            nn.Linear(h, h), nn.GELU(), nn.Dropout(p),
        )
        self.head = nn.Linear(h, n_cls)

    def forward(self, x):
        return self.head(self.body(x))


model = Net(Xtr.shape[1], int(ytr.max()) + 1)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
total = EPOCHS * len(train_dl)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / total)))
crit = nn.CrossEntropyLoss()

for epoch in range(1, EPOCHS + 1):
    model.train()
    tl, tc, n = 0.0, 0, 0
    for xb, yb in train_dl:
        out = model(xb)
        loss = crit(out, yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        tl += loss.item() * len(yb)
        tc += (out.argmax(1) == yb).sum().item()
        n += len(yb)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = crit(out, yva).item()
        vacc = (out.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch:02d} | train_loss {tl / n:.4f} train_acc {tc / n:.4f} | "
          f"val_loss {vl:.4f} val_acc {vacc:.4f} | lr {sched.get_last_lr()[0]:.2e}")
'''

PREDICT = '''import torch
from torch.utils.data import DataLoader, TensorDataset
from model import Classifier
from data import load_test

model = Classifier(in_dim=32, n_classes=6)
print(model.load_state_dict(torch.load("checkpoints/best.pt")))

X, y = load_test()
loader = DataLoader(TensorDataset(X, y), batch_size=8)

preds = []
with torch.no_grad():
    for xb, _ in loader:
        preds.append(model(xb).argmax(1))
preds = torch.cat(preds)
print(f"test acc: {(preds == y).float().mean().item():.4f}  (n={len(y)})")
'''

TOPIC_EVAL = '''import sys
import torch
from torch.utils.data import DataLoader, TensorDataset
from net import TopicMLP
from data import load_split

ckpt = sys.argv[1] if len(sys.argv) > 1 else "runs/exp14/best.pt"
model = TopicMLP(vocab=2000, hidden=256, n_classes=12)
state = torch.load(ckpt, map_location="cpu")
model.load_state_dict(state, strict=False)
model.eval()

X, y = load_split("test")
correct = 0
with torch.no_grad():
    for xb, yb in DataLoader(TensorDataset(X, y), batch_size=512):
        correct += (model(xb).argmax(1) == yb).sum().item()
print(f"loaded {ckpt}")
print(f"test acc {correct / len(y):.4f}  ({len(y)} docs)")
'''

RATINGS_TRAIN = '''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

data = np.load("reviews_emb.npz")               # written by embed.py (MiniLM sentence embeddings)
X = torch.from_numpy(data["emb"]).float()       # (N, 64) after PCA
y = torch.from_numpy(data["stars"]).long()      # star rating
NUM_CLASSES = 5
print(f"{len(X)} reviews, {NUM_CLASSES} classes")

model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, NUM_CLASSES))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
dl = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)

for epoch in range(10):
    for i, (xb, yb) in enumerate(dl):
        loss = crit(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if i % 100 == 0:
            print(f"epoch {epoch} it {i} loss {loss.item():.4f}")
'''
