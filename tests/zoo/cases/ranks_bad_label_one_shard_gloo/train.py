"""Data-parallel training on per-rank shards (gloo, CPU): each rank reads data/shard_<rank>.pt."""
import datetime
import os
import socket
import sys
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F

WORLD = 4
NUM_CLASSES = 4


def make_shards():
    os.makedirs("data", exist_ok=True)
    for r in range(WORLD):
        g = torch.Generator().manual_seed(100 + r)
        x = torch.randn(256, 16, generator=g)
        y = torch.randint(0, NUM_CLASSES, (256,), generator=g)
        if r == 2:
            y[100] = 7                            # re-labelled export: class id 7 slipped into shard 2
        torch.save({"x": x, "y": y}, f"data/shard_{r}.pt")


def worker(rank):
    os.makedirs("out", exist_ok=True)
    sys.stdout = sys.stderr = open(f"out/train.rank_{rank:02d}.log", "w", buffering=1)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD,
                            timeout=datetime.timedelta(seconds=float(os.environ.get("COLLECTIVE_TIMEOUT_S", "10"))))
    shard = torch.load(f"data/shard_{rank}.pt")
    print(f"rank {rank}/{WORLD} shard data/shard_{rank}.pt rows {len(shard['y'])} num_classes {NUM_CLASSES}")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    try:
        for epoch in range(2):
            for it in range(8):
                b = slice(it * 32, it * 32 + 32)
                loss = F.cross_entropy(model(shard["x"][b]), shard["y"][b])
                opt.zero_grad()
                loss.backward()
                for p in model.parameters():
                    dist.all_reduce(p.grad)
                    p.grad /= WORLD
                opt.step()
                print(f"ep {epoch} it {it} loss {loss.item():.4f}")
    except Exception:
        traceback.print_exc()
        raise


def _free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


if __name__ == "__main__":
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", _free_port())
    make_shards()
    mp.start_processes(worker, nprocs=WORLD, start_method="fork")
