import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--learning_rate", type=float, default=1e-3)
    p.add_argument("--per_device_train_batch_size", type=int, default=64)
    p.add_argument("--num_train_epochs", type=int, default=15)
    p.add_argument("--warmup_ratio", type=float, default=0.1)
    p.add_argument("--weight_decay", type=float, default=0.0)
    p.add_argument("--max_grad_norm", type=float, default=1.0)
    p.add_argument("--logging_steps", type=int, default=30)
    p.add_argument("--output_dir", default="./results")
    return p.parse_args()


class Net(nn.Module):
    def __init__(self, d_in=32, width=192, n_cls=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, width), nn.LayerNorm(width), nn.ReLU(),
                                  nn.Linear(width, width), nn.LayerNorm(width), nn.ReLU())
        self.head = nn.Linear(width, n_cls)

    def forward(self, x):
        return self.head(self.body(x))


def build_data():
    r = np.random.default_rng(31)
    n = 6000
    x = r.normal(size=(n, 32)).astype(np.float32)
    s1 = x[:, 0] * x[:, 1] + np.sin(2 * x[:, 2])
    s2 = x[:, 3] ** 2 - 1 + 0.5 * x[:, 4]
    y = (s1 > 0).astype(np.int64) * 2 + (s2 > 0).astype(np.int64)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    return TensorDataset(x[:5000], y[:5000]), TensorDataset(x[5000:], y[5000:])


def main():
    args = parse()
    torch.set_num_threads(1)
    torch.manual_seed(8)
    print(f"Namespace{tuple(sorted(vars(args).items()))}")
    train_set, eval_set = build_data()
    train_loader = DataLoader(train_set, batch_size=args.per_device_train_batch_size, shuffle=True)
    eval_loader = DataLoader(eval_set, batch_size=500)
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
    steps_per_epoch = len(train_loader)
    max_steps = steps_per_epoch * args.num_train_epochs
    warmup_steps = math.ceil(args.warmup_ratio * max_steps)

    def lr_lambda(s):
        if s < warmup_steps:
            return float(s) / float(max(1, warmup_steps))
        progress = (s - warmup_steps) / max(1, max_steps - warmup_steps)
        return 0.5 * (1.0 + math.cos(math.pi * progress))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
    print("***** Running training *****")
    print(f"  Num examples = {len(train_set):,}")
    print(f"  Num Epochs = {args.num_train_epochs:,}")
    print(f"  Instantaneous batch size per device = {args.per_device_train_batch_size:,}")
    print(f"  Gradient Accumulation steps = 1")
    print(f"  Total optimization steps = {max_steps:,}")
    print(f"  Number of trainable parameters = {sum(p.numel() for p in model.parameters()):,}")
    global_step, tr_loss, logged, t0 = 0, 0.0, 0, time.time()
    total_loss = 0.0
    for epoch in range(args.num_train_epochs):
        model.train()
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            global_step += 1
            tr_loss += loss.item(); logged += 1; total_loss += loss.item()
            if global_step % args.logging_steps == 0:
                print({"loss": round(tr_loss / logged, 4), "grad_norm": grad_norm.item(),
                       "learning_rate": scheduler.get_last_lr()[0], "epoch": round(global_step / steps_per_epoch, 2)})
                tr_loss, logged = 0.0, 0
        model.eval()
        start = time.time()
        with torch.no_grad():
            ls, hit, n = 0.0, 0, 0
            for x, y in eval_loader:
                out = model(x)
                ls += F.cross_entropy(out, y, reduction="sum").item()
                hit += (out.argmax(1) == y).sum().item(); n += len(y)
        dur = time.time() - start
        print({"eval_loss": ls / n, "eval_accuracy": hit / n, "eval_runtime": round(dur, 4),
               "eval_samples_per_second": round(n / dur, 3), "eval_steps_per_second": round(len(eval_loader) / dur, 3),
               "epoch": float(epoch + 1)})
        if (epoch + 1) % 5 == 0:
            out_dir = os.path.join(args.output_dir, f"checkpoint-{global_step}")
            print(f"Saving model checkpoint to {out_dir}")
            os.makedirs(out_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, os.path.join(out_dir, "ckpt.pt"))
    runtime = time.time() - t0
    print({"train_runtime": round(runtime, 4), "train_samples_per_second": round(len(train_set) * args.num_train_epochs / runtime, 3),
           "train_steps_per_second": round(max_steps / runtime, 3), "train_loss": total_loss / max_steps,
           "epoch": float(args.num_train_epochs)})


if __name__ == "__main__":
    main()
