import argparse
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--total-steps", type=int, default=1800)
p.add_argument("--warmup", type=int, default=150)
p.add_argument("--lr", type=float, default=3e-3)
p.add_argument("--resume", default="")
args = p.parse_args()

torch.manual_seed(0)
torch.set_num_threads(1)
device = "cuda" if torch.cuda.is_available() else "cpu"
tr, va = np.load("data/train.npz"), np.load("data/val.npz")
dl = DataLoader(TensorDataset(torch.tensor(tr["x"]), torch.tensor(tr["y"])), batch_size=128, shuffle=True, drop_last=True)
Xva, yva = torch.tensor(va["x"]).to(device), torch.tensor(va["y"]).to(device)

model = nn.Sequential(nn.Linear(40, 256), nn.GELU(), nn.Linear(256, 256), nn.GELU(), nn.Linear(256, 10)).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)

def lr_lambda(s):
    if s < args.warmup:
        return (s + 1) / args.warmup
    return 0.5 * (1 + math.cos(math.pi * (s - args.warmup) / (args.total_steps - args.warmup)))

sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)

step = 0
if args.resume:
    ckpt = torch.load(args.resume, map_location=device)
    model.load_state_dict(ckpt["model"])
    step = ckpt["step"]
    print(f"resumed from {args.resume} at step {step}")

while step < args.total_steps:
    for x, y in dl:
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        step += 1
        if step % 25 == 0:
            print(f"step {step:5d} | loss {loss.item():.4f} | lr {sched.get_last_lr()[0]:.3e}")
        if step % 100 == 0:
            model.eval()
            with torch.no_grad():
                out = model(Xva)
                print(f"step {step:5d} | val_loss {F.cross_entropy(out, yva).item():.4f} | "
                      f"val_acc {(out.argmax(1) == yva).float().mean().item():.4f}")
            model.train()
        if step % 250 == 0:
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                        "scheduler": sched.state_dict(), "step": step}, f"ckpt/step{step}.pt")
        if step >= args.total_steps:
            break
