import argparse
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
