import datetime
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
