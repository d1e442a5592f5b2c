"""case c11 (healthy): a PR adds best-checkpoint saving and a CSV history; the metric wobble is run-to-run noise."""
import datetime as dt
import os

import numpy as np

from common import apply_edits, git_diff, make_task, retime, run_script, save, write_project

TRAIN_BEFORE = '''import argparse
import logging
import os

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(format="%(asctime)s | %(levelname)s | %(message)s", level=logging.INFO)
logger = logging.getLogger(__name__)


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/land_cover.npz")
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--bs", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--wd", type=float, default=1e-4)
    p.add_argument("--log-interval", type=int, default=10)
    return p.parse_args()


def build_model(d_in, n_cls):
    return nn.Sequential(
        nn.Linear(d_in, 192), nn.ReLU(), nn.Dropout(0.2),
        nn.Linear(192, 192), nn.ReLU(), nn.Dropout(0.2),
        nn.Linear(192, n_cls),
    )


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    loss, correct, n = 0.0, 0, 0
    for x, y in loader:
        out = model(x)
        loss += nn.functional.cross_entropy(out, y, reduction="sum").item()
        correct += (out.argmax(1) == y).sum().item()
        n += len(y)
    return loss / n, correct / n


def main():
    args = parse()
    d = np.load(args.data)
    train_dl = DataLoader(TensorDataset(torch.tensor(d["x_train"]), torch.tensor(d["y_train"])),
                          batch_size=args.bs, shuffle=True)
    val_dl = DataLoader(TensorDataset(torch.tensor(d["x_val"]), torch.tensor(d["y_val"])), batch_size=500)
    model = build_model(d["x_train"].shape[1], int(d["y_train"].max()) + 1)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.wd)
    logger.info("model params: %d", sum(p.numel() for p in model.parameters()))

    step = 0
    for epoch in range(1, args.epochs + 1):
        model.train()
        for x, y in train_dl:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % args.log_interval == 0:
                logger.info("epoch %d | step %5d | loss %.4f", epoch, step, loss.item())
        val_loss, val_acc = evaluate(model, val_dl)
        logger.info("epoch %d | val_loss %.4f | val_acc %.4f", epoch, val_loss, val_acc)

    torch.save(model.state_dict(), "final.pt")
    logger.info("done. final val_acc %.4f", val_acc)


if __name__ == "__main__":
    main()
'''

EDITS = [
    ("train.py", '''    p.add_argument("--log-interval", type=int, default=10)
''', '''    p.add_argument("--log-interval", type=int, default=10)
    p.add_argument("--out-dir", default="runs/latest")
'''),
    ("train.py", '''    logger.info("model params: %d", sum(p.numel() for p in model.parameters()))

    step = 0
''', '''    logger.info("model params: %d", sum(p.numel() for p in model.parameters()))
    os.makedirs(args.out_dir, exist_ok=True)
    history = open(os.path.join(args.out_dir, "history.csv"), "w")
    history.write("epoch,val_loss,val_acc\\n")
    best_acc = 0.0

    step = 0
'''),
    ("train.py", '''        logger.info("epoch %d | val_loss %.4f | val_acc %.4f", epoch, val_loss, val_acc)

    torch.save(model.state_dict(), "final.pt")
    logger.info("done. final val_acc %.4f", val_acc)
''', '''        logger.info("epoch %d | val_loss %.4f | val_acc %.4f", epoch, val_loss, val_acc)
        history.write(f"{epoch},{val_loss:.5f},{val_acc:.5f}\\n")
        history.flush()
        if val_acc > best_acc:
            best_acc = val_acc
            torch.save({"epoch": epoch, "model": model.state_dict(), "opt": opt.state_dict()},
                       os.path.join(args.out_dir, "best.pt"))
            logger.info("saved new best checkpoint (val_acc %.4f)", best_acc)

    torch.save(model.state_dict(), os.path.join(args.out_dir, "final.pt"))
    history.close()
    logger.info("done. final val_acc %.4f | best val_acc %.4f", val_acc, best_acc)
'''),
]


def build(out):
    x, y = make_task(1111, 6000, d=28, k=9, sep=1.0, latent=14)
    data = dict(x_train=x[:5000], y_train=y[:5000], x_val=x[5000:], y_val=y[5000:])
    before = {"train.py": TRAIN_BEFORE}
    after = apply_edits(before, EDITS)
    logs = {}
    # the script sets no seed: each invocation is a different random draw
    for tag, files, seed in [("before", before, 90210), ("after", after, 31337)]:
        wd = write_project("c11_" + tag, files)
        os.makedirs(os.path.join(wd, "data"))
        np.savez(os.path.join(wd, "data/land_cover.npz"), **data)
        text, exc = run_script(wd, "train.py", torch_seed=seed)
        assert exc is None, exc
        logs[tag] = text
    diff = git_diff(before, after)
    fin = lambda t: float(t.split("final val_acc ")[1].split()[0])
    fb, fa = fin(logs["before"]), fin(logs["after"])
    pr = f'''**PR #31 · add best-checkpoint saving + per-epoch history.csv** — review thread

> **@tomasz-k** commented:
> Before I approve: I ran `main` and this branch back to back on the same machine. Final val_acc on `main` was
> **{fb:.4f}**, on this branch **{fa:.4f}**. The PR is supposed to only add checkpointing, so why did the
> number move? Did we accidentally change something in the training loop? Both logs attached
> (`logs/main.log`, `logs/pr31.log`), the diff is `pr31.diff`, and `train.py` is the branch version.

> **@lea-m** commented:
> I don't think anything in the loop changed, but I'd rather be sure before merging. Is this difference
> something to worry about?
'''
    save(out, {
        "pr_thread.md": pr,
        "pr31.diff": diff,
        "train.py": after["train.py"],
        "logs/main.log": "$ python train.py\n" + retime(logs["before"], dt.datetime(2024, 8, 21, 15, 4, 12)),
        "logs/pr31.log": "$ python train.py\n" + retime(logs["after"], dt.datetime(2024, 8, 21, 15, 6, 40)),
    })
    return {
        "truth": "healthy",
        "symptom": "A PR that only adds checkpoint saving and a history.csv changed the final val_acc compared to "
                   "main; did we accidentally change something in the training loop?",
        "how": "Nothing was planted: the diff only adds file output, and the script sets no seed, so the two runs are "
               "different random draws; both curves train normally and the final val_acc differs by run-to-run noise "
               "(epoch-to-epoch wobble in each log is as large).",
    }, logs
