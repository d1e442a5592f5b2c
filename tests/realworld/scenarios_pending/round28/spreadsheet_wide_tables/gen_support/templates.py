"""User-visible source files (as the users wrote them). Filled with the run's real hyperparameters."""

RUN01_TRAIN = '''\
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
    p.add_argument("--hidden", type=int, default={hidden})
    p.add_argument("--lr", type=float, default={lr})
    p.add_argument("--momentum", type=float, default={momentum})
    p.add_argument("--wd", type=float, default={wd})
    p.add_argument("--bs", type=int, default={bs})
    p.add_argument("--epochs", type=int, default={epochs})
    p.add_argument("--milestones", type=int, nargs="+", default={milestones})
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
        print(f"{{args.run_name}} ep {{epoch:02d}} train_loss {{running / seen:.4f}} "
              f"train_acc {{correct / seen:.4f}} val_loss {{val_loss:.4f}} val_acc {{val_acc:.4f}} "
              f"lr {{optimizer.param_groups[0]['lr']:.2e}} ({{time.time() - t0:.1f}}s)")
    torch.save(model.state_dict(), f"checkpoints/{{args.run_name}}.pt")


if __name__ == "__main__":
    main()
'''

RUN02_CONFIG = '''\
# configs/sgd_base.yaml
data:
  path: data/parts_v3.npz
  val_fraction: 0.2
model:
  hidden: {hidden}
  depth: 2
  init: kaiming_normal
optimizer:
  name: sgd
  lr: {lr}
  momentum: {momentum}
  weight_decay: {wd}
schedule:
  name: cosine
  epochs: {epochs}
train:
  batch_size: {bs}
  seeds: [0, 1]
'''

RUN02_TRAIN = '''\
# train.py  (v0.4 -- config-driven)
import sys

import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

from parts.data import load_parts


def build_model(d_in, n_cls, cfg):
    layers, prev = [], d_in
    for _ in range(cfg["depth"]):
        layers += [nn.Linear(prev, cfg["hidden"]), nn.ReLU()]
        prev = cfg["hidden"]
    layers.append(nn.Linear(prev, n_cls))
    model = nn.Sequential(*layers)
    if cfg.get("init") == "kaiming_normal":
        for m in model.modules():
            if isinstance(m, nn.Linear):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                nn.init.zeros_(m.bias)
    return model


def build_optimizer(params, cfg):
    name = cfg.get("name", "sgd").lower()
    common = dict(lr=cfg["lr"], weight_decay=cfg.get("weight_decay", 0.0))
    if name == "adamw":
        return torch.optim.AdamW(params, betas=tuple(cfg.get("betas", (0.9, 0.999))), **common)
    if name == "sgd":
        return torch.optim.SGD(params, momentum=cfg.get("mom", 0.0), **common)
    raise ValueError(f"unknown optimizer {{name}}")


def main(cfg_path, seed):
    cfg = yaml.safe_load(open(cfg_path))
    torch.manual_seed(seed)
    (Xtr, ytr), (Xva, yva) = load_parts(cfg["data"]["path"], cfg["data"]["val_fraction"])
    train_loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=cfg["train"]["batch_size"], shuffle=True)

    model = build_model(Xtr.shape[1], int(ytr.max()) + 1, cfg["model"])
    opt = build_optimizer(model.parameters(), cfg["optimizer"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg["schedule"]["epochs"])
    crit = nn.CrossEntropyLoss()

    for epoch in range(1, cfg["schedule"]["epochs"] + 1):
        model.train()
        tot, n = 0.0, 0
        for xb, yb in train_loader:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
            tot += loss.item() * len(yb)
            n += len(yb)
        sched.step()
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = crit(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        print(f"epoch {{epoch}} train_loss={{tot / n:.4f}} val_loss={{val_loss:.4f}} val_acc={{val_acc:.4f}}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0)
'''

RUN04_TRAIN = '''\
# train.py -- ticket routing model (predict resolving team from ticket metadata)
import argparse

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

NUMERIC_FS1 = ["n_msgs", "n_attachments", "first_resp_min", "body_len", "subject_len",
               "cust_tenure_d", "n_prev_tickets", "hour_opened", "weekday_opened", "sla_tier"]
NUMERIC_FS2 = NUMERIC_FS1 + ["kb_hits", "n_reassign_reqs"]
CATEG_FS3 = ["last_queue"]                      # new metadata columns from the ticket export

FEATURE_SETS = {{
    "fs1": (NUMERIC_FS1, []),
    "fs2": (NUMERIC_FS2, []),
    "fs3": (NUMERIC_FS2, CATEG_FS3),
}}


def featurize(df, num_cols, cat_cols, stats=None):
    X = df[num_cols].astype("float32")
    if stats is None:
        stats = (X.mean(), X.std())
    X = (X - stats[0]) / stats[1]
    if cat_cols:
        X = pd.concat([X, pd.get_dummies(df[cat_cols].astype(str), dtype="float32")], axis=1)
    return torch.tensor(X.values, dtype=torch.float32), stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fs", default="fs3")
    ap.add_argument("--lr", type=float, default={lr})
    ap.add_argument("--epochs", type=int, default={epochs})
    ap.add_argument("--bs", type=int, default={bs})
    ap.add_argument("--dropout", type=float, default={dropout})
    args = ap.parse_args()
    torch.manual_seed(0)

    train_df = pd.read_parquet("data/tickets_train.parquet")   # closed tickets, Jan-Sep
    val_df = pd.read_parquet("data/tickets_val.parquet")       # closed tickets, Oct
    teams = sorted(train_df["resolved_by_team"].unique())
    to_idx = {{t: i for i, t in enumerate(teams)}}

    num_cols, cat_cols = FEATURE_SETS[args.fs]
    Xtr, stats = featurize(train_df, num_cols, cat_cols)
    Xva, _ = featurize(val_df, num_cols, cat_cols, stats)
    ytr = torch.tensor(train_df["resolved_by_team"].map(to_idx).values)
    yva = torch.tensor(val_df["resolved_by_team"].map(to_idx).values)

    model = nn.Sequential(nn.Linear(Xtr.shape[1], {hidden}), nn.ReLU(), nn.Dropout(args.dropout),
                          nn.Linear({hidden}, {hidden}), nn.ReLU(), nn.Dropout(args.dropout),
                          nn.Linear({hidden}, len(teams)))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    crit = nn.CrossEntropyLoss()
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.bs, shuffle=True)

    for ep in range(1, args.epochs + 1):
        model.train()
        tl = tc = n = 0
        for xb, yb in loader:
            opt.zero_grad()
            out = model(xb)
            loss = crit(out, yb)
            loss.backward()
            opt.step()
            tl += loss.item() * len(yb); tc += (out.argmax(1) == yb).sum().item(); n += len(yb)
        model.eval()
        with torch.no_grad():
            vo = model(Xva)
            vl = crit(vo, yva).item(); va = (vo.argmax(1) == yva).float().mean().item()
        print(f"[{{args.fs}}] ep{{ep}} train_loss {{tl/n:.4f}} train_acc {{tc/n:.4f}} val_loss {{vl:.4f}} val_acc {{va:.4f}}")


if __name__ == "__main__":
    main()
'''

RUN05_TRAIN = '''\
# train_stream.py -- new loader: stream rows straight from the parquet export
import glob
import math

import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, IterableDataset

DATA_DIR = "/mnt/exports/vibration_events_2024q2"   # hive-partitioned export from the warehouse job
FEATURES = [f"f{{i:02d}}" for i in range({d})]


class ParquetRows(IterableDataset):
    def __init__(self, files):
        self.files = files

    def __iter__(self):
        for path in self.files:
            df = pd.read_parquet(path)
            label = int(path.split("event_type=")[1].split("/")[0])
            X = torch.tensor(df[FEATURES].values, dtype=torch.float32)
            for i in range(len(X)):
                yield X[i], label


def main():
    train_files = sorted(glob.glob(f"{{DATA_DIR}}/split=train/event_type=*/part-*.parquet"))
    val_df = pd.read_parquet(f"{{DATA_DIR}}/val.parquet")
    Xva = torch.tensor(val_df[FEATURES].values, dtype=torch.float32)
    yva = torch.tensor(val_df["event_type"].values)

    loader = DataLoader(ParquetRows(train_files), batch_size={bs}, num_workers=0)

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear({d}, {hidden}), nn.ReLU(), nn.Linear({hidden}, {hidden}), nn.ReLU(),
                          nn.Linear({hidden}, {K}))
    opt = torch.optim.Adam(model.parameters(), lr={lr})
    crit = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(1, {epochs} + 1):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
            step += 1
            print(f"step {{step}} epoch {{epoch}} loss {{loss.item():.4f}}")
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            print(f"epoch {{epoch}} val_loss {{crit(out, yva).item():.4f}} "
                  f"val_acc {{(out.argmax(1) == yva).float().mean().item():.4f}}")


if __name__ == "__main__":
    main()
'''

RUN07_EVAL = '''\
# evaluate.py -- standalone evaluation of a saved checkpoint
import argparse
import json

import torch
from torch.utils.data import DataLoader, TensorDataset

from model import build_model
from data import load_split


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", default="runs/{run}/best.pt")
    ap.add_argument("--split", default="val")
    ap.add_argument("--bs", type=int, default=32)
    args = ap.parse_args()

    ckpt = torch.load(args.ckpt, map_location="cpu")
    model = build_model(**ckpt["model_args"])
    model.load_state_dict(ckpt["state_dict"])
    print(f"loaded {{args.ckpt}} (epoch {{ckpt['epoch']}}, val_acc at save {{ckpt['val_acc']:.4f}})")

    X, y = load_split(args.split)
    loader = DataLoader(TensorDataset(X, y), batch_size=args.bs, shuffle=False)

    correct, n = 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            pred = model(xb).argmax(dim=1)
            correct += (pred == yb).sum().item()
            n += len(yb)
    acc = correct / n
    print(json.dumps({{"ckpt": args.ckpt, "split": args.split, "n": n, "accuracy": round(acc, 4)}}))


if __name__ == "__main__":
    main()
'''

RUN07_MODEL = '''\
# model.py
import torch.nn as nn


def build_model(d_in, n_cls, hidden={hidden}, dropout={dropout}):
    return nn.Sequential(
        nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(dropout),
        nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(dropout),
        nn.Linear(hidden, n_cls),
    )
'''

RUN07_TRAIN = '''\
# train.py (excerpt: epoch loop and checkpointing)
    best = 0.0
    for epoch in range(1, cfg.epochs + 1):
        model.train()
        for xb, yb in train_loader:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()

        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = crit(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        log_row(epoch, train_loss, train_acc, val_loss, val_acc)
        if val_acc > best:
            best = val_acc
            torch.save({{"state_dict": model.state_dict(), "epoch": epoch, "val_acc": val_acc,
                        "model_args": dict(d_in=Xtr.shape[1], n_cls=n_cls)}},
                       f"runs/{{cfg.run}}/best.pt")
'''

RUN08_DIFF = '''\
diff --git a/train.py b/train.py
index 3c41e07..9d2a6b1 100644
--- a/train.py
+++ b/train.py
@@ -1,20 +1,15 @@
 import argparse
-import numpy as np
 import torch
 import torch.nn as nn
-from sklearn.metrics import f1_score
-from torch.utils.data import DataLoader, TensorDataset
 
-from data import load_npz
+from intent.data import IntentDataModule
+from intent.metrics import f1_score
 
 
 def main():
     ap = argparse.ArgumentParser()
     ap.add_argument("--seed", type=int, default=0)
     ap.add_argument("--epochs", type=int, default={epochs})
     args = ap.parse_args()
     torch.manual_seed(args.seed)
-    (Xtr, ytr), (Xva, yva) = load_npz("data/intents_v5.npz", val_frac=0.25, split_seed=1234)
-    train_loader = DataLoader(TensorDataset(Xtr, ytr), batch_size={bs}, shuffle=True)
+    dm = IntentDataModule("data/intents_v5.npz", val_frac=0.25, split_seed=1234, batch_size={bs})
+    train_loader, (Xva, yva) = dm.train_loader(), dm.val_tensors()
 
@@ -38,9 +33,9 @@ def main():
         model.eval()
         with torch.no_grad():
             out = model(Xva)
             val_loss = crit(out, yva).item()
             pred = out.argmax(1)
             val_acc = (pred == yva).float().mean().item()
-            val_f1 = f1_score(yva.numpy(), pred.numpy(), average="micro")
+            val_f1 = f1_score(yva, pred, num_classes=n_cls)
         log.info(f"epoch {{epoch}} val_loss {{val_loss:.4f}} val_acc {{val_acc:.4f}} val_f1 {{val_f1:.4f}}")
diff --git a/intent/data.py b/intent/data.py
new file mode 100644
index 0000000..5be12f0
--- /dev/null
+++ b/intent/data.py
@@ -0,0 +1,27 @@
+import numpy as np
+import torch
+from torch.utils.data import DataLoader, TensorDataset
+
+
+class IntentDataModule:
+    """Moved here from data.load_npz so the serving repo can reuse it."""
+
+    def __init__(self, path, val_frac, split_seed, batch_size):
+        d = np.load(path)
+        X, y = d["X"].astype("float32"), d["y"].astype("int64")
+        rng = np.random.RandomState(split_seed)
+        idx = rng.permutation(len(X))
+        n_val = int(len(X) * val_frac)
+        va, tr = idx[:n_val], idx[n_val:]
+        self.Xtr, self.ytr = torch.from_numpy(X[tr]), torch.from_numpy(y[tr])
+        self.Xva, self.yva = torch.from_numpy(X[va]), torch.from_numpy(y[va])
+        self.batch_size = batch_size
+
+    def train_loader(self):
+        return DataLoader(TensorDataset(self.Xtr, self.ytr), batch_size=self.batch_size, shuffle=True)
+
+    def val_tensors(self):
+        return self.Xva, self.yva
+
diff --git a/intent/metrics.py b/intent/metrics.py
new file mode 100644
index 0000000..e7a01c4
--- /dev/null
+++ b/intent/metrics.py
@@ -0,0 +1,19 @@
+import torch
+
+
+def f1_score(y_true, y_pred, num_classes):
+    """F1 without the sklearn dependency (serving image is slim)."""
+    scores = []
+    for c in range(num_classes):
+        tp = ((y_pred == c) & (y_true == c)).sum().item()
+        fp = ((y_pred == c) & (y_true != c)).sum().item()
+        fn = ((y_pred != c) & (y_true == c)).sum().item()
+        prec = tp / (tp + fp) if tp + fp else 0.0
+        rec = tp / (tp + fn) if tp + fn else 0.0
+        scores.append(2 * prec * rec / (prec + rec) if prec + rec else 0.0)
+    return sum(scores) / num_classes
+
'''

RUN11_TRAIN = '''\
# train.py -- sensor classifier with input-noise augmentation
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from data import load_split


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True)
    ap.add_argument("--dropout", type=float, default={dropout})
    ap.add_argument("--noise-std", type=float, default={noise})
    ap.add_argument("--epochs", type=int, default={epochs})
    ap.add_argument("--lr", type=float, default={lr})
    args = ap.parse_args()
    torch.manual_seed(0)

    Xtr, ytr = load_split("train")      # already standardised
    Xva, yva = load_split("val")
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size={bs}, shuffle=True)
    model = nn.Sequential(nn.Linear(Xtr.shape[1], {hidden}), nn.ReLU(), nn.Dropout(args.dropout),
                          nn.Linear({hidden}, {hidden}), nn.ReLU(), nn.Dropout(args.dropout),
                          nn.Linear({hidden}, int(ytr.max()) + 1))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    crit = nn.CrossEntropyLoss()

    for epoch in range(1, args.epochs + 1):
        model.train()
        tl, tc, n = 0.0, 0, 0
        for xb, yb in loader:
            if args.noise_std > 0:
                xb = xb + args.noise_std * torch.randn_like(xb)
            opt.zero_grad()
            out = model(xb)
            loss = crit(out, yb)
            loss.backward()
            opt.step()
            tl += loss.item() * len(yb)
            tc += (out.argmax(1) == yb).sum().item()
            n += len(yb)
        model.eval()
        with torch.no_grad():
            vo = model(Xva)
            vl = crit(vo, yva).item()
            va = (vo.argmax(1) == yva).float().mean().item()
        print(f"{{args.run}},{{epoch}},{{tl / n:.4f}},{{tc / n:.4f}},{{vl:.4f}},{{va:.4f}}")


if __name__ == "__main__":
    main()
'''
