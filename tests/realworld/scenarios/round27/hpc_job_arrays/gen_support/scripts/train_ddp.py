import argparse, datetime, os, time
import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/teacher_k10.npz")
p.add_argument("--epochs", type=int, default=5)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--lr", type=float, default=0.05)
args = p.parse_args()

dist.init_process_group("gloo", timeout=datetime.timedelta(minutes=10))
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)

d = np.load(args.data)
Xtr, ytr = torch.tensor(d["x_train"]), torch.tensor(d["y_train"])
Xva, yva = torch.tensor(d["x_val"]), torch.tensor(d["y_val"])
# each rank trains on its own contiguous chunk of the data
my_idx = np.array_split(np.arange(len(Xtr)), world)[rank]
n_batches = (len(my_idx) + args.batch_size - 1) // args.batch_size
print(f"[rank {rank}] {len(my_idx)} samples, {n_batches} batches/epoch", flush=True)

model = DDP(nn.Sequential(nn.Linear(Xtr.shape[1], 128), nn.ReLU(), nn.Linear(128, 10)))
opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
g = torch.Generator().manual_seed(rank)
for epoch in range(1, args.epochs + 1):
    model.train()
    t0 = time.time()
    perm = my_idx[torch.randperm(len(my_idx), generator=g).numpy()]
    for b in range(n_batches):
        idx = perm[b * args.batch_size:(b + 1) * args.batch_size]
        loss = nn.functional.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if b % 20 == 0:
            print(f"[rank {rank}] epoch {epoch} batch {b}/{n_batches} loss {loss.item():.4f}", flush=True)
    model.eval()
    with torch.no_grad():
        val_loss = nn.functional.cross_entropy(model(Xva), yva, reduction="sum")
    stats = torch.tensor([val_loss.item(), float(len(Xva))])
    dist.all_reduce(stats)
    if rank == 0:
        print(f"epoch {epoch} val_loss {stats[0].item() / stats[1].item():.4f} ({time.time()-t0:.1f}s)", flush=True)
dist.destroy_process_group()
