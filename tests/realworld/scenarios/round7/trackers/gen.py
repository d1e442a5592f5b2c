#!/usr/bin/env python
"""Generator for 12 benchmark-style training runs (10 with one planted fault, 2 healthy).

Every run is produced by REALLY executing a plain user training script (train.py) on CPU.
The scripts call `wandb` / `mlflow`; here those are small local shims (written to
OUTDIR/_work/shims, not shipped) that write the real on-disk formats:
  * W&B offline run: runs/<name>/wandb/run-<date>-<id>/files/{wandb-history.jsonl,
    wandb-summary.json, config.yaml, wandb-metadata.json, output.log, requirements.txt}
  * MLflow file store: runs/<name>/mlruns/0/<run_id>/{meta.yaml, metrics/, params/, tags/, artifacts/}
Data sets are synthetic (numpy), written per run into OUTDIR/_work/<name>/data (not shipped).
For about half of the runs the producing train.py is copied into the run folder.

usage: python gen.py [--only run03,run07] [--keep-work]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd

OUT = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(OUT, "_work")
RUNS = os.path.join(OUT, "runs")
PY = sys.executable

# ---------------------------------------------------------------------------------------------
# logging shims (machinery only; never shipped)
# ---------------------------------------------------------------------------------------------
WANDB_SHIM = r'''
import atexit, io, json, os, sys, time, datetime
import yaml

_run = None

class _Config(dict):
    def __getattr__(self, k):
        try:
            return self[k]
        except KeyError:
            raise AttributeError(k)
    def update(self, d=None, **kw):
        dict.update(self, d or {}, **kw)

config = _Config()

class _Tee(io.TextIOBase):
    def __init__(self, a, buf):
        self.a, self.buf = a, buf
    def write(self, s):
        self.a.write(s); self.buf.append(s); return len(s)
    def flush(self):
        self.a.flush()

def _clean(v):
    try:
        import torch
        if isinstance(v, torch.Tensor):
            return v.item()
    except Exception:
        pass
    if hasattr(v, "item") and not isinstance(v, (list, dict, str)):
        try:
            return v.item()
        except Exception:
            pass
    return v

class Run:
    def __init__(self, project, name, cfg, tags):
        self.t0 = time.time()
        self.base = float(os.environ["FAKE_START"])
        self.id = os.environ["FAKE_RUN_ID"]
        date = time.strftime("%Y%m%d_%H%M%S", time.gmtime(self.base))
        self.dir = os.path.join("wandb", "run-%s-%s" % (date, self.id), "files")
        os.makedirs(self.dir, exist_ok=True)
        self.project, self.name, self.tags = project, name, tags or []
        config.update(cfg or {})
        self.config = config
        self.summary = {}
        self._auto_step = 0
        self._pending = None
        self._hist = open(os.path.join(self.dir, "wandb-history.jsonl"), "w")
        self._out = []
        sys.stdout = _Tee(sys.stdout, self._out)
        self._finished = False
        atexit.register(self.finish)

    def _now(self):
        rt = time.time() - self.t0
        return rt, self.base + rt

    def _flush(self):
        if self._pending is None:
            return
        step, data = self._pending
        rt, ts = self._now()
        row = {"_step": step}
        row.update(data)
        row["_runtime"] = round(rt, 6)
        row["_timestamp"] = round(ts, 6)
        self._hist.write(json.dumps(row) + "\n")
        self._hist.flush()
        self._pending = None
        self._auto_step = step + 1

    def log(self, data, step=None, commit=None):
        data = {k: _clean(v) for k, v in data.items()}
        if step is not None:
            if self._pending is not None and self._pending[0] != step:
                self._flush()
            if step < self._auto_step and self._pending is None:
                print("wandb: WARNING Tried to log to step %d that is less than the current step %d. Steps must be monotonically increasing, so this data will be ignored." % (step, self._auto_step), file=sys.stderr)
                return
            if self._pending is None:
                self._pending = (step, {})
            self._pending[1].update(data)
            self.summary.update(data)
            if commit is True:
                self._flush()
        else:
            if self._pending is None:
                self._pending = (self._auto_step, {})
            self._pending[1].update(data)
            self.summary.update(data)
            if commit is not False:
                self._flush()

    def finish(self, exit_code=0):
        if self._finished:
            return
        self._flush()
        self._finished = True
        self._hist.close()
        rt, ts = self._now()
        summ = {k: _clean(v) for k, v in self.summary.items()}
        summ.update({"_step": self._auto_step - 1, "_runtime": round(rt, 6), "_timestamp": round(ts, 6),
                     "_wandb": {"runtime": int(rt)}})
        with open(os.path.join(self.dir, "wandb-summary.json"), "w") as f:
            json.dump(summ, f)
        cfg = {"_wandb": {"desc": None, "value": {
            "python_version": "3.10.12", "cli_version": "0.16.6", "framework": "torch",
            "is_jupyter_run": False, "is_kaggle_kernel": False, "start_time": int(self.base),
            "t": {"1": [1, 55], "2": [1, 55], "3": [13, 16, 23], "4": "3.10.12", "5": "0.16.6", "8": [5], "13": "linux-x86_64"}}}}
        for k, v in config.items():
            cfg[k] = {"desc": None, "value": _clean(v)}
        with open(os.path.join(self.dir, "config.yaml"), "w") as f:
            f.write("wandb_version: 1\n\n")
            yaml.safe_dump(cfg, f, sort_keys=False, default_flow_style=False)
        meta = {"os": "Linux-5.15.0-105-generic-x86_64-with-glibc2.35", "python": "3.10.12",
                "heartbeatAt": datetime.datetime.utcfromtimestamp(ts).isoformat(),
                "startedAt": datetime.datetime.utcfromtimestamp(self.base).isoformat(),
                "docker": None, "cuda": None, "args": [], "state": "running",
                "program": "train.py", "codePathLocal": "train.py", "codePath": "train.py",
                "host": os.environ.get("FAKE_HOST", "workstation"), "username": os.environ.get("FAKE_USER", "user"),
                "executable": "/usr/bin/python3", "cpu_count": 8, "cpu_count_logical": 16}
        with open(os.path.join(self.dir, "wandb-metadata.json"), "w") as f:
            json.dump(meta, f, indent=4)
        with open(os.path.join(self.dir, "requirements.txt"), "w") as f:
            f.write("numpy==1.26.4\npandas==2.2.2\nPyYAML==6.0.1\ntorch==2.3.0\nwandb==0.16.6\n")
        if isinstance(sys.stdout, _Tee):
            sys.stdout = sys.stdout.a
        with open(os.path.join(self.dir, "output.log"), "w") as f:
            f.write("".join(self._out))

def init(project=None, name=None, config=None, mode=None, tags=None, **kw):
    global _run
    _run = Run(project, name, config, tags)
    return _run

def log(data, step=None, commit=None):
    _run.log(data, step=step, commit=commit)

def finish(exit_code=0):
    if _run is not None:
        _run.finish(exit_code)

class _SummaryProxy:
    def __setitem__(self, k, v):
        _run.summary[k] = v
    def __getitem__(self, k):
        return _run.summary[k]
summary = _SummaryProxy()
'''

MLFLOW_SHIM = r'''
import os, time, atexit
import yaml

_root = "mlruns"
_active = None

def _num(v):
    try:
        return float(v.item())
    except AttributeError:
        return float(v)

def set_tracking_uri(uri):
    global _root
    _root = uri[len("file:"):] if uri.startswith("file:") else uri
    if _root.startswith("./"):
        _root = _root[2:]

class _Info:
    pass

class ActiveRun:
    def __init__(self, run_name):
        self.t0 = time.time()
        self.base_ms = int(float(os.environ["FAKE_START"]) * 1000)
        rid = os.environ["FAKE_RUN_ID"]
        self.info = _Info()
        self.info.run_id = rid
        self.info.run_name = run_name
        exp = os.path.join(_root, "0")
        os.makedirs(exp, exist_ok=True)
        self.user = os.environ.get("FAKE_USER", "user")
        self.home = os.environ.get("FAKE_HOME", "/home/user/project")
        if not os.path.exists(os.path.join(exp, "meta.yaml")):
            with open(os.path.join(exp, "meta.yaml"), "w") as f:
                yaml.safe_dump({"artifact_location": "file://%s/mlruns/0" % self.home, "creation_time": self.base_ms - 3600 * 1000 * 24 * 9,
                                "experiment_id": "0", "last_update_time": self.base_ms - 3600 * 1000 * 24 * 9,
                                "lifecycle_stage": "active", "name": "Default"}, f)
        self.dir = os.path.join(exp, rid)
        for sub in ("metrics", "params", "tags", "artifacts"):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        self.ended = False
        self._write_meta(status=1, end_time=None)
        for k, v in (("mlflow.runName", run_name), ("mlflow.user", self.user), ("mlflow.source.name", "train.py"),
                     ("mlflow.source.type", "LOCAL"), ("mlflow.source.git.commit", os.environ.get("FAKE_COMMIT", "0" * 40))):
            _write(os.path.join(self.dir, "tags", k), v)

    def now_ms(self):
        return self.base_ms + int((time.time() - self.t0) * 1000)

    def _write_meta(self, status, end_time):
        meta = {"artifact_uri": "file://%s/mlruns/0/%s/artifacts" % (self.home, self.info.run_id),
                "end_time": end_time, "entry_point_name": "", "experiment_id": "0",
                "lifecycle_stage": "active", "run_id": self.info.run_id, "run_name": self.info.run_name,
                "run_uuid": self.info.run_id, "source_name": "", "source_type": 4, "source_version": "",
                "start_time": self.base_ms, "status": status, "tags": [], "user_id": self.user}
        with open(os.path.join(self.dir, "meta.yaml"), "w") as f:
            yaml.safe_dump(meta, f)

    def end(self):
        if not self.ended:
            self.ended = True
            self._write_meta(status=3, end_time=self.now_ms())

    def __enter__(self):
        return self

    def __exit__(self, *a):
        end_run()
        return False

def start_run(run_name=None, **kw):
    global _active
    _active = ActiveRun(run_name or "run")
    atexit.register(end_run)
    return _active

def end_run(status="FINISHED"):
    global _active
    if _active is not None:
        _active.end()

def active_run():
    return _active

def log_param(k, v):
    with open(os.path.join(_active.dir, "params", k), "w") as f:
        f.write(str(v))

def log_params(d):
    for k, v in d.items():
        log_param(k, v)

def _write(path, v):
    with open(path, "w") as f:
        f.write(str(v))

def set_tag(k, v):
    _write(os.path.join(_active.dir, "tags", k), v)

def set_tags(d):
    for k, v in d.items():
        set_tag(k, v)

def log_metric(k, v, step=None):
    path = os.path.join(_active.dir, "metrics", k)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a") as f:
        f.write("%d %s %d\n" % (_active.now_ms(), repr(_num(v)) if _num(v) == _num(v) else "nan", step or 0))

def log_metrics(d, step=None):
    for k, v in d.items():
        log_metric(k, v, step)
'''

# ---------------------------------------------------------------------------------------------
# synthetic data helpers (deterministic)
# ---------------------------------------------------------------------------------------------

def make_classification(n, n_features, n_informative, n_classes, class_sep, seed, flip=0.0):
    """sklearn-like: gaussian clusters at hypercube vertices in an informative subspace,
    redundant linear combinations, pure-noise features, random feature order."""
    rng = np.random.default_rng(seed)
    verts = rng.choice([-1.0, 1.0], size=(n_classes, n_informative)) * class_sep
    y = rng.integers(0, n_classes, size=n)
    Xi = verts[y] + rng.normal(size=(n, n_informative))
    A = rng.normal(size=(n_informative, n_informative))
    Xi = Xi @ (np.eye(n_informative) + 0.3 * A)
    n_red = min(n_informative, max(0, n_features - n_informative) // 2)
    Xr = Xi @ rng.normal(size=(n_informative, n_red)) * 0.5
    Xn = rng.normal(size=(n, n_features - n_informative - n_red))
    X = np.hstack([Xi, Xr, Xn])
    X = X[:, rng.permutation(n_features)]
    if flip > 0:
        m = rng.random(n) < flip
        y = y.copy()
        y[m] = (y[m] + rng.integers(1, n_classes, size=m.sum())) % n_classes
    return X.astype(np.float32), y.astype(np.int64)


def make_digits_like(n, seed, n_classes=10, size=8, noise=0.35):
    """10 smooth stroke templates on an 8x8 grid, each sample jittered by one pixel plus noise."""
    rng = np.random.default_rng(seed)
    temps = []
    trng = np.random.default_rng(1234)
    for _ in range(n_classes):
        img = np.zeros((size, size))
        for _s in range(3):
            r0, c0 = trng.integers(1, size - 1, size=2)
            dr, dc = trng.choice([-1, 0, 1], size=2)
            if dr == 0 and dc == 0:
                dc = 1
            for t in range(size):
                r, c = r0 + dr * t, c0 + dc * t
                if 0 <= r < size and 0 <= c < size:
                    img[r, c] = 1.0
        temps.append(img)
    temps = np.stack(temps)
    y = rng.integers(0, n_classes, size=n)
    X = np.zeros((n, size, size))
    for i in range(n):
        sh = rng.integers(-1, 2, size=2)
        X[i] = np.roll(temps[y[i]], tuple(sh), axis=(0, 1))
    X = X * 16.0 + rng.normal(scale=noise * 16.0, size=X.shape)
    X = np.clip(X, 0, 16).round()   # digits-style 0..16 integer pixels
    return X.astype(np.float32), y.astype(np.int64)


def make_shapes(n, seed, size=16, noise=0.9, n_classes=4):
    """noisy 16x16 images: horizontal bar, vertical bar, cross, square outline at random positions."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, size=n)
    X = np.zeros((n, 1, size, size), dtype=np.float32)
    for i in range(n):
        img = np.zeros((size, size), dtype=np.float32)
        r, c = rng.integers(3, size - 3, size=2)
        L = rng.integers(3, 6)
        k = y[i]
        if k == 0:
            img[r, max(0, c - L):c + L] = 1
        elif k == 1:
            img[max(0, r - L):r + L, c] = 1
        elif k == 2:
            img[r, max(0, c - 2):c + 3] = 1
            img[max(0, r - 2):r + 3, c] = 1
        else:
            img[r - 2:r + 3, c - 2] = 1; img[r - 2:r + 3, c + 2] = 1
            img[r - 2, c - 2:c + 3] = 1; img[r + 2, c - 2:c + 3] = 1
        X[i, 0] = img + rng.normal(scale=noise, size=(size, size))
    return X, y.astype(np.int64)


def make_waveforms(n, seed, length=60):
    """3 classes of noisy 1-d signals: sine, square, sawtooth with random freq/phase."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    t = np.arange(length)
    X = np.zeros((n, length, 1), dtype=np.float32)
    for i in range(n):
        f = rng.uniform(0.04, 0.12); ph = rng.uniform(0, 2 * np.pi); a = rng.uniform(0.7, 1.3)
        s = 2 * np.pi * f * t + ph
        if y[i] == 0:
            sig = np.sin(s)
        elif y[i] == 1:
            sig = np.sign(np.sin(s))
        else:
            sig = 2 * ((s / (2 * np.pi)) % 1.0) - 1
        X[i, :, 0] = a * sig + rng.normal(scale=0.35, size=length)
    return X, y.astype(np.int64)


def make_churn_csv(path, n, seed):
    rng = np.random.default_rng(seed)
    tenure = rng.integers(1, 72, size=n)
    contract = rng.choice([0, 1, 2], size=n, p=[0.55, 0.25, 0.20])
    monthly = np.round(rng.uniform(18, 118, size=n), 2)
    total = np.round(monthly * tenure * rng.uniform(0.9, 1.05, size=n), 2)
    calls = rng.poisson(1.5, size=n)
    partner = rng.integers(0, 2, size=n)
    age = rng.integers(18, 80, size=n)
    usage = np.round(rng.gamma(2.0, 8.0, size=n), 1)
    late = rng.poisson(0.6, size=n)
    z = (-0.045 * tenure + 0.9 * (contract == 0) - 0.6 * (contract == 2) + 0.018 * (monthly - 65)
         + 0.35 * calls + 0.45 * late - 0.3 * partner + rng.normal(scale=0.8, size=n))
    churned = (z > np.quantile(z, 0.73)).astype(int)
    df = pd.DataFrame({"customer_id": np.arange(100001, 100001 + n), "tenure_months": tenure,
                       "contract_type": contract, "monthly_charges": monthly, "total_charges": total,
                       "num_support_calls": calls, "has_partner": partner, "age": age,
                       "data_usage_gb": usage, "late_payments": late, "churned": churned})
    df.to_csv(path, index=False)


def make_loans_csv(path, n, seed, nan_rows):
    rng = np.random.default_rng(seed)
    income = np.round(rng.lognormal(10.8, 0.45, size=n), -2)
    debt = np.round(income * rng.uniform(0.05, 0.9, size=n), -1)
    age = rng.integers(21, 70, size=n).astype(float)
    years_employed = np.clip(np.round(rng.gamma(2.0, 3.0, size=n), 1), 0, 45)
    n_accounts = rng.poisson(4, size=n).astype(float)
    delinq = rng.poisson(0.4, size=n).astype(float)
    score = np.round(np.clip(rng.normal(680, 60, size=n), 450, 850))
    util = np.round(rng.beta(2, 5, size=n), 3)
    z = (-0.012 * (score - 680) + 2.2 * (debt / income) + 0.8 * delinq + 1.5 * util - 0.05 * years_employed
         + rng.normal(scale=0.7, size=n))
    default = (z > np.quantile(z, 0.7)).astype(int)
    df = pd.DataFrame({"income": income, "debt": debt, "age": age, "years_employed": years_employed,
                       "n_accounts": n_accounts, "delinquencies": delinq, "credit_score": score,
                       "utilization": util, "default": default})
    for r, col in nan_rows:
        df.loc[r, col] = np.nan
    df.to_csv(path, index=False)


def make_blob_classes(outdir, seed):
    """4-class data stored the way it often arrives: one file per class (train), plus a mixed val file."""
    X, y = make_classification(2400, 16, 8, 4, 0.9, seed)
    Xtr, ytr, Xva, yva = X[:2000], y[:2000], X[2000:], y[2000:]
    for k in range(4):
        np.save(os.path.join(outdir, "class_%d.npy" % k), Xtr[ytr == k][:500])
    np.savez(os.path.join(outdir, "val.npz"), X=Xva, y=yva)


# ---------------------------------------------------------------------------------------------
# user training scripts (one per run)
# ---------------------------------------------------------------------------------------------
S = {}

# ---- healthy, converges well (W&B) ----
S["healthy_good"] = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
import wandb

torch.set_num_threads(1)

config = {
    "dataset": "moons",
    "n_samples": 2000,
    "noise": 0.2,
    "hidden": 64,
    "lr": 3e-3,
    "weight_decay": 1e-4,
    "batch_size": 64,
    "epochs": 40,
    "seed": 7,
}


def make_moons(n, noise, rng):
    n_out = n // 2
    n_in = n - n_out
    t_out = np.linspace(0, np.pi, n_out)
    t_in = np.linspace(0, np.pi, n_in)
    X = np.vstack([np.c_[np.cos(t_out), np.sin(t_out)],
                   np.c_[1 - np.cos(t_in), 1 - np.sin(t_in) - 0.5]])
    y = np.r_[np.zeros(n_out), np.ones(n_in)].astype(np.int64)
    X = X + rng.normal(scale=noise, size=X.shape)
    return X.astype(np.float32), y


def main():
    torch.manual_seed(config["seed"])
    rng = np.random.default_rng(config["seed"])
    X, y = make_moons(config["n_samples"], config["noise"], rng)
    perm = rng.permutation(len(X))
    X, y = X[perm], y[perm]
    n_val = len(X) // 5
    X_val, y_val = X[:n_val], y[:n_val]
    X_tr, y_tr = X[n_val:], y[n_val:]
    mu, sd = X_tr.mean(0), X_tr.std(0)
    X_tr = (X_tr - mu) / sd
    X_val = (X_val - mu) / sd

    train_loader = DataLoader(TensorDataset(torch.from_numpy(X_tr), torch.from_numpy(y_tr)),
                              batch_size=config["batch_size"], shuffle=True)
    Xv, yv = torch.from_numpy(X_val), torch.from_numpy(y_val)

    h = config["hidden"]
    model = nn.Sequential(nn.Linear(2, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 2))
    opt = torch.optim.AdamW(model.parameters(), lr=config["lr"], weight_decay=config["weight_decay"])

    run = wandb.init(project="moons-baseline", config=config, mode="offline")
    best = 0.0
    for epoch in range(config["epochs"]):
        model.train()
        total, n = 0.0, 0
        for xb, yb in train_loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item() * len(xb)
            n += len(xb)
        model.eval()
        with torch.no_grad():
            logits = model(Xv)
            val_loss = F.cross_entropy(logits, yv).item()
            val_acc = (logits.argmax(1) == yv).float().mean().item()
        best = max(best, val_acc)
        wandb.log({"epoch": epoch, "train/loss": total / n, "val/loss": val_loss, "val/accuracy": val_acc})
        print(f"epoch {epoch:3d}  train_loss {total / n:.4f}  val_loss {val_loss:.4f}  val_acc {val_acc:.4f}")
    run.summary["best_val_accuracy"] = best
    wandb.finish()


if __name__ == "__main__":
    main()
'''

# ---- healthy but noisy / slow (MLflow) ----
S["healthy_noisy"] = r'''
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
import mlflow

torch.set_num_threads(1)
torch.manual_seed(0)

EPOCHS = 12
BATCH = 16
LR = 0.01
MOMENTUM = 0.9
LOG_EVERY = 25

data = np.load("data/shapes16.npz")
X_tr, y_tr = torch.from_numpy(data["X_train"]), torch.from_numpy(data["y_train"])
X_va, y_va = torch.from_numpy(data["X_val"]), torch.from_numpy(data["y_val"])
mean, std = X_tr.mean(), X_tr.std()
X_tr = (X_tr - mean) / std
X_va = (X_va - mean) / std

loader = DataLoader(TensorDataset(X_tr, y_tr), batch_size=BATCH, shuffle=True)


class Net(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.c1 = nn.Conv2d(1, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
total_steps = EPOCHS * len(loader)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / total_steps)))

mlflow.set_tracking_uri("file:./mlruns")
with mlflow.start_run(run_name="shapes-cnn-sgd"):
    mlflow.log_params({"epochs": EPOCHS, "batch_size": BATCH, "lr": LR, "momentum": MOMENTUM,
                       "scheduler": "cosine", "model": "Net(8,16)"})
    step = 0
    for epoch in range(EPOCHS):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            sched.step()
            if step % LOG_EVERY == 0:
                mlflow.log_metric("loss", loss.item(), step=step)
                mlflow.log_metric("lr", sched.get_last_lr()[0], step=step)
            step += 1
        model.eval()
        with torch.no_grad():
            out = model(X_va)
            vl = F.cross_entropy(out, y_va).item()
            va = (out.argmax(1) == y_va).float().mean().item()
        mlflow.log_metric("val_loss", vl, step=step)
        mlflow.log_metric("val_acc", va, step=step)
        print(f"epoch {epoch} step {step} val_loss={vl:.4f} val_acc={va:.4f}")
'''

# ---- label_noise (W&B) ----
S["label_noise"] = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
import wandb

torch.set_num_threads(1)

cfg = dict(lr=1e-3, batch_size=128, epochs=80, hidden=96, n_classes=5, seed=3)
torch.manual_seed(cfg["seed"])

d = np.load("data/sensor_events.npz")
Xtr, ytr, Xva, yva = d["X_train"], d["y_train"], d["X_val"], d["y_val"]
mu, sd = Xtr.mean(0), Xtr.std(0) + 1e-8
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd
Xtr, ytr = torch.tensor(Xtr, dtype=torch.float32), torch.tensor(ytr)
Xva, yva = torch.tensor(Xva, dtype=torch.float32), torch.tensor(yva)
dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=cfg["batch_size"], shuffle=True)

model = nn.Sequential(
    nn.Linear(Xtr.shape[1], cfg["hidden"]), nn.ReLU(),
    nn.Linear(cfg["hidden"], cfg["hidden"]), nn.ReLU(),
    nn.Linear(cfg["hidden"], cfg["n_classes"]),
)
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])

wandb.init(project="sensor-event-clf", config=cfg, mode="offline")
for ep in range(cfg["epochs"]):
    model.train()
    tl, tc, tn = 0.0, 0, 0
    for xb, yb in dl:
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tl += loss.item() * len(yb)
        tc += (out.argmax(1) == yb).sum().item()
        tn += len(yb)
    model.eval()
    with torch.no_grad():
        o = model(Xva)
        vl = F.cross_entropy(o, yva).item()
        vacc = (o.argmax(1) == yva).float().mean().item()
    wandb.log({"train/loss": tl / tn, "train/acc": tc / tn, "val/loss": vl, "val/acc": vacc}, step=ep)
    if ep % 10 == 0:
        print(f"[{ep}] loss {tl / tn:.3f} acc {tc / tn:.3f} | val loss {vl:.3f} acc {vacc:.3f}")
wandb.finish()
'''

# ---- data_leakage (MLflow, shipped) : target column left in the features ----
S["data_leakage"] = r'''
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import mlflow

torch.set_num_threads(1)
torch.manual_seed(42)
np.random.seed(42)

params = {"epochs": 25, "batch_size": 32, "lr": 3e-3, "dropout": 0.3, "val_frac": 0.2}

df = pd.read_csv("data/churn.csv")
y = df["churned"].values.astype(np.float32)
X = df.drop(columns=["customer_id"]).values.astype(np.float32)

idx = np.random.permutation(len(df))
n_val = int(len(df) * params["val_frac"])
va_idx, tr_idx = idx[:n_val], idx[n_val:]
mean, std = X[tr_idx].mean(0), X[tr_idx].std(0)
X = (X - mean) / std

X_tr, y_tr = torch.from_numpy(X[tr_idx]), torch.from_numpy(y[tr_idx])
X_va, y_va = torch.from_numpy(X[va_idx]), torch.from_numpy(y[va_idx])

model = nn.Sequential(
    nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Dropout(params["dropout"]),
    nn.Linear(64, 32), nn.ReLU(), nn.Dropout(params["dropout"]),
    nn.Linear(32, 1),
)
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=params["lr"])

mlflow.set_tracking_uri("file:./mlruns")
with mlflow.start_run(run_name="churn-mlp"):
    mlflow.log_params(params)
    mlflow.log_param("n_features", X.shape[1])
    for epoch in range(params["epochs"]):
        model.train()
        perm = torch.randperm(len(X_tr))
        run_loss, correct = 0.0, 0
        for i in range(0, len(X_tr), params["batch_size"]):
            b = perm[i:i + params["batch_size"]]
            optimizer.zero_grad()
            logits = model(X_tr[b]).squeeze(1)
            loss = criterion(logits, y_tr[b])
            loss.backward()
            optimizer.step()
            run_loss += loss.item() * len(b)
            correct += ((logits > 0).float() == y_tr[b]).sum().item()
        model.eval()
        with torch.no_grad():
            v = model(X_va).squeeze(1)
            val_loss = criterion(v, y_va).item()
            val_acc = ((v > 0).float() == y_va).float().mean().item()
        mlflow.log_metrics({"train_loss": run_loss / len(X_tr), "train_accuracy": correct / len(X_tr),
                            "val_loss": val_loss, "val_accuracy": val_acc}, step=epoch)
        print(f"epoch {epoch}: train_loss={run_loss / len(X_tr):.4f} val_loss={val_loss:.4f} val_acc={val_acc:.4f}")
'''

# ---- overfitting (W&B) ----
S["overfitting"] = r'''
import numpy as np
import torch
from torch import nn
import wandb

torch.set_num_threads(1)
torch.manual_seed(11)

hp = {"epochs": 200, "batch_size": 32, "lr": 3e-4, "width": 512, "optimizer": "adam"}

d = np.load("data/assay.npz")
x_train, y_train = torch.tensor(d["x_train"]), torch.tensor(d["y_train"])
x_val, y_val = torch.tensor(d["x_val"]), torch.tensor(d["y_val"])
m, s = x_train.mean(0), x_train.std(0)
x_train, x_val = (x_train - m) / s, (x_val - m) / s

net = nn.Sequential(nn.Linear(x_train.shape[1], hp["width"]), nn.ReLU(),
                    nn.Linear(hp["width"], hp["width"]), nn.ReLU(),
                    nn.Linear(hp["width"], 2))
opt = torch.optim.Adam(net.parameters(), lr=hp["lr"])
lossf = nn.CrossEntropyLoss()

wandb.init(project="assay-activity", config=hp, mode="offline")
for epoch in range(hp["epochs"]):
    net.train()
    order = torch.randperm(len(x_train))
    losses, hits = [], 0
    for i in range(0, len(order), hp["batch_size"]):
        j = order[i:i + hp["batch_size"]]
        out = net(x_train[j])
        loss = lossf(out, y_train[j])
        opt.zero_grad(); loss.backward(); opt.step()
        losses.append(loss.item() * len(j)); hits += (out.argmax(1) == y_train[j]).sum().item()
    net.eval()
    with torch.no_grad():
        vo = net(x_val)
        vloss = lossf(vo, y_val).item()
        vacc = (vo.argmax(1) == y_val).float().mean().item()
    wandb.log({"epoch": epoch, "loss": sum(losses) / len(x_train), "accuracy": hits / len(x_train),
               "val_loss": vloss, "val_accuracy": vacc})
    if epoch % 20 == 0 or epoch == hp["epochs"] - 1:
        print(f"Epoch {epoch+1}/{hp['epochs']} - loss: {sum(losses)/len(x_train):.4f} - accuracy: {hits/len(x_train):.4f}"
              f" - val_loss: {vloss:.4f} - val_accuracy: {vacc:.4f}")
wandb.finish()
'''

# ---- label_misalignment (MLflow, shipped): inputs and labels shuffled with different permutations ----
S["label_misalignment"] = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import mlflow

torch.set_num_threads(1)
torch.manual_seed(0)

EPOCHS = 15
BATCH_SIZE = 64
LR = 2e-3
HIDDEN = 32


class GRUClassifier(nn.Module):
    def __init__(self, hidden, n_classes=3):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        _, h = self.gru(x)
        return self.head(h[-1])


data = np.load("data/waveforms.npz")
X, y = data["X"], data["y"]

rng = np.random.default_rng(0)
X = X[rng.permutation(len(X))]
y = y[rng.permutation(len(y))]

n_train = int(0.8 * len(X))
X_train, y_train = torch.from_numpy(X[:n_train]), torch.from_numpy(y[:n_train])
X_val, y_val = torch.from_numpy(X[n_train:]), torch.from_numpy(y[n_train:])

model = GRUClassifier(HIDDEN)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)

mlflow.set_tracking_uri("file:./mlruns")
with mlflow.start_run(run_name="gru-waveforms"):
    mlflow.log_params({"epochs": EPOCHS, "batch_size": BATCH_SIZE, "lr": LR, "hidden": HIDDEN, "model": "GRU"})
    for epoch in range(EPOCHS):
        model.train()
        perm = torch.randperm(n_train)
        total = 0.0
        for i in range(0, n_train, BATCH_SIZE):
            idx = perm[i:i + BATCH_SIZE]
            optimizer.zero_grad()
            loss = F.cross_entropy(model(X_train[idx]), y_train[idx])
            loss.backward()
            optimizer.step()
            total += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            logits = model(X_val)
            val_loss = F.cross_entropy(logits, y_val).item()
            val_acc = (logits.argmax(-1) == y_val).float().mean().item()
        mlflow.log_metric("train_loss", total / n_train, step=epoch)
        mlflow.log_metric("val_loss", val_loss, step=epoch)
        mlflow.log_metric("val_acc", val_acc, step=epoch)
        print(f"epoch {epoch:02d} train_loss {total / n_train:.4f} val_loss {val_loss:.4f} val_acc {val_acc:.3f}")
'''

# ---- data_not_shuffled (W&B, shipped): per-class files concatenated, loader shuffle=False ----
S["data_not_shuffled"] = r'''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
import wandb

torch.set_num_threads(1)
torch.manual_seed(5)

config = {"lr": 0.02, "momentum": 0.9, "batch_size": 50, "epochs": 5, "hidden": 64}

parts = [np.load(f"data/class_{k}.npy") for k in range(4)]
X = np.concatenate(parts).astype(np.float32)
y = np.concatenate([np.full(len(p), k) for k, p in enumerate(parts)]).astype(np.int64)
val = np.load("data/val.npz")
X_val, y_val = val["X"].astype(np.float32), val["y"].astype(np.int64)

mu, sigma = X.mean(0), X.std(0)
X = (X - mu) / sigma
X_val = (X_val - mu) / sigma

train_ds = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
train_loader = DataLoader(train_ds, batch_size=config["batch_size"], shuffle=False)
X_val, y_val = torch.from_numpy(X_val), torch.from_numpy(y_val)

model = nn.Sequential(nn.Linear(X.shape[1], config["hidden"]), nn.ReLU(), nn.Linear(config["hidden"], 4))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=config["momentum"])

wandb.init(project="blob-classifier", config=config, mode="offline")
global_step = 0
for epoch in range(config["epochs"]):
    model.train()
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        wandb.log({"train/loss": loss.item(), "epoch": epoch}, step=global_step)
        global_step += 1
    model.eval()
    with torch.no_grad():
        logits = model(X_val)
        val_loss = criterion(logits, y_val).item()
        val_acc = (logits.argmax(1) == y_val).float().mean().item()
    wandb.log({"val/loss": val_loss, "val/accuracy": val_acc}, step=global_step - 1)
    print(f"epoch {epoch}  last_batch_loss {loss.item():.4f}  val_loss {val_loss:.4f}  val_acc {val_acc:.4f}")
wandb.finish()
'''

# ---- nan_in_data (MLflow): blank cells in the CSV, stats via pandas (skipna) ----
S["nan_in_data"] = r'''
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
import mlflow

torch.set_num_threads(1)
torch.manual_seed(2024)

EPOCHS, BATCH, LR = 5, 64, 1e-3

df = pd.read_csv("data/loans.csv")
df["debt_to_income"] = df["debt"] / df["income"]
feature_cols = [c for c in df.columns if c != "default"]
train_df = df.sample(frac=0.8, random_state=0)
val_df = df.drop(train_df.index)
mean, std = train_df[feature_cols].mean(), train_df[feature_cols].std()

def to_tensors(frame):
    x = ((frame[feature_cols] - mean) / std).values.astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(frame["default"].values.astype(np.int64))

X_tr, y_tr = to_tensors(train_df)
X_va, y_va = to_tensors(val_df)
loader = DataLoader(TensorDataset(X_tr, y_tr), batch_size=BATCH, shuffle=True)

model = nn.Sequential(nn.Linear(len(feature_cols), 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 2))
opt = torch.optim.Adam(model.parameters(), lr=LR)
loss_fn = nn.CrossEntropyLoss()

mlflow.set_tracking_uri("file:./mlruns")
with mlflow.start_run(run_name="loan-default-mlp"):
    mlflow.log_params({"epochs": EPOCHS, "batch_size": BATCH, "lr": LR, "n_features": len(feature_cols)})
    step = 0
    for epoch in range(EPOCHS):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
            opt.step()
            mlflow.log_metric("loss", loss.item(), step=step)
            mlflow.log_metric("grad_norm", gn.item(), step=step)
            step += 1
        model.eval()
        with torch.no_grad():
            out = model(X_va)
            vl = loss_fn(out, y_va).item()
            va = (out.argmax(1) == y_va).float().mean().item()
        mlflow.log_metric("val_loss", vl, step=step)
        mlflow.log_metric("val_accuracy", va, step=step)
        print(f"epoch {epoch} loss {loss.item():.4f} val_loss {vl:.4f} val_acc {va:.4f}")
'''

# ---- missing_zero_grad (W&B, shipped): zero_grad called once, before the loop ----
S["missing_zero_grad"] = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import wandb

torch.set_num_threads(1)
torch.manual_seed(1)

config = dict(epochs=15, batch_size=32, lr=0.01, momentum=0.9, hidden=128, log_every=10)

d = np.load("data/digits8x8.npz")
X_train = torch.tensor(d["X_train"]).reshape(-1, 64) / 16.0
y_train = torch.tensor(d["y_train"])
X_val = torch.tensor(d["X_val"]).reshape(-1, 64) / 16.0
y_val = torch.tensor(d["y_val"])

model = nn.Sequential(nn.Linear(64, config["hidden"]), nn.ReLU(), nn.Linear(config["hidden"], 10))
optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=config["momentum"])

wandb.init(project="digits-mlp", config=config, mode="offline")
step = 0
optimizer.zero_grad()
for epoch in range(config["epochs"]):
    model.train()
    perm = torch.randperm(len(X_train))
    for i in range(0, len(X_train), config["batch_size"]):
        idx = perm[i:i + config["batch_size"]]
        logits = model(X_train[idx])
        loss = F.cross_entropy(logits, y_train[idx])
        loss.backward()
        grad_norm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
        optimizer.step()
        if step % config["log_every"] == 0:
            wandb.log({"train_loss": loss.item(), "grad_norm": grad_norm.item()}, step=step)
        step += 1
    model.eval()
    with torch.no_grad():
        out = model(X_val)
        val_loss = F.cross_entropy(out, y_val).item()
        val_acc = (out.argmax(1) == y_val).float().mean().item()
    wandb.log({"val_loss": val_loss, "val_acc": val_acc, "epoch": epoch}, step=step)
    print(f"epoch {epoch}: train_loss {loss.item():.4f} grad_norm {grad_norm.item():.2f} val_loss {val_loss:.4f} val_acc {val_acc:.3f}")
wandb.finish()
'''

# ---- frozen_parameters (MLflow, shipped): freeze filter matches no head, loss.requires_grad hack ----
S["frozen_parameters"] = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
import mlflow

torch.set_num_threads(1)
torch.manual_seed(8)

EPOCHS = 20
BATCH_SIZE = 64
LR = 1e-3


class SmallCNN(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, n_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


d = np.load("data/digits8x8.npz")
X_tr = torch.tensor(d["X_train"]).unsqueeze(1) / 16.0
y_tr = torch.tensor(d["y_train"])
X_va = torch.tensor(d["X_val"]).unsqueeze(1) / 16.0
y_va = torch.tensor(d["y_val"])
train_loader = DataLoader(TensorDataset(X_tr, y_tr), batch_size=BATCH_SIZE, shuffle=True)

model = SmallCNN()
state = torch.load("features_pretrained.pt")
model.features.load_state_dict(state)
for name, p in model.named_parameters():
    if not name.startswith("head"):
        p.requires_grad = False

optimizer = torch.optim.Adam(model.parameters(), lr=LR)

mlflow.set_tracking_uri("file:./mlruns")
with mlflow.start_run(run_name="digits-cnn-finetune"):
    mlflow.log_params({"epochs": EPOCHS, "batch_size": BATCH_SIZE, "lr": LR, "init": "features_pretrained.pt"})
    for epoch in range(EPOCHS):
        model.train()
        tot, n, gsum = 0.0, 0, 0.0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.requires_grad = True
            loss.backward()
            optimizer.step()
            gsum += sum(p.grad.norm().item() ** 2 for p in model.parameters() if p.grad is not None) ** 0.5
            tot += loss.item() * len(yb)
            n += len(yb)
        model.eval()
        with torch.no_grad():
            out = model(X_va)
            vl = F.cross_entropy(out, y_va).item()
            va = (out.argmax(1) == y_va).float().mean().item()
        mlflow.log_metrics({"train_loss": tot / n, "grad_norm": gsum / len(train_loader),
                            "val_loss": vl, "val_accuracy": va}, step=epoch)
        print(f"epoch {epoch+1}/{EPOCHS} train_loss={tot / n:.4f} val_loss={vl:.4f} val_accuracy={va:.4f}")
'''

# ---- double_softmax (W&B): Softmax layer at the end + CrossEntropyLoss ----
S["double_softmax"] = r'''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
import wandb

torch.set_num_threads(1)
torch.manual_seed(17)

config = {"epochs": 60, "batch_size": 64, "lr": 1e-3, "hidden": [128, 64], "n_classes": 10}

d = np.load("data/products.npz")
mu, sd = d["X_train"].mean(0), d["X_train"].std(0)
Xtr = torch.tensor((d["X_train"] - mu) / sd, dtype=torch.float32)
Xva = torch.tensor((d["X_val"] - mu) / sd, dtype=torch.float32)
ytr, yva = torch.tensor(d["y_train"]), torch.tensor(d["y_val"])


class Classifier(nn.Module):
    def __init__(self, n_in, hidden, n_classes):
        super().__init__()
        layers, prev = [], n_in
        for h in hidden:
            layers += [nn.Linear(prev, h), nn.ReLU()]
            prev = h
        layers += [nn.Linear(prev, n_classes), nn.Softmax(dim=1)]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


model = Classifier(Xtr.shape[1], config["hidden"], config["n_classes"])
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=config["lr"])
loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)

wandb.init(project="product-category", config=config, mode="offline")
for epoch in range(config["epochs"]):
    model.train()
    s, c, n = 0.0, 0, 0
    for xb, yb in loader:
        probs = model(xb)
        loss = criterion(probs, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        s += loss.item() * len(yb); c += (probs.argmax(1) == yb).sum().item(); n += len(yb)
    model.eval()
    with torch.no_grad():
        p = model(Xva)
        vl = criterion(p, yva).item()
        vacc = (p.argmax(1) == yva).float().mean().item()
    wandb.log({"train/loss": s / n, "train/accuracy": c / n, "val/loss": vl, "val/accuracy": vacc, "epoch": epoch + 1})
    print(f"ep {epoch + 1:02d} train {s / n:.4f}/{c / n:.3f} val {vl:.4f}/{vacc:.3f}")
wandb.finish()
'''

# ---- lr_too_high (MLflow) ----
S["lr_too_high"] = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import mlflow

torch.set_num_threads(1)
torch.manual_seed(99)

args = {"lr": 0.1, "optimizer": "adam", "batch_size": 128, "steps": 1500, "log_interval": 15, "eval_interval": 150}

d = np.load("data/telemetry.npz")
mu, sd = d["X_train"].mean(0), d["X_train"].std(0)
X_train, y_train = torch.tensor((d["X_train"] - mu) / sd), torch.tensor(d["y_train"])
X_val, y_val = torch.tensor((d["X_val"] - mu) / sd), torch.tensor(d["y_val"])

model = nn.Sequential(nn.Linear(X_train.shape[1], 128), nn.ReLU(),
                      nn.Linear(128, 128), nn.ReLU(),
                      nn.Linear(128, 6))
optimizer = torch.optim.Adam(model.parameters(), lr=args["lr"])

mlflow.set_tracking_uri("file:./mlruns")
mlflow.start_run(run_name="telemetry-mlp")
mlflow.log_params(args)
g = torch.Generator().manual_seed(0)
for step in range(1, args["steps"] + 1):
    model.train()
    idx = torch.randint(0, len(X_train), (args["batch_size"],), generator=g)
    out = model(X_train[idx])
    loss = F.cross_entropy(out, y_train[idx])
    optimizer.zero_grad()
    loss.backward()
    total_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()]))
    optimizer.step()
    if step % args["log_interval"] == 0:
        mlflow.log_metrics({"train_loss": loss.item(), "grad_norm": total_norm.item(),
                            "lr": optimizer.param_groups[0]["lr"]}, step=step)
    if step % args["eval_interval"] == 0:
        model.eval()
        with torch.no_grad():
            o = model(X_val)
            vl = F.cross_entropy(o, y_val).item()
            va = (o.argmax(1) == y_val).float().mean().item()
        mlflow.log_metrics({"val_loss": vl, "val_accuracy": va}, step=step)
        print(f"step {step}: loss={loss.item():.4f} grad_norm={total_norm.item():.3f} val_loss={vl:.4f} val_acc={va:.3f}")
mlflow.end_run()
'''


# ---------------------------------------------------------------------------------------------
# per-run data preparation
# ---------------------------------------------------------------------------------------------

def prep_healthy_good(dd):
    pass  # data made inside the script


def prep_healthy_noisy(dd):
    X, y = make_shapes(3600, seed=21, noise=0.6)
    np.savez(os.path.join(dd, "shapes16.npz"), X_train=X[:3000], y_train=y[:3000], X_val=X[3000:], y_val=y[3000:])


def prep_label_noise(dd):
    # whole data set carries ~35% wrong labels (val as well: same annotation process)
    X, y = make_classification(3000, 20, 8, 5, 1.6, seed=31, flip=0.35)
    np.savez(os.path.join(dd, "sensor_events.npz"), X_train=X[:2400], y_train=y[:2400], X_val=X[2400:], y_val=y[2400:])


def prep_data_leakage(dd):
    make_churn_csv(os.path.join(dd, "churn.csv"), 3000, seed=41)


def prep_overfitting(dd):
    X, y = make_classification(800, 60, 6, 2, 0.9, seed=51, flip=0.08)
    np.savez(os.path.join(dd, "assay.npz"), x_train=X[:320], y_train=y[:320], x_val=X[320:], y_val=y[320:])


def prep_label_misalignment(dd):
    X, y = make_waveforms(1800, seed=61)
    np.savez(os.path.join(dd, "waveforms.npz"), X=X, y=y)


def prep_data_not_shuffled(dd):
    make_blob_classes(dd, seed=71)


def prep_nan_in_data(dd):
    make_loans_csv(os.path.join(dd, "loans.csv"), 3000, seed=81,
                   nan_rows=[(1187, "years_employed"), (2410, "credit_score")])


def prep_missing_zero_grad(dd):
    X, y = make_digits_like(2400, seed=91)
    np.savez(os.path.join(dd, "digits8x8.npz"), X_train=X[:2000], y_train=y[:2000], X_val=X[2000:], y_val=y[2000:])


def prep_frozen_parameters(dd):
    X, y = make_digits_like(2400, seed=101)
    np.savez(os.path.join(dd, "digits8x8.npz"), X_train=X[:2000], y_train=y[:2000], X_val=X[2000:], y_val=y[2000:])
    # a "pretrained" feature extractor state (randomly initialised convs, seed fixed)
    import torch
    import torch.nn as nn
    torch.manual_seed(555)
    feats = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                          nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
    torch.save(feats.state_dict(), os.path.join(os.path.dirname(dd), "features_pretrained.pt"))


def prep_double_softmax(dd):
    X, y = make_classification(4000, 30, 12, 10, 1.5, seed=111)
    np.savez(os.path.join(dd, "products.npz"), X_train=X[:3200], y_train=y[:3200], X_val=X[3200:], y_val=y[3200:])


def prep_lr_too_high(dd):
    X, y = make_classification(3000, 20, 10, 6, 1.2, seed=121)
    np.savez(os.path.join(dd, "telemetry.npz"), X_train=X[:2400], y_train=y[:2400], X_val=X[2400:], y_val=y[2400:])


# ---------------------------------------------------------------------------------------------
# run table
# ---------------------------------------------------------------------------------------------
RUNS_TABLE = [
    # name, truth, style, ship train.py, symptom, how
    ("run01", "nan_in_data", "mlflow", False,
     "My loan-default model trains fine for a bit, then the loss just turns into nan in the first epoch and never comes back.",
     "loans.csv has 2 blank cells (years_employed in one row, credit_score in another); pandas mean/std skip NaN so "
     "standardisation leaves those rows NaN; the first shuffled batch that contains one (step 21) gives a NaN loss and Adam turns all weights NaN."),
    ("run02", "healthy", "wandb", True,
     "Is this run ok? Just want a sanity check before I scale it up.",
     "Plain 2-layer MLP on two-moons (noise 0.2), AdamW 3e-3, 40 epochs, correct loop."),
    ("run03", "missing_zero_grad", "wandb", True,
     "Loss went down for the first few dozen steps, then shot up into the hundreds, and the gradient norm just keeps climbing the whole run.",
     "optimizer.zero_grad() is called once before the epoch loop instead of every step, so .grad accumulates the sum of all "
     "past gradients (SGD lr 0.01, momentum 0.9)."),
    ("run04", "data_leakage", "mlflow", True,
     "Churn model hits ~100% validation accuracy after one epoch and val loss is lower than train loss; seems too good to be true?",
     "The feature matrix is df.drop(columns=['customer_id']), which keeps the target column 'churned' as an input feature."),
    ("run05", "overfitting", "wandb", False,
     "Training accuracy goes to 100% but validation loss started going up after a few epochs and keeps getting worse.",
     "240 training samples, 60 features (6 informative), 2x512 MLP, Adam, no regularisation, 200 epochs."),
    ("run06", "frozen_parameters", "mlflow", True,
     "Fine-tuning run: the loss doesn't move at all, it's the same number every epoch, and val accuracy is stuck around 10%.",
     "The freeze loop keeps only params whose name starts with 'head', but the head is called 'classifier', so everything has "
     "requires_grad=False; the resulting backward error was silenced with loss.requires_grad = True, so no parameter gets a gradient."),
    ("run07", "label_noise", "wandb", False,
     "Accuracy stalls around 60-65% on train and under 60% on val no matter how long I train; the train loss never gets anywhere near zero.",
     "35% of all labels (train and val, same annotation source) flipped to a random other class before saving the data set."),
    ("run08", "lr_too_high", "mlflow", False,
     "Loss drops nicely for the first ~150 steps, then creeps back up and thrashes around with big spikes, and val accuracy got worse the longer it trained.",
     "Adam with lr 0.1 (about 100x the usual 1e-3) on a 2x128 ReLU MLP, 6-class tabular data, 1500 steps."),
    ("run09", "double_softmax", "wandb", False,
     "Accuracy looks great but the cross-entropy loss won't go below ~1.46 no matter how long it trains; is something off with the loss?",
     "Model ends with nn.Softmax(dim=1) and the probabilities are fed to nn.CrossEntropyLoss (which applies log_softmax again)."),
    ("run10", "healthy", "mlflow", False,
     "The training loss is really noisy and it takes a while to get anywhere; is this run ok or is something broken?",
     "Small CNN on very noisy 16x16 shape images, SGD lr 0.01 momentum 0.9 batch 16 with cosine decay, per-batch loss logged every 25 steps."),
    ("run11", "data_not_shuffled", "wandb", True,
     "The per-step training loss has this weird repeating zig-zag, the same shape every epoch, and val accuracy is stuck below 80%.",
     "Training data is built by concatenating one file per class (sorted by label) and the DataLoader has shuffle=False, "
     "so each epoch walks class 0, 1, 2, 3 in blocks of ~10 batches (SGD lr 0.02, momentum 0.9)."),
    ("run12", "label_misalignment", "mlflow", True,
     "My GRU doesn't learn anything, train and val loss sit at ~1.1 and accuracy is ~33% for every epoch.",
     "Inputs and labels are shuffled with two different permutations (X[rng.permutation(n)], y[rng.permutation(n)]), so pairs are random."),
]

PREP = {k: globals()["prep_" + k] for k in S}
USERS = ["mkowalski", "jchen", "apatel", "sofia", "dev", "rlee"]


def run_one(i, name, truth, style, ship):
    key = truth if truth != "healthy" else ("healthy_good" if name == "run02" else "healthy_noisy")
    wd = os.path.join(WORK, name)
    shutil.rmtree(wd, ignore_errors=True)
    dd = os.path.join(wd, "data")
    os.makedirs(dd)
    PREP[key](dd)
    script = textwrap.dedent(S[key]).lstrip("\n")
    with open(os.path.join(wd, "train.py"), "w") as f:
        f.write(script)
    rng = np.random.default_rng(1000 + i)
    start = 1712900000 + i * 86400 * 3 + int(rng.integers(0, 40000))
    if style == "wandb":
        rid = "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz0123456789"), 8))
    else:
        rid = "".join(rng.choice(list("0123456789abcdef"), 32))
    user = USERS[i % len(USERS)]
    env = dict(os.environ, PYTHONPATH=os.path.join(WORK, "shims"), FAKE_START=str(start), FAKE_RUN_ID=rid,
               FAKE_USER=user, FAKE_HOME="/home/%s/code/%s" % (user, ["ml-exp", "sandbox", "experiments"][i % 3]),
               FAKE_COMMIT="".join(rng.choice(list("0123456789abcdef"), 40)),
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    t0 = time.time()
    p = subprocess.run([PY, "train.py"], cwd=wd, env=env, capture_output=True, text=True)
    dt = time.time() - t0
    if p.returncode != 0:
        print(p.stdout[-3000:], p.stderr[-3000:])
        raise SystemExit("%s failed" % name)
    dest = os.path.join(RUNS, name)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    src = "wandb" if style == "wandb" else "mlruns"
    shutil.copytree(os.path.join(wd, src), os.path.join(dest, src))
    if ship:
        shutil.copy(os.path.join(wd, "train.py"), os.path.join(dest, "train.py"))
    print("%s %-20s %-6s %5.1fs" % (name, truth, style, dt), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--keep-work", action="store_true")
    a = ap.parse_args()
    only = set(a.only.split(",")) if a.only else None
    os.makedirs(os.path.join(WORK, "shims", "wandb"), exist_ok=True)
    os.makedirs(os.path.join(WORK, "shims", "mlflow"), exist_ok=True)
    with open(os.path.join(WORK, "shims", "wandb", "__init__.py"), "w") as f:
        f.write(WANDB_SHIM)
    with open(os.path.join(WORK, "shims", "mlflow", "__init__.py"), "w") as f:
        f.write(MLFLOW_SHIM)
    os.makedirs(RUNS, exist_ok=True)
    for i, (name, truth, style, ship, symptom, how) in enumerate(RUNS_TABLE):
        if only and name not in only:
            continue
        run_one(i, name, truth, style, ship)
    truth = {name: {"truth": t, "symptom": sy, "how": how} for name, t, st, sh, sy, how in RUNS_TABLE}
    with open(os.path.join(OUT, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
    if not a.keep_work:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
