"""case c05: DataLoader kwargs moved into YAML; the shared defaults block carries shuffle: false."""
import os

import numpy as np

from common import apply_edits, git_diff, install_fake_wandb, make_task, run_script, save, wandb_csv, write_project

CONFIG_BEFORE = '''run_name: null
data:
  root: data/shards
  classes: [walking, running, cycling, idle]
batch_size: 32
epochs: 8
optimizer:
  lr: 0.003
  weight_decay: 0.0001
model:
  hidden: [128, 64]
seed: 1234
'''

TRAIN_BEFORE = '''import argparse

import numpy as np
import torch
import torch.nn as nn
import wandb
import yaml
from torch.utils.data import DataLoader, TensorDataset


def load_split(root, split, classes):
    """One .npy shard per class, written by export_shards.py."""
    xs, ys = [], []
    for label, name in enumerate(classes):
        arr = np.load(f"{root}/{split}/{name}.npy")
        xs.append(arr)
        ys.append(np.full(len(arr), label))
    return TensorDataset(torch.from_numpy(np.concatenate(xs)).float(),
                         torch.from_numpy(np.concatenate(ys)).long())


def make_model(d_in, hidden, n_out):
    layers, d = [], d_in
    for h in hidden:
        layers += [nn.Linear(d, h), nn.ReLU()]
        d = h
    layers.append(nn.Linear(d, n_out))
    return nn.Sequential(*layers)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/har.yaml")
    ap.add_argument("--name", default=None)
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["seed"])

    classes = cfg["data"]["classes"]
    train_ds = load_split(cfg["data"]["root"], "train", classes)
    val_ds = load_split(cfg["data"]["root"], "val", classes)
    train_dl = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, drop_last=True)
    val_dl = DataLoader(val_ds, batch_size=256)

    model = make_model(train_ds.tensors[0].shape[1], cfg["model"]["hidden"], len(classes))
    opt = torch.optim.AdamW(model.parameters(), **cfg["optimizer"])
    wandb.init(project="har-imu", name=args.name or cfg["run_name"], config=cfg)

    step = 0
    for epoch in range(cfg["epochs"]):
        model.train()
        for x, y in train_dl:
            logits = model(x)
            loss = nn.functional.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            acc = (logits.argmax(1) == y).float().mean().item()
            wandb.log({"train/loss": loss.item(), "train/batch_acc": acc, "epoch": epoch}, step=step)
            step += 1
        model.eval()
        correct, n, vloss = 0, 0, 0.0
        with torch.no_grad():
            for x, y in val_dl:
                out = model(x)
                vloss += nn.functional.cross_entropy(out, y, reduction="sum").item()
                correct += (out.argmax(1) == y).sum().item()
                n += len(y)
        wandb.log({"val/loss": vloss / n, "val/acc": correct / n}, step=step - 1)
        print(f"epoch {epoch}: val_loss={vloss / n:.4f} val_acc={correct / n:.4f}")
    wandb.finish()


if __name__ == "__main__":
    main()
'''

EDITS = [
    ("configs/har.yaml", '''batch_size: 32
epochs: 8''', '''loader:              # DataLoader kwargs shared by train/val
  num_workers: 0
  pin_memory: false
  shuffle: false
train_loader:
  batch_size: 32
  drop_last: true
val_loader:
  batch_size: 256
epochs: 8'''),
    ("train.py", '''    train_dl = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, drop_last=True)
    val_dl = DataLoader(val_ds, batch_size=256)
''', '''    train_dl = DataLoader(train_ds, **{**cfg["loader"], **cfg["train_loader"]})
    val_dl = DataLoader(val_ds, **{**cfg["loader"], **cfg["val_loader"]})
'''),
]


def build(out):
    x, y = make_task(505, 5000, d=36, k=4, sep=0.7, latent=16)
    classes = ["walking", "running", "cycling", "idle"]
    before = {"train.py": TRAIN_BEFORE, "configs/har.yaml": CONFIG_BEFORE}
    after = apply_edits(before, EDITS)
    wb = install_fake_wandb()
    logs = {}
    for tag, files, name in [("before", before, "har-mlp-0308"), ("after", after, "har-mlp-yamlcfg")]:
        wd = write_project("c05_" + tag, files)
        for split, sl in [("train", slice(0, 4000)), ("val", slice(4000, 5000))]:
            os.makedirs(os.path.join(wd, "data/shards", split))
            for k, c in enumerate(classes):
                xs, ys = x[sl], y[sl]
                np.save(os.path.join(wd, "data/shards", split, c + ".npy"), xs[ys == k])
        text, exc = run_script(wd, "train.py", ["--name", name])
        assert exc is None, exc
        logs[tag] = text
    runs = wb.runs[-2:]
    diff = git_diff(before, after, paths=["configs/har.yaml", "train.py"])
    fb, fa = runs[0].summary, runs[1].summary
    issue = f'''## Loss curve turned into a saw after moving loader settings to YAML

**What happened**
I moved all DataLoader arguments into `configs/har.yaml` so that I can change workers/batch size without
touching code (diff in `config_refactor.diff`). Nothing else changed — same shards, same seed, same optimizer.

Since then:
- the per-step train loss has a big regular saw-tooth pattern (see `wandb_export_train_loss.csv`, runs
  `har-mlp-0308` = before, `har-mlp-yamlcfg` = after)
- val acc went from {fb["val/acc"]:.3f} to {fa["val/acc"]:.3f}

Any idea what produces a regular saw-tooth like that? I'm on CPU, torch 2.13.

`train.py` and the config are the current versions.
'''
    save(out, {
        "ISSUE.md": issue,
        "config_refactor.diff": diff,
        "train.py": after["train.py"],
        "configs/har.yaml": after["configs/har.yaml"],
        "wandb_export_train_loss.csv": wandb_csv(runs, ["train/loss"]),
        "wandb_export_val.csv": wandb_csv(runs, ["val/loss", "val/acc"]),
        "console_after.txt": "$ python train.py --name har-mlp-yamlcfg\n" + logs["after"],
    })
    return {
        "truth": "data_not_shuffled",
        "symptom": "After moving the DataLoader arguments into the YAML config the per-step loss shows a regular "
                   "saw-tooth and val accuracy dropped; what produces a pattern like that?",
        "how": "The new shared `loader:` block sets shuffle: false and the train loader inherits it; the shards are "
               "concatenated class by class, so every epoch walks through the classes in order: the per-step loss "
               "spikes at each class boundary with an epoch-aligned period and val acc falls.",
    }, logs
