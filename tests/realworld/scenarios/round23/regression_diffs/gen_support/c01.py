"""case c01: a refactor moved optimizer.zero_grad() out of the batch loop."""
import datetime as dt
import os

import numpy as np

from common import apply_edits, git_diff, make_task, retime, run_script, save, write_project

TRAIN_BEFORE = '''import argparse
import logging
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

log = logging.getLogger("train")


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/sensors.npz")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.02)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--seed", type=int, default=17)
    return p.parse_args()


class MLP(nn.Module):
    def __init__(self, d_in, n_classes, hidden=128):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, n_classes),
        )

    def forward(self, x):
        return self.net(x)


def grad_norm(model):
    total = 0.0
    for p in model.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return total ** 0.5


@torch.no_grad()
def validate(model, loader, criterion):
    model.eval()
    loss_sum, correct, n = 0.0, 0, 0
    for x, y in loader:
        out = model(x)
        loss_sum += criterion(out, y).item() * len(y)
        correct += (out.argmax(1) == y).sum().item()
        n += len(y)
    model.train()
    return loss_sum / n, correct / n


def main():
    args = get_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    torch.manual_seed(args.seed)

    d = np.load(args.data)
    train_ds = TensorDataset(torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"]))
    val_ds = TensorDataset(torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"]))
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=256)
    n_classes = int(d["y_train"].max()) + 1
    log.info("train=%d val=%d classes=%d", len(train_ds), len(val_ds), n_classes)

    model = MLP(d["x_train"].shape[1], n_classes)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    log.info("args: %s", vars(args))

    step = 0
    for epoch in range(args.epochs):
        t0 = time.time()
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            gn = grad_norm(model)
            optimizer.step()
            step += 1
            if step % args.log_every == 0:
                log.info("epoch %d step %d loss %.4f grad_norm %.3f lr %.4g",
                         epoch, step, loss.item(), gn, optimizer.param_groups[0]["lr"])
        val_loss, val_acc = validate(model, val_loader, criterion)
        log.info("epoch %d done in %.1fs | val_loss %.4f val_acc %.4f",
                 epoch, time.time() - t0, val_loss, val_acc)

    torch.save(model.state_dict(), "mlp.pt")
    log.info("saved mlp.pt")


if __name__ == "__main__":
    main()
'''

EDITS = [
    ("train.py", '''    p.add_argument("--batch-size", type=int, default=32)''',
                 '''    p.add_argument("--batch-size", type=int, default=64)'''),
    ("train.py", '''@torch.no_grad()
def validate(''', '''def train_one_epoch(model, loader, optimizer, criterion, epoch, step, log_every):
    model.train()
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        gn = grad_norm(model)
        optimizer.step()
        step += 1
        if step % log_every == 0:
            log.info("epoch %d step %d loss %.4f grad_norm %.3f lr %.4g",
                     epoch, step, loss.item(), gn, optimizer.param_groups[0]["lr"])
    return step


@torch.no_grad()
def validate('''),
    ("train.py", '''    step = 0
    for epoch in range(args.epochs):
        t0 = time.time()
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            gn = grad_norm(model)
            optimizer.step()
            step += 1
            if step % args.log_every == 0:
                log.info("epoch %d step %d loss %.4f grad_norm %.3f lr %.4g",
                         epoch, step, loss.item(), gn, optimizer.param_groups[0]["lr"])
        val_loss''', '''    step = 0
    optimizer.zero_grad(set_to_none=True)
    for epoch in range(args.epochs):
        t0 = time.time()
        step = train_one_epoch(model, train_loader, optimizer, criterion, epoch, step, args.log_every)
        val_loss'''),
]


def build(out):
    x, y = make_task(101, 6000, d=24, k=6, sep=1.6)
    data = dict(x_train=x[:5000], y_train=y[:5000], x_val=x[5000:], y_val=y[5000:])
    before = {"train.py": TRAIN_BEFORE}
    after = apply_edits(before, EDITS)
    logs = {}
    for tag, files, args in [("before", before, []), ("after", after, [])]:
        wd = write_project("c01_" + tag, files)
        os.makedirs(os.path.join(wd, "data"))
        np.savez(os.path.join(wd, "data/sensors.npz"), **data)
        text, exc = run_script(wd, "train.py", [])
        assert exc is None, exc
        logs[tag] = text
    t_before = dt.datetime(2024, 5, 14, 10, 2, 37)
    t_after = dt.datetime(2024, 5, 16, 17, 41, 5)
    diff = ('commit 3f9c2e1b7d0a4c55e2b9a61f0d7c3e8a9b1d4f26\n'
            'Author: Marta Lindqvist <marta.l@proton.me>\n'
            'Date:   Thu May 16 17:32:48 2024 +0200\n\n'
            '    refactor: pull epoch loop into train_one_epoch(), bs 64\n\n'
            + git_diff(before, after))
    before_cmd = "$ python train.py\n"
    after_cmd = "$ python train.py\n"
    issue = f'''**Loss blows up after refactoring the training loop (was fine before)**

Hi all, small project, 6-class classifier on sensor features (5k train rows, SGD + momentum, MLP).
It trained fine for weeks. Yesterday I tidied up `train.py` (commit below) — moved the epoch body into a
`train_one_epoch()` helper and bumped the default batch size from 32 to 64 since the machine has memory to spare.

Since then the loss shoots up almost immediately and val accuracy drops to garbage. I didn't touch the lr
(0.02). My guess is the lr is now too high for the bigger batch? But I thought larger batch usually means you
can *raise* the lr, so I'm confused. Logs of the last good run and the new one are attached (`before/train.log`,
`after/train.log`), plus the current `train.py` and the `git show` of the change (`change.patch`).

Env: torch 2.13.0, python 3.11, CPU only.
'''
    save(out, {
        "issue.md": issue,
        "change.patch": diff,
        "train.py": after["train.py"],
        "before/train.log": before_cmd + retime(logs["before"], t_before, scale=1.0),
        "after/train.log": after_cmd + retime(logs["after"], t_after, scale=1.0),
    })
    return {
        "truth": "missing_zero_grad",
        "symptom": "After refactoring the loop into train_one_epoch() and raising the batch size to 64 the loss "
                   "shoots up almost immediately and val accuracy collapses; I suspect the lr is now too high for the bigger batch.",
        "how": "The refactor calls optimizer.zero_grad() once before the epoch loop instead of every batch, so "
               "gradients accumulate: the logged grad_norm grows steadily step after step and the loss rises/diverges, "
               "while the before run (zero_grad per batch) trains normally.",
    }, logs
