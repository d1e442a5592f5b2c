import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/features.npz")
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=4e-3)
    p.add_argument("--warmup-steps", type=int, default=120)
    p.add_argument("--ckpt-dir", default="checkpoints")
    p.add_argument("--resume", default=None)
    p.add_argument("--log-every", type=int, default=10)
    return p.parse_args()


class MLP(nn.Module):
    def __init__(self, d_in, d_hidden, n_out):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, d_hidden), nn.GELU(),
            nn.Linear(d_hidden, d_hidden), nn.GELU(),
            nn.Linear(d_hidden, n_out),
        )

    def forward(self, x):
        return self.net(x)


@torch.no_grad()
def evaluate(model, X, y, loss_fn):
    model.eval()
    out = model(X)
    return loss_fn(out, y).item(), (out.argmax(1) == y).float().mean().item()


def main():
    args = get_args()
    torch.manual_seed(1234)
    d = np.load(args.data)
    Xtr, ytr = torch.from_numpy(d["X_train"]), torch.from_numpy(d["y_train"])
    Xva, yva = torch.from_numpy(d["X_val"]), torch.from_numpy(d["y_val"])
    train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.batch_size,
                          shuffle=True, drop_last=True)

    model = MLP(Xtr.shape[1], 256, int(ytr.max()) + 1)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    total_steps = args.epochs * len(train_dl)

    def lr_lambda(step):
        if step < args.warmup_steps:
            return (step + 1) / args.warmup_steps
        progress = (step - args.warmup_steps) / max(1, total_steps - args.warmup_steps)
        return 0.5 * (1.0 + math.cos(math.pi * progress))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)

    start_epoch = 0
    if args.resume:
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        start_epoch = ckpt["epoch"] + 1
        print(f"Resumed from {args.resume} (epoch {ckpt['epoch']})")

    print(f"train={len(Xtr)} val={len(Xva)} steps/epoch={len(train_dl)} total_steps={total_steps}")
    loss_fn = nn.CrossEntropyLoss()
    step = start_epoch * len(train_dl)
    for epoch in range(start_epoch, args.epochs):
        model.train()
        t0 = time.time()
        for xb, yb in train_dl:
            loss = loss_fn(model(xb), yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            sched.step()
            step += 1
            if step % args.log_every == 0:
                print(f"ep {epoch:02d} step {step:5d} loss {loss.item():.4f} "
                      f"gnorm {gn:.3f} lr {sched.get_last_lr()[0]:.2e}")
        vl, va = evaluate(model, Xva, yva, loss_fn)
        print(f"== epoch {epoch:02d} done in {time.time() - t0:.1f}s | val_loss {vl:.4f} val_acc {va:.4f}")
        os.makedirs(args.ckpt_dir, exist_ok=True)
        torch.save({"model": model.state_dict(), "epoch": epoch},
                   os.path.join(args.ckpt_dir, "last.pt"))
        print(f"saved checkpoint -> {args.ckpt_dir}/last.pt")


if __name__ == "__main__":
    main()
