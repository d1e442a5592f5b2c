import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader
import wandb

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/shards_8cls.npz")
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--bs", type=int, default=128)
p.add_argument("--lr", type=float, default=6e-3)
p.add_argument("--ckpt_dir", default="checkpoints")
p.add_argument("--resume", default=None)
args = p.parse_args()
torch.manual_seed(0)

d = np.load(args.data)
Xtr, ytr = torch.tensor(d["x_train"]), torch.tensor(d["y_train"])
Xva, yva = torch.tensor(d["x_val"]), torch.tensor(d["y_val"])
train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.bs, shuffle=True)

model = nn.Sequential(nn.Linear(Xtr.shape[1], 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 8))
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    start_epoch = ckpt["epoch"] + 1
    print(f"=> resumed from {args.resume} (epoch {ckpt['epoch']})")

opt = torch.optim.Adam(model.parameters(), lr=args.lr)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs * len(train_dl))
wandb.init(project="shards", name="mlp-cos", config=vars(args), resume="allow")
os.makedirs(args.ckpt_dir, exist_ok=True)

step = start_epoch * len(train_dl)
for epoch in range(start_epoch, args.epochs):
    model.train()
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        step += 1
        if step % 10 == 0:
            wandb.log({"train/loss": loss.item(), "lr": opt.param_groups[0]["lr"]}, step=step)
        if step % 50 == 0:
            print(f"epoch {epoch:2d} step {step:5d} loss {loss.item():.4f} lr {opt.param_groups[0]['lr']:.6f}")
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    wandb.log({"val/loss": vl, "val/acc": va}, step=step)
    torch.save({"model": model.state_dict(), "epoch": epoch}, os.path.join(args.ckpt_dir, "last.pt"))
    print(f"epoch {epoch:2d} | val_loss {vl:.4f} | val_acc {va:.4f} | saved {args.ckpt_dir}/last.pt", flush=True)
wandb.finish()
