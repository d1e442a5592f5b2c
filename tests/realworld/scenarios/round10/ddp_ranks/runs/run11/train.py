import argparse
import csv
import datetime
import os

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def two_moons(n, noise=0.2, seed=0):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, n)
    half = rng.integers(0, 2, n)
    X = np.where(half[:, None] == 0,
                 np.stack([np.cos(t), np.sin(t)], 1),
                 np.stack([1 - np.cos(t), 0.5 - np.sin(t)], 1))
    X = X + rng.normal(0, noise, (n, 2))
    return X.astype(np.float32), half.astype(np.float32)


class Net(nn.Module):
    def __init__(self, h=64):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(2, h), nn.Tanh(), nn.Linear(h, h), nn.Tanh(), nn.Linear(h, 1))

    def forward(self, x):
        return self.f(x).squeeze(-1)


def train(rank, world, args):
    os.environ.setdefault("MASTER_ADDR", "localhost")
    os.environ.setdefault("MASTER_PORT", str(args.port))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=15))
    torch.manual_seed(args.seed)
    logf = open(f"logs/rank{rank}.log", "w", buffering=1)

    X, y = two_moons(3000, seed=args.seed)
    tr = TensorDataset(torch.from_numpy(X[:2400]), torch.from_numpy(y[:2400]))
    Xv, yv = torch.from_numpy(X[2400:]), torch.from_numpy(y[2400:])
    sampler = DistributedSampler(tr, shuffle=True, seed=args.seed)
    dl = DataLoader(tr, batch_size=args.bs, sampler=sampler)

    model = DDP(Net())
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.BCEWithLogitsLoss()

    writer = None
    if rank == 0:
        fh = open("logs/metrics.csv", "w", newline="")
        writer = csv.writer(fh)
        writer.writerow(["epoch", "iter", "loss", "grad_norm", "val_loss", "val_acc"])

    it = 0
    optimizer.zero_grad()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for xb, yb in dl:
            loss = loss_fn(model(xb), yb)
            loss.backward()
            gnorm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
            optimizer.step()
            it += 1
            if it % 10 == 0:
                logf.write(f"epoch={epoch:02d} it={it:04d} loss={loss.item():.4f} grad_norm={gnorm:.4f}\n")
        model.eval()
        with torch.no_grad():
            out = model(Xv)
            vl = loss_fn(out, yv).item()
            va = ((out > 0).float() == yv).float().mean().item()
        logf.write(f"epoch={epoch:02d} it={it:04d} val_loss={vl:.4f} val_acc={va:.4f}\n")
        if writer:
            writer.writerow([epoch, it, f"{loss.item():.5f}", f"{gnorm:.5f}", f"{vl:.5f}", f"{va:.4f}"])
            fh.flush()
    dist.destroy_process_group()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--bs", type=int, default=50)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--port", type=int, default=29566)
    ap.add_argument("--world-size", type=int, default=2)
    args = ap.parse_args()
    os.makedirs("logs", exist_ok=True)
    mp.spawn(train, args=(args.world_size, args), nprocs=args.world_size, join=True)
