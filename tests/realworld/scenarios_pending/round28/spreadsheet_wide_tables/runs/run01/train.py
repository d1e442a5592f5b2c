"""train.py -- tabular classifier, v2 loop (gradient accumulation support)."""
import argparse
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from data import load_split   # returns float32 features, int64 labels


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--wd", type=float, default=0.0005)
    p.add_argument("--bs", type=int, default=64)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--milestones", type=int, nargs="+", default=[15, 25])
    p.add_argument("--accum-steps", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--run-name", default="mlp-v2")
    return p.parse_args()


def make_model(d_in, n_cls, hidden):
    return nn.Sequential(
        nn.Linear(d_in, hidden), nn.ReLU(),
        nn.Linear(hidden, hidden), nn.ReLU(),
        nn.Linear(hidden, n_cls),
    )


@torch.no_grad()
def run_eval(model, loader, criterion):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    for xb, yb in loader:
        out = model(xb)
        tot += criterion(out, yb).item() * len(yb)
        correct += (out.argmax(1) == yb).sum().item()
        n += len(yb)
    model.train()
    return tot / n, correct / n


def main():
    args = get_args()
    torch.manual_seed(args.seed)
    Xtr, ytr = load_split("train")
    Xva, yva = load_split("val")
    train_loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.bs, shuffle=True)
    val_loader = DataLoader(TensorDataset(Xva, yva), batch_size=512)

    model = make_model(Xtr.shape[1], int(ytr.max()) + 1, args.hidden)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                                weight_decay=args.wd)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=args.milestones, gamma=0.1)

    for epoch in range(1, args.epochs + 1):
        model.train()
        t0 = time.time()
        running, correct, seen = 0.0, 0, 0
        optimizer.zero_grad()
        for step, (xb, yb) in enumerate(train_loader):
            out = model(xb)
            loss = criterion(out, yb) / args.accum_steps
            loss.backward()
            if (step + 1) % args.accum_steps == 0:
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
            running += loss.item() * args.accum_steps * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            seen += len(yb)
        val_loss, val_acc = run_eval(model, val_loader, criterion)
        print(f"{args.run_name} ep {epoch:02d} train_loss {running / seen:.4f} "
              f"train_acc {correct / seen:.4f} val_loss {val_loss:.4f} val_acc {val_acc:.4f} "
              f"lr {optimizer.param_groups[0]['lr']:.2e} ({time.time() - t0:.1f}s)")
    torch.save(model.state_dict(), f"checkpoints/{args.run_name}.pt")


if __name__ == "__main__":
    main()
