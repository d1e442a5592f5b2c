import argparse
import datetime
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def load_glyphs(per_class=200, n_classes=5, seed=0):
    rng = np.random.default_rng(seed)
    templates = (rng.random((n_classes, 8, 8)) > 0.6).astype(np.float32) * 16
    xs, ys = [], []
    for c in range(n_classes):
        imgs = templates[c] + rng.normal(0, 5.0, (per_class, 8, 8))
        shift = rng.integers(-1, 2, per_class)
        imgs = np.stack([np.roll(im, s, axis=1) for im, s in zip(imgs, shift)])
        xs.append(np.clip(imgs, 0, 16))
        ys.append(np.full(per_class, c))
    X = np.concatenate(xs).reshape(-1, 64).astype(np.float32) / 16.0
    y = np.concatenate(ys).astype(np.int64)
    return X, y


def worker(rank, world_size, args):
    sys.stdout = open(f"logs/rank{rank}.log", "w", buffering=1)
    sys.stderr = sys.stdout
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://localhost:{args.port}", rank=rank,
                            world_size=world_size, timeout=datetime.timedelta(seconds=15))
    torch.manual_seed(0)

    X, y = load_glyphs(per_class=480, seed=3)
    is_val = np.tile(np.arange(480) >= 400, 5)
    X, y, Xv, yv = X[~is_val], y[~is_val], X[is_val], y[is_val]
    train_set = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
    sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank, shuffle=False)
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler)
    Xv, yv = torch.from_numpy(Xv), torch.from_numpy(yv)

    model = DDP(nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 5)))
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    print(f"rank={rank} samples={len(sampler)} batches={len(loader)} lr={args.lr} bs={args.batch_size}")

    it = 0
    for epoch in range(args.epochs):
        model.train()
        for xb, yb in loader:
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            it += 1
            if it % 2 == 0:
                print(f"epoch {epoch} iter {it} loss {loss.item():.4f} batch_acc {(out.argmax(1) == yb).float().mean().item():.3f}")
        model.eval()
        with torch.no_grad():
            ov = model(Xv)
        vloss = F.cross_entropy(ov, yv).item()
        acc = (ov.argmax(1) == yv).float().mean().item()
        print(f"== epoch {epoch} val_loss {vloss:.4f} val_acc {acc:.4f}")
    if rank == 0:
        torch.save(model.module.state_dict(), "glyph_mlp.pt")
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch-size", type=int, default=20)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--port", type=int, default=29557)
    ap.add_argument("--gpus", type=int, default=2)
    args = ap.parse_args()
    os.makedirs("logs", exist_ok=True)
    mp.spawn(worker, nprocs=args.gpus, args=(args.gpus, args))


if __name__ == "__main__":
    main()
