import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader
from tensorboardX import SummaryWriter

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/sensors_v2.npz")
p.add_argument("--epochs", type=int, default=40)
p.add_argument("--bs", type=int, default=64)
p.add_argument("--lr", type=float, default=0.05)
p.add_argument("--step_size", type=int, default=10)   # halve lr every 10 epochs
p.add_argument("--gamma", type=float, default=0.5)
p.add_argument("--seed", type=int, default=0)
p.add_argument("--logdir", default="runs/mlp_sgd")
args = p.parse_args()
torch.manual_seed(args.seed)

d = np.load(args.data)
Xtr, ytr = torch.tensor(d["x_train"]), torch.tensor(d["y_train"])
Xva, yva = torch.tensor(d["x_val"]), torch.tensor(d["y_val"])
n_classes = int(ytr.max()) + 1
train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.bs, shuffle=True)
val_dl = DataLoader(TensorDataset(Xva, yva), batch_size=512)

model = nn.Sequential(
    nn.Linear(Xtr.shape[1], 128), nn.ReLU(),
    nn.Linear(128, 128), nn.ReLU(),
    nn.Linear(128, n_classes),
)
opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=args.step_size, gamma=args.gamma)
writer = SummaryWriter(args.logdir)
print(f"train {len(Xtr)}  val {len(Xva)}  classes {n_classes}  params {sum(p.numel() for p in model.parameters())}")

step = 0
for epoch in range(1, args.epochs + 1):
    model.train()
    t0 = time.time()
    tot, n = 0.0, 0
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        step += 1
        tot += loss.item() * len(xb)
        n += len(xb)
        writer.add_scalar("train/loss", loss.item(), step)
        writer.add_scalar("train/lr", opt.param_groups[0]["lr"], step)
        if step % 25 == 0:
            print(f"[ep {epoch:02d} it {step:5d}] loss {loss.item():.4f}")
    model.eval()
    correct, vloss = 0, 0.0
    with torch.no_grad():
        for xb, yb in val_dl:
            out = model(xb)
            vloss += F.cross_entropy(out, yb, reduction="sum").item()
            correct += (out.argmax(1) == yb).sum().item()
    writer.add_scalar("val/loss", vloss / len(Xva), step)
    writer.add_scalar("val/acc", correct / len(Xva), step)
    print(f"Epoch {epoch:02d}/{args.epochs} | train_loss {tot / n:.4f} | val_loss {vloss / len(Xva):.4f} "
          f"| val_acc {correct / len(Xva):.4f} | lr {opt.param_groups[0]['lr']:.5f} | {time.time() - t0:.1f}s")
writer.close()
