import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CLASSES = ["normal", "imbalance", "misalignment", "bearing"]

p = argparse.ArgumentParser()
p.add_argument("--data_dir", default="data/vib_features")
p.add_argument("--epochs", type=int, default=6)
p.add_argument("--batch_size", type=int, default=50)
p.add_argument("--lr", type=float, default=0.05)
p.add_argument("--momentum", type=float, default=0.9)
p.add_argument("--hidden", type=int, default=64)
p.add_argument("--log_every", type=int, default=4)
p.add_argument("--seed", type=int, default=11)
args = p.parse_args()


def load_split(split):
    xs, ys = [], []
    for label, name in enumerate(CLASSES):
        arr = np.load(f"{args.data_dir}/{split}/{name}.npy")
        xs.append(arr)
        ys.append(np.full(len(arr), label))
    X = torch.tensor(np.concatenate(xs), dtype=torch.float32)
    y = torch.tensor(np.concatenate(ys), dtype=torch.long)
    return X, y


torch.manual_seed(args.seed)
Xtr, ytr = load_split("train")
Xva, yva = load_split("val")
mu, sd = Xtr.mean(0), Xtr.std(0)
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd

train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.batch_size, drop_last=True)
model = nn.Sequential(nn.Linear(Xtr.shape[1], args.hidden), nn.ReLU(), nn.Linear(args.hidden, len(CLASSES)))
opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)

step = 0
for epoch in range(1, args.epochs + 1):
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % args.log_every == 0:
            print(f"step: {step}")
            print(f"loss: {loss.item():.4f}")
        step += 1

    model.eval()
    with torch.no_grad():
        logits = model(Xva)
        val_loss = F.cross_entropy(logits, yva).item()
        val_acc = (logits.argmax(1) == yva).float().mean().item()
    model.train()
    print(f"epoch: {epoch}")
    print(f"val_loss: {val_loss:.4f}")
    print(f"val_acc: {val_acc:.4f}")

torch.save(model.state_dict(), "model.pt")
