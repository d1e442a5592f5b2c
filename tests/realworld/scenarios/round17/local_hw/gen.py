#!/usr/bin/env python
"""Generator for the 'local hardware' run folders (round 17).

Every run is produced by really executing a small user-style training script on CPU
(single thread) in a scratch folder next to this file.  A tiny sitecustomize shim makes
the scripts believe they are on the user's accelerator (MPS / CUDA) -- tensors stay on the
CPU, the device strings the scripts print are the user's.  Where a fault only exists on the
user's hardware (a CPU tensor fed to a CUDA conv, float64 sent to MPS) the shim raises the
error text those platforms print, from the same call site; the shim's own traceback frame is
removed afterwards.  Paths in the captured output are rewritten to the user's machine.

Usage:  python gen.py            (all runs)
        python gen.py run05 ...  (only some; truth.json is merged)
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")
WORK = os.path.join(HERE, "_work")
SHIM = os.path.join(WORK, "_shim")
SITE = sysconfig.get_paths()["purelib"]
STDLIB = sysconfig.get_paths()["stdlib"]

TRUTH = {}

# --------------------------------------------------------------------------------------
# shim
# --------------------------------------------------------------------------------------
SHIM_CODE = r'''
import os
if os.environ.get("SHIM_ACTIVE") == "1":
    import torch
    torch.set_num_threads(1)
    _seed = os.environ.get("SHIM_SEED")
    if _seed:
        import random
        import numpy as _np
        random.seed(int(_seed)); _np.random.seed(int(_seed)); torch.manual_seed(int(_seed))
    if os.environ.get("SHIM_SPAWN") == "1":
        import multiprocessing as _mp
        _mp.set_start_method("spawn", force=True)
    _accel = os.environ.get("SHIM_ACCEL", "")
    if _accel:
        import torch.nn as _nn
        import torch.nn.functional as _F
        _KIND = _accel
        _NO_FP64 = os.environ.get("SHIM_MPS_NO_FP64") == "1"
        _DEVCHECK = os.environ.get("SHIM_DEVCHECK") == "1"

        def _fake(d):
            if isinstance(d, str):
                return d.split(":")[0] == _KIND
            if isinstance(d, torch.device):
                return d.type == _KIND
            return False

        _orig_to = torch.Tensor.to

        def _to(self, *args, **kwargs):
            args = list(args)
            hit = None
            for i, a in enumerate(args):
                if _fake(a):
                    hit = a; args[i] = "cpu"
            if _fake(kwargs.get("device")):
                hit = kwargs["device"]; kwargs["device"] = "cpu"
            if hit is not None and _NO_FP64:
                want = kwargs.get("dtype")
                for a in args:
                    if isinstance(a, torch.dtype):
                        want = a
                if (want or self.dtype) == torch.float64:
                    raise TypeError("Cannot convert a MPS Tensor to float64 dtype as the MPS framework "
                                    "doesn't support float64. Please use float32 instead.")
            out = _orig_to(self, *args, **kwargs)
            if hit is not None:
                try:
                    out._shim_dev = _KIND
                except Exception:
                    pass
            return out
        torch.Tensor.to = _to

        def _tcuda(self, *a, **k):
            return _to(self, "cuda")
        torch.Tensor.cuda = _tcuda

        _orig_mto = _nn.Module.to

        def _mto(self, *args, **kwargs):
            args = list(args)
            hit = False
            for i, a in enumerate(args):
                if _fake(a):
                    hit = True; args[i] = "cpu"
            if _fake(kwargs.get("device")):
                hit = True; kwargs["device"] = "cpu"
            out = _orig_mto(self, *args, **kwargs)
            if hit:
                for p in self.parameters():
                    p._shim_dev = _KIND
            return out
        _nn.Module.to = _mto
        _nn.Module.cuda = lambda self, *a, **k: _mto(self, "cuda")

        if _KIND == "cuda":
            _name = os.environ.get("SHIM_GPU_NAME", "NVIDIA GeForce RTX 3060 Laptop GPU")
            torch.cuda.is_available = lambda: True
            torch.cuda.device_count = lambda: 1
            torch.cuda.get_device_name = lambda *a, **k: _name
            torch.cuda.current_device = lambda: 0
            torch.cuda.synchronize = lambda *a, **k: None
            torch.cuda.empty_cache = lambda: None
        else:
            torch.backends.mps.is_available = lambda: True
            torch.backends.mps.is_built = lambda: True
            torch.mps.synchronize = lambda: None
            torch.mps.empty_cache = lambda: None

        _orig_load = torch.load

        def _load(*a, **k):
            if _fake(k.get("map_location")):
                k["map_location"] = "cpu"
            return _orig_load(*a, **k)
        torch.load = _load

        import torch.utils.data as _tud
        _orig_dl_init = _tud.DataLoader.__init__

        def _dl_init(self, *a, **k):
            k["pin_memory"] = False
            _orig_dl_init(self, *a, **k)
        _tud.DataLoader.__init__ = _dl_init

        if _DEVCHECK:
            _oc2 = _F.conv2d

            def _conv2d(input, weight, *a, **k):
                if (getattr(weight, "_shim_dev", None) and input.grad_fn is None
                        and not getattr(input, "_shim_dev", None)):
                    raise RuntimeError("Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) "
                                       "should be the same or input should be a MKLDNN tensor and weight is a "
                                       "dense tensor")
                return _oc2(input, weight, *a, **k)
            _F.conv2d = _conv2d
'''


# The scratch venv has no psutil; this stand-in (reading /proc) gives the user scripts the two calls they use.
PSUTIL_STUB = r'''
import os
from collections import namedtuple

_mem = namedtuple("pmem", "rss vms shared")
_PAGE = os.sysconf("SC_PAGE_SIZE")


class Error(Exception):
    pass


class Process:
    def __init__(self, pid=None):
        self.pid = os.getpid() if pid is None else pid

    def memory_info(self):
        try:
            with open(f"/proc/{self.pid}/statm") as f:
                vms, rss, shared = (int(v) * _PAGE for v in f.read().split()[:3])
        except OSError as e:
            raise Error(str(e))
        return _mem(rss, vms, shared)

    memory_full_info = memory_info

    def name(self):
        with open(f"/proc/{self.pid}/comm") as f:
            return f.read().strip()

    def children(self, recursive=False):
        kids = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open(f"/proc/{d}/stat") as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                    kids.setdefault(ppid, []).append(int(d))
                except (OSError, IndexError, ValueError):
                    pass
        out, todo = [], [self.pid]
        while todo:
            for c in kids.get(todo.pop(), []):
                out.append(Process(c))
                if recursive:
                    todo.append(c)
        return out
'''


def write_shim():
    os.makedirs(SHIM, exist_ok=True)
    with open(os.path.join(SHIM, "sitecustomize.py"), "w") as f:
        f.write(SHIM_CODE)
    try:
        import psutil  # noqa: F401
    except ImportError:
        with open(os.path.join(SHIM, "psutil.py"), "w") as f:
            f.write(PSUTIL_STUB)


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------
def wfile(path, text, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode, newline="" if "b" not in mode else None) as f:
        f.write(text)


def run_script(work, argv, env_extra=None, timeout=180, watchdog=None):
    """Run `python argv...` in work; return (combined output, returncode, extra)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1",
                "PYTHONHASHSEED": "0", "PYTHONPATH": SHIM, "SHIM_ACTIVE": "1",
                "CUDA_VISIBLE_DEVICES": "", "TF_CPP_MIN_LOG_LEVEL": "3"})
    if env_extra:
        env.update(env_extra)
    p = subprocess.Popen([sys.executable] + list(argv), cwd=work, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    chunks = []
    t = threading.Thread(target=lambda: chunks.append(p.stdout.read()))
    t.start()
    extra = None
    t0 = time.time()
    try:
        if watchdog is not None:
            extra = watchdog(p)
        p.wait(timeout=max(1, timeout - (time.time() - t0)))
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise
    t.join()
    return chunks[0].decode("utf-8", "replace"), p.returncode, extra


def strip_shim_frames(text):
    out, skip = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith('  File "') and "sitecustomize.py" in line:
            skip = True
            continue
        if skip and line.startswith("    "):
            continue
        skip = False
        out.append(line)
    return "".join(out)


def rewrite_paths(text, work, plat):
    """Map scratch / venv / stdlib paths to the user's machine."""
    pairs = [(work.rstrip("/") + "/", plat["proj"] + "/"), (work.rstrip("/"), plat["proj"]),
             (SITE, plat["site"]), (STDLIB, plat["stdlib"]),
             ("/__w/pytorch/pytorch/", plat.get("build", "/pytorch/"))]
    for a, b in pairs:
        text = text.replace(a, b)
    if plat.get("win"):
        def fix(m):
            return m.group(0).replace("/", "\\")
        text = re.sub(r'[A-Z]:\\[^\s"]*', fix, text)
    return text


def line_of(src, needle, nth=1):
    k = 0
    for i, l in enumerate(src.splitlines(), 1):
        if needle in l:
            k += 1
            if k == nth:
                return i
    raise KeyError(needle)


def clean_output(text, work, plat):
    return rewrite_paths(strip_shim_frames(text), work, plat)


def fresh(name):
    w = os.path.join(WORK, name)
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    r = os.path.join(RUNS, name)
    shutil.rmtree(r, ignore_errors=True)
    os.makedirs(r)
    return w, r


def truth(name, t, symptom, how):
    TRUTH[name] = {"truth": t, "symptom": symptom, "how": how}


def cp(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)


# --------------------------------------------------------------------------------------
# platforms (where the user's files live)
# --------------------------------------------------------------------------------------
PLAT = {
    "run01": dict(proj="/home/arjun/code/shapes-cnn", site="/home/arjun/miniconda3/envs/dl/lib/python3.11/site-packages",
                  stdlib="/home/arjun/miniconda3/envs/dl/lib/python3.11"),
    "run02": dict(proj="C:\\Users\\Jonas\\Documents\\leafnet",
                  site="C:\\Users\\Jonas\\Documents\\leafnet\\.venv\\Lib\\site-packages",
                  stdlib="C:\\Users\\Jonas\\AppData\\Local\\Programs\\Python\\Python311\\Lib",
                  build="C:\\actions-runner\\_work\\pytorch\\pytorch\\pytorch\\", win=True),
    "run03": dict(proj="/home/mei/greenhouse", site="/home/mei/greenhouse/.venv/lib/python3.11/site-packages",
                  stdlib="/usr/lib/python3.11"),
    "run04": dict(proj="/Users/sofia/Projects/wine-quality",
                  site="/Users/sofia/miniforge3/envs/torch/lib/python3.11/site-packages",
                  stdlib="/Users/sofia/miniforge3/envs/torch/lib/python3.11",
                  build="/Users/runner/work/pytorch/pytorch/pytorch/"),
    "run05": dict(proj="/Users/tom/dev/energy-reg", site="/Users/tom/dev/energy-reg/.venv/lib/python3.11/site-packages",
                  stdlib="/opt/homebrew/Cellar/python@3.11/3.11.9/Frameworks/Python.framework/Versions/3.11/lib/python3.11",
                  build="/Users/runner/work/pytorch/pytorch/pytorch/"),
    "run06": dict(proj="/home/dani/projects/har-cnn", site="/home/dani/projects/har-cnn/venv/lib/python3.11/site-packages",
                  stdlib="/usr/lib/python3.11"),
    "run07": dict(proj="/content", site="/usr/local/lib/python3.11/dist-packages", stdlib="/usr/lib/python3.11"),
    "run08": dict(proj="/home/pk/fundus", site="/home/pk/miniconda3/envs/fundus/lib/python3.11/site-packages",
                  stdlib="/home/pk/miniconda3/envs/fundus/lib/python3.11"),
    "run09": dict(proj="C:\\Users\\lucas\\Desktop\\ecg_project",
                  site="C:\\Users\\lucas\\anaconda3\\envs\\ecg\\Lib\\site-packages",
                  stdlib="C:\\Users\\lucas\\anaconda3\\envs\\ecg\\Lib",
                  build="C:\\actions-runner\\_work\\pytorch\\pytorch\\pytorch\\", win=True),
    "run10": dict(proj="/content/drive/MyDrive/sensor_faults", site="/usr/local/lib/python3.11/dist-packages", stdlib="/usr/lib/python3.11"),
    "run11": dict(proj="C:\\Users\\Priya\\Documents\\GitHub\\shape-classifier",
                  site="C:\\Users\\Priya\\miniconda3\\envs\\torch\\Lib\\site-packages",
                  stdlib="C:\\Users\\Priya\\miniconda3\\envs\\torch\\Lib", build="C:\\actions-runner\\_work\\pytorch\\pytorch\\pytorch\\", win=True),
    "run12": dict(proj="/Users/ben/ml/churn", site="/Users/ben/ml/churn/venv/lib/python3.11/site-packages",
                  stdlib="/opt/homebrew/Cellar/python@3.11/3.11.9/Frameworks/Python.framework/Versions/3.11/lib/python3.11",
                  build="/Users/runner/work/pytorch/pytorch/pytorch/"),
}


# --------------------------------------------------------------------------------------
# run05 -- macOS M2 Pro, MPS, tabular regression
# --------------------------------------------------------------------------------------
RUN05_TRAIN = r'''import argparse
import csv
import json
import os
import time

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/building_energy.csv")
parser.add_argument("--epochs", type=int, default=8)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--lr", type=float, default=0.07)
parser.add_argument("--momentum", type=float, default=0.9)
parser.add_argument("--hidden", type=int, default=128)
parser.add_argument("--out", default="runs/mlp_sgd")
args = parser.parse_args()

device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
print(f"Using device: {device}")
torch.manual_seed(0)

df = pd.read_csv(args.data)
features = [c for c in df.columns if c != "net_load_kwh"]
X = df[features].values.astype(np.float32)
y = df["net_load_kwh"].values.astype(np.float32)[:, None]
X = (X - X.mean(axis=0)) / X.std(axis=0)

n_val = 1000
X_train, y_train = X[:-n_val], y[:-n_val]
X_val, y_val = X[-n_val:], y[-n_val:]
print(f"train {len(X_train)}  val {len(X_val)}  features {len(features)}")

train_loader = DataLoader(TensorDataset(torch.from_numpy(X_train), torch.from_numpy(y_train)),
                          batch_size=args.batch_size, shuffle=True)
X_val_t = torch.from_numpy(X_val).to(device)
y_val_t = torch.from_numpy(y_val).to(device)

model = nn.Sequential(
    nn.Linear(len(features), args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, 1),
).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
criterion = nn.MSELoss()

os.makedirs(args.out, exist_ok=True)
with open(os.path.join(args.out, "hparams.json"), "w") as f:
    json.dump(vars(args), f, indent=2)
log = open(os.path.join(args.out, "metrics.csv"), "w", newline="")
writer = csv.writer(log)
writer.writerow(["step", "epoch", "train_loss", "grad_norm", "lr"])

step = 0
for epoch in range(1, args.epochs + 1):
    model.train()
    t0 = time.time()
    total, count = 0.0, 0
    for xb, yb in train_loader:
        xb, yb = xb.to(device), yb.to(device)
        loss = criterion(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        grad_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
        optimizer.step()
        step += 1
        total += loss.item() * len(xb)
        count += len(xb)
        if step % 5 == 0:
            writer.writerow([step, epoch, f"{loss.item():.5f}", f"{grad_norm:.4f}", optimizer.param_groups[0]["lr"]])
    log.flush()
    model.eval()
    with torch.no_grad():
        pred = model(X_val_t)
        val_mse = criterion(pred, y_val_t).item()
        val_mae = (pred - y_val_t).abs().mean().item()
    print(f"epoch {epoch}/{args.epochs}  train_mse {total / count:.4f}  val_mse {val_mse:.4f}  "
          f"val_mae {val_mae:.4f}  ({time.time() - t0:.1f}s)")

torch.save(model.state_dict(), os.path.join(args.out, "model.pt"))
print("done")
'''


def gen_run05():
    name = "run05"
    w, r = fresh(name)
    plat = PLAT[name]
    rng = np.random.default_rng(0)
    n, d = 6000, 12
    X = rng.normal(size=(n, d))
    coef = rng.normal(size=d)
    y = X @ coef * 0.5 + np.sin(X[:, 0] * 2) + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n)
    cols = ["outdoor_temp", "humidity", "wind_speed", "solar_rad", "occupancy", "hour_sin", "hour_cos",
            "dow_sin", "dow_cos", "floor_area", "hvac_setpoint", "prev_day_load"]
    scale = np.array([8, 15, 3, 200, 40, 1, 1, 1, 1, 900, 2, 1.5])
    offs = np.array([12, 60, 4, 300, 120, 0, 0, 0, 0, 2500, 21, 6])
    import pandas as pd
    df = pd.DataFrame(X * scale + offs, columns=cols).round(3)
    df["net_load_kwh"] = np.round(y, 3)
    os.makedirs(os.path.join(w, "data"))
    df.to_csv(os.path.join(w, "data", "building_energy.csv"), index=False)
    wfile(os.path.join(w, "train.py"), RUN05_TRAIN)
    out, rc, _ = run_script(w, ["train.py"], {"SHIM_ACCEL": "mps"})
    assert rc == 0, out
    out = clean_output(out, w, plat)
    console = ("(.venv) tom@Toms-MacBook-Pro energy-reg % python train.py\n" + out +
               "(.venv) tom@Toms-MacBook-Pro energy-reg % \n")
    wfile(os.path.join(r, "console.txt"), console)
    cp(os.path.join(w, "runs/mlp_sgd/metrics.csv"), os.path.join(r, "runs/mlp_sgd/metrics.csv"))
    cp(os.path.join(w, "runs/mlp_sgd/hparams.json"), os.path.join(r, "runs/mlp_sgd/hparams.json"))
    wfile(os.path.join(r, "question.md"), RUN05_Q)
    wfile(os.path.join(r, "pip_freeze.txt"), PIP_MAC_BASIC)
    truth(name, "lr_too_high",
          "My loss goes down for the first ~70 steps and then jumps around and gets worse again; the val error after "
          "epoch 1 was the best of the whole run. Is MPS broken?",
          "SGD(momentum=0.9) at a constant lr=0.07 on an MSE regression MLP, just past the stable range for this "
          "problem (the same script at lr=0.05 reaches val MSE ~0.25): train loss falls to ~0.75 by step 70, jumps to "
          "~7 at step 90 with grad-norm spikes (27), partly recovers, then climbs again to 3-8 in epochs 7-8; val MSE "
          "best at epoch 1 (1.07) and ends at 2.14.")


RUN05_Q = """# MLP regression on M2 -- loss goes down then gets worse, MPS bug?

Hi all, first time posting here. I'm predicting hourly net energy load (kWh, negative when the solar panels
produce more than the building uses) from 12 weather/occupancy features (~5k rows for training, 1k held out)
with a small MLP, on a MacBook Pro M2 Pro using the MPS backend.

The loss drops nicely for the first ~70 steps and then it just... jumps around. Around step 90 it jumped to
~7, came back down to ~1 for a while, and in the last two epochs it got worse again. The val MSE after epoch 1
was the best one of the whole run, which makes no sense to me. I've seen threads saying MPS has numerical bugs,
so before I switch everything to CPU: is this an MPS thing? Or am I doing something dumb?

Setup: 2 hidden layers of 128 with ReLU, SGD with momentum (copied the optimizer settings from a course
notebook), MSELoss, batch 64, 8 epochs. Features are standardized. Hyperparams are in `runs/mlp_sgd/hparams.json`
and the per-step log is `runs/mlp_sgd/metrics.csv` (every 5 steps). Console output attached.

macOS 14.6.1, torch 2.13.0, Python 3.11 (homebrew), venv.
"""

PIP_MAC_BASIC = """filelock==3.16.1
fsspec==2024.10.0
Jinja2==3.1.4
MarkupSafe==3.0.2
mpmath==1.3.0
networkx==3.4.2
numpy==2.4.6
pandas==3.1.1
python-dateutil==2.9.0.post0
pytz==2024.2
six==1.16.0
sympy==1.13.3
torch==2.13.0
typing_extensions==4.12.2
tzdata==2024.2
"""


# --------------------------------------------------------------------------------------
# shared synthetic data
# --------------------------------------------------------------------------------------
def make_shapes(n, size=24, seed=0, channels=1, noise=0.25):
    """n images of 4 shape classes (circle, square, cross, triangle) with noise; uint8 or float."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    X = np.zeros((n, channels, size, size), np.float32)
    y = rng.integers(0, 4, n)
    for i in range(n):
        cx, cy = rng.uniform(size * 0.3, size * 0.7, 2)
        r = rng.uniform(size * 0.12, size * 0.25)
        if y[i] == 0:
            m = (xx - cx) ** 2 + (yy - cy) ** 2 < r * r
        elif y[i] == 1:
            m = (abs(xx - cx) < r) & (abs(yy - cy) < r)
        elif y[i] == 2:
            m = ((abs(xx - cx) < size * 0.05 + 0.5) | (abs(yy - cy) < size * 0.05 + 0.5)) & (abs(xx - cx) < r) & (abs(yy - cy) < r)
        else:
            m = (yy - cy > -r) & (abs(xx - cx) < (yy - cy + r) / 2) & (yy - cy < r)
        if channels == 1:
            X[i, 0] = m * rng.uniform(0.6, 1.0) + rng.normal(0, noise, (size, size))
        else:
            col = rng.uniform(0.3, 1.0, channels)
            bg = rng.uniform(0.0, 0.3, channels)
            for c in range(channels):
                X[i, c] = np.where(m, col[c], bg[c]) + rng.normal(0, noise, (size, size))
    return X, y.astype(np.int64)


# --------------------------------------------------------------------------------------
# run01 -- Ubuntu laptop, RTX 4060 Laptop, healthy CNN, TensorBoard
# --------------------------------------------------------------------------------------
RUN01_TRAIN = r"""import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.tensorboard import SummaryWriter


class SmallCNN(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2))
        self.block2 = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(32 * 6 * 6, 64), nn.ReLU(),
                                  nn.Linear(64, n_classes))

    def forward(self, x):
        return self.head(self.block2(self.block1(x)))


def run_epoch(model, loader, optimizer=None):
    train = optimizer is not None
    model.train(train)
    total_loss, correct, n = 0.0, 0, 0
    with torch.set_grad_enabled(train):
        for x, y in loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            if train:
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
            total_loss += loss.item() * len(x)
            correct += (logits.argmax(1) == y).sum().item()
            n += len(x)
    return total_loss / n, correct / n


parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--bs", type=int, default=64)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--logdir", default="tb_logs/shapes_cnn_v2")
args = parser.parse_args()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"device: {device} ({torch.cuda.get_device_name(0)})")
torch.manual_seed(42)

tr = np.load("data/shapes_train.npz")
va = np.load("data/shapes_val.npz")
train_ds = TensorDataset(torch.from_numpy(tr["x"]), torch.from_numpy(tr["y"]))
val_ds = TensorDataset(torch.from_numpy(va["x"]), torch.from_numpy(va["y"]))
train_loader = DataLoader(train_ds, batch_size=args.bs, shuffle=True, pin_memory=True)
val_loader = DataLoader(val_ds, batch_size=256, pin_memory=True)
print(f"train: {len(train_ds)}  val: {len(val_ds)}")

model = SmallCNN().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
writer = SummaryWriter(args.logdir)

for epoch in range(1, args.epochs + 1):
    t0 = time.time()
    tr_loss, tr_acc = run_epoch(model, train_loader, optimizer)
    va_loss, va_acc = run_epoch(model, val_loader)
    writer.add_scalar("loss/train", tr_loss, epoch)
    writer.add_scalar("loss/val", va_loss, epoch)
    writer.add_scalar("acc/train", tr_acc, epoch)
    writer.add_scalar("acc/val", va_acc, epoch)
    writer.add_scalar("lr", optimizer.param_groups[0]["lr"], epoch)
    scheduler.step()
    print(f"Epoch {epoch:02d}/{args.epochs} | train loss {tr_loss:.4f} acc {tr_acc:.3f} | "
          f"val loss {va_loss:.4f} acc {va_acc:.3f} | {time.time() - t0:.1f}s")

writer.close()
torch.save(model.state_dict(), "shapes_cnn_v2.pt")
print("saved shapes_cnn_v2.pt")
"""


def gen_run01():
    name = "run01"
    w, r = fresh(name)
    plat = PLAT[name]
    os.makedirs(os.path.join(w, "data"))
    Xtr, ytr = make_shapes(3000, seed=11, noise=0.18)
    Xva, yva = make_shapes(600, seed=12, noise=0.18)
    np.savez(os.path.join(w, "data/shapes_train.npz"), x=Xtr, y=ytr)
    np.savez(os.path.join(w, "data/shapes_val.npz"), x=Xva, y=yva)
    wfile(os.path.join(w, "train.py"), RUN01_TRAIN)
    out, rc, _ = run_script(w, ["train.py"], {"SHIM_ACCEL": "cuda", "SHIM_GPU_NAME": "NVIDIA GeForce RTX 4060 Laptop GPU"})
    assert rc == 0, out
    out = clean_output(out, w, plat)
    console = "(dl) arjun@legion:~/code/shapes-cnn$ python train.py\n" + out + "(dl) arjun@legion:~/code/shapes-cnn$ \n"
    wfile(os.path.join(r, "console.txt"), console)
    tbdir = os.path.join(w, "tb_logs/shapes_cnn_v2")
    for fn in os.listdir(tbdir):
        parts = fn.split(".")
        # events.out.tfevents.<time>.<host>.<pid>.<n>
        new = ".".join(parts[:4] + ["legion"] + parts[-2:])
        cp(os.path.join(tbdir, fn), os.path.join(r, "tb_logs/shapes_cnn_v2", new))
    wfile(os.path.join(r, "question.md"), RUN01_Q)
    wfile(os.path.join(r, "collect_env.txt"), RUN01_ENV)
    truth(name, "healthy",
          "First proper training run on my new laptop GPU -- is this ok, or is the val loss being a bit above the "
          "train loss at the end a sign of overfitting?",
          "No fault: 2-block BatchNorm CNN, Adam 1e-3 with cosine decay, 20 epochs on 3000 synthetic 24x24 shape "
          "images (4 classes); TensorBoard scalars loss/acc/lr.")


RUN01_Q = """# Is this training run ok? (first time training on my own GPU)

Just got a Legion laptop with an RTX 4060 (8 GB) and I'm trying to learn PyTorch properly instead of only using
Colab. Small CNN that classifies 24x24 grayscale doodles of 4 shapes (circle / square / cross / triangle). 3000
train images, 600 val, made by me.

I don't really know what "good" looks like. The console output is attached and the TensorBoard logs are in
`tb_logs/shapes_cnn_v2` (`tensorboard --logdir tb_logs`). At the end the val loss is a bit above the train loss
-- does that already mean it is overfitting? Should I be using early stopping or more dropout or is this just
fine? Anything else that looks off?

Env: Ubuntu 22.04, driver 550, conda env with torch 2.13.0+cu128, collect_env output attached.
"""

RUN01_ENV = """Collecting environment information...
PyTorch version: 2.13.0+cu128
Is debug build: False
CUDA used to build PyTorch: 12.8
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.5 LTS (x86_64)
GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
Clang version: Could not collect
CMake version: version 3.22.1
Libc version: glibc-2.35

Python version: 3.11.10 (main, Oct  3 2024, 07:29:13) [GCC 11.2.0] (64-bit runtime)
Python platform: Linux-6.8.0-49-generic-x86_64-with-glibc2.35
Is CUDA available: True
CUDA runtime version: Could not collect
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4060 Laptop GPU
Nvidia driver version: 550.120
cuDNN version: Could not collect
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True

CPU:
Architecture:                         x86_64
CPU op-mode(s):                       32-bit, 64-bit
Address sizes:                        39 bits physical, 48 bits virtual
Byte Order:                           Little Endian
CPU(s):                               20
On-line CPU(s) list:                  0-19
Vendor ID:                            GenuineIntel
Model name:                           13th Gen Intel(R) Core(TM) i7-13650HX
CPU family:                           6
Model:                                183
Thread(s) per core:                   2
Core(s) per socket:                   14
Socket(s):                            1

Versions of relevant libraries:
[pip3] numpy==2.4.6
[pip3] nvidia-cublas-cu12==12.8.4.1
[pip3] nvidia-cuda-runtime-cu12==12.8.90
[pip3] nvidia-cudnn-cu12==9.10.2.21
[pip3] torch==2.13.0+cu128
[pip3] tensorboard==2.21.0
[conda] numpy                     2.4.6                    pypi_0    pypi
[conda] torch                     2.13.0+cu128             pypi_0    pypi
"""


# --------------------------------------------------------------------------------------
# run11 -- Windows 11, conda, RTX 3050 Laptop; val batch left on the CPU
# --------------------------------------------------------------------------------------
RUN11_TRAIN = r"""import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

BATCH_SIZE = 32
EPOCHS = 10
LR = 0.001

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("Using device:", device, "-", torch.cuda.get_device_name(0))

data = np.load("data/shapes32.npz")
X_train, y_train = torch.tensor(data["X_train"]), torch.tensor(data["y_train"])
X_val, y_val = torch.tensor(data["X_val"]), torch.tensor(data["y_val"])
train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=BATCH_SIZE)
print(f"Train samples: {len(X_train)}, Val samples: {len(X_val)}")


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(64 * 8 * 8, 128)
        self.fc2 = nn.Linear(128, 4)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = self.dropout(F.relu(self.fc1(x)))
        return self.fc2(x)


model = Net().to(device)
criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(model.parameters(), lr=LR)
torch.manual_seed(0)


def train_one_epoch(epoch):
    model.train()
    running_loss = 0.0
    for i, (images, labels) in enumerate(train_loader):
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        outputs = model(images)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if (i + 1) % 25 == 0:
            print(f"[Epoch {epoch}, Batch {i + 1}/{len(train_loader)}] loss: {running_loss / 25:.4f}")
            running_loss = 0.0


def evaluate():
    model.eval()
    correct = 0
    total = 0
    with torch.no_grad():
        for images, labels in val_loader:
            outputs = model(images)
            _, predicted = torch.max(outputs, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    return correct / total


best_acc = 0.0
for epoch in range(1, EPOCHS + 1):
    train_one_epoch(epoch)
    val_acc = evaluate()
    print(f"Epoch {epoch}: val accuracy {val_acc:.4f}")
    if val_acc > best_acc:
        best_acc = val_acc
        torch.save(model.state_dict(), "best_model.pth")

print("Finished Training. Best val acc:", best_acc)
"""


def gen_run11():
    name = "run11"
    w, r = fresh(name)
    plat = PLAT[name]
    os.makedirs(os.path.join(w, "data"))
    Xtr, ytr = make_shapes(4000, size=32, seed=21, channels=3, noise=0.12)
    Xva, yva = make_shapes(800, size=32, seed=22, channels=3, noise=0.12)
    np.savez(os.path.join(w, "data/shapes32.npz"), X_train=Xtr, y_train=ytr, X_val=Xva, y_val=yva)
    wfile(os.path.join(w, "train.py"), RUN11_TRAIN)
    out, rc, _ = run_script(w, ["train.py"], {"SHIM_ACCEL": "cuda", "SHIM_DEVCHECK": "1",
                                              "SHIM_GPU_NAME": "NVIDIA GeForce RTX 3050 Laptop GPU"})
    assert rc == 1 and "Input type (torch.FloatTensor)" in out, out
    l11 = [float(v) for v in re.findall(r"\] loss: ([0-9.]+)", out)]
    out = clean_output(out, w, plat)
    prompt = "(torch) C:\\Users\\Priya\\Documents\\GitHub\\shape-classifier>"
    console = ("Microsoft Windows [Version 10.0.22631.4460]\n(c) Microsoft Corporation. All rights reserved.\n\n"
               "C:\\Users\\Priya>conda activate torch\n\n(torch) C:\\Users\\Priya>cd Documents\\GitHub\\shape-classifier\n\n"
               + prompt + "python train.py\n" + out + "\n" + prompt + "\n")
    wfile(os.path.join(r, "console.txt"), console.replace("\n", "\r\n"))
    wfile(os.path.join(r, "question.md"), RUN11_Q)
    wfile(os.path.join(r, "collect_env.txt"), RUN11_ENV)
    truth(name, "device_mismatch",
          "Training runs through the first epoch on my laptop GPU and then crashes with 'Input type (torch.FloatTensor) "
          "and weight type (torch.cuda.FloatTensor) should be the same' -- but I did call model.to(device)?",
          "The validation loop feeds the DataLoader batch to the CUDA model without .to(device) (the train loop does "
          f"move it); epoch 1 trains normally (25-batch mean loss {l11[0]:.2f} -> {l11[-1]:.2f}), then the first "
          "evaluate() raises the CPU-input vs CUDA-weight conv error. On the CPU-only laptop it ran on before, the "
          "bug is invisible.")


RUN11_Q = """**Title: RuntimeError Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same -- but I moved the model to cuda??**

Hello, I am doing a small project for my course, a CNN that classifies 32x32 colour images of 4 shapes. It
worked fine on my old laptop (no GPU) but it was very slow so I installed the CUDA version of PyTorch on my new
laptop with an RTX 3050. `torch.cuda.is_available()` gives True and the training starts and the loss goes down,
but after the first epoch it crashes with the error below.

I have `model = Net().to(device)` and I also move the images and labels to the device in the training loop.
I tried reinstalling pytorch with the cu128 wheel and updating the NVIDIA driver, same error. Is it a problem
with my GPU or with the driver? Full output is in console.txt and the environment in collect_env.txt.

Windows 11, Miniconda, Python 3.11, torch 2.13.0+cu128.

Thanks in advance!!
"""

RUN11_ENV = """Collecting environment information...
PyTorch version: 2.13.0+cu128
Is debug build: False
CUDA used to build PyTorch: 12.8
ROCM used to build PyTorch: N/A

OS: Microsoft Windows 11 Home (10.0.22631 64-bit)
GCC version: Could not collect
Clang version: Could not collect
CMake version: Could not collect
Libc version: N/A

Python version: 3.11.10 | packaged by Anaconda, Inc. | (main, Oct  3 2024, 07:22:26) [MSC v.1929 64 bit (AMD64)] (64-bit runtime)
Python platform: Windows-10-10.0.22631-SP0
Is CUDA available: True
CUDA runtime version: Could not collect
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3050 Laptop GPU
Nvidia driver version: 566.14
cuDNN version: Could not collect
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True

CPU:
Name: AMD Ryzen 5 7535HS with Radeon Graphics
Manufacturer: AuthenticAMD
Family: 107
Architecture: 9
ProcessorType: 3
DeviceID: CPU0
CurrentClockSpeed: 3301
MaxClockSpeed: 3301
L2CacheSize: 3072
L2CacheSpeed: None
Revision: 17665

Versions of relevant libraries:
[pip3] numpy==2.4.6
[pip3] torch==2.13.0+cu128
[pip3] torchaudio==2.13.0+cu128
[pip3] torchvision==0.28.0+cu128
[conda] numpy                     2.4.6                    pypi_0    pypi
[conda] torch                     2.13.0+cu128             pypi_0    pypi
[conda] torchaudio                2.13.0+cu128             pypi_0    pypi
[conda] torchvision               0.28.0+cu128             pypi_0    pypi
"""


# --------------------------------------------------------------------------------------
# run12 -- macOS M3 Air, MPS; float64 arrays from numpy
# --------------------------------------------------------------------------------------
RUN12_TRAIN = r"""import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="mps")
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=3e-4)
args = parser.parse_args()
device = torch.device(args.device)


class ChurnNet(nn.Module):
    def __init__(self, n_in):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_in, 64), nn.ReLU(), nn.Dropout(0.1),
            nn.Linear(64, 32), nn.ReLU(),
            nn.Linear(32, 1),
        )

    def forward(self, x):
        return self.net(x).squeeze(-1)


def train_epoch(model, loader, optimizer, criterion):
    model.train()
    total = 0.0
    for xb, yb in loader:
        xb = xb.to(device)
        yb = yb.to(device)
        optimizer.zero_grad()
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)
    return total / len(loader.dataset)


X_train = np.load("data/X_train.npy")
y_train = np.load("data/y_train.npy")
train_ds = TensorDataset(torch.from_numpy(X_train), torch.from_numpy(y_train))
train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)

model = ChurnNet(X_train.shape[1]).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
criterion = nn.BCEWithLogitsLoss()
print(f"training on {device} | {len(train_ds)} samples, {X_train.shape[1]} features")

for epoch in range(1, args.epochs + 1):
    loss = train_epoch(model, train_loader, optimizer, criterion)
    print(f"epoch {epoch:2d}  loss {loss:.4f}")

torch.save(model.state_dict(), "churn_mlp.pt")
"""


def gen_run12():
    name = "run12"
    w, r = fresh(name)
    plat = PLAT[name]
    rng = np.random.default_rng(12)
    n, d = 8000, 19
    X = rng.normal(size=(n, d))
    logit = X[:, :5] @ np.array([1.2, -0.8, 0.6, 0.0, 0.9]) - 0.5
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-logit))).astype(np.float64)
    os.makedirs(os.path.join(w, "data"))
    np.save(os.path.join(w, "data/X_train.npy"), X)          # float64, as pandas .to_numpy() gives
    np.save(os.path.join(w, "data/y_train.npy"), y)
    wfile(os.path.join(w, "train.py"), RUN12_TRAIN)
    out1, rc1, _ = run_script(w, ["train.py"], {"SHIM_ACCEL": "mps", "SHIM_MPS_NO_FP64": "1"})
    assert rc1 == 1 and "float64" in out1, out1
    out2, rc2, _ = run_script(w, ["train.py", "--device", "cpu"], {"SHIM_ACCEL": "mps"})
    assert rc2 == 1 and "mat1 and mat2 must have the same dtype" in out2, out2
    p = "(venv) ben@Bens-MacBook-Air churn % "
    console = (p + "python train.py\n" + clean_output(out1, w, plat) + p + "python train.py --device cpu\n"
               + clean_output(out2, w, plat) + p + "\n")
    wfile(os.path.join(r, "console.txt"), console)
    wfile(os.path.join(r, "question.md"), RUN12_Q)
    wfile(os.path.join(r, "pip_freeze.txt"), PIP_MAC_BASIC.replace("pandas==3.1.1\n", "pandas==3.1.1\nscikit-learn==1.5.2\nscipy==1.14.1\n"))
    truth(name, "dtype_mismatch",
          "My churn MLP won't even start on my M3: 'Cannot convert a MPS Tensor to float64 dtype', and on --device cpu "
          "it says mat1 and mat2 must have the same dtype (Double and Float).",
          "Features/labels saved from pandas as float64 .npy and wrapped with torch.from_numpy (keeps float64): on "
          "MPS the first .to('mps') of a batch raises the float64 TypeError; on CPU the float64 batch hits the "
          "float32 Linear weights ('mat1 and mat2 must have the same dtype, but got Double and Float'). No step is "
          "ever completed.")


RUN12_Q = """### MPS: "Cannot convert a MPS Tensor to float64 dtype" and on CPU "mat1 and mat2 must have the same dtype"

I'm new to PyTorch (coming from sklearn). I have a customer churn dataset that I preprocessed with pandas /
sklearn (one-hot + StandardScaler) and saved as `X_train.npy` / `y_train.npy`. Now I want to train a small MLP
on my MacBook Air M3 with MPS.

First run fails immediately with the float64 error. I read that MPS doesn't support everything yet, so I tried
`--device cpu` and it fails with a different error about mat1 and mat2. So it doesn't work on either device and
I'm a bit lost -- is my PyTorch install broken? I installed it with `pip install torch` in a venv (macOS 15.1,
Python 3.11). Both outputs are in console.txt, pip freeze attached.
"""


# --------------------------------------------------------------------------------------
# run06 -- Ubuntu laptop GTX 1650, HAR 1D-CNN, windowing leaves one short window
# --------------------------------------------------------------------------------------
RUN06_DATASET = r"""class HARWindows(Dataset):
    def __init__(self, root, win=WIN, stride=STRIDE):
        self.windows, self.labels = [], []
        for path in sorted(glob.glob(os.path.join(root, "*.npz"))):
            rec = np.load(path)
            sig, label = rec["acc"], int(rec["label"])
            T = sig.shape[1]
            for start in range(0, T - win + stride, stride):
                self.windows.append(sig[:, start:start + win])
                self.labels.append(label)

    def __len__(self):
        return len(self.windows)

    def __getitem__(self, i):
        x = torch.from_numpy(self.windows[i]).float()
        return x, self.labels[i]
"""

RUN06_TRAIN = r"""import glob
import os
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, random_split

WIN = 128
STRIDE = 64
ACTIVITIES = ["walking", "upstairs", "downstairs", "sitting", "standing", "laying"]


""" + RUN06_DATASET + r"""

class HARNet(nn.Module):
    def __init__(self, n_classes=6):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(3, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(32, 64, 5, padding=2), nn.BatchNorm1d(64), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(64, 64, 3, padding=1), nn.BatchNorm1d(64), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
        )
        self.fc = nn.Linear(64, n_classes)

    def forward(self, x):
        return self.fc(self.features(x).squeeze(-1))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    ds = HARWindows("data/recordings")
    n_val = int(0.15 * len(ds))
    train_ds, val_ds = random_split(ds, [len(ds) - n_val, n_val])
    print(f"{len(ds)} windows ({len(train_ds)} train / {len(val_ds)} val), device={device}")
    train_loader = DataLoader(train_ds, batch_size=32, shuffle=True, num_workers=2)
    val_loader = DataLoader(val_ds, batch_size=64, num_workers=2)

    model = HARNet().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(1, 21):
        model.train()
        t0 = time.time()
        for i, (x, y) in enumerate(train_loader, 1):
            x, y = x.to(device), y.to(device)
            out = model(x)
            loss = loss_fn(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if i % 5 == 0:
                acc = (out.argmax(1) == y).float().mean().item()
                print(f"epoch {epoch} | batch {i:3d}/{len(train_loader)} | loss {loss.item():.4f} | acc {acc:.3f}")
        model.eval()
        correct = 0
        with torch.no_grad():
            for x, y in val_loader:
                correct += (model(x.to(device)).argmax(1) == y.to(device)).sum().item()
        print(f"== epoch {epoch} done in {time.time() - t0:.1f}s | val acc {correct / len(val_ds):.3f}")
        torch.save(model.state_dict(), "har_cnn.pt")


if __name__ == "__main__":
    main()
"""


def gen_run06():
    name = "run06"
    w, r = fresh(name)
    plat = PLAT[name]
    rng = np.random.default_rng(6)
    rd = os.path.join(w, "data/recordings")
    os.makedirs(rd)
    t = np.arange(64 * 40) / 50.0
    k = 0
    for subj in range(1, 11):
        for act in range(6):
            T = 64 * int(rng.integers(18, 36))
            if subj == 7 and act == 2:
                T += 33          # this recording was cut off mid-chunk
            tt = t[:T] if T <= len(t) else np.arange(T) / 50.0
            f = [1.9, 1.6, 2.2, 0.0, 0.0, 0.0][act] * rng.uniform(0.9, 1.1)
            amp = [1.0, 1.2, 1.4, 0.05, 0.05, 0.05][act]
            grav = [[0, 0, 1], [0.1, 0, 1], [-0.1, 0, 1], [0.3, 0.2, 0.9], [0, 0, 1], [1, 0, 0.1]][act]
            sig = np.stack([grav[c] + amp * np.sin(2 * np.pi * f * tt + rng.uniform(0, 6)) * (0.5 + 0.5 * c)
                            + rng.normal(0, 0.15, T) for c in range(3)]).astype(np.float32)
            np.savez(os.path.join(rd, f"subj{subj:02d}_{k:03d}.npz"), acc=sig, label=act)
            k += 1
    wfile(os.path.join(w, "train.py"), RUN06_TRAIN)
    env = {"SHIM_ACCEL": "cuda", "SHIM_GPU_NAME": "NVIDIA GeForce GTX 1650"}
    out1, rc1, _ = run_script(w, ["train.py"], dict(env, SHIM_SEED="3"))
    assert rc1 == 1 and "DataLoader worker process" in out1, out1
    # the user then sets num_workers=0 "to see the real error"
    wfile(os.path.join(w, "train.py"), RUN06_TRAIN.replace("num_workers=2", "num_workers=0"))
    out2, rc2, _ = run_script(w, ["train.py"], dict(env, SHIM_SEED="4"))
    assert rc2 == 1 and "stack expects each tensor to be equal size" in out2, out2
    p = "(venv) dani@dani-G3-3590:~/projects/har-cnn$ "
    wfile(os.path.join(r, "console.txt"),
          p + "python train.py\n" + clean_output(out1, w, plat) + p + "nano train.py\n" + p + "python train.py\n"
          + clean_output(out2, w, plat) + p + "\n")
    wfile(os.path.join(r, "question.md"), RUN06_Q.replace("@@DATASET@@", RUN06_DATASET.rstrip()))
    wfile(os.path.join(r, "pip_freeze.txt"), PIP_LINUX_CUDA)
    truth(name, "shape_mismatch",
          "My HAR training crashes partway through the first epoch ('Trying to resize storage that is not resizable' "
          "in a DataLoader worker; with num_workers=0 it says 'stack expects each tensor to be equal size'), at a "
          "different batch each run.",
          "Sliding-window loop uses range(0, T - win + stride, stride): fine for recordings whose length is a "
          "multiple of the stride, but one truncated recording (T = 64k + 33) yields a final 97-sample window; the "
          "default collate fails on the batch that contains it after some normal training steps (in a worker: "
          "'Trying to resize storage that is not resizable'; with num_workers=0: 'stack expects each tensor to be "
          "equal size' with a [3, 97] entry next to [3, 128] ones).")


RUN06_Q = """## DataLoader worker crashes randomly: "Trying to resize storage that is not resizable" (1D CNN, accelerometer data)

I'm training a small 1D CNN for activity recognition (walking / stairs / sitting ...) on accelerometer
recordings I collected with my phone (10 people x 6 activities, each recording is a `.npz` with a `(3, T)`
array sampled at 50 Hz). I cut every recording into windows of 128 samples with 50% overlap.

Training starts fine, the loss goes down, and then somewhere in the first epoch it dies with
`RuntimeError: Caught RuntimeError in DataLoader worker process 1` / `Trying to resize storage that is not
resizable`. Googling that gave me shared-memory / Docker threads, but I'm not in Docker. I set `num_workers=0`
to get a cleaner error and now it says `stack expects each tensor to be equal size`, at a different batch.
Full console of both runs attached. All recordings have 3 channels so I don't get where a different size comes
from. Is this a bug in the DataLoader with `num_workers`? Ubuntu 22.04, GTX 1650 (4 GB), torch 2.13.

This is my dataset class:

```python
@@DATASET@@
```

with `WIN = 128` and `STRIDE = 64`. Batch size 32, `random_split` 85/15.
"""

PIP_LINUX_CUDA = """filelock==3.16.1
fsspec==2024.10.0
Jinja2==3.1.4
MarkupSafe==3.0.2
mpmath==1.3.0
networkx==3.4.2
numpy==2.4.6
nvidia-cublas-cu12==12.8.4.1
nvidia-cuda-cupti-cu12==12.8.90
nvidia-cuda-nvrtc-cu12==12.8.93
nvidia-cuda-runtime-cu12==12.8.90
nvidia-cudnn-cu12==9.10.2.21
nvidia-cufft-cu12==11.3.3.83
nvidia-curand-cu12==10.3.9.90
nvidia-cusolver-cu12==11.7.3.90
nvidia-cusparse-cu12==12.5.8.93
nvidia-nccl-cu12==2.27.3
nvidia-nvjitlink-cu12==12.8.93
nvidia-nvtx-cu12==12.8.90
sympy==1.13.3
torch==2.13.0
triton==3.5.0
typing_extensions==4.12.2
"""


# --------------------------------------------------------------------------------------
# run09 -- Windows 10, PowerShell, GTX 1660 Ti; batch-wise std with a last batch of 1
# --------------------------------------------------------------------------------------
RUN09_TRAIN = r"""import csv
import os
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

EPOCHS = 6
BATCH_SIZE = 32
LR = 1e-3
CLASSES = ["N", "S", "V", "F", "Q"]


def standardize(x):
    return (x - x.mean(dim=0, keepdim=True)) / x.std(dim=0, keepdim=True)


class BeatCNN(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(1, 16, 7, padding=3), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(32, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveMaxPool1d(8),
        )
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(32 * 8, 64), nn.ReLU(), nn.Linear(64, n_classes))

    def forward(self, x):
        return self.fc(self.conv(x))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("device:", device)

data = np.load(os.path.join("data", "beats.npz"))
X = torch.tensor(data["beats"], dtype=torch.float32).unsqueeze(1)
y = torch.tensor(data["labels"], dtype=torch.long)
dataset = TensorDataset(X, y)
train_set, val_set = random_split(dataset, [0.8, 0.2], generator=torch.Generator().manual_seed(0))
train_loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(val_set, batch_size=64)
print(f"train {len(train_set)} beats, val {len(val_set)} beats")

torch.manual_seed(0)
model = BeatCNN().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
criterion = nn.CrossEntropyLoss()

os.makedirs("logs", exist_ok=True)
with open(os.path.join("logs", "metrics.csv"), "w", newline="") as f:
    log = csv.writer(f)
    log.writerow(["epoch", "step", "train_loss"])
    step = 0
    for epoch in range(1, EPOCHS + 1):
        model.train()
        t0 = time.time()
        losses = []
        for xb, yb in train_loader:
            xb, yb = standardize(xb.to(device)), yb.to(device)
            loss = criterion(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            losses.append(loss.item())
            log.writerow([epoch, step, f"{loss.item():.6f}"])

        model.eval()
        correct, val_loss, n = 0, 0.0, 0
        with torch.no_grad():
            for xb, yb in val_loader:
                xb, yb = standardize(xb.to(device)), yb.to(device)
                out = model(xb)
                val_loss += criterion(out, yb).item() * len(xb)
                correct += (out.argmax(1) == yb).sum().item()
                n += len(xb)
        print(f"Epoch {epoch}/{EPOCHS}  train_loss={np.mean(losses):.4f}  val_loss={val_loss / n:.4f}  "
              f"val_acc={correct / n:.4f}  time={time.time() - t0:.1f}s")

torch.save(model.state_dict(), "beat_cnn.pt")
"""


def make_beats(n, rng):
    t = np.linspace(-1, 1, 187)
    y = rng.choice(5, size=n, p=[0.45, 0.15, 0.2, 0.1, 0.1])
    X = np.zeros((n, 187), np.float32)
    for i in range(n):
        sh = rng.normal(0, 0.03)
        qrs_w = [0.03, 0.03, 0.09, 0.06, 0.04][y[i]] * rng.uniform(0.8, 1.2)
        p_amp = [0.15, 0.0, 0.0, 0.08, 0.1][y[i]]
        t_amp = [0.3, 0.3, -0.35, 0.15, 0.2][y[i]]
        shift = [0.0, -0.15, 0.0, 0.0, 0.05][y[i]]
        beat = (p_amp * np.exp(-((t + 0.35 + shift - sh) / 0.06) ** 2)
                + np.exp(-((t - sh) / qrs_w) ** 2) * rng.uniform(0.8, 1.2)
                + t_amp * np.exp(-((t - 0.4 - sh) / 0.1) ** 2))
        if y[i] == 4:
            beat += 0.3 * np.sin(2 * np.pi * rng.uniform(3, 6) * t)
        X[i] = beat + rng.normal(0, 0.05, 187) + rng.normal(0, 0.05)
    return X, y


def gen_run09():
    name = "run09"
    w, r = fresh(name)
    plat = PLAT[name]
    rng = np.random.default_rng(9)
    X, y = make_beats(1281, rng)
    os.makedirs(os.path.join(w, "data"))
    np.savez(os.path.join(w, "data/beats.npz"), beats=X, labels=y)
    wfile(os.path.join(w, "train.py"), RUN09_TRAIN)
    out, rc, _ = run_script(w, ["train.py"], {"SHIM_ACCEL": "cuda", "SHIM_GPU_NAME": "NVIDIA GeForce GTX 1660 Ti"})
    assert rc == 0 and "degrees of freedom" in out, out
    out = clean_output(out, w, plat)
    p = "PS C:\\Users\\lucas\\Desktop\\ecg_project> "
    console = ("Windows PowerShell\nCopyright (C) Microsoft Corporation. All rights reserved.\n\n"
               "Install the latest PowerShell for new features and improvements! https://aka.ms/PSWindows\n\n"
               + p + "conda activate ecg\n(ecg) " + p + "python train.py\n" + out + "(ecg) " + p + "\n")
    wfile(os.path.join(r, "console.txt"), console.replace("\n", "\r\n"))
    cp(os.path.join(w, "logs/metrics.csv"), os.path.join(r, "logs/metrics.csv"))
    wfile(os.path.join(r, "train.py"), RUN09_TRAIN.replace("\n", "\r\n"))
    wfile(os.path.join(r, "question.md"), RUN09_Q)
    truth(name, "zero_variance_statistic",
          "Training starts fine but from the end of the first epoch every loss is nan and val accuracy is stuck; "
          "I also get a UserWarning about std() degrees of freedom that I don't understand.",
          "Each batch is standardised with its own statistics (x.std(dim=0)); the train split has 1025 beats "
          "= 32*32 + 1, so the last batch of every epoch holds a single sample: std over one element is NaN "
          "(the 'std(): degrees of freedom is <= 0' warning), the batch becomes NaN, the loss at step 33 is NaN "
          "and Adam writes NaN into every weight; all later losses are NaN.")


RUN09_Q = """**nan loss after first epoch + "std(): degrees of freedom is <= 0" warning**

Hi! I'm working on ECG heartbeat classification (5 classes, beats of 187 samples, ~1.3k beats -- a subset of
MIT-BIH I prepared myself) with a small 1D CNN. PC is Windows 10 with a GTX 1660 Ti, Anaconda, torch 2.13.

The loss goes down during the first epoch and then the epoch summary already says `train_loss=nan` and after
that everything is nan, val accuracy is just stuck at the same number. I printed the loss for every step into
`logs/metrics.csv`. There is also a warning before the first epoch line about `std(): degrees of freedom is <= 0` which I
don't understand -- I don't use any degrees of freedom anywhere.

I checked the data with `np.isnan(data["beats"]).any()` -> False, so there are no nan values in my data.
I also tried lowering the lr to 1e-4, same thing. Code (train.py) and the full PowerShell output attached.
What am I doing wrong?
"""


# --------------------------------------------------------------------------------------
# run03 -- WSL2 Ubuntu, RTX 3070 Laptop; a few empty cells in the CSV
# --------------------------------------------------------------------------------------
RUN03_TRAIN = r"""import csv
import time

import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

FEATURES = ["air_temp_c", "rel_humidity", "co2_ppm", "par_umol", "soil_moisture", "vpd_kpa",
            "hour_sin", "hour_cos", "vent_open_pct"]
TARGET = "transpiration_g_h"
EPOCHS = 3
BATCH_SIZE = 256
LR = 1e-3

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"using {device}: {torch.cuda.get_device_name(0)}")

df = pd.read_csv("data/greenhouse_2024.csv")
print(f"loaded {len(df)} rows")
df[FEATURES] = (df[FEATURES] - df[FEATURES].mean()) / df[FEATURES].std()
y_mean, y_std = df[TARGET].mean(), df[TARGET].std()
df[TARGET] = (df[TARGET] - y_mean) / y_std

train_df = df.sample(frac=0.85, random_state=0)
val_df = df.drop(train_df.index)


def to_tensors(frame):
    return (torch.tensor(frame[FEATURES].values, dtype=torch.float32),
            torch.tensor(frame[TARGET].values, dtype=torch.float32).unsqueeze(1))


train_loader = DataLoader(TensorDataset(*to_tensors(train_df)), batch_size=BATCH_SIZE, shuffle=True)
X_val, y_val = (t.to(device) for t in to_tensors(val_df))

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(len(FEATURES), 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                      nn.Linear(64, 1)).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=1e-4)
mse = nn.MSELoss()

logf = open("train_log.csv", "w", newline="")
log = csv.writer(logf)
log.writerow(["epoch", "step", "loss", "lr"])
step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    running = 0.0
    for xb, yb in train_loader:
        xb, yb = xb.to(device), yb.to(device)
        loss = mse(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        running += loss.item()
        log.writerow([epoch, step, f"{loss.item():.6f}", LR])
        if step % 10 == 0:
            print(f"  step {step:4d}  loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        val_loss = mse(model(X_val), y_val).item()
    print(f"epoch {epoch}: train {running / len(train_loader):.4f}  val {val_loss:.4f}  ({time.time() - t0:.1f}s)")
logf.close()
torch.save(model.state_dict(), "transpiration_mlp.pt")
"""


def gen_run03():
    name = "run03"
    w, r = fresh(name)
    plat = PLAT[name]
    import pandas as pd
    rng = np.random.default_rng(3)
    n = 20000
    hour = rng.integers(0, 24, n)
    par = np.clip(1200 * np.sin(np.pi * (hour - 6) / 14), 0, None) * rng.uniform(0.5, 1.1, n)
    temp = 18 + 10 * par / 1200 + rng.normal(0, 1.5, n)
    rh = np.clip(85 - 30 * par / 1200 + rng.normal(0, 5, n), 20, 100)
    vpd = 0.611 * np.exp(17.27 * temp / (temp + 237.3)) * (1 - rh / 100)
    co2 = 420 + 400 * (par < 50) + rng.normal(0, 40, n)
    soil = rng.uniform(0.15, 0.45, n)
    vent = np.clip(5 * (temp - 20) + rng.normal(0, 10, n), 0, 100)
    transp = 40 * vpd * (par / 1200 + 0.05) * (soil / 0.3) ** 0.5 + rng.normal(0, 2, n)
    df = pd.DataFrame({"timestamp": pd.date_range("2024-03-01", periods=n, freq="15min").strftime("%Y-%m-%d %H:%M"),
                       "air_temp_c": temp.round(2), "rel_humidity": rh.round(1), "co2_ppm": co2.round(0),
                       "par_umol": par.round(1), "soil_moisture": soil.round(3), "vpd_kpa": vpd.round(3),
                       "hour_sin": np.sin(2 * np.pi * hour / 24).round(4), "hour_cos": np.cos(2 * np.pi * hour / 24).round(4),
                       "vent_open_pct": vent.round(1), "transpiration_g_h": transp.round(2)})
    bad = rng.choice(n, size=4, replace=False)
    df["co2_ppm"] = df["co2_ppm"].astype(float)
    df.loc[bad, "co2_ppm"] = np.nan           # sensor dropped out: empty cells in the export
    os.makedirs(os.path.join(w, "data"))
    df.to_csv(os.path.join(w, "data/greenhouse_2024.csv"), index=False)
    wfile(os.path.join(w, "train.py"), RUN03_TRAIN)
    out, rc, _ = run_script(w, ["train.py"], {"SHIM_ACCEL": "cuda", "SHIM_GPU_NAME": "NVIDIA GeForce RTX 3070 Laptop GPU"})
    assert rc == 0, out
    out = clean_output(out, w, plat)
    logrows = open(os.path.join(w, "train_log.csv")).read().splitlines()[1:]
    first_nan = next(int(l.split(",")[1]) for l in logrows if "nan" in l)
    assert first_nan >= 8, first_nan
    p = "(.venv) mei@DESKTOP-4KQ2M7B:~/greenhouse$ "
    wfile(os.path.join(r, "console.txt"), p + "python train.py\n" + out + p + "\n")
    cp(os.path.join(w, "train_log.csv"), os.path.join(r, "train_log.csv"))
    wfile(os.path.join(r, "train.py"), RUN03_TRAIN)
    import io
    buf = io.StringIO()
    pd.read_csv(os.path.join(w, "data/greenhouse_2024.csv")).info(buf=buf)
    info = buf.getvalue()
    wfile(os.path.join(r, "question.md"), RUN03_Q.replace("@@INFO@@", info.rstrip()))
    wfile(os.path.join(r, "pip_freeze.txt"), PIP_LINUX_CUDA.replace("numpy==2.4.6\n", "numpy==2.4.6\npandas==3.1.1\n"))
    truth(name, "nan_in_data",
          f"Loss is fine for the first {first_nan - 1} steps and then suddenly becomes nan and stays nan for the rest "
          "of training, on WSL2 with my laptop GPU -- is it a CUDA-on-WSL problem?",
          f"4 of 20000 rows in the CSV have an empty co2_ppm cell; pandas mean/std skip NaN, so the standardised "
          f"frame keeps those NaNs and they go into the tensors. The first shuffled batch containing one (step "
          f"{first_nan}) gives a NaN loss after finite, falling losses; AdamW then writes NaN into the weights and "
          f"every later loss and the val loss are NaN.")


RUN03_Q = """# Loss suddenly becomes nan after a few steps (WSL2 + CUDA)

Hi, I'm predicting plant transpiration from greenhouse climate sensors (15-minute data for 2024, ~20k rows)
with a small MLP. I run it in WSL2 (Ubuntu 22.04) on a Windows laptop with an RTX 3070, CUDA works in WSL
(`torch.cuda.is_available()` is True).

The loss starts around 1 and goes down like it should, and then at some step it suddenly becomes `nan` and
stays nan forever (also the val loss). There is no spike before, it is just nan from one step to the next.
I log every step into `train_log.csv`. I already lowered the lr from 1e-2 to 1e-3 and it didn't change
anything. Could this be a WSL / CUDA driver issue? I read that WSL2 GPU support is still a bit flaky.
train.py and the console output attached. This is `df.info()` of my data, the columns are all float:

```
@@INFO@@
```
"""


# --------------------------------------------------------------------------------------
# run04 -- macOS M1 Air, MPS; predict.py never switches the model to eval mode
# --------------------------------------------------------------------------------------
RUN04_MODEL = r"""import torch.nn as nn

FEATURES = ["fixed_acidity", "volatile_acidity", "citric_acid", "residual_sugar", "chlorides",
            "free_sulfur_dioxide", "total_sulfur_dioxide", "density", "pH", "sulphates", "alcohol"]
CLASSES = ["low", "medium", "high"]


class WineNet(nn.Module):
    def __init__(self, n_in, n_classes=3, p_drop=0.4):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_in, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(p_drop),
            nn.Linear(128, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(p_drop),
            nn.Linear(64, n_classes),
        )

    def forward(self, x):
        return self.net(x)
"""

RUN04_TRAIN = r"""import json
import os

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from model import FEATURES, WineNet

device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
print("device:", device)
torch.manual_seed(1)
np.random.seed(1)

df = pd.read_csv("data/train.csv")
idx = np.random.permutation(len(df))
n_val = int(0.15 * len(df))
val_df, train_df = df.iloc[idx[:n_val]], df.iloc[idx[n_val:]]

mean = train_df[FEATURES].values.mean(axis=0)
std = train_df[FEATURES].values.std(axis=0)


def prep(frame):
    X = ((frame[FEATURES].values - mean) / std).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(frame["quality_class"].values)


X_tr, y_tr = prep(train_df)
X_va, y_va = prep(val_df)
train_loader = DataLoader(TensorDataset(X_tr, y_tr), batch_size=64, shuffle=True)
val_loader = DataLoader(TensorDataset(X_va, y_va), batch_size=256)

model = WineNet(len(FEATURES)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
criterion = nn.CrossEntropyLoss()
os.makedirs("checkpoints", exist_ok=True)
with open("checkpoints/norm.json", "w") as f:
    json.dump({"mean": mean.tolist(), "std": std.tolist()}, f)

best = 0.0
for epoch in range(1, 31):
    model.train()
    tr_loss = 0.0
    for xb, yb in train_loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        tr_loss += loss.item() * len(xb)
    model.eval()
    correct, va_loss = 0, 0.0
    with torch.no_grad():
        for xb, yb in val_loader:
            xb, yb = xb.to(device), yb.to(device)
            logits = model(xb)
            va_loss += criterion(logits, yb).item() * len(xb)
            correct += (logits.argmax(1) == yb).sum().item()
    va_acc = correct / len(X_va)
    msg = f"epoch {epoch:2d}  train_loss {tr_loss / len(X_tr):.4f}  val_loss {va_loss / len(X_va):.4f}  val_acc {va_acc:.4f}"
    if va_acc > best:
        best = va_acc
        torch.save(model.state_dict(), "checkpoints/best.pt")
        msg += "  *saved*"
    print(msg)
print(f"best val_acc {best:.4f}")
"""

RUN04_PREDICT = r"""import json

import numpy as np
import pandas as pd
import torch
from torch.utils.data import DataLoader, TensorDataset

from model import CLASSES, FEATURES, WineNet

device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")

norm = json.load(open("checkpoints/norm.json"))
df = pd.read_csv("data/test.csv")
X = ((df[FEATURES].values - np.array(norm["mean"])) / np.array(norm["std"])).astype(np.float32)
y = df["quality_class"].values

model = WineNet(len(FEATURES)).to(device)
model.load_state_dict(torch.load("checkpoints/best.pt", map_location=device))

preds = []
with torch.no_grad():
    for (xb,) in DataLoader(TensorDataset(torch.from_numpy(X)), batch_size=16):
        preds.append(model(xb.to(device)).argmax(dim=1).cpu())
preds = torch.cat(preds).numpy()

print(f"test samples: {len(y)}")
print(f"test accuracy: {(preds == y).mean():.4f}")
cm = pd.crosstab(pd.Series(y, name="true").map(dict(enumerate(CLASSES))),
                 pd.Series(preds, name="pred").map(dict(enumerate(CLASSES))))
print(cm)
pd.DataFrame({"id": df["id"], "pred": [CLASSES[p] for p in preds]}).to_csv("predictions.csv", index=False)
"""


def make_wine(n, rng):
    z = rng.normal(size=(n, 11))
    score = 1.1 * z[:, 10] - 0.8 * z[:, 1] + 0.5 * z[:, 9] - 0.3 * z[:, 4] + 0.35 * z[:, 2] * z[:, 10] + rng.normal(0, 0.25, n)
    cls = np.digitize(score, [-0.7, 0.7])
    loc = np.array([8.3, 0.53, 0.27, 2.5, 0.087, 15.9, 46.5, 0.9967, 3.31, 0.66, 10.4])
    sc = np.array([1.7, 0.18, 0.19, 1.4, 0.047, 10.5, 32.9, 0.0019, 0.15, 0.17, 1.07])
    X = loc + sc * z
    import pandas as pd
    from types import SimpleNamespace  # noqa: F401
    cols = ["fixed_acidity", "volatile_acidity", "citric_acid", "residual_sugar", "chlorides",
            "free_sulfur_dioxide", "total_sulfur_dioxide", "density", "pH", "sulphates", "alcohol"]
    df = pd.DataFrame(X.round(4), columns=cols)
    df["quality_class"] = cls
    return df


def gen_run04():
    name = "run04"
    w, r = fresh(name)
    plat = PLAT[name]
    rng = np.random.default_rng(4)
    tr = make_wine(3000, rng)
    te = make_wine(600, rng)
    te.insert(0, "id", np.arange(10001, 10601))
    os.makedirs(os.path.join(w, "data"))
    tr.to_csv(os.path.join(w, "data/train.csv"), index=False)
    te.to_csv(os.path.join(w, "data/test.csv"), index=False)
    wfile(os.path.join(w, "model.py"), RUN04_MODEL)
    wfile(os.path.join(w, "train.py"), RUN04_TRAIN)
    wfile(os.path.join(w, "predict.py"), RUN04_PREDICT)
    env = {"SHIM_ACCEL": "mps"}
    out_t, rc, _ = run_script(w, ["train.py"], env)
    assert rc == 0, out_t
    outs = []
    for sd in ("101", "202", "303"):
        o, rc, _ = run_script(w, ["predict.py"], dict(env, SHIM_SEED=sd))
        assert rc == 0, o
        outs.append(clean_output(o, w, plat))
    # control (not shipped): the same predict.py with model.eval() restores val-level accuracy
    wfile(os.path.join(w, "predict_eval.py"),
          RUN04_PREDICT.replace("preds = []\n", "model.eval()\npreds = []\n"))
    o_ctrl, rc, _ = run_script(w, ["predict_eval.py"], env)
    acc_ctrl = float(re.search(r"test accuracy: ([0-9.]+)", o_ctrl).group(1))
    accs = [float(re.search(r"test accuracy: ([0-9.]+)", o).group(1)) for o in outs]
    best = float(re.search(r"best val_acc ([0-9.]+)", out_t).group(1))
    assert max(accs) < best - 0.05 and abs(acc_ctrl - best) < 0.04, (accs, acc_ctrl, best)
    p = "(torch) sofia@Sofias-MacBook-Air wine-quality % "
    console_t = p + "python train.py\n" + clean_output(out_t, w, plat) + p + "\n"
    console_p = "".join(p + "python predict.py\n" + o for o in outs) + p + "\n"
    wfile(os.path.join(r, "train_output.txt"), console_t)
    wfile(os.path.join(r, "predict_output.txt"), console_p)
    wfile(os.path.join(r, "model.py"), RUN04_MODEL)
    wfile(os.path.join(r, "train.py"), RUN04_TRAIN)
    wfile(os.path.join(r, "predict.py"), RUN04_PREDICT)
    wfile(os.path.join(r, "question.md"), RUN04_Q.replace("@@BEST@@", f"{best:.2f}").replace(
        "@@ACCS@@", ", ".join(f"{a:.3f}" for a in accs)))
    wfile(os.path.join(r, "environment.txt"), RUN04_ENV)
    truth(name, "eval_mode_forgotten",
          f"Val accuracy during training is {best:.2f} but my predict script only gets {min(accs):.2f}-{max(accs):.2f} on the "
          "test set, and it gives a different number every time I run it.",
          f"predict.py loads the best checkpoint and predicts in batches of 16 under torch.no_grad() but never calls "
          f"model.eval(): Dropout(0.4) stays active and BatchNorm normalises each 16-row batch with its own stats. "
          f"Three runs give {', '.join(f'{a:.3f}' for a in accs)} vs best val_acc {best:.4f}; the same script with "
          f"model.eval() gives {acc_ctrl:.4f} (control run, not shipped).")


RUN04_Q = """# Test accuracy much lower than validation accuracy and changes every run (M1, MPS)

Hello! I have a small classifier for wine quality (low / medium / high, 11 physico-chemical features) and I'm
confused. During training the best val accuracy is about @@BEST@@ (`train_output.txt`). Then I run
`predict.py` on the separate test file (same source, same preprocessing, I load the mean/std saved during
training) and I get @@ACCS@@ -- three runs of the same command, same checkpoint, three different numbers
(`predict_output.txt`).

Why would the accuracy change between runs when I'm only doing inference with `torch.no_grad()`? Is MPS
non-deterministic? I tried to set `torch.manual_seed` in predict.py but then it's always the same low number.
And why is it so much lower than validation? I don't think the test set is different, it's a random split of the
same data.

All three scripts attached (model.py, train.py, predict.py). MacBook Air M1 8 GB, macOS 14.7, miniforge,
torch 2.13.0.
"""

RUN04_ENV = """$ python -c "import torch, platform; print(torch.__version__, platform.platform(), torch.backends.mps.is_available(), torch.backends.mps.is_built())"
2.13.0 macOS-14.7-arm64-arm-64bit True True
$ conda list | grep -E "numpy|pandas|torch|python "
numpy                     2.4.6           py311h2c5b7a3_0    conda-forge
pandas                    3.1.1           py311h8ab1e4f_0    conda-forge
python                    3.11.10         hc51fdd5_3_cpython conda-forge
pytorch                   2.13.0          py3.11_0           pytorch
"""


# --------------------------------------------------------------------------------------
# run10 -- Colab; refactor changed the train/test split
# --------------------------------------------------------------------------------------
RUN10_V1 = r"""import argparse

import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--batch_size", type=int, default=32)
args = parser.parse_args()

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"

df = pd.read_csv("data/sensor_faults.csv")
X = torch.tensor(df.drop(columns=["fault"]).values, dtype=torch.float32)
y = torch.tensor(df["fault"].values, dtype=torch.long)
X = (X - X.mean(0)) / X.std(0)
dataset = TensorDataset(X, y)
train_ds, test_ds = random_split(dataset, [0.8, 0.2], generator=torch.Generator().manual_seed(42))
train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)
test_loader = DataLoader(test_ds, batch_size=256)
print(f"train {len(train_ds)} / test {len(test_ds)}")

model = nn.Sequential(nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
loss_fn = nn.CrossEntropyLoss()


def accuracy(loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for xb, yb in loader:
            pred = model(xb.to(device)).argmax(1)
            correct += (pred == yb.to(device)).sum().item()
            total += len(yb)
    return correct / total


for epoch in range(1, args.epochs + 1):
    model.train()
    tot = 0.0
    for xb, yb in train_loader:
        xb, yb = xb.to(device), yb.to(device)
        loss = loss_fn(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(xb)
    if epoch % 10 == 0:
        print(f"epoch {epoch:3d}  loss {tot / len(train_ds):.4f}  train_acc {accuracy(train_loader):.4f}")

print(f"TEST ACCURACY: {accuracy(test_loader):.4f}")
torch.save(model.state_dict(), "model.pt")
"""

RUN10_V2 = r"""from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class Config:
    data: str = "data/sensor_faults.csv"
    epochs: int = 40
    lr: float = 1e-3
    batch_size: int = 32
    seed: int = 0
    val_frac: float = 0.1
    test_frac: float = 0.1


def load_data(path):
    df = pd.read_csv(path)
    X = torch.tensor(df.drop(columns=["fault"]).values, dtype=torch.float32)
    y = torch.tensor(df["fault"].values, dtype=torch.long)
    X = (X - X.mean(0)) / X.std(0)
    return X, y


def make_splits(n, val_frac, test_frac, seed):
    perm = np.random.default_rng(seed).permutation(n)
    n_test, n_val = int(n * test_frac), int(n * val_frac)
    return perm[n_test + n_val:], perm[n_test:n_test + n_val], perm[:n_test]


def build_model(n_in):
    return nn.Sequential(nn.Linear(n_in, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))


def accuracy(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for xb, yb in loader:
            pred = model(xb.to(device)).argmax(1)
            correct += (pred == yb.to(device)).sum().item()
            total += len(yb)
    return correct / total


def main(cfg=Config()):
    torch.manual_seed(cfg.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    X, y = load_data(cfg.data)
    tr, va, te = make_splits(len(X), cfg.val_frac, cfg.test_frac, cfg.seed)
    loaders = {
        "train": DataLoader(TensorDataset(X[tr], y[tr]), batch_size=cfg.batch_size, shuffle=True),
        "val": DataLoader(TensorDataset(X[va], y[va]), batch_size=256),
        "test": DataLoader(TensorDataset(X[te], y[te]), batch_size=256),
    }
    print(f"train {len(tr)} / val {len(va)} / test {len(te)}")

    model = build_model(X.shape[1]).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(1, cfg.epochs + 1):
        model.train()
        tot = 0.0
        for xb, yb in loaders["train"]:
            xb, yb = xb.to(device), yb.to(device)
            loss = loss_fn(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(xb)
        if epoch % 10 == 0:
            print(f"epoch {epoch:3d}  loss {tot / len(tr):.4f}  train_acc {accuracy(model, loaders['train'], device):.4f}"
                  f"  val_acc {accuracy(model, loaders['val'], device):.4f}")

    print(f"TEST ACCURACY: {accuracy(model, loaders['test'], device):.4f}")
    torch.save(model.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
"""


def make_sensor_faults(seed, n=600):
    import pandas as pd
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, n)
    lab = rng.integers(0, 2, n)
    x1 = np.where(lab == 0, np.cos(t), 1 - np.cos(t)) + rng.normal(0, 0.15, n)
    x2 = np.where(lab == 0, np.sin(t), 0.5 - np.sin(t)) + rng.normal(0, 0.15, n)
    flip = rng.uniform(size=n) < 0.05
    lab = np.where(flip, 1 - lab, lab)
    cols = {"vib_rms": 2.0 + 0.8 * x1, "bearing_temp": 55 + 6 * x2}
    for k, nm in enumerate(["motor_current", "rpm", "oil_pressure", "ambient_temp", "humidity", "load_pct"]):
        cols[nm] = rng.normal(10 * (k + 1), 2 + k, n)
    df = pd.DataFrame(cols).round(3)
    df["fault"] = lab
    return df


RUN10_DATA_SEED = 23
RUN10_CTRL_SEEDS = ("1", "2", "3", "4")


def gen_run10():
    name = "run10"
    w, r = fresh(name)
    plat = PLAT[name]
    os.makedirs(os.path.join(w, "data"))
    make_sensor_faults(RUN10_DATA_SEED).to_csv(os.path.join(w, "data/sensor_faults.csv"), index=False)
    env = {"SHIM_ACCEL": "cuda", "SHIM_GPU_NAME": "Tesla T4"}
    wfile(os.path.join(w, "train.py"), RUN10_V1)
    o1, rc, _ = run_script(w, ["train.py"], env)
    assert rc == 0, o1
    wfile(os.path.join(w, "train.py"), RUN10_V2)
    o2, rc, _ = run_script(w, ["train.py"], env)
    assert rc == 0, o2
    a1 = float(re.search(r"TEST ACCURACY: ([0-9.]+)", o1).group(1))
    a2 = float(re.search(r"TEST ACCURACY: ([0-9.]+)", o2).group(1))
    # control (not shipped): v2 code evaluated on v1's 20 % test split and on other split seeds
    ctrl = RUN10_V2.replace("    tr, va, te = make_splits(len(X), cfg.val_frac, cfg.test_frac, cfg.seed)\n",
                            "    tr, va, te = make_splits(len(X), cfg.val_frac, cfg.test_frac, cfg.seed)\n"
                            "    import sys\n    if len(sys.argv) > 1:\n        tr, va, te = make_splits(len(X), 0.1, 0.1, int(sys.argv[1]))\n")
    wfile(os.path.join(w, "ctrl.py"), ctrl)
    ctrl_accs = []
    for sd in RUN10_CTRL_SEEDS:
        oc, rc, _ = run_script(w, ["ctrl.py", sd], env)
        ctrl_accs.append(float(re.search(r"TEST ACCURACY: ([0-9.]+)", oc).group(1)))
    RUN10_INFO.update(a1=a1, a2=a2, ctrl=ctrl_accs)
    if not RUN10_CTRL_SEEDS:        # seed search mode
        return o1, o2, a1, a2, ctrl_accs, w, r, plat
    import difflib
    diff = "".join(difflib.unified_diff(RUN10_V1.splitlines(keepends=True), RUN10_V2.splitlines(keepends=True),
                                        "a/train.py", "b/train.py", n=3))
    diff = ("$ git log --oneline -3\n4f9c2e1 (HEAD -> main) refactor train.py into functions + config dataclass\n"
            "b71d0a8 baseline MLP, test acc 0." + f"{a1:.4f}"[2:] + "\n2c5e913 add sensor fault csv\n"
            "$ git diff b71d0a8 4f9c2e1 -- train.py\ndiff --git a/train.py b/train.py\n"
            "index 8d1e6b2..c03f7a9 100644\n" + diff)
    wfile(os.path.join(r, "git_diff.txt"), diff)
    hdr = ("from google.colab import drive\ndrive.mount('/content/drive')\n%cd /content/drive/MyDrive/sensor_faults\n"
           "----\nMounted at /content/drive\n/content/drive/MyDrive/sensor_faults\n\n!python train.py\n----\n")
    wfile(os.path.join(r, "outputs/before_refactor_b71d0a8.txt"), hdr + clean_output(o1, w, plat))
    wfile(os.path.join(r, "outputs/after_refactor_4f9c2e1.txt"), hdr + clean_output(o2, w, plat))
    wfile(os.path.join(r, "train.py"), RUN10_V2)
    wfile(os.path.join(r, "question.md"), RUN10_Q.replace("@@A1@@", f"{a1:.3f}").replace("@@A2@@", f"{a2:.3f}"))
    truth(name, "seed_or_split_changed",
          f"After refactoring my training script (same model, same hyperparameters) the test accuracy dropped from "
          f"{a1:.3f} to {a2:.3f}; what did I break?",
          "The refactor replaced random_split(dataset, [0.8, 0.2], generator=manual_seed(42)) by a numpy permutation "
          "seeded with cfg.seed=0 and an 80/10/10 train/val/test split, so the test set is a different (and half as "
          f"large, 60-row) sample of a small noisy dataset; model, init seed, optimiser and epochs are unchanged. "
          f"Test acc {a1:.4f} (old split) vs {a2:.4f} (new split); the new code with split seeds 1-4 gives "
          f"{', '.join(f'{c:.3f}' for c in ctrl_accs)} (control runs, not shipped) -- the drop is split variance.")


RUN10_INFO = {}


RUN10_Q = """# Test accuracy dropped from @@A1@@ to @@A2@@ after refactoring -- nothing in the model changed?!

I'm doing a small uni project (predicting machine faults from 8 sensor readings, 600 labelled rows) in Colab.
Last week I had a working script, test accuracy @@A1@@. This week I cleaned it up: put everything into
functions, replaced argparse with a config dataclass (Colab doesn't like argparse much), added a validation set
so I can watch for overfitting. The network, optimizer, lr, batch size, epochs are exactly the same, I
double checked.

Now the test accuracy is @@A2@@. I re-ran it 3 times and it is always exactly @@A2@@ so it's not randomness.
What did I break? I attached the git diff between the two versions, the current train.py and the output of
both versions (I ran the old commit again to be sure, same number as last week). I also lost one run to the
Colab "runtime disconnected" thing but I don't think that matters.

(Colab free tier, T4, torch 2.13.0+cu126 preinstalled.)
"""


# --------------------------------------------------------------------------------------
# run07 -- Colab free tier, GRU, small batches: noisy but healthy
# --------------------------------------------------------------------------------------
RUN07_TRAIN = r"""# exported from colab: gesture_gru.ipynb
import csv
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device)

class GestureDataset(Dataset):
    def __init__(self, path):
        d = np.load(path)
        self.x = torch.from_numpy(d["x"]).float()
        self.y = torch.from_numpy(d["y"]).long()

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]

train_ds = GestureDataset("gestures_train.npz")
val_ds = GestureDataset("gestures_val.npz")
train_loader = DataLoader(train_ds, batch_size=16, shuffle=True, num_workers=4)
val_loader = DataLoader(val_ds, batch_size=128, num_workers=4)

class GRUClassifier(nn.Module):
    def __init__(self, n_in=3, hidden=64, n_classes=4):
        super().__init__()
        self.gru = nn.GRU(n_in, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        _, h = self.gru(x)
        return self.head(h[-1])

torch.manual_seed(0)
model = GRUClassifier().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
criterion = nn.CrossEntropyLoss()
TOTAL_STEPS = 200
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 0.5 * (1 + math.cos(math.pi * s / TOTAL_STEPS)))

def evaluate():
    model.eval()
    correct, loss_sum = 0, 0.0
    with torch.no_grad():
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            out = model(x)
            loss_sum += criterion(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
    model.train()
    return loss_sum / len(val_ds), correct / len(val_ds)

log = open("log.csv", "w", newline="")
writer = csv.writer(log)
writer.writerow(["step", "loss", "lr", "val_loss", "val_acc"])
step = 0
model.train()
while step < TOTAL_STEPS:
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        step += 1
        row = [step, f"{loss.item():.4f}", f"{scheduler.get_last_lr()[0]:.5f}", "", ""]
        if step % 25 == 0:
            vl, va = evaluate()
            row[3:] = [f"{vl:.4f}", f"{va:.4f}"]
            print(f"step {step}: loss {loss.item():.4f}  val_loss {vl:.4f}  val_acc {va:.4f}")
        writer.writerow(row)
        if step >= TOTAL_STEPS:
            break
log.close()
torch.save(model.state_dict(), "gesture_gru.pt")
"""


def make_gestures(n, rng, T=50):
    t = np.linspace(0, 1, T)
    y = rng.integers(0, 4, n)
    x = np.zeros((n, T, 3), np.float32)
    for i in range(n):
        ph = rng.uniform(0, 2 * np.pi)
        a = rng.uniform(0.6, 1.2)
        if y[i] == 0:      # shake
            x[i, :, 0] = a * np.sin(2 * np.pi * 6 * t + ph)
        elif y[i] == 1:    # circle
            x[i, :, 0] = a * np.sin(2 * np.pi * 2 * t + ph)
            x[i, :, 1] = a * np.cos(2 * np.pi * 2 * t + ph)
        elif y[i] == 2:    # swipe
            x[i, :, 1] = a * np.tanh(8 * (t - rng.uniform(0.3, 0.7)))
        else:              # tap
            c = rng.uniform(0.2, 0.8)
            x[i, :, 2] = 2 * a * np.exp(-((t - c) / 0.04) ** 2)
        x[i] += rng.normal(0, 0.35, (T, 3))
    return x, y


def gen_run07():
    name = "run07"
    w, r = fresh(name)
    plat = PLAT[name]
    rng = np.random.default_rng(7)
    xtr, ytr = make_gestures(2400, rng)
    xva, yva = make_gestures(400, rng)
    np.savez(os.path.join(w, "gestures_train.npz"), x=xtr, y=ytr)
    np.savez(os.path.join(w, "gestures_val.npz"), x=xva, y=yva)
    wfile(os.path.join(w, "train.py"), RUN07_TRAIN)
    out, rc, _ = run_script(w, ["train.py"], {"SHIM_ACCEL": "cuda", "SHIM_GPU_NAME": "Tesla T4"})
    assert rc == 0, out
    out = clean_output(out, w, plat)
    hdr = ("!nvidia-smi --query-gpu=name,memory.total --format=csv\n----\nname, memory.total [MiB]\nTesla T4, 15360 MiB\n\n"
           "!python train.py\n----\n")
    wfile(os.path.join(r, "colab_output.txt"), hdr + out)
    cp(os.path.join(w, "log.csv"), os.path.join(r, "log.csv"))
    wfile(os.path.join(r, "train.py"), RUN07_TRAIN)
    wfile(os.path.join(r, "question.md"), RUN07_Q)
    truth(name, "healthy",
          "My training loss jumps up and down by a lot from one step to the next -- is something wrong with my "
          "training, or with Colab?",
          "No fault: GRU(64) gesture classifier on noisy synthetic 3-axis sequences, SGD momentum 0.9, lr 0.1 "
          "with cosine decay, grad clipping 1.0, batch 16 for 200 steps; per-step loss is noisy because of the small "
          "batch but val loss/acc improve steadily. Also shows the genuine DataLoader 'suggested max number of "
          "worker' warning on a 2-CPU machine.")


RUN07_Q = """# Very jumpy loss when training a GRU on Colab -- normal?

Hi! I'm classifying phone gestures (shake / circle / swipe / tap) from 50-step accelerometer sequences with a
GRU, on the Colab free tier (T4). I log the loss every step (`log.csv`) and when I plot it, it looks terrible:
near the end it still jumps between like 0.2 and 0.6 from one step to the next (a factor of 3!), and at the
start it was even worse. In tutorials the loss curves are smooth. Val accuracy is computed every 25 steps.

Is my training broken? Should I lower the learning rate? There was also a warning about the number of
workers that I don't understand. (Also the runtime disconnected twice before this run finished -- is there a
way to avoid that? This run went through in one go though.)

Notebook exported as train.py, output of the cell in colab_output.txt.
"""


# --------------------------------------------------------------------------------------
# run02 -- Windows 11, PowerShell, RTX 3060 Laptop; JPEG decode + PIL augments in the main process
# --------------------------------------------------------------------------------------
RUN02_TRAIN = r"""import glob
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
from PIL import Image, ImageEnhance, ImageFilter
from torch.utils.data import DataLoader, Dataset

DATA_DIR = os.path.join("data", "leaves")
IMG_SIZE = 64
BATCH_SIZE = 32
NUM_WORKERS = 0
EPOCHS = 30
LR = 1e-3
MEAN = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)


class LeafDataset(Dataset):
    def __init__(self, root, split="train"):
        self.classes = sorted(os.listdir(root))
        self.samples = []
        for ci, c in enumerate(self.classes):
            files = sorted(glob.glob(os.path.join(root, c, "*.jpg")))
            for k, f in enumerate(files):
                if (k % 5 == 0) == (split == "val"):
                    self.samples.append((f, ci))
        self.train = split == "train"

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        path, label = self.samples[i]
        img = Image.open(path).convert("RGB")
        if self.train:
            w, h = img.size
            s = random.randint(int(0.6 * w), w)
            x0, y0 = random.randint(0, w - s), random.randint(0, h - s)
            img = img.crop((x0, y0, x0 + s, y0 + s))
            img = img.rotate(random.uniform(-25, 25), resample=Image.BILINEAR)
            if random.random() < 0.5:
                img = img.transpose(Image.FLIP_LEFT_RIGHT)
            img = ImageEnhance.Color(img).enhance(random.uniform(0.7, 1.3))
            img = ImageEnhance.Brightness(img).enhance(random.uniform(0.8, 1.2))
            img = img.filter(ImageFilter.GaussianBlur(radius=random.uniform(0.0, 1.5)))
        img = img.resize((IMG_SIZE, IMG_SIZE), Image.BICUBIC)
        x = torch.from_numpy(np.asarray(img, dtype=np.float32) / 255.0).permute(2, 0, 1)
        return (x - MEAN) / STD, label


class AverageMeter:
    def __init__(self, fmt=":f"):
        self.fmt = fmt
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        return ("{val" + self.fmt + "} ({avg" + self.fmt + "})").format(val=self.val, avg=self.avg)


def make_model(n_classes):
    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                             nn.MaxPool2d(2))
    return nn.Sequential(block(3, 16), block(16, 32), block(32, 64), block(64, 64),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.3), nn.Linear(64, n_classes))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Using {device}: {torch.cuda.get_device_name(0)}")
train_set = LeafDataset(DATA_DIR, "train")
val_set = LeafDataset(DATA_DIR, "val")
train_loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=True, num_workers=NUM_WORKERS)
val_loader = DataLoader(val_set, batch_size=64, num_workers=NUM_WORKERS)
print(f"{len(train_set)} train / {len(val_set)} val images, {len(train_set.classes)} classes")

model = make_model(len(train_set.classes)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=1e-4)
criterion = nn.CrossEntropyLoss()

for epoch in range(EPOCHS):
    model.train()
    batch_time, data_time = AverageMeter(":6.3f"), AverageMeter(":6.3f")
    losses, top1 = AverageMeter(":.4e"), AverageMeter(":6.2f")
    end = time.time()
    for i, (images, target) in enumerate(train_loader):
        data_time.update(time.time() - end)
        images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
        output = model(images)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        acc = (output.argmax(1) == target).float().mean().item() * 100
        losses.update(loss.item(), images.size(0))
        top1.update(acc, images.size(0))
        torch.cuda.synchronize()
        batch_time.update(time.time() - end)
        end = time.time()
        if i % 5 == 0:
            print(f"Epoch: [{epoch}][{i:3d}/{len(train_loader)}]\tTime {batch_time}\tData {data_time}\t"
                  f"Loss {losses}\tAcc@1 {top1}")
    model.eval()
    correct = 0
    t0 = time.time()
    with torch.no_grad():
        for images, target in val_loader:
            correct += (model(images.to(device)).argmax(1) == target.to(device)).sum().item()
    print(f" * Epoch {epoch} val Acc@1 {100 * correct / len(val_set):.2f}  (val took {time.time() - t0:.1f}s)")
    torch.save(model.state_dict(), "leafnet.pth")
"""


def make_run02_data(w):
    from PIL import Image
    rng = np.random.default_rng(2)
    root = os.path.join(w, "data", "leaves")
    classes = ["apple_scab", "black_rot", "cedar_rust", "healthy", "powdery_mildew"]
    S = 128
    yy, xx = np.mgrid[0:S, 0:S] / S
    for ci, c in enumerate(classes):
        os.makedirs(os.path.join(root, c))
        for k in range(150):
            cx, cy = rng.uniform(0.4, 0.6, 2)
            leaf = (((xx - cx) / 0.33) ** 2 + ((yy - cy) / 0.22) ** 2) < 1
            g = np.stack([0.25 + 0.1 * rng.random(), 0.55 + 0.1 * rng.random(), 0.2 + 0.05 * rng.random()])
            img = np.where(leaf[..., None], g, np.array([0.85, 0.82, 0.75]) * rng.uniform(0.8, 1.0))
            nspot = [6, 3, 8, 0, 1][ci]
            for _ in range(nspot):
                sx, sy = cx + rng.uniform(-0.2, 0.2), cy + rng.uniform(-0.12, 0.12)
                rad = [0.03, 0.07, 0.025, 0.0, 0.15][ci] * rng.uniform(0.7, 1.3)
                spot = ((xx - sx) ** 2 + (yy - sy) ** 2 < rad ** 2) & leaf
                col = [[0.3, 0.3, 0.2], [0.15, 0.1, 0.08], [0.9, 0.55, 0.1], [0, 0, 0], [0.85, 0.85, 0.85]][ci]
                img[spot] = col
            img = img + rng.normal(0, 0.03, img.shape)
            im = Image.fromarray((np.clip(img, 0, 1) * 255).astype(np.uint8)).resize((640, 640), Image.BICUBIC)
            im.save(os.path.join(root, c, f"IMG_{20240000 + ci * 1000 + k}.jpg"), quality=92)


def gen_run02():
    name = "run02"
    w, r = fresh(name)
    plat = PLAT[name]
    make_run02_data(w)
    env = {"SHIM_ACCEL": "cuda", "SHIM_GPU_NAME": "NVIDIA GeForce RTX 3060 Laptop GPU"}
    # first attempt: num_workers=4, no __main__ guard, spawn start method (as on Windows)
    wfile(os.path.join(w, "train.py"), RUN02_TRAIN.replace("NUM_WORKERS = 0", "NUM_WORKERS = 4"))
    out1, rc1, _ = run_script(w, ["train.py"], dict(env, SHIM_SPAWN="1"), timeout=120)
    assert rc1 == 1 and "bootstrapping phase" in out1 and "exited unexpectedly" in out1, out1
    msg = out1[out1.rindex("RuntimeError: \n        An attempt"):]
    msg = msg[:msg.index("multiprocessing.html") + len("multiprocessing.html")]
    last = [l for l in out1.splitlines() if l.startswith("RuntimeError: DataLoader worker (pid(s)")][-1]
    first_err = ("Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
                 "  ...\n" + msg + "\n\n...\n\n" + last)
    # the script as it is now: num_workers=0; the user stops it with Ctrl+C during epoch 2
    wfile(os.path.join(w, "train.py"), RUN02_TRAIN)

    def ctrl_c(p, after=24.0):
        t0 = time.time()
        while p.poll() is None and time.time() - t0 < after:
            time.sleep(0.2)
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    out2, rc2, _ = run_script(w, ["train.py"], env, timeout=120, watchdog=ctrl_c)
    assert "KeyboardInterrupt" in out2, out2
    out2 = clean_output(out2, w, plat)
    p = "PS C:\\Users\\Jonas\\Documents\\leafnet> "
    console = ("(.venv) " + p + "python train.py\n" + out2.rstrip("\n") + "\n(.venv) " + p + "\n")
    wfile(os.path.join(r, "console.txt"), console.replace("\n", "\r\n"))
    wfile(os.path.join(r, "train.py"), RUN02_TRAIN.replace("\n", "\r\n"))
    steps = re.findall(r"Time\s+([0-9.]+) \(\s*([0-9.]+)\)\s+Data\s+([0-9.]+) \(\s*([0-9.]+)\)", out2)
    bt, dt = float(steps[-1][1]), float(steps[-1][3])
    util = max(2, int(round(100 * 0.006 / bt)))
    wfile(os.path.join(r, "nvidia-smi.txt"), RUN02_SMI.replace("@@UTIL@@", f"{util:2d}"))
    wfile(os.path.join(r, "question.md"), RUN02_Q.replace("@@FIRST@@", rewrite_paths(first_err, w, plat))
          .replace("@@IT@@", f"{1 / bt:.1f}").replace("@@EP@@", f"{19 * bt:.0f}"))
    truth(name, "dataloader_bottleneck",
          f"Training on my RTX 3060 laptop is painfully slow (~{1 / bt:.1f} it/s) and Task Manager shows the GPU at a "
          "few percent while one CPU core is maxed out -- is my GPU even being used?",
          f"num_workers=0 (set after a Windows spawn error from a script without a __main__ guard), and every "
          f"sample is a 640x640 JPEG decoded with PIL and put through crop/rotate/colour/brightness/blur at full "
          f"size before resizing to 64, all in the main process. Logged averages: batch time {bt:.3f}s of which "
          f"data {dt:.3f}s ({100 * dt / bt:.0f}%); the run was stopped with Ctrl+C in epoch 2.")


RUN02_INFO = {}

RUN02_SMI = """PS C:\\Users\\Jonas> nvidia-smi
Sat Dec  5 21:14:37 2026
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 566.14                 Driver Version: 566.14         CUDA Version: 12.7     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                  Driver-Model | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 3060 ...  WDDM  |   00000000:01:00.0 Off |                  N/A |
| N/A   46C    P3             19W /  115W |    1312MiB /   6144MiB |     @@UTIL@@%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+

+-----------------------------------------------------------------------------------------+
| Processes:                                                                              |
|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |
|        ID   ID                                                               Usage      |
|=========================================================================================|
|    0   N/A  N/A      9128    C+G   ...ekyb3d8bbwe\\PhoneExperienceHost.exe      N/A      |
|    0   N/A  N/A     14304      C   ...ments\\leafnet\\.venv\\Scripts\\python.exe      N/A      |
|    0   N/A  N/A     16772    C+G   ...crosoft\\Edge\\Application\\msedge.exe      N/A      |
+-----------------------------------------------------------------------------------------+
"""

RUN02_Q = """## Training super slow on RTX 3060 laptop, GPU usage ~5% in Task Manager

Hi everyone. I'm training a small CNN to classify plant leaf diseases (5 classes, 750 photos I took with my
phone, resized to 640x640) on my gaming laptop (Windows 11, RTX 3060 Laptop 6 GB, Ryzen 7 5800H, 16 GB RAM).
PyTorch says it's using cuda, but training is really slow: about @@IT@@ it/s with batch size 32, so ~@@EP@@ s
for an epoch of only 600 images. For such a tiny CNN on a 3060 I expected way more (the tutorial I follow
mentions thousands of images per second). Task Manager shows the GPU at like 3-5 % and one CPU core at
100 %. nvidia-smi output attached. I stopped the run in epoch 2 with Ctrl+C (console.txt).

At first I had `num_workers=4` but that crashed immediately with this (shortened, it printed it 4 times):

```
@@FIRST@@
```

so I set `num_workers=0` and it runs now, just slowly. Is my GPU being used at all? Do I need a different
CUDA version? torch 2.13.0+cu128 installed with pip in a venv, Python 3.11 from python.org. The logging is
copied from the official ImageNet example. Full train.py attached.
"""


# --------------------------------------------------------------------------------------
# run08 -- WSL2 on an 8 GB laptop; per-worker float64 cache -> the OOM killer takes a worker
# --------------------------------------------------------------------------------------
RUN08_TRAIN = r"""import os
import time

import numpy as np
import pandas as pd
import psutil
import torch
import torch.nn as nn
from PIL import Image
from torch.utils.data import DataLoader, Dataset


class FundusDataset(Dataset):
    def __init__(self, csv_path, img_dir, size=160):
        self.df = pd.read_csv(csv_path)
        self.img_dir = img_dir
        self.size = size
        self.cache = {}

    def __len__(self):
        return len(self.df)

    def __getitem__(self, i):
        if i not in self.cache:
            row = self.df.iloc[i]
            img = Image.open(os.path.join(self.img_dir, row["image"])).convert("RGB")
            arr = np.asarray(img.resize((self.size, self.size), Image.BILINEAR)) / 255.0
            arr = (arr - arr.mean(axis=(0, 1))) / (arr.std(axis=(0, 1)) + 1e-6)
            self.cache[i] = (arr.transpose(2, 0, 1), int(row["referable"]))
        x, y = self.cache[i]
        if torch.rand(1).item() < 0.5:
            x = x[:, :, ::-1]
        return torch.tensor(x.copy(), dtype=torch.float32), y


def ram_gb():
    p = psutil.Process()
    return (p.memory_info().rss + sum(c.memory_info().rss for c in p.children(recursive=True))) / 1024 ** 3


def build_model():
    return nn.Sequential(
        nn.Conv2d(3, 16, 5, stride=2, padding=2), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Conv2d(64, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 2),
    )


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    ds = FundusDataset("data/labels.csv", "data/images")
    loader = DataLoader(ds, batch_size=32, shuffle=True, num_workers=4, persistent_workers=True, drop_last=True)
    print(f"{len(ds)} images, {len(loader)} batches/epoch, device {device}, RAM at start {ram_gb():.2f} GB")
    model = build_model().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=3e-4)
    crit = nn.CrossEntropyLoss()
    for epoch in range(1, 31):
        model.train()
        t0 = time.time()
        for it, (x, y) in enumerate(loader, 1):
            x, y = x.to(device), y.to(device)
            loss = crit(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if it % 4 == 0:
                print(f"ep {epoch} it {it:3d}/{len(loader)}  loss {loss.item():.4f}  RAM {ram_gb():.2f} GB")
        print(f"--- epoch {epoch} finished in {time.time() - t0:.0f}s, RAM {ram_gb():.2f} GB")
        torch.save(model.state_dict(), f"checkpoints/fundus_ep{epoch}.pt")


if __name__ == "__main__":
    os.makedirs("checkpoints", exist_ok=True)
    main()
"""

RUN08_LIMIT_GB = 3.0


def oom_watchdog(limit_gb):
    if SHIM not in sys.path:
        sys.path.append(SHIM)
    import psutil

    def wd(p):
        proc = psutil.Process(p.pid)
        while p.poll() is None:
            try:
                kids = proc.children(recursive=True)
                tot = proc.memory_info().rss + sum(k.memory_info().rss for k in kids)
                if tot / 1024 ** 3 > limit_gb and kids:
                    victim = max(kids, key=lambda k: k.memory_info().rss)
                    mi = victim.memory_full_info()
                    info = {"pid": victim.pid, "vms": mi.vms, "rss": mi.rss, "shared": mi.shared,
                            "total": tot, "comm": victim.name()}
                    os.kill(victim.pid, signal.SIGKILL)
                    return info
            except psutil.Error:
                pass
            time.sleep(0.05)
        return None
    return wd


def gen_run08():
    name = "run08"
    w, r = fresh(name)
    plat = PLAT[name]
    import pandas as pd
    from PIL import Image
    rng = np.random.default_rng(8)
    idir = os.path.join(w, "data/images")
    os.makedirs(idir)
    S = 256
    yy, xx = np.mgrid[0:S, 0:S] / S - 0.5
    rr = np.sqrt(xx ** 2 + yy ** 2)
    rows = []
    base = np.stack([0.75 - 0.5 * rr, 0.35 - 0.3 * rr, 0.15 - 0.1 * rr], -1) * (rr < 0.46)[..., None]
    ang = np.arctan2(yy, xx)
    vmaps = []
    for m in range(12):
        vessels = np.zeros((S, S))
        for v in range(5):
            a0 = rng.uniform(-np.pi, np.pi)
            vessels += np.exp(-((np.sin(ang - a0 - 0.8 * rr) * rr) / 0.006) ** 2)
        vmaps.append(1 - 0.4 * np.clip(vessels, 0, 1)[..., None])
    for k in range(1400):
        lab = int(rng.uniform() < 0.35)
        img = base * vmaps[int(rng.integers(0, 12))] * rng.uniform(0.85, 1.1)
        if lab:
            for _ in range(int(rng.integers(4, 12))):
                cx, cy = rng.uniform(-0.3, 0.3, 2)
                img[(xx - cx) ** 2 + (yy - cy) ** 2 < 0.0004] = [0.9, 0.85, 0.4]
        img = np.clip(img + rng.normal(0, 0.02, img.shape), 0, 1)
        fn = f"IDRiD_{k:04d}.png"
        Image.fromarray((img * 255).astype(np.uint8)).save(os.path.join(idir, fn), compress_level=1)
        rows.append((fn, lab))
    pd.DataFrame(rows, columns=["image", "referable"]).to_csv(os.path.join(w, "data/labels.csv"), index=False)
    wfile(os.path.join(w, "train.py"), RUN08_TRAIN)
    out, rc, kill = run_script(w, ["train.py"], {"SHIM_ACCEL": "cuda", "SHIM_GPU_NAME": "NVIDIA GeForce RTX 2050"},
                               timeout=240, watchdog=oom_watchdog(RUN08_LIMIT_GB))
    assert kill is not None and "is killed by signal: Killed" in out, (kill, out)
    # the 'suggested max number of worker ... is 2' warning is about this 2-core box, not the user's 8-thread laptop
    out = re.sub(r".*check_worker_number_rationality.*\n|.*This DataLoader will create 4 worker processes.*\n", "", out)
    out = clean_output(out, w, plat)
    pr = "(fundus) pk@LAPTOP-PK14:~/fundus$ "
    free = ("               total        used        free      shared  buff/cache   available\n"
            "Mem:           3.8Gi       612Mi       2.6Gi       3.0Mi       712Mi       3.2Gi\n"
            "Swap:          1.0Gi          0B       1.0Gi\n")
    console = (pr + "free -h\n" + free + pr + "python train.py\n" + out + pr + "echo $?\n1\n" + pr + "\n")
    wfile(os.path.join(r, "console.txt"), console)
    up = 2941.517203
    anon = max(kill["rss"] - kill["shared"], 0) // 1024
    dm = (f"[{up:12.6f}] {kill['comm']} invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), "
          f"order=0, oom_score_adj=0\n"
          f"[{up:12.6f}] CPU: 5 PID: {kill['pid']} Comm: {kill['comm']} Not tainted 5.15.167.4-microsoft-standard-WSL2 #1\n"
          f"[{up + 0.000871:12.6f}] Mem-Info:\n"
          f"[{up + 0.000902:12.6f}] active_anon:{anon // 4 * 3} inactive_anon:{anon // 4 * 2} isolated_anon:0\n"
          f"[{up + 0.001533:12.6f}] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,"
          f"global_oom,task_memcg=/,task={kill['comm']},pid={kill['pid']},uid=1000\n"
          f"[{up + 0.001569:12.6f}] Out of memory: Killed process {kill['pid']} ({kill['comm']}) "
          f"total-vm:{kill['vms'] // 1024}kB, anon-rss:{anon}kB, file-rss:{kill['shared'] // 1024}kB, "
          f"shmem-rss:0kB, UID:1000 pgtables:{kill['vms'] // 1024 // 500}kB oom_score_adj:0\n")
    wfile(os.path.join(r, "dmesg_tail.txt"), pr + "sudo dmesg | tail -6\n" + dm)
    wfile(os.path.join(r, "question.md"), RUN08_Q.replace("@@DATASET@@", RUN08_TRAIN[RUN08_TRAIN.index("class FundusDataset"):RUN08_TRAIN.index("def ram_gb")].rstrip()))
    wfile(os.path.join(r, "wslconfig.txt"), "PS C:\\Users\\pk> type $env:USERPROFILE\\.wslconfig\n"
          "type : Cannot find path 'C:\\Users\\pk\\.wslconfig' because it does not exist.\n"
          "PS C:\\Users\\pk> wsl --version\nWSL version: 2.3.26.0\nKernel version: 5.15.167.4-1\n"
          "WSLg version: 1.0.65\nMSRDC version: 1.2.5620\nDirect3D version: 1.611.1-81528511\n"
          "DXCore version: 10.0.26100.1-240331-1435.ge-release\nWindows version: 10.0.22631.4460\n")
    rams = [float(x) for x in re.findall(r"RAM ([0-9.]+) GB", out)]
    last_step = re.findall(r"ep (\d+) it\s+(\d+)/", out)[-1]
    truth(name, "host_oom",
          "Training on WSL2 dies in the second epoch with 'DataLoader worker (pid ...) is killed by signal: Killed' "
          "and no other error from my code.",
          f"The Dataset caches every decoded image as a float64 array in a per-instance dict; with num_workers=4 "
          f"and persistent_workers=True each worker fills its own copy of the cache, so process RAM climbs through "
          f"epoch 1 and keeps climbing in epoch 2 as every worker re-caches the images it had not seen "
          f"({rams[0]:.2f} -> {rams[-1]:.2f} GB logged). A watchdog standing in for the WSL2 VM's OOM killer "
          f"(3.8 GiB VM, default .wslconfig on an 8 GB laptop) SIGKILLed the largest worker at "
          f"{kill['total'] / 1024 ** 3:.2f} GB total RSS (epoch {last_step[0]}, after it {last_step[1]}); the "
          f"DataLoader then raised the real 'killed by signal: Killed' error.")


RUN08_Q = """# WSL2: "DataLoader worker (pid XXXX) is killed by signal: Killed" in the 2nd epoch

Hi, I'm training a small CNN for diabetic retinopathy screening (referable yes/no) on ~1400 fundus images
(PNG, 256x256) in WSL2 Ubuntu 24.04 on my laptop (8 GB RAM, RTX 2050 4 GB). First epoch goes through, and then
in the second epoch it always dies with `RuntimeError: DataLoader worker (pid 1234) is killed by signal:
Killed.` No other error, no traceback from my code.

After the first crash I added a print of the RAM used by the python processes (main + workers, with psutil), and
it keeps going up the whole time. I thought my images are small (1400 x 256x256x3 is only ~275 MB as uint8) so
I don't get where GBs of memory come from. dmesg says Out of memory. Is this a memory leak in PyTorch? Or is it
WSL? I don't have a .wslconfig so WSL should use the default. To make the 2nd+ epochs faster I cache the
preprocessed images in the Dataset:

```python
@@DATASET@@
```

DataLoader: `batch_size=32, shuffle=True, num_workers=4, persistent_workers=True`. Console output, `dmesg`
tail and `wsl --version` attached.
"""


# --------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------
def main():
    want = sys.argv[1:]
    os.makedirs(RUNS, exist_ok=True)
    os.makedirs(WORK, exist_ok=True)
    write_shim()
    tpath = os.path.join(HERE, "truth.json")
    if want and os.path.exists(tpath):
        TRUTH.update(json.load(open(tpath)))
    gens = {k[4:]: v for k, v in globals().items() if re.fullmatch(r"gen_run\d\d", k) and callable(v)}
    for name in sorted(gens):
        if want and name not in want:
            continue
        t0 = time.time()
        gens[name]()
        print(f"{name}: {TRUTH[name]['truth']}  ({time.time() - t0:.1f}s)", flush=True)
    with open(tpath, "w") as f:
        json.dump(dict(sorted(TRUTH.items())), f, indent=2)
    if not want:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
