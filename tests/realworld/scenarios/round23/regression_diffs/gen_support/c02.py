"""case c02: warm-up added with SequentialLR and scheduler.step() moved into the batch loop."""
import os

import numpy as np

from common import apply_edits, git_diff, make_task, run_script, save, write_project

CONFIG_BEFORE = '''data:
  path: data/features_v3.npz
  batch_size: 64
model:
  hidden: 128
  dropout: 0.1
optim:
  lr: 1.0e-3
  weight_decay: 1.0e-2
sched:
  step_size: 10      # decay every 10 epochs
  gamma: 0.5
epochs: 15
seed: 0
'''

TRAIN_BEFORE = '''import csv
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset


def build_model(d_in, n_out, hidden, dropout):
    return nn.Sequential(
        nn.Linear(d_in, hidden), nn.GELU(), nn.Dropout(dropout),
        nn.Linear(hidden, hidden), nn.GELU(), nn.Dropout(dropout),
        nn.Linear(hidden, n_out),
    )


def evaluate(model, loader):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            tot += nn.functional.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(-1) == y).sum().item()
            n += len(y)
    return tot / n, correct / n


def main(cfg_path="config.yaml"):
    cfg = yaml.safe_load(open(cfg_path))
    torch.manual_seed(cfg["seed"])
    d = np.load(cfg["data"]["path"])
    tr = TensorDataset(torch.tensor(d["X_tr"]), torch.tensor(d["y_tr"]))
    va = TensorDataset(torch.tensor(d["X_va"]), torch.tensor(d["y_va"]))
    train_dl = DataLoader(tr, batch_size=cfg["data"]["batch_size"], shuffle=True, drop_last=True)
    val_dl = DataLoader(va, batch_size=512)

    n_classes = int(d["y_tr"].max()) + 1
    model = build_model(d["X_tr"].shape[1], n_classes, cfg["model"]["hidden"], cfg["model"]["dropout"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                                  weight_decay=cfg["optim"]["weight_decay"])
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg["sched"]["step_size"],
                                                gamma=cfg["sched"]["gamma"])

    writer = csv.writer(open("metrics.csv", "w", newline=""))
    writer.writerow(["epoch", "lr", "train_loss", "val_loss", "val_acc", "time_s"])
    for epoch in range(cfg["epochs"]):
        t0 = time.time()
        model.train()
        running, nb = 0.0, 0
        lr = optimizer.param_groups[0]["lr"]
        for x, y in train_dl:
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            running += loss.item()
            nb += 1
        scheduler.step()
        val_loss, val_acc = evaluate(model, val_dl)
        dt = time.time() - t0
        writer.writerow([epoch, f"{lr:.6g}", f"{running / nb:.5f}", f"{val_loss:.5f}", f"{val_acc:.4f}", f"{dt:.2f}"])
        print(f"[{epoch + 1:02d}/{cfg['epochs']}] lr={lr:.3e} train_loss={running / nb:.4f} "
              f"val_loss={val_loss:.4f} val_acc={val_acc:.4f} ({dt:.1f}s)")
        sys.stdout.flush()
    torch.save(model.state_dict(), "model.pt")


if __name__ == "__main__":
    main(*sys.argv[1:])
'''

EDITS = [
    ("config.yaml", '''sched:
  step_size: 10      # decay every 10 epochs''', '''sched:
  warmup_steps: 30
  step_size: 10      # decay every 10 epochs'''),
    ("train.py", '''    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg["sched"]["step_size"],
                                                gamma=cfg["sched"]["gamma"])
''', '''    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01,
                                               total_iters=cfg["sched"]["warmup_steps"])
    decay = torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg["sched"]["step_size"],
                                            gamma=cfg["sched"]["gamma"])
    scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, schedulers=[warmup, decay],
                                                      milestones=[cfg["sched"]["warmup_steps"]])
'''),
    ("train.py", '''            optimizer.step()
            running += loss.item()
            nb += 1
        scheduler.step()
''', '''            optimizer.step()
            scheduler.step()  # per-step so the warm-up is smooth
            running += loss.item()
            nb += 1
'''),
]


def build(out):
    x, y = make_task(202, 5000, d=32, k=10, sep=1.0, latent=16)
    data = dict(X_tr=x[:4000], y_tr=y[:4000], X_va=x[4000:], y_va=y[4000:])
    before = {"train.py": TRAIN_BEFORE, "config.yaml": CONFIG_BEFORE}
    after = apply_edits(before, EDITS)
    res = {}
    for tag, files in [("before", before), ("after", after)]:
        wd = write_project("c02_" + tag, files)
        os.makedirs(os.path.join(wd, "data"))
        np.savez(os.path.join(wd, "data/features_v3.npz"), **data)
        text, exc = run_script(wd, "train.py")
        assert exc is None, exc
        res[tag] = (text, open(os.path.join(wd, "metrics.csv")).read())
    show = ('commit a41d09e6c2f3b8e7715d0c9e4b2a86f13d5e7c02\n'
            'Author: jonas <jonas@dev-box>\n'
            'Date:   Tue Feb 27 11:08:19 2024 +0100\n\n'
            '    add linear lr warmup (30 steps)\n\n'
            + git_diff(before, after, paths=["config.yaml", "train.py"]))
    last_b = res["before"][1].strip().splitlines()[-1].split(",")
    last_a = res["after"][1].strip().splitlines()[-1].split(",")
    chat = f'''#ml-help  ·  Slack export

jonas  11:52
hey, quick sanity check. I added a short linear warmup to my classifier (commit pasted in commit.txt) because
the first few batches looked spiky. now the run basically stops improving after the 2nd epoch. final val_acc
{last_a[4]} vs {last_b[4]} on the run right before the change. same data, same seed, same config otherwise.

jonas  11:53
both metrics.csv attached (before/ and after/), current train.py + config.yaml too

priya  11:58
did the loss go flat or does it wobble?

jonas  12:01
flat. train_loss barely moves after epoch 2, val too. Is warmup just a bad idea for small MLPs? or should I make
it longer than 30 steps?
'''
    save(out, {
        "chat.txt": chat,
        "commit.txt": show,
        "train.py": after["train.py"],
        "config.yaml": after["config.yaml"],
        "before/metrics.csv": res["before"][1],
        "before/stdout.txt": "$ python train.py\n" + res["before"][0],
        "after/metrics.csv": res["after"][1],
    })
    return {
        "truth": "lr_schedule_bug",
        "symptom": "After adding a 30-step linear warm-up the model stops improving after the second epoch and "
                   "ends well below the previous val accuracy; is warm-up just bad for this model?",
        "how": "The commit wraps StepLR (step_size=10, meant in epochs) in a SequentialLR and moves scheduler.step() "
               "into the batch loop, so after the warm-up the lr is halved every 10 batches; metrics.csv shows the "
               "lr collapsing to ~0 by epoch 2 and the loss freezing there.",
    }, res
