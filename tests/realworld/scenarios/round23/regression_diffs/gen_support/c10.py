"""case c10: label encoding shifted by one to reserve 0 for 'unknown'; model still has 6 outputs -> crash."""
import csv
import io
import os

import numpy as np

from common import apply_edits, git_diff, make_task, run_script, run_subprocess, save, scrub_paths, write_project

PREP_BEFORE = '''"""raw.csv -> data/processed.npz + data/label_map.json"""
import csv
import json

import numpy as np

rows = list(csv.DictReader(open("data/raw.csv")))
feat_cols = [c for c in rows[0] if c.startswith("f")]
names = sorted({r["category"] for r in rows})
label_map = {name: i for i, name in enumerate(names)}

x = np.array([[float(r[c]) for c in feat_cols] for r in rows], dtype=np.float32)
y = np.array([label_map[r["category"]] for r in rows], dtype=np.int64)
is_val = np.array([r["split"] == "val" for r in rows])

np.savez("data/processed.npz", x_train=x[~is_val], y_train=y[~is_val], x_val=x[is_val], y_val=y[is_val])
json.dump(label_map, open("data/label_map.json", "w"), indent=2)
print(f"wrote {len(y)} rows, {len(label_map)} classes: {label_map}")
'''

EDITS = [
    ("prepare_data.py", '''names = sorted({r["category"] for r in rows})
label_map = {name: i for i, name in enumerate(names)}
''', '''names = sorted({r["category"] for r in rows})
# id 0 is reserved for "unknown" so the serving side can map unseen categories to it
label_map = {"<unk>": 0}
label_map.update({name: i + 1 for i, name in enumerate(names)})
'''),
]

CONFIG = '''num_classes: 6
hidden: 64
lr: 0.001
batch_size: 64
epochs: 5
'''

TRAIN = '''import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(0)
d = np.load("data/processed.npz")
train_dl = DataLoader(TensorDataset(torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"])),
                      batch_size=cfg["batch_size"], shuffle=True)
val_x, val_y = torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"])

model = nn.Sequential(nn.Linear(val_x.shape[1], cfg["hidden"]), nn.ReLU(),
                      nn.Linear(cfg["hidden"], cfg["num_classes"]))
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
criterion = nn.CrossEntropyLoss()


def train_epoch():
    model.train()
    total = 0.0
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(yb)
    return total / len(train_dl.dataset)


for epoch in range(cfg["epochs"]):
    train_loss = train_epoch()
    model.eval()
    with torch.no_grad():
        acc = (model(val_x).argmax(1) == val_y).float().mean().item()
    print(f"epoch {epoch}  train_loss={train_loss:.4f}  val_acc={acc:.4f}")
torch.save(model.state_dict(), "model.pt")
'''


def build(out):
    rng = np.random.default_rng(1010)
    x, y = make_task(1010, 3000, d=10, k=6, sep=1.5, latent=8)
    cats = ["billing", "bug_report", "cancellation", "feature_request", "login_issue", "shipping"]
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow([f"f{i}" for i in range(10)] + ["category", "split"])
    for i in range(3000):
        w.writerow([f"{v:.5f}" for v in x[i]] + [cats[y[i]], "val" if i >= 2500 else "train"])
    raw = buf.getvalue()
    before = {"prepare_data.py": PREP_BEFORE, "train.py": TRAIN, "config.yaml": CONFIG}
    after = apply_edits(before, EDITS)
    outs = {}
    for tag, files in [("before", before), ("after", after)]:
        wd = write_project("c10_" + tag, files)
        os.makedirs(os.path.join(wd, "data"))
        open(os.path.join(wd, "data/raw.csv"), "w").write(raw)
        prep, exc = run_script(wd, "prepare_data.py")
        assert exc is None, exc
        if tag == "before":
            tr, exc = run_script(wd, "train.py")
            assert exc is None, exc
            outs[tag] = (prep, tr, 0)
        else:
            rc, so, se = run_subprocess(wd, ["train.py"])
            assert rc != 0
            outs[tag] = (prep, scrub_paths(so + se, wd, "/home/ana/ticket-router"), rc)
    diff = git_diff(before, after, paths=["prepare_data.py"])
    prep_a, tr_a, rc = outs["after"]
    chat = f'''#ml-platform — thread

ana.r  09:41
anyone seen this? the ticket-router training job has been running fine for months, after this morning's
small change to prepare_data.py it dies right at the start. I think the training image got a new torch
version overnight, the error comes from inside torch.nn.functional so it looks like a torch bug to me

ana.r  09:42
the change (`git diff`):
```diff
{diff.rstrip()}
```

ana.r  09:42
output:
```
$ python prepare_data.py
{prep_a.rstrip()}
$ python train.py
{tr_a.rstrip()}
$ echo $?
{rc}
```

ana.r  09:44
yesterday's run for comparison:
```
$ python prepare_data.py
{outs["before"][0].rstrip()}
$ python train.py
{outs["before"][1].rstrip()}
```

ana.r  09:45
should I pin torch back to the previous version?
'''
    save(out, {"thread.md": chat, "config.yaml": CONFIG})
    return {
        "truth": "label_out_of_range",
        "symptom": "After a small change to prepare_data.py the training job crashes at the first step with an error "
                   "from inside torch.nn.functional; I think a new torch version is buggy, should I pin it back?",
        "how": "prepare_data.py now reserves id 0 for '<unk>' and shifts the 6 real categories to 1..6, but the "
               "model still has num_classes=6 outputs, so cross_entropy raises 'IndexError: Target 6 is out of "
               "bounds' on the first batch.",
    }, outs
