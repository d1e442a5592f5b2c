import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=24)
p.add_argument("--batch_size", type=int, default=100)
p.add_argument("--lr", type=float, default=0.1)
p.add_argument("--momentum", type=float, default=0.9)
p.add_argument("--weight_decay", type=float, default=5e-4)
p.add_argument("--lr_step", type=int, default=8)
p.add_argument("--ckpt_every", type=int, default=5)
p.add_argument("--resume", default="")
p.add_argument("--seed", type=int, default=5)
args = p.parse_args()

torch.manual_seed(args.seed)
d = np.load("data/gearbox_feats.npz")
Xtr, ytr = torch.tensor(d["Xtr"]), torch.tensor(d["ytr"])
Xva, yva = torch.tensor(d["Xva"]), torch.tensor(d["yva"])
train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.batch_size, shuffle=True)

model = nn.Sequential(nn.Linear(Xtr.shape[1], 128), nn.ReLU(),
                      nn.Linear(128, 128), nn.ReLU(),
                      nn.Linear(128, int(ytr.max()) + 1))
start_epoch = 1
if args.resume:
    ckpt = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    start_epoch = ckpt["epoch"] + 1
    print(f"resumed weights from {args.resume} (epoch {ckpt['epoch']})")

opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                      weight_decay=args.weight_decay)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=args.lr_step, gamma=0.1)
os.makedirs("checkpoints", exist_ok=True)

for epoch in range(start_epoch, args.epochs + 1):
    model.train()
    tot, n = 0.0, 0
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(xb)
        n += len(xb)
    lr = opt.param_groups[0]["lr"]
    sched.step()

    model.eval()
    with torch.no_grad():
        logits = model(Xva)
        val_loss = F.cross_entropy(logits, yva).item()
        val_acc = (logits.argmax(1) == yva).float().mean().item()
    print(f"epoch: {epoch}")
    print(f"lr: {lr:.6f}")
    print(f"train_loss: {tot / n:.4f}")
    print(f"val_loss: {val_loss:.4f}")
    print(f"val_acc: {val_acc:.4f}")

    if epoch % args.ckpt_every == 0:
        path = f"checkpoints/epoch_{epoch:03d}.pt"
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                    "scheduler": sched.state_dict(), "epoch": epoch}, path)
        print(f"saved {path}")
