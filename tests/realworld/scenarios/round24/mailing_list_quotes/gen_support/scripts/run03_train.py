import argparse
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--epochs", type=int, default=6)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--clip", type=float, default=0.0)
parser.add_argument("--log-every", type=int, default=25)
args = parser.parse_args()

torch.manual_seed(0)

train = np.load("data/gesture_train.npz")
val = np.load("data/gesture_val.npz")
train_ds = TensorDataset(torch.from_numpy(train["x"]), torch.from_numpy(train["y"]))
val_ds = TensorDataset(torch.from_numpy(val["x"]), torch.from_numpy(val["y"]))
train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=256)

n_features = train["x"].shape[1]
n_classes = int(train["y"].max()) + 1

model = nn.Sequential(
    nn.Linear(n_features, 128),
    nn.ReLU(),
    nn.Linear(128, 128),
    nn.ReLU(),
    nn.Linear(128, n_classes),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)


def grad_norm(params):
    total = 0.0
    for p in params:
        if p.grad is not None:
            total += p.grad.detach().norm().item() ** 2
    return total ** 0.5


def evaluate():
    model.eval()
    correct, total, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for xb, yb in val_loader:
            out = model(xb)
            loss_sum += criterion(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            total += len(yb)
    model.train()
    return loss_sum / total, correct / total


print(f"train samples: {len(train_ds)}  val samples: {len(val_ds)}  "
      f"features: {n_features}  classes: {n_classes}")
print(f"lr={args.lr} batch_size={args.batch_size} epochs={args.epochs} clip={args.clip}")

model.train()
optimizer.zero_grad()
step = 0
t0 = time.time()
for epoch in range(args.epochs):
    running = 0.0
    for xb, yb in train_loader:
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        if args.clip > 0:
            gn = nn.utils.clip_grad_norm_(model.parameters(), args.clip).item()
        else:
            gn = grad_norm(model.parameters())
        optimizer.step()
        running += loss.item()
        step += 1
        if step % args.log_every == 0:
            print(f"epoch {epoch} step {step:5d}  loss {loss.item():.4f}  grad_norm {gn:.3f}")
    val_loss, val_acc = evaluate()
    print(f"== epoch {epoch} done  train_loss {running / len(train_loader):.4f}  "
          f"val_loss {val_loss:.4f}  val_acc {val_acc:.4f}  ({time.time() - t0:.1f}s)")
