import argparse, math, os, time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/teacher_k10.npz")
p.add_argument("--epochs", type=int, default=12)
p.add_argument("--lr", type=float, default=3e-3)
p.add_argument("--batch-size", type=int, default=128)
p.add_argument("--ckpt", default="checkpoints/last.pt")
args = p.parse_args()
torch.manual_seed(0)

d = np.load(args.data)
train_ds = TensorDataset(torch.tensor(d["x_train"]), torch.tensor(d["y_train"]))
Xva, yva = torch.tensor(d["x_val"]), torch.tensor(d["y_val"])
loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)

model = nn.Sequential(nn.Linear(Xva.shape[1], 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
total_steps = args.epochs * len(loader)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / total_steps)))

start_epoch = 1
if os.path.exists(args.ckpt):
    ckpt = torch.load(args.ckpt)
    model.load_state_dict(ckpt["model"])
    start_epoch = ckpt["epoch"] + 1
    print(f"Resuming from {args.ckpt} (epoch {ckpt['epoch']}, val_acc {ckpt['val_acc']:.4f})", flush=True)

for epoch in range(start_epoch, args.epochs + 1):
    model.train()
    t0 = time.time()
    for step, (xb, yb) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 20 == 0:
            print(f"epoch {epoch:2d} step {step:3d} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.2e}", flush=True)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        val_loss = nn.functional.cross_entropy(out, yva).item()
        val_acc = (out.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch:2d} | val_loss {val_loss:.4f} | val_acc {val_acc:.4f} | {time.time()-t0:.1f}s", flush=True)
    os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
    torch.save({"model": model.state_dict(), "epoch": epoch, "val_acc": val_acc}, args.ckpt)
    print(f"saved {args.ckpt}", flush=True)
