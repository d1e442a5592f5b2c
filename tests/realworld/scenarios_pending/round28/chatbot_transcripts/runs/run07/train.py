import os
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from features import load_class_dir

DATA = "data"
CLASSES = sorted(os.listdir(os.path.join(DATA, "train")))


def build(split):
    xs, ys = [], []
    for label, cls in enumerate(CLASSES):
        feats = load_class_dir(os.path.join(DATA, split, cls))   # (n, 64) FFT band energies
        xs.append(feats)
        ys.append(np.full(len(feats), label, dtype=np.int64))
    return TensorDataset(torch.from_numpy(np.concatenate(xs)), torch.from_numpy(np.concatenate(ys)))


train_ds, val_ds = build("train"), build("val")
train_loader = DataLoader(train_ds, batch_size=50)
val_loader = DataLoader(val_ds, batch_size=250)
print(f"classes: {CLASSES}")
print(f"train: {len(train_ds)}  val: {len(val_ds)}  steps/epoch: {len(train_loader)}")

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, len(CLASSES)))
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
crit = nn.CrossEntropyLoss()

step = 0
for epoch in range(1, 9):
    model.train()
    for x, y in train_loader:
        loss = crit(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 2 == 0:
            print(f"ep {epoch} it {step:4d}  loss {loss.item():.4f}")
    model.eval()
    correct, vloss = 0, 0.0
    with torch.no_grad():
        for x, y in val_loader:
            out = model(x)
            vloss += crit(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
    print(f"=== epoch {epoch}  val_loss {vloss / len(val_ds):.4f}  val_acc {correct / len(val_ds):.4f}")
