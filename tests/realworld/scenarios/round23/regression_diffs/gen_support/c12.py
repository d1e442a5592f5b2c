"""case c12 (healthy): dropout raised in the config; train loss (measured with dropout on) is now above val loss."""
import os

import numpy as np

from common import apply_edits, git_diff, make_task, run_script, save, write_project

CONFIG_BEFORE = '''# experiment: crop-type classifier v2
data: data/crops_2023.npz
model:
  hidden: 256
  dropout: 0.1
train:
  lr: 0.001
  batch_size: 128
  epochs: 10
  seed: 5
'''

EDITS = [("config.yaml", "  dropout: 0.1\n", "  dropout: 0.4\n")]

TRAIN = '''import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["train"]["seed"])
d = np.load(cfg["data"])
tr = DataLoader(TensorDataset(torch.tensor(d["xtr"]), torch.tensor(d["ytr"])),
                batch_size=cfg["train"]["batch_size"], shuffle=True)
va = DataLoader(TensorDataset(torch.tensor(d["xva"]), torch.tensor(d["yva"])), batch_size=1000)
h, p = cfg["model"]["hidden"], cfg["model"]["dropout"]
model = nn.Sequential(nn.Linear(d["xtr"].shape[1], h), nn.ReLU(), nn.Dropout(p),
                      nn.Linear(h, h), nn.ReLU(), nn.Dropout(p), nn.Linear(h, 6))
opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
for ep in range(cfg["train"]["epochs"]):
    model.train()
    s = n = 0
    for x, y in tr:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        s += loss.item() * len(y)
        n += len(y)
    model.eval()
    with torch.no_grad():
        vs = vn = vc = 0
        for x, y in va:
            out = model(x)
            vs += nn.functional.cross_entropy(out, y, reduction="sum").item()
            vc += (out.argmax(1) == y).sum().item()
            vn += len(y)
    print(f"epoch {ep + 1:2d}: train_loss={s / n:.4f} val_loss={vs / vn:.4f} val_acc={vc / vn:.4f}")
'''


def build(out):
    x, y = make_task(1212, 6000, d=24, k=6, sep=1.1, latent=12)
    data = dict(xtr=x[:5000], ytr=y[:5000], xva=x[5000:], yva=y[5000:])
    before = {"config.yaml": CONFIG_BEFORE, "train.py": TRAIN}
    after = apply_edits(before, EDITS)
    logs = {}
    for tag, files in [("before", before), ("after", after)]:
        wd = write_project("c12_" + tag, files)
        os.makedirs(os.path.join(wd, "data"))
        np.savez(os.path.join(wd, "data/crops_2023.npz"), **data)
        text, exc = run_script(wd, "train.py")
        assert exc is None, exc
        logs[tag] = text
    # the post says "every epoch": check it against the real run
    for line in logs["after"].strip().splitlines():
        tl = float(line.split("train_loss=")[1].split()[0])
        vl = float(line.split("val_loss=")[1].split()[0])
        assert tl > vl, line
    diff = git_diff(before, after, paths=["config.yaml"])
    lb = logs["before"].strip().splitlines()
    la = logs["after"].strip().splitlines()
    post = f'''**train loss higher than validation loss after changing dropout — is my val set leaking?**

r/MLQuestions · posted by u/soil_and_silicon

Small tabular classifier (6 crop types). Only change since last run:

```diff
{diff.rstrip()}
```

Before (last 3 epochs):
```
{chr(10).join(lb[-3:])}
```
After (last 3 epochs):
```
{chr(10).join(la[-3:])}
```

Now my *training* loss is higher than my *validation* loss every epoch. Everything I've read says train loss
should be lower. Does this mean validation samples somehow ended up in the training set, or that something is
broken in my split? Or is this fine?
'''
    save(out, {"post.md": post})
    return {
        "truth": "healthy",
        "symptom": "After raising dropout from 0.1 to 0.4 my training loss is higher than my validation loss every "
                   "epoch; is my val set leaking into training, or is this fine?",
        "how": "Nothing was planted: the only change is dropout 0.1 -> 0.4; train loss is averaged over the epoch "
               "with dropout active while val loss is measured in eval mode, so train > val is expected; val "
               "accuracy is similar to before and far from the near-perfect scores a leak would give.",
    }, logs
