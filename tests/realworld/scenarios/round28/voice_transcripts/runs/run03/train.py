import argparse
import logging
import os

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import load_features

logging.basicConfig(format="%(asctime)s %(levelname)s %(message)s", level=logging.INFO)
log = logging.getLogger("train")

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=20)
p.add_argument("--lr", type=float, default=3e-3)
p.add_argument("--bs", type=int, default=100)
p.add_argument("--ckpt-dir", default="checkpoints")
p.add_argument("--resume", default=None)
args = p.parse_args()

train_ds, val_ds = load_features("/scratch/feat_v2")
train_loader = DataLoader(train_ds, batch_size=args.bs, shuffle=True, num_workers=4)
val_loader = DataLoader(val_ds, batch_size=1000)

model = nn.Sequential(nn.Linear(12, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 6))
criterion = nn.CrossEntropyLoss()
start_epoch = 1

if args.resume:
    ckpt = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    start_epoch = ckpt["epoch"] + 1
    log.info(f"Resuming from {args.resume} (epoch {ckpt['epoch']})")

optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))


def validate():
    model.eval()
    tot, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in val_loader:
            out = model(xb)
            tot += criterion(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    model.train()
    return tot / n, correct / n


for epoch in range(start_epoch, args.epochs + 1):
    running = []
    for step, (xb, yb) in enumerate(train_loader, 1):
        loss = criterion(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        running.append(loss.item())
        if step % 10 == 0:
            log.info(f"ep {epoch} step {step}/{len(train_loader)} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.3e}")
    vl, va = validate()
    log.info(f"ep {epoch} train_loss {np.mean(running):.4f} val_loss {vl:.4f} val_acc {va:.4f}")
    os.makedirs(args.ckpt_dir, exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "epoch": epoch},
               os.path.join(args.ckpt_dir, "last.pt"))
