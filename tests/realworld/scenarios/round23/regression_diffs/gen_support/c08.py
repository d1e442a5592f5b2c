"""case c08: normalisation constants updated for the new export in the training transform only."""
import os

import numpy as np

from common import apply_edits, git_diff, make_task, run_script, save, write_project

TRAIN = '''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from transforms import eval_transform, train_transform

torch.manual_seed(42)
np.random.seed(42)


class Readings(Dataset):
    def __init__(self, path, transform):
        d = np.load(path)
        self.x, self.y, self.transform = d["x"], d["y"], transform

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return torch.from_numpy(self.transform(self.x[i])), int(self.y[i])


train_dl = DataLoader(Readings("data/export/train.npz", train_transform), batch_size=64, shuffle=True)
val_dl = DataLoader(Readings("data/export/val.npz", eval_transform), batch_size=256)

model = nn.Sequential(nn.Linear(12, 128), nn.ReLU(), nn.Dropout(0.2),
                      nn.Linear(128, 128), nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, 5))
opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-5)
crit = nn.CrossEntropyLoss()

for epoch in range(1, 9):
    model.train()
    tl = tc = tn = 0
    for x, y in train_dl:
        out = model(x)
        loss = crit(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tl += loss.item() * len(y)
        tc += (out.argmax(1) == y).sum().item()
        tn += len(y)
    model.eval()
    vl = vc = vn = 0
    with torch.no_grad():
        for x, y in val_dl:
            out = model(x)
            vl += crit(out, y).item() * len(y)
            vc += (out.argmax(1) == y).sum().item()
            vn += len(y)
    print(f"epoch {epoch:2d}  train_loss {tl / tn:.4f}  train_acc {tc / tn:.4f}  "
          f"val_loss {vl / vn:.4f}  val_acc {vc / vn:.4f}")
'''


def fmt(arr):
    return "np.array([" + ", ".join(f"{v:.4g}" for v in arr) + "], dtype=np.float32)"


def transforms_src(train_mean, train_std, eval_mean, eval_std):
    return f'''import numpy as np

# statistics of the training export (scripts/compute_stats.py)
TRAIN_MEAN = {fmt(train_mean)}
TRAIN_STD = {fmt(train_std)}

# copy used by the eval / serving path (mirrors deploy/preprocess.py)
EVAL_MEAN = {fmt(eval_mean)}
EVAL_STD = {fmt(eval_std)}


def train_transform(x):
    x = (x - TRAIN_MEAN) / TRAIN_STD
    return (x + np.random.normal(0.0, 0.05, size=x.shape)).astype(np.float32)


def eval_transform(x):
    return ((x - EVAL_MEAN) / EVAL_STD).astype(np.float32)
'''


def build(out):
    rng = np.random.default_rng(808)
    x, y = make_task(808, 5200, d=12, k=5, sep=1.3, latent=8)
    scale = rng.uniform(0.5, 40, 12)
    offset = rng.uniform(-20, 300, 12)
    raw = x * scale + offset                      # v1 export, physical units
    raw_v2 = raw.copy()                           # v2 export: several columns in other units
    raw_v2[:, [2, 5]] *= 10.0
    raw_v2[:, 7] = raw_v2[:, 7] * 1.8 + 32.0
    raw, raw_v2 = raw.astype(np.float32), raw_v2.astype(np.float32)
    v1_mean, v1_std = raw[:4000].mean(0), raw[:4000].std(0)
    v2_mean, v2_std = raw_v2[:4000].mean(0), raw_v2[:4000].std(0)
    # the constants as they appear in the source files (4 significant digits)
    r = lambda a: np.array([float(f"{v:.4g}") for v in a], dtype=np.float32)
    before = {"transforms.py": transforms_src(r(v1_mean), r(v1_std), r(v1_mean), r(v1_std)), "train.py": TRAIN}
    after = {"transforms.py": transforms_src(r(v2_mean), r(v2_std), r(v1_mean), r(v1_std)), "train.py": TRAIN}
    logs = {}
    for tag, files, arr in [("before", before, raw), ("after", after, raw_v2)]:
        wd = write_project("c08_" + tag, files)
        os.makedirs(os.path.join(wd, "data/export"))
        np.savez(os.path.join(wd, "data/export/train.npz"), x=arr[:4000], y=y[:4000])
        np.savez(os.path.join(wd, "data/export/val.npz"), x=arr[4000:], y=y[4000:])
        text, exc = run_script(wd, "train.py")
        assert exc is None, exc
        logs[tag] = text
    diff = git_diff(before, after, paths=["transforms.py"])
    prev = logs["before"].strip().splitlines()[-1].split("val_acc ")[1]
    tr_acc = float(logs["after"].strip().splitlines()[-1].split("train_acc ")[1].split()[0])
    post = f'''Title: PyTorch MLP: {tr_acc:.0%} train accuracy but validation accuracy stuck low after re-exporting data — overfitting?

Tags: python, pytorch, neural-network, overfitting

I have a small MLP classifying sensor readings (12 features, 5 classes). On the old data export it reached
~{float(prev):.2f} validation accuracy. The data team gave us a new export (same sensors, same labels, some
columns now come in different units), so I re-ran our stats script and updated the normalisation constants:

```diff
{diff.rstrip()}
```

`transforms.py` is now:

```python
{after["transforms.py"].rstrip()}
```

Training looks great but validation is bad from the very first epoch and never recovers:

```
$ python train.py
{logs["after"].rstrip()}
```

I already have dropout 0.2 and a bit of weight decay. Is this overfitting? Should I increase dropout /
add more regularisation, or is the new export just harder? Any help appreciated.
'''
    save(out, {"question.md": post})
    return {
        "truth": "preprocessing_mismatch",
        "symptom": "After re-exporting the data and updating the normalisation constants, train accuracy is high but "
                   "validation accuracy is low from the first epoch; is this overfitting, should I add dropout?",
        "how": "The diff updates TRAIN_MEAN/TRAIN_STD to the new export's statistics but leaves the duplicated "
               "EVAL_MEAN/EVAL_STD (used by eval_transform) at the old values, so validation inputs are normalised "
               "with the wrong stats: a large train/val gap from epoch 1 rather than a late divergence.",
    }, logs
