import argparse
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
