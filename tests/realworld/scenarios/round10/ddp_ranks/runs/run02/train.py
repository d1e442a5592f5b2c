import argparse
import datetime
import os
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def make_blobs(n, n_features=24, n_informative=8, n_classes=5, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(0.0, 1.8, size=(n_classes, n_informative))
    y = rng.integers(0, n_classes, size=n)
    X = rng.normal(0.0, 1.0, size=(n, n_features))
    X[:, :n_informative] += centers[y]
    return X.astype(np.float32), y.astype(np.int64)


class MLP(nn.Module):
    def __init__(self, d_in, n_classes, hidden=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Dropout(0.2),
            nn.Linear(hidden, n_classes),
        )

    def forward(self, x):
        return self.net(x)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--weight-decay", type=float, default=1e-4)
    args = p.parse_args()

    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234)

    X, y = make_blobs(8000, seed=7)
    mu, sd = X[:6400].mean(0), X[:6400].std(0)
    X = (X - mu) / sd
    train_ds = TensorDataset(torch.from_numpy(X[:6400]), torch.from_numpy(y[:6400]))
    val_ds = TensorDataset(torch.from_numpy(X[6400:]), torch.from_numpy(y[6400:]))

    sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True, seed=0)
    train_dl = DataLoader(train_ds, batch_size=args.batch_size, sampler=sampler)
    val_dl = DataLoader(val_ds, batch_size=256)

    model = DDP(MLP(X.shape[1], 5))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)

    if rank == 0:
        print(f"world_size={world} train={len(train_ds)} val={len(val_ds)} "
              f"per_rank_batches={len(train_dl)} params={sum(p.numel() for p in model.parameters())}", flush=True)

    for epoch in range(1, args.epochs + 1):
        t0 = time.time()
        sampler.set_epoch(epoch)
        model.train()
        tot = torch.zeros(3)
        for xb, yb in train_dl:
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            tot += torch.tensor([loss.item() * len(yb), (logits.argmax(1) == yb).sum().item(), len(yb)])
        sched.step()
        dist.all_reduce(tot)
        train_loss, train_acc = tot[0] / tot[2], tot[1] / tot[2]

        model.eval()
        vl, vc, vn = 0.0, 0, 0
        with torch.no_grad():
            for xb, yb in val_dl:
                out = model(xb)
                vl += F.cross_entropy(out, yb, reduction="sum").item()
                vc += (out.argmax(1) == yb).sum().item()
                vn += len(yb)
        if rank == 0:
            print(f"epoch {epoch:3d}/{args.epochs} | train_loss {train_loss:.4f} | train_acc {train_acc:.4f} | "
                  f"val_loss {vl / vn:.4f} | val_acc {vc / vn:.4f} | lr {sched.get_last_lr()[0]:.2e} | "
                  f"{time.time() - t0:.2f}s", flush=True)

    if rank == 0:
        torch.save(model.module.state_dict(), "model_final.pt")
        print("saved model_final.pt", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
