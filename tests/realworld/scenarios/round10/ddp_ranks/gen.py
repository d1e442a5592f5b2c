#!/usr/bin/env python3
"""Generate 12 small 2-rank DDP (gloo, CPU) training runs, each with one planted fault or none.

Every run is really trained: the per-run train.py / launch.sh below are written into a scratch
project folder, launch.sh is executed (torchrun or torch.multiprocessing.spawn, world_size 2),
and only the files a user would hand over (logs, and for half of the runs train.py + launch.sh)
are copied to OUTDIR/runs/<name>/. Ground truth goes to OUTDIR/truth.json.

usage: python gen.py [--outdir /tmp/p63c] [--work /tmp/p63c_work] [--only run01,run05]
Needs: torch (CPU) + numpy in the python whose bin/ also holds torchrun (default /work/main/.venv).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

SOURCES = {}

SOURCES['run01'] = {
    'train.py': r'''import argparse
import datetime
import logging
import math
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset


def load_housing(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    households = rng.integers(20, 900, n).astype(np.float64)
    rooms = households * rng.uniform(2.0, 8.0, n)
    pop = households * rng.uniform(1.5, 4.5, n)
    income = rng.lognormal(1.2, 0.45, n)
    age = rng.uniform(1, 52, n)
    for j in (3121, 3544):
        households[j] = 0.0
        rooms[j] = 0.0
        pop[j] = 0.0
    price = (0.9 * income + 0.15 * (rooms / np.maximum(households, 1)) - 0.002 * age
             + 0.1 * rng.normal(size=n))
    with np.errstate(divide="ignore", invalid="ignore"):
        X = np.stack([
            np.log1p(households) / 7.0,
            np.log1p(rooms) / 9.0,
            np.log1p(pop) / 8.0,
            income / 5.0,
            age / 52.0,
            rooms / households / 8.0,
            pop / households / 4.5,
        ], 1)
    return X.astype(np.float32), price.astype(np.float32)


def worker(rank, world_size, args):
    os.makedirs(args.log_dir, exist_ok=True)
    logging.basicConfig(filename=os.path.join(args.log_dir, f"rank{rank}.log"), filemode="w",
                        level=logging.INFO, format="%(asctime)s %(levelname)-7s %(message)s")
    log = logging.getLogger()
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}", rank=rank,
                            world_size=world_size, timeout=datetime.timedelta(seconds=15))
    torch.manual_seed(args.seed)

    X, y = load_housing(seed=4)
    n_val = 400
    Xtr, ytr, Xva, yva = X[:-n_val], y[:-n_val], X[-n_val:], y[-n_val:]
    shard = np.array_split(np.arange(len(Xtr)), world_size)[rank]
    ds = TensorDataset(torch.from_numpy(Xtr[shard]), torch.from_numpy(ytr[shard]))
    g = torch.Generator().manual_seed(args.seed + rank)
    dl = DataLoader(ds, batch_size=args.batch_size, shuffle=True, generator=g)
    log.info("rank %d shard rows %d-%d (%d rows), %d batches/epoch", rank, shard[0], shard[-1], len(shard), len(dl))

    model = DDP(nn.Sequential(nn.Linear(7, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU(), nn.Linear(64, 1)))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    warned = False
    step = 0
    for epoch in range(args.epochs):
        model.train()
        for xb, yb in dl:
            pred = model(xb).squeeze(-1)
            loss = nn.functional.mse_loss(pred, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if not math.isfinite(loss.item()) and not warned:
                log.warning("non-finite loss %s at epoch %d step %d", loss.item(), epoch, step)
                warned = True
            if step % 5 == 0:
                log.info("epoch %d step %d train_rmse %.4f", epoch, step, math.sqrt(loss.item()) if loss.item() >= 0 else float("nan"))
        model.eval()
        with torch.no_grad():
            vr = torch.sqrt(nn.functional.mse_loss(model(torch.from_numpy(Xva)).squeeze(-1), torch.from_numpy(yva))).item()
        log.info("epoch %d done  val_rmse %.4f", epoch, vr)
    if rank == 0:
        torch.save(model.module.state_dict(), "price_mlp.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--world-size", type=int, default=2)
    ap.add_argument("--port", type=int, default=29531)
    ap.add_argument("--log-dir", default="logs")
    args = ap.parse_args()
    print(f"spawning {args.world_size} workers, logs in {args.log_dir}/", flush=True)
    mp.spawn(worker, args=(args.world_size, args), nprocs=args.world_size, join=True)
    print("all workers finished", flush=True)
''',
    'launch.sh': r'''#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
python train.py --world-size 2 --epochs 6 --batch-size 64 --lr 3e-3 --seed 13 --port 29531 2>&1 | tee logs/launcher.log
''',
}

SOURCES['run02'] = {
    'train.py': r'''import argparse
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
''',
    'launch.sh': r'''#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
torchrun --standalone --nproc_per_node 2 --tee 3 train.py --epochs 20 --batch-size 128 --lr 2e-3 2>&1 | tee logs/train.log
''',
}

SOURCES['run03'] = {
    'train.py': r'''import datetime
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset

EPOCHS = 10
BATCH = 32
LR = 0.01
CLASSES = ["hbar", "vbar", "diag", "ring"]


def setup_logging(rank):
    os.makedirs("logs", exist_ok=True)
    f = open(f"logs/rank{rank}.log", "w", buffering=1)
    os.dup2(f.fileno(), sys.stdout.fileno())
    os.dup2(f.fileno(), sys.stderr.fileno())


def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {msg}", flush=True)


def render(n, size=12, seed=0):
    rng = np.random.default_rng(seed)
    imgs = np.zeros((n, 1, size, size), np.float32)
    labels = rng.integers(0, 4, n)
    yy, xx = np.mgrid[:size, :size]
    for i, c in enumerate(labels):
        r, q = rng.integers(2, size - 2, 2)
        if c == 0:
            imgs[i, 0, r, 1:-1] = 1.0
        elif c == 1:
            imgs[i, 0, 1:-1, q] = 1.0
        elif c == 2:
            imgs[i, 0] = (np.abs(yy - xx - (r - q)) < 1).astype(np.float32)
        else:
            d = np.sqrt((yy - r) ** 2 + (xx - q) ** 2)
            imgs[i, 0] = (np.abs(d - 2.5) < 0.7).astype(np.float32)
    imgs += rng.normal(0, 0.35, imgs.shape).astype(np.float32)
    return imgs, labels.astype(np.int64)


class SmallCNN(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 3 * 3, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


def main():
    rank = int(os.environ["RANK"])
    world_size = int(os.environ["WORLD_SIZE"])
    setup_logging(rank)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world_size,
                            timeout=datetime.timedelta(seconds=15))
    torch.manual_seed(17)

    X_train, y_train = render(4096, seed=1)
    X_val, y_val = render(512, seed=2)

    per_rank = len(X_train) // world_size
    X_train = X_train[rank::world_size]
    y_train = y_train[rank * per_rank:(rank + 1) * per_rank]
    log(f"rank {rank}: {len(X_train)} train images, {len(X_val)} val images, classes={CLASSES}")

    train_dl = DataLoader(TensorDataset(torch.from_numpy(X_train), torch.from_numpy(y_train)),
                          batch_size=BATCH, shuffle=True)
    val_dl = DataLoader(TensorDataset(torch.from_numpy(X_val), torch.from_numpy(y_val)), batch_size=256)

    model = DDP(SmallCNN(len(CLASSES)))
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9, nesterov=True)
    log(f"rank {rank}: model params {sum(p.numel() for p in model.parameters())}, lr={LR}, batch={BATCH}")

    for epoch in range(EPOCHS):
        model.train()
        seen, loss_sum, correct = 0, 0.0, 0
        for xb, yb in train_dl:
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            seen += len(yb)
            loss_sum += loss.item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
        model.eval()
        with torch.no_grad():
            vout = torch.cat([model(xb) for xb, _ in val_dl])
            vloss = F.cross_entropy(vout, torch.from_numpy(y_val)).item()
            vacc = (vout.argmax(1).numpy() == y_val).mean()
        log(f"rank {rank} epoch {epoch + 1}/{EPOCHS} loss={loss_sum / seen:.4f} acc={correct / seen:.4f} "
            f"val_loss={vloss:.4f} val_acc={vacc:.4f}")

    if rank == 0:
        torch.save(model.module.state_dict(), "cnn.pt")
        log("wrote cnn.pt")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
''',
    'launch.sh': r'''#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
torchrun --standalone --nproc-per-node 2 train.py 2>&1 | tee logs/torchrun.log
''',
}

SOURCES['run04'] = {
    'train.py': r'''import argparse
import datetime
import json
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def gaussian_mixture(n, d=20, k=8, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(0, 1.2, (k, d))
    y = rng.integers(0, k, n)
    X = centers[y] + rng.normal(0, 1, (n, d))
    return X.astype(np.float32), y.astype(np.int64)


def mlp(d, k, width=256, depth=3):
    layers, prev = [], d
    for _ in range(depth):
        layers += [nn.Linear(prev, width), nn.ReLU()]
        prev = width
    layers.append(nn.Linear(prev, k))
    return nn.Sequential(*layers)


def run(rank, world_size, cfg):
    log_f = open(os.path.join(cfg["log_dir"], f"rank{rank}.log"), "w", buffering=1)

    def log(msg):
        log_f.write(f"{time.strftime('%H:%M:%S')} [rank{rank}] {msg}\n")

    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(cfg["port"])
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world_size, timeout=datetime.timedelta(seconds=15))
    torch.manual_seed(cfg["seed"])
    if rank == 0:
        log("config " + json.dumps(cfg))

    X, y = gaussian_mixture(4000, seed=0)
    tr = TensorDataset(torch.from_numpy(X[:3200]), torch.from_numpy(y[:3200]))
    Xv, yv = torch.from_numpy(X[3200:]), torch.from_numpy(y[3200:])
    sampler = DistributedSampler(tr, num_replicas=world_size, rank=rank, shuffle=True, seed=cfg["seed"])
    dl = DataLoader(tr, batch_size=cfg["batch_size"], sampler=sampler)

    model = DDP(mlp(20, 8))
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"], weight_decay=cfg["wd"])
    step = 0
    for epoch in range(cfg["epochs"]):
        sampler.set_epoch(epoch)
        model.train()
        for xb, yb in dl:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
            opt.step()
            step += 1
            if step % 2 == 0:
                log(f"step={step} epoch={epoch} loss={loss.item():.4f} grad_norm={gn.item():.3f} lr={opt.param_groups[0]['lr']:.3f}")
        model.eval()
        with torch.no_grad():
            out = model(Xv)
            vl = F.cross_entropy(out, yv).item()
            va = (out.argmax(1) == yv).float().mean().item()
        log(f"EVAL epoch={epoch} val_loss={vl:.4f} val_acc={va:.4f}")
    dist.destroy_process_group()
    log_f.close()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="config.json")
    p.add_argument("--nprocs", type=int, default=2)
    a = p.parse_args()
    with open(a.config) as fh:
        cfg = json.load(fh)
    os.makedirs(cfg["log_dir"], exist_ok=True)
    print(f"[launcher] starting {a.nprocs} processes with {a.config}", flush=True)
    mp.spawn(run, args=(a.nprocs, cfg), nprocs=a.nprocs)
    print("[launcher] done", flush=True)
''',
    'launch.sh': r'''#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
cat > config.json <<'JSON'
{"epochs": 5, "batch_size": 64, "lr": 0.45, "momentum": 0.9, "wd": 0.0, "seed": 1, "port": 29544, "log_dir": "logs"}
JSON
python train.py --config config.json --nprocs 2 2>&1 | tee logs/launcher.log
''',
}

SOURCES['run05'] = {
    'train.py': r'''import argparse
import datetime
import os

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def now():
    return datetime.datetime.now().strftime("%H:%M:%S")


def synth_sequences(n, seq_len=40, n_feat=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    drift = np.array([-0.15, 0.0, 0.15])[y]
    steps = rng.normal(0.0, 1.0, size=(n, seq_len, n_feat))
    steps[:, :, 0] += drift[:, None]
    x = np.cumsum(steps, axis=1) / np.sqrt(seq_len)
    return x.astype(np.float32), y.astype(np.int64)


class GRUClassifier(nn.Module):
    def __init__(self, n_feat, hidden, n_classes):
        super().__init__()
        self.gru = nn.GRU(n_feat, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, n_classes)

    def forward(self, x):
        _, h = self.gru(x)
        return self.fc(h[-1])


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct, total, loss = 0, 0, 0.0
    for xb, yb in loader:
        out = model(xb)
        loss += nn.functional.cross_entropy(out, yb, reduction="sum").item()
        correct += (out.argmax(-1) == yb).sum().item()
        total += len(yb)
    model.train()
    return loss / total, correct / total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--ckpt", default="checkpoints/best.pt")
    args = ap.parse_args()

    torch.set_num_threads(1)
    dist.init_process_group(backend="gloo", timeout=datetime.timedelta(seconds=15))
    rank = dist.get_rank()
    world_size = dist.get_world_size()
    torch.manual_seed(0)

    x, y = synth_sequences(1600, seed=3)
    train = TensorDataset(torch.from_numpy(x[:1280]), torch.from_numpy(y[:1280]))
    val = TensorDataset(torch.from_numpy(x[1280:]), torch.from_numpy(y[1280:]))
    sampler = DistributedSampler(train, shuffle=True)
    loader = DataLoader(train, batch_size=args.bs, sampler=sampler, drop_last=True)
    val_loader = DataLoader(val, batch_size=128)

    model = DDP(GRUClassifier(4, 48, 3))
    optim = torch.optim.Adam(model.parameters(), lr=args.lr)
    print(f"[{now()}] rank {rank}/{world_size}: {len(loader)} steps/epoch", flush=True)

    best = 0.0
    step = 0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        running = 0.0
        for i, (xb, yb) in enumerate(loader):
            loss = nn.functional.cross_entropy(model(xb), yb)
            optim.zero_grad()
            loss.backward()
            optim.step()
            running += loss.item()
            step += 1
            if step % 10 == 0:
                print(f"[{now()}] rank {rank} epoch {epoch} step {step} loss {running / (i + 1):.4f}", flush=True)

        if rank == 0:
            val_loss, val_acc = evaluate(model.module, val_loader)
            print(f"[{now()}] epoch {epoch} val_loss {val_loss:.4f} val_acc {val_acc:.4f}", flush=True)
            if val_acc > best:
                best = val_acc
                os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
                torch.save({"epoch": epoch, "model": model.module.state_dict(),
                            "optim": optim.state_dict()}, args.ckpt)
                print(f"[{now()}] saved {args.ckpt} (val_acc {val_acc:.4f})", flush=True)
                dist.barrier()

    print(f"[{now()}] rank {rank} done, best val_acc {best:.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
''',
    'launch.sh': r'''#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
torchrun --standalone --nnodes 1 --nproc_per_node 2 --tee 3 train.py --epochs 10 --bs 32 --lr 3e-3 2>&1 | tee logs/train.log
''',
}

SOURCES['run06'] = {
    'train.py': r'''import argparse
import datetime
import logging
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def get_logger(rank):
    os.makedirs("logs", exist_ok=True)
    fh = open(f"logs/rank{rank}.log", "a", buffering=1)
    os.dup2(fh.fileno(), 1)
    os.dup2(fh.fileno(), 2)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format=f"%(asctime)s | rank{rank} | %(levelname)s | %(message)s")
    logging.captureWarnings(True)
    return logging.getLogger("train")


def shapes_dataset(n, size=16, noise=0.8, seed=0):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, 1, size, size), np.float32)
    y = rng.integers(0, 4, n)
    yy, xx = np.mgrid[:size, :size]
    for i, c in enumerate(y):
        r, q = rng.integers(3, size - 3, 2)
        if c == 0:
            X[i, 0, r - 1:r + 1, 2:-2] = 1
        elif c == 1:
            X[i, 0, 2:-2, q - 1:q + 1] = 1
        elif c == 2:
            X[i, 0, r - 3:r + 3, q - 3:q + 3] = 1
            X[i, 0, r - 2:r + 2, q - 2:q + 2] = 0
        else:
            X[i, 0] = ((yy - r) ** 2 + (xx - q) ** 2 <= 6).astype(np.float32)
    X += rng.normal(0, noise, X.shape).astype(np.float32)
    return X, y.astype(np.int64)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.3), nn.Linear(16 * 4 * 4, 4))

    def forward(self, x):
        return self.classifier(self.features(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=0.004)
    ap.add_argument("--amp", action="store_true")
    args = ap.parse_args()

    rank = int(os.environ["RANK"])
    log = get_logger(rank)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
    world = dist.get_world_size()
    torch.manual_seed(2024)

    Xtr, ytr = shapes_dataset(1600, seed=10)
    Xva, yva = shapes_dataset(400, seed=11)
    train_ds = TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr))
    sampler = DistributedSampler(train_ds, shuffle=True, seed=2024)
    train_dl = DataLoader(train_ds, batch_size=args.batch_size, sampler=sampler)
    Xva_t, yva_t = torch.from_numpy(Xva), torch.from_numpy(yva)

    model = DDP(Net(), find_unused_parameters=True)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)
    log.info(f"args={vars(args)} world_size={world} train={len(train_ds)} val={len(Xva)} steps/epoch={len(train_dl)}")

    for epoch in range(1, args.epochs + 1):
        sampler.set_epoch(epoch)
        model.train()
        tl, tc, tn = 0.0, 0, 0
        for xb, yb in train_dl:
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            tl += loss.item() * len(yb)
            tc += (out.argmax(1) == yb).sum().item()
            tn += len(yb)
        stats = torch.tensor([tl, tc, tn], dtype=torch.float64)
        dist.all_reduce(stats)
        model.eval()
        with torch.no_grad():
            vo = model(Xva_t)
            vl = F.cross_entropy(vo, yva_t).item()
            va = (vo.argmax(1) == yva_t).float().mean().item()
        if rank == 0:
            log.info(f"epoch {epoch:02d} train_loss={stats[0] / stats[2]:.4f} train_acc={stats[1] / stats[2]:.4f} "
                     f"val_loss={vl:.4f} val_acc={va:.4f}")
        else:
            log.info(f"epoch {epoch:02d} local_train_loss={tl / tn:.4f}")
    if rank == 0:
        torch.save(model.module.state_dict(), "shapes_cnn.pt")
        log.info("saved shapes_cnn.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
''',
    'launch.sh': r'''#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
torchrun --standalone --nproc-per-node 2 train.py --epochs 40 --batch-size 16 --lr 0.004 2>&1 | tee logs/torchrun.log
''',
}

SOURCES['run07'] = {
    'train.py': r'''import argparse
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
''',
    'launch.sh': r'''#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
python train.py --epochs 6 --batch-size 20 --lr 0.05 --gpus 2 --port 29557 2>&1 | tee logs/launcher.log
''',
}

SOURCES['run08'] = {
    'train.py': r'''import datetime
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

WINDOW = 64
STRIDE = 16
CFG = dict(window=WINDOW, stride=STRIDE, hidden=32, layers=1, batch_size=16, lr=1e-3, epochs=6, optimizer="RMSprop")


def make_series(n_series=24, length=560, seed=11):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_series):
        t = np.arange(int(rng.integers(300, length)) if i != 17 else 58)
        freq = rng.uniform(0.02, 0.08)
        s = np.sin(2 * np.pi * freq * t) + 0.3 * rng.normal(size=t.size)
        out.append(s.astype(np.float32))
    return out


class Windows(Dataset):
    def __init__(self, series):
        self.items = []
        for s in series:
            for start in range(0, max(1, len(s) - WINDOW), STRIDE):
                self.items.append(s[start:start + WINDOW + 1])

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        w = torch.from_numpy(self.items[i])
        return w[:-1].unsqueeze(-1), w[1:].unsqueeze(-1)


class Forecaster(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.rnn = nn.LSTM(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        h, _ = self.rnn(x)
        return self.head(h)


def main():
    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
    rank = dist.get_rank()
    torch.manual_seed(5)
    ds = Windows(make_series())
    sampler = DistributedSampler(ds, shuffle=True, seed=4)
    dl = DataLoader(ds, batch_size=CFG["batch_size"], sampler=sampler)
    model = DDP(Forecaster(CFG["hidden"]))
    opt = torch.optim.RMSprop(model.parameters(), lr=CFG["lr"])
    if rank == 0:
        print("config:", CFG, flush=True)
        print(f"windows={len(ds)} steps_per_epoch={len(dl)}", flush=True)
    gstep = 0
    for epoch in range(CFG["epochs"]):
        sampler.set_epoch(epoch)
        for xb, yb in dl:
            pred = model(xb)
            loss = nn.functional.mse_loss(pred, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            gstep += 1
            if gstep % 3 == 0:
                print(f"rank{rank} ep={epoch} step={gstep} mse={loss.item():.5f}", flush=True)
    if rank == 0:
        torch.save(model.module.state_dict(), "forecaster.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
''',
    'launch.sh': r'''#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
torchrun --standalone --nproc_per_node=2 --tee=3 train.py 2>&1 | tee logs/train.log
''',
}

SOURCES['run09'] = {
    'train.py': r'''import argparse
import datetime
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def redirect_to_rank_log(rank):
    os.makedirs("logs", exist_ok=True)
    f = open(os.path.join("logs", f"rank{rank}.log"), "w", buffering=1)
    os.dup2(f.fileno(), 1)
    os.dup2(f.fileno(), 2)


def make_data(n, d=32, k=6, seed=0):
    g = np.random.default_rng(seed)
    W = g.normal(size=(d, k))
    X = g.normal(size=(n, d))
    logits = X @ W + 0.5 * g.normal(size=(n, k))
    return X.astype(np.float32), logits.argmax(1).astype(np.int64)


class Encoder(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, h), nn.GELU(), nn.Linear(h, h), nn.GELU())

    def forward(self, x):
        return self.body(x)


class Classifier(nn.Module):
    def __init__(self, d, h, k):
        super().__init__()
        self.encoder = Encoder(d, h)
        self.head = nn.Linear(h, k)

    def forward(self, x):
        return self.head(self.encoder(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--bs", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--freeze-encoder", action="store_true")
    ap.add_argument("--encoder-ckpt", default="encoder_pretrained.pt")
    args = ap.parse_args()

    rank = int(os.environ.get("RANK", 0))
    redirect_to_rank_log(rank)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
    world = dist.get_world_size()
    torch.manual_seed(99)

    X, y = make_data(4000, seed=21)
    tr = TensorDataset(torch.from_numpy(X[:3200]), torch.from_numpy(y[:3200]))
    Xv, yv = torch.from_numpy(X[3200:]), torch.from_numpy(y[3200:])
    sampler = DistributedSampler(tr, shuffle=True, seed=99)
    dl = DataLoader(tr, batch_size=args.bs, sampler=sampler)

    model = Classifier(32, 128, 6)
    if os.path.exists(args.encoder_ckpt):
        model.encoder.load_state_dict(torch.load(args.encoder_ckpt))
        print(f"loaded encoder weights from {args.encoder_ckpt}", flush=True)
    else:
        print(f"no encoder checkpoint at {args.encoder_ckpt}, using random init", flush=True)

    if args.freeze_encoder:
        for p in model.encoder.parameters():
            p.requires_grad = False

    ddp = DDP(model)
    optimizer = torch.optim.SGD(model.encoder.parameters(), lr=args.lr, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
    n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"rank {rank}/{world} trainable params: {n_train} / {sum(p.numel() for p in model.parameters())}", flush=True)

    step = 0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        ddp.train()
        for xb, yb in dl:
            logits = ddp(xb)
            loss = F.cross_entropy(logits, yb)
            optimizer.zero_grad()
            loss.backward()
            gnorm = nn.utils.clip_grad_norm_(optimizer.param_groups[0]["params"], max_norm=5.0)
            optimizer.step()
            step += 1
            if step % 10 == 0:
                acc = (logits.argmax(1) == yb).float().mean().item()
                print(f"step {step:4d} | epoch {epoch} | loss {loss.item():.4f} | acc {acc:.3f} | "
                      f"grad_norm {gnorm.item():.4f} | lr {sched.get_last_lr()[0]:.2e}", flush=True)
        sched.step()
        ddp.eval()
        with torch.no_grad():
            vl = ddp(Xv)
            print(f"epoch {epoch} val_loss {F.cross_entropy(vl, yv).item():.4f} "
                  f"val_acc {(vl.argmax(1) == yv).float().mean().item():.4f}", flush=True)

    if rank == 0:
        torch.save(model.state_dict(), "probe.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
''',
    'launch.sh': r'''#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
torchrun --standalone --nproc-per-node 2 train.py --epochs 12 --bs 64 --lr 0.05 --freeze-encoder 2>&1 | tee logs/torchrun.log
''',
}

SOURCES['run10'] = {
    'train.py': r'''import argparse
import datetime
import json
import math

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def moons(n, noise=0.15, seed=0):
    rng = np.random.default_rng(seed)
    n1 = n // 2
    t1 = rng.uniform(0, math.pi, n1)
    t2 = rng.uniform(0, math.pi, n - n1)
    a = np.stack([np.cos(t1), np.sin(t1)], 1)
    b = np.stack([1 - np.cos(t2), 0.5 - np.sin(t2)], 1)
    X = np.concatenate([a, b]) + rng.normal(0, noise, (n, 2))
    y = np.concatenate([np.zeros(n1), np.ones(n - n1)])
    extra = rng.normal(0, 1, (n, 6))
    X = np.concatenate([X, extra], 1)
    p = rng.permutation(n)
    return X[p].astype(np.float32), y[p].astype(np.int64)


def build(width):
    return nn.Sequential(
        nn.Linear(8, width), nn.ReLU(),
        nn.Linear(width, width), nn.ReLU(),
        nn.Linear(width, 2),
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--log-every", type=int, default=25)
    args = ap.parse_args()

    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(42)

    X, y = moons(2400, seed=3)
    tr = TensorDataset(torch.from_numpy(X[:2000]), torch.from_numpy(y[:2000]))
    va = TensorDataset(torch.from_numpy(X[2000:]), torch.from_numpy(y[2000:]))
    sampler = DistributedSampler(tr, shuffle=True, seed=42)
    dl = DataLoader(tr, batch_size=args.batch_size, sampler=sampler, drop_last=True)
    vdl = DataLoader(va, batch_size=400)

    model = DDP(build(args.width))
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    if rank == 0:
        print("args " + json.dumps(vars(args)), flush=True)
        print(f"world_size {world}  global_batch {args.batch_size * world}  steps/epoch {len(dl)}", flush=True)

    it = 0
    for ep in range(args.epochs):
        sampler.set_epoch(ep)
        model.train()
        window = []
        for xb, yb in dl:
            out = model(xb)
            loss = nn.functional.cross_entropy(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            it += 1
            window.append(loss.item())
            if it % args.log_every == 0 and rank == 0:
                print(f"ep {ep} it {it:5d} loss {loss.item():.4f} avg{args.log_every} {np.mean(window):.4f} "
                      f"min {np.min(window):.4f} max {np.max(window):.4f}", flush=True)
                window = []
        model.eval()
        with torch.no_grad():
            correct, vloss = 0, 0.0
            for xb, yb in vdl:
                o = model(xb)
                vloss += nn.functional.cross_entropy(o, yb, reduction="sum").item()
                correct += (o.argmax(1) == yb).sum().item()
        if rank == 0:
            print(f"== epoch {ep} done: val_loss {vloss / len(va):.4f} val_acc {correct / len(va):.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
''',
    'launch.sh': r'''#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
torchrun --standalone --nproc_per_node 2 --tee 3 train.py --batch-size 2 --lr 0.05 --momentum 0.9 --epochs 5 --log-every 25 2>&1 | tee logs/train.log
''',
}

SOURCES['run11'] = {
    'train.py': r'''import argparse
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
''',
    'launch.sh': r'''#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
python train.py --epochs 25 --bs 50 --lr 0.005 --world-size 2 --port 29566 2>&1 | tee logs/launcher.log
''',
}

SOURCES['run12'] = {
    'train.py': r'''import argparse
import datetime
import logging
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

SPECIES = ["alder", "birch", "cedar", "fir", "larch", "maple"]


def load_table(n=3000, seed=8):
    rng = np.random.default_rng(seed)
    codes = rng.integers(1, len(SPECIES) + 1, n)
    codes[1337] = len(SPECIES) + 1
    feats = rng.normal(size=(n, 12))
    feats[:, :6] += np.eye(len(SPECIES) + 1)[codes - 1][:, :6] * 2.0
    return feats.astype(np.float32), codes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch-size", type=int, default=50)
    ap.add_argument("--lr", type=float, default=1e-3)
    args = ap.parse_args()

    rank = int(os.environ["RANK"])
    os.makedirs("logs", exist_ok=True)
    f = open(f"logs/rank{rank}.log", "w", buffering=1)
    os.dup2(f.fileno(), 1)
    os.dup2(f.fileno(), 2)
    logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                        format="[%(asctime)s][%(name)s][%(levelname)s] - %(message)s")
    log = logging.getLogger(f"trainer.rank{rank}")

    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
    torch.manual_seed(3)

    feats, codes = load_table()
    labels = codes - 1
    num_classes = len(SPECIES)
    ds = TensorDataset(torch.from_numpy(feats), torch.from_numpy(labels))
    sampler = DistributedSampler(ds, shuffle=True, seed=11)
    dl = DataLoader(ds, batch_size=args.batch_size, sampler=sampler)
    log.info(f"rows={len(ds)} num_classes={num_classes} features={feats.shape[1]} batches/epoch={len(dl)}")

    net = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, num_classes))
    model = DDP(net)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    crit = nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        tot, n = 0.0, 0
        for i, (xb, yb) in enumerate(dl):
            out = model(xb)
            loss = crit(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
            n += 1
            if (i + 1) % 5 == 0:
                log.info(f"epoch={epoch} batch={i + 1}/{len(dl)} loss={loss.item():.4f} mean_loss={tot / n:.4f}")
        log.info(f"epoch={epoch} finished mean_loss={tot / n:.4f}")
    if rank == 0:
        torch.save(net.state_dict(), "species_mlp.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
''',
    'launch.sh': r'''#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
torchrun --standalone --nproc-per-node 2 train.py --epochs 8 --batch-size 50 --lr 1e-3 2>&1 | tee logs/torchrun.log
''',
}

RUNS = [{'name': 'run01',
  'keep_code': False,
  'collect': ['logs'],
  'truth': 'nan_in_data',
  'symptom': 'After ~20 steps the train RMSE turns into nan on both workers and val_rmse is nan for every '
             'epoch after that.',
  'how': 'Housing-style regression MLP (Adam, mp.spawn, 2 gloo ranks, contiguous shards). Two rows have '
         'households=rooms=population=0, so the rooms/households and pop/households features are 0/0 = NaN; '
         "both rows fall in rank 1's shard (rows 1800-3599). Rank 1's loss goes NaN at the batch holding the "
         'row (step 22), DDP averages the NaN gradient into rank 0, whose loss is NaN from step 23 on.'},
 {'name': 'run02',
  'keep_code': True,
  'collect': ['logs'],
  'truth': 'healthy',
  'symptom': 'Is this run ok? Just want a sanity check before I scale it up.',
  'how': 'Clean DDP run: 3-layer MLP on a 5-class Gaussian-blob problem, AdamW + cosine LR, '
         'DistributedSampler with set_epoch, torchrun --tee 3.'},
 {'name': 'run03',
  'keep_code': True,
  'collect': ['logs'],
  'truth': 'label_misalignment',
  'symptom': "Since I switched to 2-process DDP the CNN doesn't learn: loss stays around 1.38 and val "
             'accuracy is ~25% the whole run.',
  'how': 'Manual sharding takes images with a stride (X[rank::world]) but labels as a contiguous block '
         '(y[rank*n:(rank+1)*n]), so each rank trains on images paired with unrelated labels. The same '
         'script with y[rank::world] reaches 100% val accuracy.'},
 {'name': 'run04',
  'keep_code': False,
  'collect': ['logs', 'config.json'],
  'truth': 'lr_too_high',
  'symptom': 'Loss dropped nicely for a few steps, then climbed to huge numbers and became nan before the '
             'first epoch ended.',
  'how': '4-layer ReLU MLP, SGD momentum 0.9 with lr 0.45 (0.2 trains fine on the same setup). Loss falls '
         '2.0 -> 0.49 by step 6, then rises (0.5, 0.97, 1.9, 283, 1504, 2e9) with grad_norm 4 -> 15 -> 180 '
         '-> 3e7, NaN from step 22.'},
 {'name': 'run05',
  'keep_code': True,
  'collect': ['logs'],
  'truth': 'distributed_hang',
  'symptom': 'The job prints the first epoch fine, then sits there doing nothing and finally dies with a '
             'timeout on both ranks.',
  'how': 'dist.barrier() is called inside the rank-0-only validation/checkpoint block. Rank 0 waits in the '
         "barrier while rank 1 is already in epoch 1's DDP gradient all-reduce; neither collective is "
         "matched, and gloo's 15 s timeout fires (rank 1 'Timed out waiting 15000ms for recv', rank 0 then "
         "'Connection closed by peer')."},
 {'name': 'run06',
  'keep_code': False,
  'collect': ['logs'],
  'truth': 'healthy',
  'symptom': 'There are a bunch of warnings in the logs (GradScaler deprecated, find_unused_parameters) and '
             'the first epochs barely move - is this run ok?',
  'how': 'Healthy but slow/noisy: small CNN on noisy synthetic shapes, SGD lr 0.004 + momentum, batch '
         '16/rank, dropout. Harmless warnings: torch.cuda.amp.GradScaler FutureWarning (scaler disabled on '
         'CPU) and DDP find_unused_parameters=True with no unused parameters. Loss sits near ln4 for ~4 '
         'epochs, then val_acc climbs to ~0.89 with epoch-to-epoch wiggle.'},
 {'name': 'run07',
  'keep_code': True,
  'collect': ['logs'],
  'truth': 'data_not_shuffled',
  'symptom': 'Training loss jumps up and down in a regular pattern every few iterations and validation '
             'accuracy is stuck at exactly 20%.',
  'how': 'Training set stored sorted by class; DistributedSampler(shuffle=False) and no set_epoch, so every '
         'rank walks class 0, 1, ..., 4 in blocks of 10 batches each epoch. Loss spikes (4-17) at each class '
         'boundary and falls to ~0 within the block; the model always predicts the last class seen (val_acc '
         '0.2). With shuffle=True + set_epoch the same script gets val_acc 1.0.'},
 {'name': 'run08',
  'keep_code': False,
  'collect': ['logs'],
  'truth': 'shape_mismatch',
  'symptom': 'The forecasting job crashes early in the first epoch; one worker errors inside the DataLoader '
             'and the other says connection closed by peer.',
  'how': 'Window builder uses range(0, max(1, len(s) - WINDOW), STRIDE) so one short series (58 points) '
         "still yields one window of 58 instead of 65 samples. It lands in rank 1's shard; default_collate "
         "fails with 'stack expects each tensor to be equal size, but got [64, 1] at entry 0 and [57, 1] at "
         "entry 1'; rank 0 then fails in the DDP all-reduce and torchrun reports rank 1 as root cause."},
 {'name': 'run09',
  'keep_code': True,
  'collect': ['logs'],
  'truth': 'frozen_parameters',
  'symptom': "Loss doesn't move from ~1.79 and the val numbers are identical every epoch.",
  'how': 'Linear-probe setup: encoder frozen with requires_grad=False, but the optimizer is built on '
         'model.encoder.parameters() instead of the head, so nothing is ever updated. grad_norm '
         "(clip_grad_norm_ over the optimizer's params) is exactly 0.0000; val_loss 1.7969 / val_acc 0.19 "
         'every epoch. Building the optimizer on the head reaches val_acc ~0.53.'},
 {'name': 'run10',
  'keep_code': False,
  'collect': ['logs'],
  'truth': 'batch_size_too_small',
  'symptom': 'Loss is all over the place from one log line to the next and val accuracy goes up and down '
             'between epochs.',
  'how': 'Per-rank batch size 2 (global 4) with SGD lr 0.05 momentum 0.9 on an MLP (moons + 6 noise '
         'features), 2500 steps. Per-step loss ranges 0.0000-5.4 within each 25-step window, window means '
         "don't settle, val_acc 0.84, 0.905, 0.935, 0.905, 0.9475."},
 {'name': 'run11',
  'keep_code': True,
  'collect': ['logs'],
  'truth': 'missing_zero_grad',
  'symptom': 'Loss went down in the first epoch and then got worse and jumpy; the grad norm I log keeps '
             'growing.',
  'how': 'optimizer.zero_grad() is called once before the epoch loop instead of every step, so .grad '
         'accumulates across all steps (Adam lr 5e-3, moons MLP). grad_norm climbs from ~2 to 60-100, loss '
         'falls to 0.5 then oscillates 0.3-2.8, val_acc swings 0.5-0.9. With zero_grad per step the same '
         'script reaches val_acc ~0.97 with grad_norm ~0.2.'},
 {'name': 'run12',
  'keep_code': False,
  'collect': ['logs'],
  'truth': 'label_out_of_range',
  'symptom': 'Training crashed partway through the first epoch; torchrun just says train.py FAILED.',
  'how': 'Species codes are 1..6 and labels = codes - 1, but one row carries code 7 -> label 6 with '
         "num_classes = 6. The row lands on rank 0, which raises 'IndexError: Target 6 is out of bounds.' in "
         "CrossEntropyLoss at batch ~19; rank 1 then fails with 'Connection closed by peer' in backward."}]


def run_one(meta, outdir, work, venv_bin):
    name = meta["name"]
    wd = os.path.join(work, name)
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    for fn, text in SOURCES[name].items():
        with open(os.path.join(wd, fn), "w") as f:
            f.write(text)
    env = dict(os.environ)
    env["PATH"] = venv_bin + os.pathsep + env.get("PATH", "")
    env.pop("OMP_NUM_THREADS", None)
    env["PYTHONHASHSEED"] = "0"
    t0 = time.time()
    try:
        rc = subprocess.run(["bash", "launch.sh"], cwd=wd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, timeout=120).returncode
    except subprocess.TimeoutExpired:
        rc = "timeout"
    dt = time.time() - t0
    dst = os.path.join(outdir, "runs", name)
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    for item in meta["collect"]:
        src = os.path.join(wd, item)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dst, item))
        elif os.path.exists(src):
            shutil.copy(src, os.path.join(dst, item))
    if meta["keep_code"]:
        for fn in ("train.py", "launch.sh"):
            shutil.copy(os.path.join(wd, fn), os.path.join(dst, fn))
    print(f"{name}: launch.sh rc={rc} in {dt:.1f}s -> {sorted(os.listdir(os.path.join(dst, 'logs')))}", flush=True)
    return rc


def _read(outdir, name, fn):
    with open(os.path.join(outdir, "runs", name, "logs", fn)) as f:
        return f.read()


def _floats(pattern, text):
    return [float(v) for v in re.findall(pattern, text)]


def check(outdir):
    """Assert that each planted fault really shows in the numbers / text the run wrote."""
    ok = True

    def expect(name, cond, what):
        nonlocal ok
        print(f"  [{'ok' if cond else 'FAIL'}] {name}: {what}")
        ok &= bool(cond)

    r0, r1 = _read(outdir, "run01", "rank0.log"), _read(outdir, "run01", "rank1.log")
    s0 = int(re.search(r"non-finite loss nan at epoch 0 step (\d+)", r0).group(1))
    s1 = int(re.search(r"non-finite loss nan at epoch 0 step (\d+)", r1).group(1))
    fin = _floats(r"step \d+ train_rmse ([0-9.]+)\n", r1)
    expect("run01", s1 < s0 and len(fin) >= 3 and "val_rmse nan" in r0,
           f"rank1 first NaN at step {s1}, rank0 at {s0}; finite rmse before: {fin[:4]}")

    t = _read(outdir, "run02", "train.log")
    va = _floats(r"val_acc ([0-9.]+)", t)
    tl = _floats(r"train_loss ([0-9.]+)", t)
    expect("run02", va[-1] > 0.95 and tl[-1] < 0.1 and "FAILED" not in t, f"val_acc {va[0]} -> {va[-1]}, train_loss {tl[0]} -> {tl[-1]}")

    r = _read(outdir, "run03", "rank0.log")
    loss = _floats(r"loss=([0-9.]+) acc", r)
    va = _floats(r"val_acc=([0-9.]+)", r)
    expect("run03", min(loss) > 1.3 and max(va) < 0.33, f"train loss {min(loss):.3f}-{max(loss):.3f} (ln4=1.386), val_acc max {max(va)}")

    r = _read(outdir, "run04", "rank0.log")
    loss = [float(v) for v in re.findall(r"loss=([0-9.]+|nan) grad", r)]
    first_nan = next(i for i, v in enumerate(loss) if v != v)
    low = min(range(first_nan), key=lambda i: loss[i])
    expect("run04", low < first_nan - 3 and loss[first_nan - 1] > 100 * loss[low],
           f"loss min {loss[low]:.3f} at log {low}, then {loss[low + 1:first_nan]} before NaN at log {first_nan}")

    t = _read(outdir, "run05", "train.log")
    expect("run05", "Timed out waiting 15000ms" in t and "dist.barrier()" in t and "FAILED" in t,
           "gloo 15 s timeout; rank 0 stuck in dist.barrier(), rank 1 in backward all-reduce")

    r = _read(outdir, "run06", "rank0.log")
    va = _floats(r"val_acc=([0-9.]+)", r)
    expect("run06", va[-1] > 0.8 and "FutureWarning" in r and "find_unused_parameters=True" in r,
           f"val_acc {va[0]} -> {va[-1]} with harmless warnings")

    r = _read(outdir, "run07", "rank0.log")
    va = _floats(r"val_acc ([0-9.]+)", r)
    loss = _floats(r"loss ([0-9.]+) batch_acc", r)
    spikes = [i for i in range(1, len(loss)) if loss[i] > 2.0 and loss[i - 1] < 0.5]
    expect("run07", max(va) <= 0.21 and len(spikes) >= 8, f"val_acc {va}; {len(spikes)} jumps from <0.5 to >2 at class boundaries")

    t = _read(outdir, "run08", "train.log")
    expect("run08", "stack expects each tensor to be equal size" in t and "[default1]:[rank1]: RuntimeError: stack" in t,
           "rank 1 collate error, rank 0 connection closed")

    r = _read(outdir, "run09", "rank0.log")
    g = _floats(r"grad_norm ([0-9.]+)", r)
    vl = set(re.findall(r"val_loss ([0-9.]+)", r))
    expect("run09", max(g) == 0.0 and len(vl) == 1, f"grad_norm all {max(g)}, val_loss values {vl}")

    t = _read(outdir, "run10", "train.log")
    mx = _floats(r"max ([0-9.]+)", t)
    va = _floats(r"val_acc ([0-9.]+)", t)
    expect("run10", sum(m > 1.5 for m in mx) > len(mx) // 3 and max(va) - min(va) > 0.05,
           f"{sum(m > 1.5 for m in mx)}/{len(mx)} windows with a loss spike > 1.5; val_acc {va}")

    m = _read(outdir, "run11", "metrics.csv").strip().splitlines()[1:]
    g = [float(l.split(",")[3]) for l in m]
    vl = [float(l.split(",")[4]) for l in m]
    expect("run11", g[-1] > 8 * g[0] and max(vl[5:]) > 3 * min(vl), f"grad_norm {g[0]:.1f} -> {g[-1]:.1f}, val_loss {min(vl):.2f} .. {max(vl[5:]):.2f}")

    r = _read(outdir, "run12", "rank0.log")
    expect("run12", "IndexError: Target 6 is out of bounds." in r and "Connection closed by peer" in _read(outdir, "run12", "rank1.log"),
           "rank 0 IndexError in the loss, rank 1 connection closed")
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--outdir", default="/tmp/p63c")
    ap.add_argument("--work", default="/tmp/p63c_work/projects")
    ap.add_argument("--venv-bin", default="/work/main/.venv/bin")
    ap.add_argument("--only", default="")
    ap.add_argument("--check-only", action="store_true")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    if not args.check_only:
        os.makedirs(os.path.join(args.outdir, "runs"), exist_ok=True)
        for meta in RUNS:
            if not only or meta["name"] in only:
                run_one(meta, args.outdir, args.work, args.venv_bin)
        truth = {m["name"]: {"truth": m["truth"], "symptom": m["symptom"], "how": m["how"]} for m in RUNS}
        with open(os.path.join(args.outdir, "truth.json"), "w") as f:
            json.dump(truth, f, indent=2)
    if not only:
        sys.exit(0 if check(args.outdir) else 1)


if __name__ == "__main__":
    main()
