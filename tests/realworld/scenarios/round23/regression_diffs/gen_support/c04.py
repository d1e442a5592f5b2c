"""case c04: features re-ordered by timestamp in the Dataset, labels left in file order."""
import os

import numpy as np

from common import apply_edits, git_diff, make_task, run_script, save, write_project

DATASET_BEFORE = '''import numpy as np
import torch
from torch.utils.data import Dataset


class TransactionDataset(Dataset):
    """Rows exported by export_features.py: features (N, F), labels (N,), ts (N,)."""

    def __init__(self, path):
        d = np.load(path)
        self.x = torch.from_numpy(d["features"]).float()
        self.y = torch.from_numpy(d["labels"]).long()
        self.ts = d["ts"]

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]
'''

TRAIN = '''import json

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from dataset import TransactionDataset

cfg = json.load(open("config.json"))
torch.manual_seed(cfg["seed"])
train_ds = TransactionDataset("data/train.npz")
val_ds = TransactionDataset("data/val.npz")
train_dl = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
val_dl = DataLoader(val_ds, batch_size=512)

model = nn.Sequential(nn.Linear(train_ds.x.shape[1], 128), nn.ReLU(),
                      nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, cfg["num_classes"]))
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
loss_fn = nn.CrossEntropyLoss()

for epoch in range(cfg["epochs"]):
    model.train()
    tl, n = 0.0, 0
    for x, y in train_dl:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        tl += loss.item() * len(y)
        n += len(y)
    model.eval()
    with torch.no_grad():
        vl, correct, m = 0.0, 0, 0
        for x, y in val_dl:
            out = model(x)
            vl += loss_fn(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            m += len(y)
    print(f"ep {epoch} | train_loss {tl / n:.4f} | val_loss {vl / m:.4f} | val_acc {correct / m:.4f}")
'''

CONFIG_BEFORE = '''{
  "seed": 3,
  "num_classes": 5,
  "batch_size": 128,
  "lr": 0.001,
  "epochs": 8
}
'''

EDITS = [
    ("dataset.py", '''        d = np.load(path)
        self.x = torch.from_numpy(d["features"]).float()
        self.y = torch.from_numpy(d["labels"]).long()
        self.ts = d["ts"]
''', '''        d = np.load(path)
        # the new export is no longer time ordered; keep rows chronological
        order = np.argsort(d["ts"], kind="stable")
        self.x = torch.from_numpy(d["features"][order]).float()
        self.y = torch.from_numpy(d["labels"]).long()
        self.ts = d["ts"][order]
'''),
    ("config.json", '''  "lr": 0.001,''', '''  "lr": 0.0003,'''),
]


def build(out):
    rng = np.random.default_rng(404)
    x, y = make_task(404, 7000, d=16, k=5, sep=1.4)
    ts = 1.70e9 + np.sort(rng.uniform(0, 90 * 86400, 7000))
    perm = rng.permutation(7000)       # the new export is not time ordered
    x, y, ts = x[perm], y[perm], ts[perm].astype(np.int64)
    before = {"dataset.py": DATASET_BEFORE, "train.py": TRAIN, "config.json": CONFIG_BEFORE}
    after = apply_edits(before, EDITS)
    logs = {}
    for tag, files in [("before", before), ("after", after)]:
        wd = write_project("c04_" + tag, files)
        os.makedirs(os.path.join(wd, "data"))
        np.savez(os.path.join(wd, "data/train.npz"), features=x[:6000], labels=y[:6000], ts=ts[:6000])
        np.savez(os.path.join(wd, "data/val.npz"), features=x[6000:], labels=y[6000:], ts=ts[6000:])
        logs[tag], exc = run_script(wd, "train.py")
        assert exc is None, exc
    text = logs["after"]
    prev_acc = float(logs["before"].strip().splitlines()[-1].split("val_acc")[1])
    diff = git_diff(before, after, paths=["config.json", "dataset.py"])
    post = f'''**Title: Model stopped learning after I lowered the learning rate?**

*discuss.pytorch.org › Uncategorized*

Hi, my 5-class transaction classifier was at {prev_acc:.2f} val acc last week. We got a new feature export, and in the
same commit I lowered the lr from 1e-3 to 3e-4 because a colleague said Adam at 1e-3 was "too hot". Now it
doesn't learn at all:

```
$ python train.py
{text.rstrip()}
```

This is the whole change (`git diff HEAD~1`):

```diff
{diff.rstrip()}
```

Is 3e-4 really that much too small? Should I go back to 1e-3 or train much longer? The loss barely moves
from the very first epoch which seems odd to me.
'''
    save(out, {"post.md": post})
    return {
        "truth": "label_misalignment",
        "symptom": "After a new feature export and lowering the lr from 1e-3 to 3e-4 the classifier doesn't learn at "
                   "all any more; is 3e-4 too small?",
        "how": "dataset.py now reorders the features by timestamp (argsort) but leaves the labels in file order, so "
               "inputs and targets are no longer paired: train and val loss sit at ln 5 = 1.609 and val acc at "
               "chance from epoch 0, unlike the slow-but-falling curve a lower lr would give.",
    }, logs
