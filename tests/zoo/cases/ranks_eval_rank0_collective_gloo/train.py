"""Data-parallel training of a small MLP classifier on CPU (gloo): 4 processes via torch.multiprocessing."""
import datetime
import logging
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F

WORLD = 4
EPOCHS = 3
STEPS_PER_EPOCH = 20


def setup_logging(rank):
    os.makedirs("logs", exist_ok=True)
    h = logging.FileHandler(f"logs/rank{rank}.log", mode="w")
    h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s rank%(rank)s %(message)s"))
    log = logging.getLogger("train")
    log.addHandler(h)
    log.setLevel(logging.INFO)
    return logging.LoggerAdapter(log, {"rank": rank})


@torch.no_grad()
def evaluate(model, xs, ys):
    correct = (model(xs).argmax(1) == ys).sum().float()
    dist.all_reduce(correct)                      # sum the correct counts over ranks
    return correct.item() / (len(ys) * dist.get_world_size())


def worker(rank):
    log = setup_logging(rank)
    timeout = datetime.timedelta(seconds=float(os.environ.get("COLLECTIVE_TIMEOUT_S", "10")))
    dist.init_process_group("gloo", rank=rank, world_size=WORLD, timeout=timeout)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    g = torch.Generator().manual_seed(rank)
    xs, ys = torch.randn(512, 16, generator=g), torch.randint(0, 4, (512,), generator=g)
    vx, vy = torch.randn(128, 16, generator=g), torch.randint(0, 4, (128,), generator=g)
    log.info("world_size=%d lr=0.05 batch_size=32", WORLD)
    step = 0
    try:
        for epoch in range(EPOCHS):
            for i in range(STEPS_PER_EPOCH):
                b = slice((i * 32) % 512, (i * 32) % 512 + 32)
                loss = F.cross_entropy(model(xs[b]), ys[b])
                opt.zero_grad()
                loss.backward()
                for p in model.parameters():
                    dist.all_reduce(p.grad)
                    p.grad /= WORLD
                opt.step()
                step += 1
                if step % 5 == 0:
                    log.info("epoch %d step %d loss %.4f", epoch, step, loss.item())
            if rank == 0:
                log.info("epoch %d: evaluating on the validation split", epoch)
                acc = evaluate(model, vx, vy)
                log.info("epoch %d val_acc %.4f", epoch, acc)
    except Exception:
        log.exception("training failed at step %d", step)
        raise


def _free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


if __name__ == "__main__":
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", _free_port())
    mp.start_processes(worker, nprocs=WORLD, start_method="fork")
