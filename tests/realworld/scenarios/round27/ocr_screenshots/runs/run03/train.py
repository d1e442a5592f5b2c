import argparse
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader
import wandb

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/features.npz")
p.add_argument("--epochs", type=int, default=12)
p.add_argument("--bs", type=int, default=64)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--warmup_steps", type=int, default=300)
p.add_argument("--wd", type=float, default=0.01)
p.add_argument("--seed", type=int, default=1)
args = p.parse_args()
torch.manual_seed(args.seed)

d = np.load(args.data)
Xtr, ytr = torch.tensor(d["x_train"]), torch.tensor(d["y_train"])
Xva, yva = torch.tensor(d["x_val"]), torch.tensor(d["y_val"])
train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.bs, shuffle=True)

model = nn.Sequential(nn.Linear(Xtr.shape[1], 256), nn.GELU(), nn.Linear(256, 256), nn.GELU(),
                      nn.Linear(256, int(ytr.max()) + 1))
opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.wd)
total_steps = args.epochs * len(train_dl)

def lr_lambda(step):
    if step < args.warmup_steps:
        return (step + 1) / args.warmup_steps
    progress = (step - args.warmup_steps) / max(1, total_steps - args.warmup_steps)
    return 0.5 * (1 + math.cos(math.pi * progress))

sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
wandb.init(project="tabular-cls", name="mlp-adamw-cos", config=vars(args))

step = 0
for epoch in range(args.epochs):
    model.train()
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        step += 1
        if step % 10 == 0:
            wandb.log({"train/loss": loss.item(), "train/lr": sched.get_last_lr()[0], "train/grad_norm": gn.item()}, step=step)
        if step % 50 == 0:
            print(f"step {step:5d}/{total_steps} | epoch {epoch} | loss {loss.item():.4f} | lr {sched.get_last_lr()[0]:.2e} | gnorm {gn.item():.3f}")
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    wandb.log({"val/loss": vl, "val/acc": va}, step=step)
    print(f"== epoch {epoch} done: val_loss {vl:.4f} val_acc {va:.4f}")
wandb.finish()
