#!/usr/bin/env python
"""Generator for the Sacred / DVCLive benchmark runs (round 15).

Every run is produced by really executing a user-style training script (kept
in SCRIPTS below) on CPU. The scripts use the public APIs of Sacred
(Experiment, FileStorageObserver, _run.log_scalar) and DVCLive (Live,
log_metric, log_params, next_step). Neither package is installed here, so this
file provides small stand-ins that write the same on-disk layout:

  Sacred FileStorageObserver: run.json, config.json, metrics.json
      ({name: {steps, timestamps, values}}), cout.txt, info.json (if used)
  DVCLive 3.x: dvclive/metrics.json (latest values, nested on '/'),
      dvclive/plots/metrics/<name>.tsv ("step<TAB><leaf>"), dvclive/params.yaml,
      dvclive/dvc.yaml (or entries merged into a root dvc.yaml in "DVC repo" runs)

Wall-clock timestamps come from a deterministic fake clock so the output is
reproducible.  Usage:  python gen.py            (all runs)
                       python gen.py run03 ...  (selected runs)
"""
import datetime as _dt
import inspect
import io
import json
import math
import os
import shutil
import subprocess
import sys
import traceback
import types
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")
PY = sys.executable


# ----------------------------------------------------------------------------
# deterministic fake clock
# ----------------------------------------------------------------------------
class FakeClock:
    def __init__(self, start_iso, step_seconds, seed):
        self.t = _dt.datetime.fromisoformat(start_iso)
        self.step_seconds = step_seconds
        self.state = seed & 0xFFFFFFFF

    def _rand(self):
        # xorshift32, deterministic jitter in [0, 1)
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.state = x & 0xFFFFFFFF
        return self.state / 2 ** 32

    def advance_step(self):
        self.t += _dt.timedelta(seconds=self.step_seconds * (0.85 + 0.3 * self._rand()))

    def advance_small(self):
        self.t += _dt.timedelta(microseconds=int(300 + 2500 * self._rand()))

    def iso(self):
        return self.t.isoformat(timespec="microseconds")

    def epoch_ms(self):
        return int(self.t.replace(tzinfo=_dt.timezone.utc).timestamp() * 1000)


def _jsonable(o):
    try:
        import numpy as np
        if isinstance(o, np.generic):
            return o.item()
        if isinstance(o, np.ndarray):
            return o.tolist()
    except ImportError:
        pass
    if isinstance(o, tuple):
        return list(o)
    return str(o)


def _float(v):
    if isinstance(v, (bool, int, float, str)):
        return v
    try:
        if hasattr(v, "item"):
            return v.item()
        return float(v)
    except Exception:
        return v


# ----------------------------------------------------------------------------
# Sacred stand-in
# ----------------------------------------------------------------------------
class _Tee(io.TextIOBase):
    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        for st in self.streams:
            st.write(s)
        return len(s)

    def flush(self):
        for st in self.streams:
            st.flush()


class SacredRun:
    def __init__(self, exp, config, clock):
        self.experiment_info = exp
        self.config = config
        self.clock = clock
        self.metrics = {}
        self._max_step = -1
        self.info = {}
        self._id = None

    def log_scalar(self, metric_name, value, step=None):
        m = self.metrics.setdefault(metric_name, {"steps": [], "timestamps": [], "values": []})
        if step is None:
            step = len(m["steps"])
        step = int(step)
        if step > self._max_step:
            self._max_step = step
            self.clock.advance_step()
        else:
            self.clock.advance_small()
        m["steps"].append(step)
        m["timestamps"].append(self.clock.iso())
        m["values"].append(_float(value))


class FileStorageObserver:
    def __init__(self, basedir="runs", **kw):
        # the generator decides the output folder (env GEN_RUN_DIR)
        self.basedir = basedir


class Experiment:
    def __init__(self, name=None, ingredients=(), **kw):
        self.path = name or "experiment"
        self.observers = []
        self._config = {}
        self._main = None

    # --- configuration --------------------------------------------------
    def config(self, f):
        captured = {}

        def prof(frame, event, arg):
            if event == "return" and frame.f_code is f.__code__:
                captured.update({k: v for k, v in frame.f_locals.items() if not k.startswith("_")})

        old = sys.getprofile()
        sys.setprofile(prof)
        try:
            f()
        finally:
            sys.setprofile(old)
        self._config.update(captured)
        return f

    def add_config(self, cfg=None, **kw):
        if cfg:
            self._config.update(cfg)
        self._config.update(kw)

    def capture(self, f):
        return f

    def main(self, f):
        self._main = f
        return f

    def automain(self, f):
        self._main = f
        self.run_commandline()
        return f

    # --- run ------------------------------------------------------------
    def run_commandline(self):
        run_dir = os.environ["GEN_RUN_DIR"]
        meta = json.loads(os.environ["GEN_META"])
        clock = FakeClock(meta["start"], meta["step_seconds"], zlib.crc32(run_dir.encode()))
        cfg = dict(self._config)
        if "seed" not in cfg:
            cfg["seed"] = zlib.crc32(("seed" + meta["name"]).encode()) % 1000000000
        import random
        random.seed(cfg["seed"])
        try:
            import numpy as np
            np.random.seed(cfg["seed"])
        except ImportError:
            pass
        try:
            import torch
            torch.manual_seed(cfg["seed"])
        except ImportError:
            pass
        run = SacredRun(self, cfg, clock)
        start = clock.iso()
        start_dt = clock.t
        sid = meta.get("sacred_id", 1)
        cout = io.StringIO()
        real_out, real_err = sys.stdout, sys.stderr
        sys.stdout = _Tee(real_out, cout)
        sys.stderr = _Tee(real_err, cout)
        print(f"INFO - {self.path} - Running command 'main'")
        print(f'INFO - {self.path} - Started run with ID "{sid}"')
        sig = inspect.signature(self._main)
        kwargs = {}
        for p in sig.parameters:
            if p == "_run":
                kwargs[p] = run
            elif p == "_config":
                kwargs[p] = cfg
            elif p in cfg:
                kwargs[p] = cfg[p]
        status, result, fail_trace = "COMPLETED", None, None
        try:
            result = self._main(**kwargs)
        except BaseException as e:  # noqa
            status = "FAILED"
            et, ev, tb = sys.exc_info()
            frames = [fs for fs in traceback.extract_tb(tb) if fs.filename == meta["script_path"]]
            fail_trace = ["Traceback (most recent call last):\n"]
            fail_trace += traceback.format_list(frames)
            fail_trace += traceback.format_exception_only(et, ev)
        clock.advance_step()
        elapsed = clock.t - start_dt
        el = str(elapsed).split(".")[0]
        if status == "COMPLETED":
            print(f"INFO - {self.path} - Result: {result}") if result is not None else None
            print(f"INFO - {self.path} - Completed after {el}")
        else:
            print(f"ERROR - {self.path} - Failed after {el}!")
            print("Traceback (most recent calls WITHOUT Sacred internals):")
            for line in fail_trace[1:]:
                sys.stdout.write(line)
        sys.stdout, sys.stderr = real_out, real_err
        stop = clock.iso()
        os.makedirs(run_dir, exist_ok=True)
        with open(os.path.join(run_dir, "config.json"), "w") as f:
            json.dump(cfg, f, indent=2, sort_keys=True, default=_jsonable)
        with open(os.path.join(run_dir, "metrics.json"), "w") as f:
            json.dump(run.metrics, f, indent=2, sort_keys=True)
        with open(os.path.join(run_dir, "cout.txt"), "w") as f:
            f.write(cout.getvalue())
        if run.info:
            with open(os.path.join(run_dir, "info.json"), "w") as f:
                json.dump(run.info, f, indent=2, sort_keys=True, default=_jsonable)
        import numpy, torch
        deps = sorted(meta.get("deps", []) + [f"numpy=={numpy.__version__}", "sacred==0.8.5",
                                               f"torch=={torch.__version__}"])
        src_name = os.path.basename(meta["script_path"])
        import hashlib
        md5 = hashlib.md5(open(meta["script_src_file"], "rb").read()).hexdigest()
        runjson = {
            "artifacts": [],
            "command": "main",
            "experiment": {
                "base_dir": os.path.dirname(meta["script_path"]),
                "dependencies": deps,
                "mainfile": src_name,
                "name": self.path,
                "repositories": [],
                "sources": [[src_name, f"_sources/{src_name[:-3]}_{md5}.py"]],
            },
            "heartbeat": stop,
            "host": {
                "ENV": {},
                "cpu": meta.get("cpu", "Intel(R) Xeon(R) CPU @ 2.20GHz"),
                "hostname": meta.get("hostname", "workstation"),
                "os": ["Linux", meta.get("os", "Linux-6.8.0-51-generic-x86_64-with-glibc2.39")],
                "python_version": meta.get("python_version", "3.11.7"),
            },
            "meta": {
                "command": "main",
                "config_updates": meta.get("config_updates", {}),
                "named_configs": [],
                "options": {"--beat-interval": None, "--capture": None, "--comment": None,
                            "--debug": False, "--enforce_clean": False, "--file_storage": None,
                            "--force": False, "--help": False, "--id": None, "--loglevel": None,
                            "--mongo_db": None, "--name": None, "--pdb": False,
                            "--print-config": False, "--priority": None, "--queue": False,
                            "--s3": None, "--sql": None, "--tiny_db": None, "--unobserved": False,
                            "COMMAND": None, "UPDATE": [f"{k}={v}" for k, v in meta.get("config_updates", {}).items()],
                            "help": False, "with": bool(meta.get("config_updates"))},
            },
            "resources": [],
            "result": result,
            "start_time": start,
            "status": status,
            "stop_time": stop,
        }
        if fail_trace:
            runjson["fail_trace"] = fail_trace
        with open(os.path.join(run_dir, "run.json"), "w") as f:
            json.dump(runjson, f, indent=2, sort_keys=True, default=_jsonable)
        if status == "FAILED":
            sys.exit(1)


# ----------------------------------------------------------------------------
# DVCLive stand-in
# ----------------------------------------------------------------------------
def _yaml_dump(obj, indent=0):
    pad = "  " * indent
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(v, dict) and v:
                out.append(f"{pad}{k}:")
                out.append(_yaml_dump(v, indent + 1))
            elif isinstance(v, (list, tuple)) and v:
                out.append(f"{pad}{k}:")
                for it in v:
                    if isinstance(it, dict):
                        lines = _yaml_dump(it, indent + 2).splitlines()
                        first = lines[0].strip()
                        out.append(f"{pad}- {first}")
                        out.extend(lines[1:])
                    else:
                        out.append(f"{pad}- {_yaml_scalar(it)}")
            else:
                out.append(f"{pad}{k}: {_yaml_scalar(v)}")
    return "\n".join(out)


def _yaml_scalar(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e6):
            return f"{v:.1e}".replace("e-0", "e-").replace("e+0", "e+")
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_yaml_scalar(x) for x in v) + "]"
    if isinstance(v, dict) and not v:
        return "{}"
    if isinstance(v, (list, tuple)) and not v:
        return "[]"
    s = str(v)
    if s == "" or any(c in s for c in ":#{}[],&*?|<>=!%@`") or s.lower() in ("yes", "no", "true", "false", "null"):
        return json.dumps(s)
    return s


class Live:
    def __init__(self, dir="dvclive", resume=False, report=None, save_dvc_exp=True,
                 dvcyaml="dvc.yaml", cache_images=False, exp_name=None, exp_message=None,
                 monitor_system=False, **kw):
        self.dir = dir
        self.step = 0
        self.summary = {}
        self.params = {}
        self._repo_mode = os.environ.get("GEN_DVC_REPO") == "1"
        self._dvcyaml = dvcyaml
        meta = json.loads(os.environ["GEN_META"])
        self._clock = FakeClock(meta["start"], meta["step_seconds"], zlib.crc32(dir.encode()))
        self._logged_at_step = False
        os.makedirs(os.path.join(self.dir, "plots", "metrics"), exist_ok=True)

    @property
    def plots_dir(self):
        return os.path.join(self.dir, "plots")

    @property
    def metrics_file(self):
        return os.path.join(self.dir, "metrics.json")

    @property
    def params_file(self):
        return os.path.join(self.dir, "params.yaml")

    def log_param(self, name, val):
        self.params[name] = val
        self._write_params()

    def log_params(self, params):
        self.params.update(params)
        self._write_params()

    def _write_params(self):
        with open(self.params_file, "w") as f:
            f.write(_yaml_dump(self.params) + "\n")

    def log_metric(self, name, val, timestamp=False, plot=True):
        val = _float(val)
        path = os.path.join(self.plots_dir, "metrics", name + ".tsv")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        leaf = name.split("/")[-1]
        new = not os.path.exists(path)
        with open(path, "a") as f:
            if new:
                f.write(("timestamp\t" if timestamp else "") + f"step\t{leaf}\n")
            if timestamp:
                f.write(f"{self._clock.epoch_ms()}\t")
            f.write(f"{self.step}\t{val}\n")
        d = self.summary
        parts = name.split("/")
        for p in parts[:-1]:
            d = d.setdefault(p, {})
        d[parts[-1]] = val

    def make_summary(self):
        s = dict(self.summary)
        s["step"] = self.step
        with open(self.metrics_file, "w") as f:
            json.dump(s, f, indent=4)

    def make_dvcyaml(self):
        if self._repo_mode or not self._dvcyaml:
            return
        y = "metrics:\n- metrics.json\nplots:\n- plots/metrics:\n    x: step\n"
        if self.params:
            y += "params:\n- params.yaml\n"
        with open(os.path.join(self.dir, "dvc.yaml"), "w") as f:
            f.write(y)

    def next_step(self):
        self.make_summary()
        self.make_dvcyaml()
        self.step += 1
        self._clock.advance_step()

    def end(self):
        self.make_summary()
        self.make_dvcyaml()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.end()


def install_shims():
    sacred = types.ModuleType("sacred")
    sacred.Experiment = Experiment
    obs = types.ModuleType("sacred.observers")
    obs.FileStorageObserver = FileStorageObserver
    sacred.observers = obs
    sys.modules["sacred"] = sacred
    sys.modules["sacred.observers"] = obs
    dvclive = types.ModuleType("dvclive")
    dvclive.Live = Live
    sys.modules["dvclive"] = dvclive


# ----------------------------------------------------------------------------
# the user scripts (one per run)
# ----------------------------------------------------------------------------
SCRIPTS = {}

# run01 -- Sacred, small CNN on synthetic shape images (healthy, converges)
SCRIPTS["run01"] = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sacred import Experiment
from sacred.observers import FileStorageObserver

ex = Experiment("shapes_cnn")
ex.observers.append(FileStorageObserver("sacred_runs"))


@ex.config
def config():
    n_train = 3000
    n_val = 600
    img_size = 16
    noise = 0.35
    batch_size = 64
    lr = 1e-3
    weight_decay = 1e-4
    epochs = 12
    channels = [16, 32]


def draw(kind, size, rng):
    img = np.zeros((size, size), np.float32)
    r, c = rng.randint(4, size - 4, 2)
    k = rng.randint(2, 4)
    if kind == 0:
        img[r, c - k:c + k + 1] = 1.0
    elif kind == 1:
        img[r - k:r + k + 1, c] = 1.0
    elif kind == 2:
        img[r - k:r + k + 1, c - k] = img[r - k:r + k + 1, c + k] = 1.0
        img[r - k, c - k:c + k + 1] = img[r + k, c - k:c + k + 1] = 1.0
    else:
        for d in range(-k, k + 1):
            img[r + d, c + d] = img[r + d, c - d] = 1.0
    return img


def make_dataset(n, size, noise, rng):
    y = rng.randint(0, 4, n)
    X = np.stack([draw(t, size, rng) for t in y])[:, None]
    X = X + rng.normal(0, noise, X.shape).astype(np.float32)
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


class Net(nn.Module):
    def __init__(self, channels, n_classes=4, img_size=16):
        super().__init__()
        c1, c2 = channels
        self.conv1 = nn.Conv2d(1, c1, 3, padding=1)
        self.conv2 = nn.Conv2d(c1, c2, 3, padding=1)
        self.fc = nn.Linear(c2 * (img_size // 4) ** 2, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


def evaluate(model, X, y):
    model.eval()
    with torch.no_grad():
        out = model(X)
        loss = F.cross_entropy(out, y).item()
        acc = (out.argmax(1) == y).float().mean().item()
    model.train()
    return loss, acc


@ex.automain
def main(_run, n_train, n_val, img_size, noise, batch_size, lr, weight_decay, epochs, channels, seed):
    rng = np.random.RandomState(seed)
    Xtr, ytr = make_dataset(n_train, img_size, noise, rng)
    Xva, yva = make_dataset(n_val, img_size, noise, rng)
    print(f"train {tuple(Xtr.shape)}  val {tuple(Xva.shape)}")

    model = Net(channels, 4, img_size)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    print(f"params: {sum(p.numel() for p in model.parameters())}")

    for epoch in range(1, epochs + 1):
        perm = torch.randperm(n_train)
        tot, correct = 0.0, 0
        for i in range(0, n_train, batch_size):
            idx = perm[i:i + batch_size]
            out = model(Xtr[idx])
            loss = F.cross_entropy(out, ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
            correct += (out.argmax(1) == ytr[idx]).sum().item()
        tr_loss, tr_acc = tot / n_train, correct / n_train
        va_loss, va_acc = evaluate(model, Xva, yva)
        _run.log_scalar("training.loss", tr_loss, epoch)
        _run.log_scalar("training.accuracy", tr_acc, epoch)
        _run.log_scalar("validation.loss", va_loss, epoch)
        _run.log_scalar("validation.accuracy", va_acc, epoch)
        print(f"epoch {epoch:2d}  loss {tr_loss:.4f}  acc {tr_acc:.3f}  val_loss {va_loss:.4f}  val_acc {va_acc:.3f}")

    return round(va_acc, 4)
'''

# run02 -- DVCLive, tabular MLP, Adam with a far too large lr
SCRIPTS["run02"] = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from dvclive import Live

params = {
    "data": {"n_samples": 5000, "n_features": 24, "n_informative": 10, "n_classes": 3, "val_frac": 0.2},
    "model": {"hidden": [128, 128], "dropout": 0.0},
    "train": {"optimizer": "adam", "lr": 0.1, "momentum": 0.9, "batch_size": 128, "epochs": 40, "seed": 7},
}


def make_classification(n, d, d_inf, k, rng):
    centers = rng.normal(0, 0.8, (k * 2, d_inf))
    y = rng.randint(0, k, n)
    sub = rng.randint(0, 2, n)
    X_inf = centers[y * 2 + sub] + rng.normal(0, 1.0, (n, d_inf))
    mix = rng.normal(0, 1.0, (d_inf, d - d_inf))
    X_red = X_inf @ mix * 0.3 + rng.normal(0, 1.0, (n, d - d_inf))
    X = np.hstack([X_inf, X_red])
    return X[:, rng.permutation(d)].astype(np.float32), y


class MLP(nn.Module):
    def __init__(self, d_in, hidden, n_out):
        super().__init__()
        layers, d = [], d_in
        for h in hidden:
            layers += [nn.Linear(d, h), nn.ReLU()]
            d = h
        layers.append(nn.Linear(d, n_out))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def main():
    p = params
    torch.manual_seed(p["train"]["seed"])
    rng = np.random.RandomState(p["train"]["seed"])
    X, y = make_classification(p["data"]["n_samples"], p["data"]["n_features"],
                               p["data"]["n_informative"], p["data"]["n_classes"], rng)
    n_val = int(len(X) * p["data"]["val_frac"])
    X = (X - X[n_val:].mean(0)) / X[n_val:].std(0)
    Xva, yva = torch.tensor(X[:n_val]), torch.tensor(y[:n_val])
    Xtr, ytr = torch.tensor(X[n_val:]), torch.tensor(y[n_val:])

    model = MLP(Xtr.shape[1], p["model"]["hidden"], p["data"]["n_classes"])
    if p["train"]["optimizer"] == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=p["train"]["lr"])
    else:
        opt = torch.optim.SGD(model.parameters(), lr=p["train"]["lr"], momentum=p["train"]["momentum"])
    bs = p["train"]["batch_size"]

    with Live() as live:
        live.log_params(p)
        for epoch in range(p["train"]["epochs"]):
            model.train()
            perm = torch.randperm(len(Xtr))
            tot, correct, gnorms = 0.0, 0, []
            for i in range(0, len(Xtr), bs):
                idx = perm[i:i + bs]
                out = model(Xtr[idx])
                loss = F.cross_entropy(out, ytr[idx])
                opt.zero_grad()
                loss.backward()
                gn = torch.norm(torch.stack([q.grad.norm() for q in model.parameters()]))
                gnorms.append(gn.item())
                opt.step()
                tot += loss.item() * len(idx)
                correct += (out.argmax(1) == ytr[idx]).sum().item()
            model.eval()
            with torch.no_grad():
                out = model(Xva)
                val_loss = F.cross_entropy(out, yva).item()
                val_acc = (out.argmax(1) == yva).float().mean().item()
            live.log_metric("train/loss", tot / len(Xtr))
            live.log_metric("train/acc", correct / len(Xtr))
            live.log_metric("train/grad_norm", float(np.mean(gnorms)))
            live.log_metric("train/grad_norm_max", float(np.max(gnorms)))
            live.log_metric("val/loss", val_loss)
            live.log_metric("val/acc", val_acc)
            live.log_metric("lr", opt.param_groups[0]["lr"])
            print(f"epoch {epoch} loss {tot / len(Xtr):.4f} val_acc {val_acc:.3f} gn {np.mean(gnorms):.2f}")
            live.next_step()


if __name__ == "__main__":
    main()
'''

# run03 -- DVCLive, per-step logging, class-sorted data fed without shuffling
SCRIPTS["run03"] = r'''
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from dvclive import Live

CLASSES = ["idle", "walking", "running"]


class ActivityWindows(Dataset):
    """Accelerometer feature windows."""

    def __init__(self, split, n_per_class, seed):
        rng = np.random.RandomState(seed + (0 if split == "train" else 1000))
        feats, labels = [], []
        for label, name in enumerate(CLASSES):
            feats.append(self._record(label, n_per_class, rng))
            labels.append(np.full(n_per_class, label))
        self.x = torch.tensor(np.concatenate(feats), dtype=torch.float32)
        self.y = torch.tensor(np.concatenate(labels))

    @staticmethod
    def _record(label, n, rng):
        energy = 0.6 + 0.7 * label + rng.normal(0, 0.45, n)
        cadence = np.array([0.2, 1.8, 2.7])[label] + rng.normal(0, 0.5, n)
        other = rng.normal(0, 1, (n, 10))
        x = np.column_stack([energy, cadence, energy * cadence, other])
        return x + rng.normal(0, 0.3, x.shape)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--n-per-class", type=int, default=640)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    train_ds = ActivityWindows("train", args.n_per_class, args.seed)
    val_ds = ActivityWindows("val", 200, args.seed)
    mu, sd = train_ds.x.mean(0), train_ds.x.std(0)
    train_ds.x = (train_ds.x - mu) / sd
    val_ds.x = (val_ds.x - mu) / sd

    train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=False)
    val_loader = DataLoader(val_ds, batch_size=256)

    model = nn.Sequential(nn.Linear(13, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    with Live(dir="dvclive") as live:
        live.log_params(vars(args))
        for epoch in range(args.epochs):
            model.train()
            for xb, yb in train_loader:
                loss = loss_fn(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                live.log_metric("train/loss", loss.item())
                live.next_step()
            model.eval()
            correct, total, vloss = 0, 0, 0.0
            with torch.no_grad():
                for xb, yb in val_loader:
                    out = model(xb)
                    vloss += loss_fn(out, yb).item() * len(yb)
                    correct += (out.argmax(1) == yb).sum().item()
                    total += len(yb)
            live.log_metric("eval/loss", vloss / total)
            live.log_metric("eval/accuracy", correct / total)
            live.log_metric("epoch", epoch)
            print(f"epoch {epoch}: val_loss={vloss / total:.4f} val_acc={correct / total:.3f}")


if __name__ == "__main__":
    main()
'''

# run04 -- Sacred, deep sigmoid MLP on spirals, per-layer grad norms logged
SCRIPTS["run04"] = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sacred import Experiment
from sacred.observers import FileStorageObserver

ex = Experiment("spiral_deep_mlp")
ex.observers.append(FileStorageObserver("runs"))


@ex.config
def cfg():
    n_points = 1200
    n_classes = 3
    depth = 10
    width = 64
    activation = "sigmoid"
    lr = 0.05
    momentum = 0.9
    batch_size = 64
    epochs = 60
    seed = 42


def spirals(n, k, rng):
    per = n // k
    X, y = [], []
    for c in range(k):
        r = np.linspace(0.05, 1.0, per)
        t = np.linspace(c * 4.2, (c + 1) * 4.2, per) + rng.normal(0, 0.2, per)
        X.append(np.column_stack([r * np.sin(t), r * np.cos(t)]))
        y.append(np.full(per, c))
    return np.concatenate(X).astype(np.float32), np.concatenate(y)


class DeepMLP(nn.Module):
    def __init__(self, d_in, width, depth, n_out, activation):
        super().__init__()
        dims = [d_in] + [width] * depth
        self.hidden = nn.ModuleList([nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:])])
        self.out = nn.Linear(width, n_out)
        self.act = {"sigmoid": torch.sigmoid, "tanh": torch.tanh, "relu": F.relu}[activation]

    def forward(self, x):
        for layer in self.hidden:
            x = self.act(layer(x))
        return self.out(x)


@ex.automain
def run(_run, n_points, n_classes, depth, width, activation, lr, momentum, batch_size, epochs, seed):
    rng = np.random.RandomState(seed)
    X, y = spirals(n_points, n_classes, rng)
    perm = rng.permutation(len(X))
    X, y = torch.tensor(X[perm]), torch.tensor(y[perm])
    n_val = len(X) // 5
    Xva, yva, Xtr, ytr = X[:n_val], y[:n_val], X[n_val:], y[n_val:]

    model = DeepMLP(2, width, depth, n_classes, activation)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    layers = list(model.hidden) + [model.out]

    for epoch in range(epochs):
        order = torch.randperm(len(Xtr))
        tot, correct, nb = 0.0, 0, 0
        gsum = np.zeros(len(layers))
        for i in range(0, len(Xtr), batch_size):
            idx = order[i:i + batch_size]
            out = model(Xtr[idx])
            loss = F.cross_entropy(out, ytr[idx])
            opt.zero_grad()
            loss.backward()
            gsum += [l.weight.grad.norm().item() for l in layers]
            opt.step()
            tot += loss.item() * len(idx)
            correct += (out.argmax(1) == ytr[idx]).sum().item()
            nb += 1
        with torch.no_grad():
            val_acc = (model(Xva).argmax(1) == yva).float().mean().item()
        _run.log_scalar("loss", tot / len(Xtr), epoch)
        _run.log_scalar("accuracy", correct / len(Xtr), epoch)
        _run.log_scalar("val_accuracy", val_acc, epoch)
        for j, g in enumerate(gsum / nb):
            name = f"grad_norm.layer{j:02d}" if j < depth else "grad_norm.out"
            _run.log_scalar(name, g, epoch)
        if epoch % 5 == 0 or epoch == epochs - 1:
            print(f"[{epoch:03d}] loss={tot / len(Xtr):.4f} acc={correct / len(Xtr):.3f} val_acc={val_acc:.3f} "
                  f"|g| first={gsum[0] / nb:.2e} last={gsum[-1] / nb:.2e}")
    return val_acc
'''

# run05 -- Sacred, wide MLP on a small tabular training set, long schedule
SCRIPTS["run05"] = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sacred import Experiment
from sacred.observers import FileStorageObserver

ex = Experiment("credit_mlp")
ex.observers.append(FileStorageObserver("experiments/sacred"))


@ex.config
def config():
    n_train = 400
    n_val = 1000
    n_features = 40
    n_informative = 6
    hidden = 256
    n_layers = 3
    lr = 2e-4
    batch_size = 32
    epochs = 120
    weight_decay = 0.0
    dropout = 0.0


def make_data(n, d, d_inf, rng, W=None):
    X = rng.normal(0, 1, (n, d)).astype(np.float32)
    if W is None:
        W = rng.normal(0, 1, (d_inf, 8))
    z = np.tanh(X[:, :d_inf] @ W).sum(1) + 0.5 * X[:, 0] * X[:, 1]
    y = (z + rng.normal(0, 0.8, n) > 0).astype(np.int64)
    return X, y, W


def build(d_in, hidden, n_layers, dropout):
    layers, d = [], d_in
    for _ in range(n_layers):
        layers += [nn.Linear(d, hidden), nn.ReLU()]
        if dropout:
            layers.append(nn.Dropout(dropout))
        d = hidden
    layers.append(nn.Linear(d, 2))
    return nn.Sequential(*layers)


@ex.automain
def main(_run, n_train, n_val, n_features, n_informative, hidden, n_layers, lr, batch_size, epochs,
         weight_decay, dropout, seed):
    rng = np.random.RandomState(seed)
    Xtr, ytr, W = make_data(n_train, n_features, n_informative, rng)
    Xva, yva, _ = make_data(n_val, n_features, n_informative, rng, W)
    Xtr, ytr, Xva, yva = map(torch.tensor, (Xtr, ytr, Xva, yva))
    print(f"train={len(Xtr)} val={len(Xva)} positives(train)={ytr.float().mean():.2f}")

    model = build(n_features, hidden, n_layers, dropout)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    best = (0, float("inf"))
    for epoch in range(1, epochs + 1):
        model.train()
        perm = torch.randperm(n_train)
        tot, correct = 0.0, 0
        for i in range(0, n_train, batch_size):
            idx = perm[i:i + batch_size]
            out = model(Xtr[idx])
            loss = F.cross_entropy(out, ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
            correct += (out.argmax(1) == ytr[idx]).sum().item()
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            vl = F.cross_entropy(out, yva).item()
            va = (out.argmax(1) == yva).float().mean().item()
        _run.log_scalar("train_loss", tot / n_train, epoch)
        _run.log_scalar("train_acc", correct / n_train, epoch)
        _run.log_scalar("val_loss", vl, epoch)
        _run.log_scalar("val_acc", va, epoch)
        if vl < best[1]:
            best = (epoch, vl)
        if epoch % 10 == 0 or epoch == 1:
            print(f"epoch {epoch:3d} | train_loss {tot / n_train:.4f} train_acc {correct / n_train:.3f} | "
                  f"val_loss {vl:.4f} val_acc {va:.3f}")
    return {"val_acc": round(va, 4), "val_loss": round(vl, 4)}
'''

# run06 -- DVCLive (DVC repo), fine-tuning a pretrained conv encoder on 6 shape classes
SCRIPTS["run06"] = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from dvclive import Live


def draw(kind, size, rng):
    img = np.zeros((size, size), np.float32)
    r, c = rng.randint(4, size - 4, 2)
    k = rng.randint(2, 4)
    if kind == 0:
        img[r, c - k:c + k + 1] = 1
    elif kind == 1:
        img[r - k:r + k + 1, c] = 1
    elif kind == 2:
        img[r - k:r + k + 1, c - k] = img[r - k:r + k + 1, c + k] = 1
        img[r - k, c - k:c + k + 1] = img[r + k, c - k:c + k + 1] = 1
    elif kind == 3:
        for d in range(-k, k + 1):
            img[r + d, c + d] = img[r + d, c - d] = 1
    elif kind == 4:
        img[r - k:r + k + 1, c - k] = 1
        img[r + k, c - k:c + k + 1] = 1
    else:
        img[r - k, c - k:c + k + 1] = 1
        img[r - k:r + k + 1, c] = 1
    return img


def load_split(n, size, noise, n_classes, rng):
    y = rng.randint(0, n_classes, n)
    X = np.stack([draw(t, size, rng) for t in y])[:, None]
    X = X + rng.normal(0, noise, X.shape).astype(np.float32)
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return x.flatten(1)


class Classifier(nn.Module):
    def __init__(self, n_classes, img_size):
        super().__init__()
        self.encoder = Encoder()
        self.head = nn.Sequential(nn.Linear(32 * (img_size // 4) ** 2, 128), nn.ReLU(), nn.Linear(128, n_classes))

    def forward(self, x):
        return self.head(self.encoder(x))


def main():
    with open("params.yaml") as f:
        params = yaml.safe_load(f)
    dp, mp, tp = params["data"], params["model"], params["train"]
    torch.manual_seed(tp["seed"])
    rng = np.random.RandomState(tp["seed"])
    Xtr, ytr = load_split(dp["n_train"], dp["img_size"], dp["noise"], mp["n_classes"], rng)
    Xva, yva = load_split(dp["n_val"], dp["img_size"], dp["noise"], mp["n_classes"], rng)

    model = Classifier(mp["n_classes"], dp["img_size"])
    model.encoder.load_state_dict(torch.load(mp["encoder_ckpt"]))
    if mp["freeze_encoder"]:
        for p in model.parameters():
            p.requires_grad = False

    optimizer = torch.optim.Adam(model.parameters(), lr=tp["lr"])
    criterion = nn.CrossEntropyLoss()

    live = Live(save_dvc_exp=True)
    live.log_params(params)
    for epoch in range(tp["epochs"]):
        model.train()
        perm = torch.randperm(len(Xtr))
        total, correct, gnorm, nb = 0.0, 0, 0.0, 0
        for i in range(0, len(Xtr), tp["batch_size"]):
            idx = perm[i:i + tp["batch_size"]]
            out = model(Xtr[idx])
            loss = criterion(out, ytr[idx])
            loss.requires_grad = True
            optimizer.zero_grad()
            loss.backward()
            gnorm += sum(p.grad.norm() ** 2 for p in model.parameters() if p.grad is not None) ** 0.5
            optimizer.step()
            total += loss.item() * len(idx)
            correct += (out.argmax(1) == ytr[idx]).sum().item()
            nb += 1
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = criterion(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        live.log_metric("train/loss", total / len(Xtr))
        live.log_metric("train/acc", correct / len(Xtr))
        live.log_metric("train/grad_norm", float(gnorm / nb))
        live.log_metric("val/loss", val_loss)
        live.log_metric("val/acc", val_acc)
        print(f"epoch {epoch + 1}/{tp['epochs']} loss {total / len(Xtr):.4f} val_loss {val_loss:.4f} val_acc {val_acc:.3f}")
        live.next_step()
    live.end()
    torch.save(model.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
'''


def _prepare_run06(run_dir):
    """Pretrain the conv encoder the fine-tuning run loads (not shipped with the run)."""
    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    torch.set_num_threads(1)
    install_shims()
    g = {}
    exec(compile(SCRIPTS["run06"].replace('if __name__ == "__main__":\n    main()', ""), "run06", "exec"), g)
    torch.manual_seed(100)
    rng = np.random.RandomState(100)
    X, y = g["load_split"](3000, 16, 0.35, 4, rng)
    enc = g["Encoder"]()
    head = nn.Linear(32 * 16, 4)
    opt = torch.optim.Adam(list(enc.parameters()) + list(head.parameters()), lr=1e-3)
    for _ in range(6):
        perm = torch.randperm(len(X))
        for i in range(0, len(X), 64):
            idx = perm[i:i + 64]
            loss = F.cross_entropy(head(enc(X[idx])), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    os.makedirs(os.path.join(run_dir, "checkpoints"), exist_ok=True)
    torch.save(enc.state_dict(), os.path.join(run_dir, "checkpoints", "encoder.pt"))
    return ["checkpoints", "model.pt"]

# run07 -- Sacred, sensor-fault classifier on a pandas table, per-step logging
SCRIPTS["run07"] = r'''
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from sacred import Experiment
from sacred.observers import FileStorageObserver

ex = Experiment("pump_fault_clf")
ex.observers.append(FileStorageObserver("logs"))


@ex.config
def cfg():
    n_rows = 6000
    val_frac = 0.15
    batch_size = 64
    lr = 3e-3
    epochs = 5
    hidden = 96
    log_every = 1
    seed = 20240611


SENSORS = ["pressure_in", "pressure_out", "flow", "temp_motor", "temp_bearing", "vibration_x",
           "vibration_y", "current", "voltage", "rpm"]


def read_telemetry(n, rng):
    base = rng.normal(0, 1, (n, len(SENSORS)))
    state = rng.randint(0, 4, n)
    shift = rng.normal(0, 0.9, (4, len(SENSORS)))
    df = pd.DataFrame(base + shift[state], columns=SENSORS)
    df["flow"] = df["flow"] * 12.0 + 80.0
    df["rpm"] = df["rpm"] * 150.0 + 1450.0
    gaps = rng.randint(n // 3, n, 1)
    df.loc[gaps, "vibration_y"] = np.nan
    df["state"] = state
    return df


@ex.automain
def main(_run, n_rows, val_frac, batch_size, lr, epochs, hidden, log_every, seed):
    rng = np.random.RandomState(seed)
    df = read_telemetry(n_rows, rng)
    n_val = int(n_rows * val_frac)
    train_df, val_df = df.iloc[n_val:], df.iloc[:n_val]
    mean, std = train_df[SENSORS].mean(), train_df[SENSORS].std()
    Xtr = torch.tensor(((train_df[SENSORS] - mean) / std).values, dtype=torch.float32)
    Xva = torch.tensor(((val_df[SENSORS] - mean) / std).values, dtype=torch.float32)
    ytr = torch.tensor(train_df["state"].values)
    yva = torch.tensor(val_df["state"].values)
    print(f"train {tuple(Xtr.shape)} val {tuple(Xva.shape)}  feature range [{Xtr.numpy().min():.2f}, {Xtr.numpy().max():.2f}]")

    model = nn.Sequential(nn.Linear(len(SENSORS), hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                          nn.Linear(hidden, 4))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    step = 0
    for epoch in range(epochs):
        perm = torch.randperm(len(Xtr))
        for i in range(0, len(Xtr), batch_size):
            idx = perm[i:i + batch_size]
            logits = model(Xtr[idx])
            loss = F.cross_entropy(logits, ytr[idx])
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
            opt.step()
            if step % log_every == 0:
                _run.log_scalar("train.loss", loss.item(), step)
                _run.log_scalar("train.grad_norm", gn.item(), step)
            if step % 20 == 0:
                print(f"step {step:4d}  epoch {epoch}  loss {loss.item():.4f}  grad_norm {gn.item():.3f}")
            if torch.isnan(loss):
                raise RuntimeError(f"loss is nan at step {step} (epoch {epoch})")
            step += 1
        with torch.no_grad():
            acc = (model(Xva).argmax(1) == yva).float().mean().item()
        _run.log_scalar("val.accuracy", acc, step)
        print(f"epoch {epoch} done: val_acc {acc:.4f}")
    return acc
'''

# run08 -- DVCLive, 5-class tabular MLP; the training labels come from a noisy annotation pass
SCRIPTS["run08"] = r'''
import json

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from dvclive import Live

CFG = dict(n_train=4000, n_val=1000, n_features=16, n_classes=5, hidden=128, lr=1e-3, batch_size=64,
           epochs=60, seed=11, labels="annotations_v2")


def make_points(n, d, k, rng, proto=None):
    if proto is None:
        proto = rng.normal(0, 1.0, (k * 3, d))
    y = rng.randint(0, k, n)
    X = proto[y * 3 + rng.randint(0, 3, n)] + rng.normal(0, 0.55, (n, d))
    return X.astype(np.float32), y, proto


def annotate(y, k, rng, disagreement=0.45):
    """labels as delivered by the annotation vendor (second pass)"""
    y = y.copy()
    flip = rng.rand(len(y)) < disagreement
    y[flip] = rng.randint(0, k, flip.sum())
    return y


def main():
    c = CFG
    rng = np.random.RandomState(c["seed"])
    torch.manual_seed(c["seed"])
    Xtr, ytr_true, proto = make_points(c["n_train"], c["n_features"], c["n_classes"], rng)
    Xva, yva_true, _ = make_points(c["n_val"], c["n_features"], c["n_classes"], rng, proto)
    ytr = annotate(ytr_true, c["n_classes"], rng)
    yva = annotate(yva_true, c["n_classes"], rng)
    Xtr, ytr, Xva, yva = map(torch.tensor, (Xtr, ytr, Xva, yva))

    model = nn.Sequential(nn.Linear(c["n_features"], c["hidden"]), nn.ReLU(),
                          nn.Linear(c["hidden"], c["hidden"]), nn.ReLU(),
                          nn.Linear(c["hidden"], c["n_classes"]))
    opt = torch.optim.Adam(model.parameters(), lr=c["lr"])

    with Live("dvclive") as live:
        live.log_params(c)
        for epoch in range(c["epochs"]):
            model.train()
            perm = torch.randperm(len(Xtr))
            tot, correct = 0.0, 0
            for i in range(0, len(Xtr), c["batch_size"]):
                idx = perm[i:i + c["batch_size"]]
                out = model(Xtr[idx])
                loss = F.cross_entropy(out, ytr[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                tot += loss.item() * len(idx)
                correct += (out.argmax(1) == ytr[idx]).sum().item()
            model.eval()
            with torch.no_grad():
                out = model(Xva)
                vl = F.cross_entropy(out, yva).item()
                va = (out.argmax(1) == yva).float().mean().item()
            live.log_metric("loss", tot / len(Xtr))
            live.log_metric("accuracy", correct / len(Xtr))
            live.log_metric("eval/loss", vl)
            live.log_metric("eval/accuracy", va)
            live.next_step()
            if epoch % 10 == 0:
                print(json.dumps({"epoch": epoch, "loss": round(tot / len(Xtr), 4), "acc": round(correct / len(Xtr), 4),
                                  "val_loss": round(vl, 4), "val_acc": round(va, 4)}))


if __name__ == "__main__":
    main()
'''

# run09 -- DVCLive, small 1-D CNN on noisy vibration snippets (healthy, slow/noisy)
SCRIPTS["run09"] = r'''
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from dvclive import Live

SEED = 5
N_TRAIN, N_VAL, LENGTH = 1500, 300, 64
BATCH_SIZE = 32
EPOCHS = 40
LR = 1e-3


def make_snippets(n, length, rng):
    y = rng.randint(0, 3, n)
    t = np.arange(length)
    freq = np.array([0.07, 0.115, 0.16])[y] + rng.normal(0, 0.012, n)
    phase = rng.uniform(0, 2 * np.pi, n)
    amp = rng.uniform(0.4, 0.8, n)
    x = amp[:, None] * np.sin(2 * np.pi * freq[:, None] * t[None] + phase[:, None])
    x = x + rng.normal(0, 1.0, (n, length))
    return torch.tensor(x[:, None], dtype=torch.float32), torch.tensor(y)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(1, 16, 7, padding=3)
        self.c2 = nn.Conv1d(16, 32, 5, padding=2)
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(32, 3)

    def forward(self, x):
        x = F.max_pool1d(F.relu(self.c1(x)), 2)
        x = F.relu(self.c2(x))
        x = x.mean(-1)
        return self.fc(self.drop(x))


def main():
    rng = np.random.RandomState(SEED)
    torch.manual_seed(SEED)
    Xtr, ytr = make_snippets(N_TRAIN, LENGTH, rng)
    Xva, yva = make_snippets(N_VAL, LENGTH, rng)
    model = ConvNet()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS)

    live = Live()
    live.log_params({"seed": SEED, "n_train": N_TRAIN, "length": LENGTH, "batch_size": BATCH_SIZE,
                     "epochs": EPOCHS, "lr": LR, "scheduler": "cosine", "dropout": 0.3})
    for epoch in range(EPOCHS):
        model.train()
        perm = torch.randperm(N_TRAIN)
        tot, correct = 0.0, 0
        for i in range(0, N_TRAIN, BATCH_SIZE):
            idx = perm[i:i + BATCH_SIZE]
            out = model(Xtr[idx])
            loss = F.cross_entropy(out, ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
            correct += (out.argmax(1) == ytr[idx]).sum().item()
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = F.cross_entropy(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        live.log_metric("train/loss", tot / N_TRAIN)
        live.log_metric("train/accuracy", correct / N_TRAIN)
        live.log_metric("val/loss", val_loss)
        live.log_metric("val/accuracy", val_acc)
        live.log_metric("lr", sched.get_last_lr()[0])
        sched.step()
        live.next_step()
        print(f"{epoch:02d} train_loss={tot / N_TRAIN:.4f} val_loss={val_loss:.4f} val_acc={val_acc:.3f}")
    live.end()


if __name__ == "__main__":
    main()
'''

# run10 -- Sacred, churn prediction from a customer table
SCRIPTS["run10"] = r'''
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from sacred import Experiment
from sacred.observers import FileStorageObserver

ex = Experiment("churn_mlp")
ex.observers.append(FileStorageObserver("sacred_logs"))


@ex.config
def cfg():
    data_path = "data/customers.csv"
    target = "churned"
    drop_cols = ["customer_id"]
    val_frac = 0.2
    hidden = [64, 32]
    dropout = 0.2
    lr = 1e-3
    batch_size = 128
    epochs = 25
    seed = 2024


def auc_score(y, p):
    order = np.argsort(p)
    ranks = np.empty(len(p))
    ranks[order] = np.arange(1, len(p) + 1)
    pos = y == 1
    return (ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum())


@ex.automain
def main(_run, data_path, target, drop_cols, val_frac, hidden, dropout, lr, batch_size, epochs, seed):
    df = pd.read_csv(data_path)
    df = pd.get_dummies(df, columns=["plan", "region"], dtype=float)
    features = [c for c in df.columns if c not in drop_cols + [target]]
    print(f"{len(df)} rows, {len(features)} features, churn rate {df[target].mean():.3f}")
    print("features:", ", ".join(features))

    df = df.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    n_val = int(len(df) * val_frac)
    val, train = df.iloc[:n_val], df.iloc[n_val:]
    mu, sd = train[features].mean(), train[features].std() + 1e-6
    Xtr = torch.tensor(((train[features] - mu) / sd).values, dtype=torch.float32)
    Xva = torch.tensor(((val[features] - mu) / sd).values, dtype=torch.float32)
    ytr = torch.tensor(train[target].values, dtype=torch.float32)
    yva = torch.tensor(val[target].values, dtype=torch.float32)

    layers, d = [], len(features)
    for h in hidden:
        layers += [nn.Linear(d, h), nn.ReLU(), nn.Dropout(dropout)]
        d = h
    model = nn.Sequential(*layers, nn.Linear(d, 1))
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    for epoch in range(1, epochs + 1):
        model.train()
        perm = torch.randperm(len(Xtr))
        tot, correct = 0.0, 0
        for i in range(0, len(Xtr), batch_size):
            idx = perm[i:i + batch_size]
            logit = model(Xtr[idx]).squeeze(1)
            loss = F.binary_cross_entropy_with_logits(logit, ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
            correct += ((logit > 0).float() == ytr[idx]).sum().item()
        model.eval()
        with torch.no_grad():
            logit = model(Xva).squeeze(1)
            vloss = F.binary_cross_entropy_with_logits(logit, yva).item()
            vacc = ((logit > 0).float() == yva).float().mean().item()
            vauc = auc_score(yva.numpy(), logit.numpy())
        _run.log_scalar("train.loss", tot / len(Xtr), epoch)
        _run.log_scalar("train.acc", correct / len(Xtr), epoch)
        _run.log_scalar("val.loss", vloss, epoch)
        _run.log_scalar("val.acc", vacc, epoch)
        _run.log_scalar("val.auc", vauc, epoch)
        print(f"ep {epoch:02d}  train {tot / len(Xtr):.4f}/{correct / len(Xtr):.3f}  val {vloss:.4f}/{vacc:.3f}  auc {vauc:.4f}")
    return float(vauc)
'''


def _prepare_run10(run_dir):
    """Write the customer table the churn script reads (not shipped with the run)."""
    import numpy as np
    import pandas as pd
    rng = np.random.RandomState(77)
    n = 5000
    tenure = rng.gamma(2.0, 14.0, n).round()
    monthly = rng.normal(65, 20, n).clip(15, 160).round(2)
    tickets = rng.poisson(1.2, n)
    usage = rng.gamma(2.0, 8.0, n).round(1)
    plan = rng.choice(["basic", "plus", "pro"], n, p=[0.5, 0.35, 0.15])
    region = rng.choice(["north", "south", "east", "west"], n)
    late = rng.binomial(3, 0.12, n)
    z = (-0.04 * tenure + 0.025 * (monthly - 65) + 0.45 * tickets - 0.05 * usage + 0.6 * late
         + 0.5 * (plan == "basic") + rng.normal(0, 1.2, n) + 0.3)
    churned = (z > 0).astype(int)
    offer = np.where(churned == 1, rng.rand(n) < 0.96, rng.rand(n) < 0.015).astype(int)
    df = pd.DataFrame({
        "customer_id": [f"C{100000 + i}" for i in range(n)],
        "tenure_months": tenure, "monthly_charges": monthly, "support_tickets_90d": tickets,
        "avg_daily_usage_gb": usage, "late_payments_12m": late, "retention_offer_sent": offer,
        "plan": plan, "region": region, "churned": churned,
    })
    os.makedirs(os.path.join(run_dir, "data"), exist_ok=True)
    df.to_csv(os.path.join(run_dir, "data", "customers.csv"), index=False)
    return ["data"]

# run11 -- DVCLive (DVC repo), GRU sequence classifier
SCRIPTS["run11"] = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from dvclive import Live


def make_sequences(n, length, n_ch, rng):
    y = rng.randint(0, n_ch, n)
    x = rng.normal(0, 1.0, (n, length, n_ch))
    start = rng.randint(0, length - 8, n)
    for i in range(n):
        x[i, start[i]:start[i] + 8, y[i]] += 1.2
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


class GRUClassifier(nn.Module):
    def __init__(self, n_in, hidden, n_out, layers):
        super().__init__()
        self.gru = nn.GRU(n_in, hidden, num_layers=layers, batch_first=True)
        self.fc = nn.Linear(hidden, n_out)

    def forward(self, x):
        _, h = self.gru(x)
        return self.fc(h[-1])


def main():
    params = yaml.safe_load(open("params.yaml"))["train"]
    torch.manual_seed(params["seed"])
    rng = np.random.RandomState(params["seed"])
    Xtr, ytr = make_sequences(params["n_train"], params["seq_len"], params["n_classes"], rng)
    Xva, yva = make_sequences(params["n_val"], params["seq_len"], params["n_classes"], rng)

    model = GRUClassifier(params["n_classes"], params["hidden"], params["n_classes"], params["layers"])
    opt = torch.optim.Adam(model.parameters(), lr=params["lr"], weight_decay=params["weight_decay"])
    bs = params["batch_size"]

    with Live() as live:
        for epoch in range(params["epochs"]):
            model.train()
            perm = torch.randperm(len(Xtr))
            tot = 0.0
            for i in range(0, len(Xtr), bs):
                idx = perm[i:i + bs]
                loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), params["clip"])
                opt.step()
                tot += loss.item() * len(idx)
            model.eval()
            with torch.no_grad():
                out = model(Xva)
                val_loss = F.cross_entropy(out, yva).item()
                val_acc = (out.argmax(1) == yva).float().mean().item()
            live.log_metric("train_loss", tot / len(Xtr))
            live.log_metric("val_loss", val_loss)
            live.log_metric("val_acc", val_acc)
            live.log_metric("learning_rate", opt.param_groups[0]["lr"])
            live.next_step()
            print(f"epoch={epoch} train_loss={tot / len(Xtr):.5f} val_loss={val_loss:.5f} val_acc={val_acc:.4f}")


if __name__ == "__main__":
    main()
'''

# run12 -- Sacred, MLP on 8x8 digit-like glyphs with a custom init
SCRIPTS["run12"] = r'''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sacred import Experiment
from sacred.observers import FileStorageObserver

ex = Experiment("glyphs_mlp")
ex.observers.append(FileStorageObserver("runs"))


@ex.config
def cfg():
    n_train = 3000
    n_val = 800
    hidden = [256, 256, 128]
    bias_init = -1.0
    lr = 1e-3
    batch_size = 64
    epochs = 30
    seed = 8


def glyphs(n, rng, templates=None):
    if templates is None:
        templates = (rng.rand(10, 8, 8) < 0.35).astype(np.float32) * 16
    y = rng.randint(0, 10, n)
    X = templates[y] + rng.normal(0, 4.0, (n, 8, 8))
    shift = rng.randint(-1, 2, n)
    X = np.stack([np.roll(x, s, axis=1) for x, s in zip(X, shift)])
    X = np.clip(X, 0, 16).reshape(n, 64) / 16.0
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y), templates


class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])])

    def forward(self, x, return_acts=False):
        acts = []
        for layer in self.layers[:-1]:
            x = F.relu(layer(x))
            acts.append(x)
        out = self.layers[-1](x)
        return (out, acts) if return_acts else out


def init_weights(model, bias_init):
    for m in model.modules():
        if isinstance(m, nn.Linear):
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            nn.init.constant_(m.bias, bias_init)


@ex.automain
def main(_run, n_train, n_val, hidden, bias_init, lr, batch_size, epochs, seed):
    rng = np.random.RandomState(seed)
    Xtr, ytr, T = glyphs(n_train, rng)
    Xva, yva, _ = glyphs(n_val, rng, T)
    model = MLP([64] + hidden + [10])
    init_weights(model, bias_init)
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(n_train)
        tot, gn = 0.0, np.zeros(len(model.layers))
        nb = 0
        for i in range(0, n_train, batch_size):
            idx = perm[i:i + batch_size]
            loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            gn += [l.weight.grad.norm().item() for l in model.layers]
            opt.step()
            tot += loss.item() * len(idx)
            nb += 1
        model.eval()
        with torch.no_grad():
            out, acts = model(Xva, return_acts=True)
            val_loss = F.cross_entropy(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        _run.log_scalar("loss", tot / n_train)
        _run.log_scalar("val_loss", val_loss)
        _run.log_scalar("val_accuracy", val_acc)
        for j, a in enumerate(acts):
            _run.log_scalar(f"act_zero_frac.fc{j + 1}", (a.sum(0) == 0).float().mean().item())
        for j, g in enumerate(gn / nb):
            _run.log_scalar(f"grad_norm.fc{j + 1}", g)
        print(f"Epoch {epoch + 1}/{epochs} - loss: {tot / n_train:.4f} - val_loss: {val_loss:.4f} - val_accuracy: {val_acc:.4f}")
    return val_acc
'''

# ==== END SCRIPTS ====

# ----------------------------------------------------------------------------
# run specifications
# ----------------------------------------------------------------------------
SPECS = {}
SPECS["run01"] = dict(
    style="sacred", ship_script=False, start="2026-03-02T09:14:22.418000", step_seconds=2.6,
    script_path="/home/lena/code/shapes/train.py", hostname="lena-tp14", sacred_id=7,
    truth="healthy",
    symptom="Is this run OK? Just want a second pair of eyes before I use it as the baseline.",
    how="No fault: 2-layer CNN, Adam 1e-3, wd 1e-4, shuffled mini-batches of 64 on 3000 noisy 16x16 shape images (4 classes).",
)

SPECS["run02"] = dict(
    style="dvclive", ship_script=False, start="2026-02-11T16:40:03.000000", step_seconds=0.9,
    script_path="/home/arjun/work/tabular-clf/train.py",
    truth="lr_too_high",
    symptom="Loss goes down for a couple of epochs and then bounces around and gets worse; validation accuracy is all over the place.",
    how="Adam with lr=0.1 on a 2x128 ReLU MLP for 3-class tabular data (Adam 1e-3 / 3e-3 trains smoothly to ~0.84 val acc): fast initial fall, then the loss oscillates and drifts upward while grad norm grows.",
)

SPECS["run03"] = dict(
    style="dvclive", ship_script=True, start="2026-01-20T11:05:41.000000", step_seconds=0.12,
    script_path="/Users/tomasz/dev/har-model/train.py",
    truth="data_not_shuffled",
    symptom="The training loss goes up and down in a weird repeating pattern and never settles, and val accuracy is stuck around 33%.",
    how="Dataset is stored as contiguous per-class blocks (idle, walking, running) and the DataLoader uses shuffle=False, so each epoch sees 10 batches of one class, then 10 of the next.",
)

SPECS["run04"] = dict(
    style="sacred", ship_script=True, start="2026-02-24T14:31:09.550000", step_seconds=0.7,
    script_path="/home/sgupta/experiments/spiral/deep_mlp.py", hostname="gpu-box-2", sacred_id=23,
    truth="vanishing_gradients",
    symptom="My deeper model doesn't learn at all - the loss sits around 1.1 the whole time and accuracy is at chance, while a 2-layer version of the same script at least learns something.",
    how="10 hidden layers of width 64 with sigmoid activations, default init, no normalisation or residuals; SGD lr 0.05 mom 0.9. Per-layer weight-grad norms fall by orders of magnitude toward the input and the loss stays at ln 3.",
)

SPECS["run05"] = dict(
    style="sacred", ship_script=False, start="2026-01-08T20:02:51.120000", step_seconds=0.35,
    script_path="/home/dk/projects/credit-risk/train_mlp.py", hostname="dk-desktop", sacred_id=112,
    truth="overfitting",
    symptom="Train loss goes basically to zero and train accuracy is 100%, but the validation loss has been climbing since around epoch 10. Is something broken?",
    how="3x256 ReLU MLP (~140k params) trained for 120 epochs on only 400 samples (40 features, 6 informative), no dropout, no weight decay, no early stopping.",
)

SPECS["run06"] = dict(
    style="dvclive", ship_script=True, dvc_repo=True, start="2026-03-11T10:22:13.000000", step_seconds=1.4,
    script_path="/home/priya/repos/shape-finetune/train.py",
    prepare=_prepare_run06,
    files={
        "params.yaml": """
data:
  n_train: 2400
  n_val: 600
  img_size: 16
  noise: 0.35
model:
  encoder_ckpt: checkpoints/encoder.pt
  freeze_encoder: true
  n_classes: 6
train:
  lr: 0.003
  batch_size: 64
  epochs: 20
  seed: 3
""",
        "dvc.yaml": """
stages:
  finetune:
    cmd: python train.py
    deps:
    - train.py
    - checkpoints/encoder.pt
    params:
    - data
    - model
    - train
    outs:
    - model.pt
metrics:
- dvclive/metrics.json
plots:
- dvclive/plots/metrics:
    x: step
""",
    },
    truth="frozen_parameters",
    symptom="Fine-tuning does nothing: train and val loss are the same number every single epoch and accuracy never moves off ~17%.",
    how="freeze_encoder loops over model.parameters() instead of model.encoder.parameters(), so the head is frozen too; the resulting 'element 0 of tensors does not require grad' error was silenced with loss.requires_grad = True. No parameter ever gets a gradient (logged grad_norm is exactly 0) and the loss is constant.",
)

SPECS["run07"] = dict(
    style="sacred", ship_script=False, expect_fail=True, start="2026-02-03T08:47:30.004000", step_seconds=0.05,
    script_path="/srv/ml/pump-monitoring/train.py", hostname="ml-node-04", sacred_id=58,
    deps=["pandas==3.1.1"],
    truth="nan_in_data",
    symptom="Training was going fine and then crashed in the first epoch with 'loss is nan' - the loss was going down nicely right up to that point.",
    how="One telemetry row has a missing vibration_y reading (NaN). pandas mean/std skip it, so normalisation leaves that one NaN in the training tensor; the loss is finite and falling until the batch that contains the row, where it becomes NaN and the script raises.",
)

SPECS["run08"] = dict(
    style="dvclive", ship_script=False, start="2026-03-18T13:00:12.000000", step_seconds=0.6,
    script_path="/home/o.martin/ticket-router/train.py",
    truth="label_noise",
    symptom="Training accuracy won't go above ~60% for most of the run and the loss stays high, even with a pretty big MLP; it only starts dropping near the end and validation doesn't get better from that.",
    how="45% of the labels (train and val, same annotation pass 'annotations_v2') are replaced by uniformly random classes, so ~36% of labels are wrong. 2x128 MLP, Adam 1e-3, 60 epochs: train acc sits at ~0.65 with loss ~1.1 for ~25 epochs, then the model starts memorising the wrong labels (train loss falls late, val acc capped at ~0.66 and sagging).",
)

SPECS["run09"] = dict(
    style="dvclive", ship_script=True, start="2026-02-27T17:33:48.000000", step_seconds=0.8,
    script_path="/home/jules/vib-clf/train.py",
    truth="healthy",
    symptom="Is this run ok? The curves look pretty jumpy and it takes a long time to get anywhere, so I'm not sure if something is wrong.",
    how="No fault: small 1-D CNN with dropout, Adam 1e-3 + cosine schedule, batch 32, shuffled, on a genuinely hard task (weak sinusoids of 3 close frequencies in unit-variance noise). Loss falls slowly with jitter, val acc climbs unevenly and saturates near the task's ceiling.",
)

SPECS["run10"] = dict(
    style="sacred", ship_script=True, start="2026-03-05T15:12:40.300000", step_seconds=0.45,
    script_path="/home/nadia/churn/train_churn.py", hostname="nadia-mbp", sacred_id=4,
    deps=["pandas==3.1.1"],
    prepare=_prepare_run10,
    truth="data_leakage",
    symptom="Validation AUC is ~0.99 from the very first epoch and val accuracy is ~98% - better than on train. Our previous churn model was nowhere near that, so this seems too good to be true.",
    how="The feature 'retention_offer_sent' is recorded when a customer starts cancelling (1 for 96% of churners, 1.5% of others) and is left in the feature list, so the target leaks into the inputs.",
)

SPECS["run11"] = dict(
    style="dvclive", ship_script=False, dvc_repo=True, start="2026-01-29T09:58:02.000000", step_seconds=1.1,
    script_path="/home/kwame/seqclf/train.py",
    files={
        "params.yaml": """
train:
  seed: 13
  n_train: 2000
  n_val: 500
  seq_len: 30
  n_classes: 4
  hidden: 64
  layers: 1
  batch_size: 64
  lr: 3.0e-05
  weight_decay: 0.0
  clip: 1.0
  epochs: 30
""",
        "dvc.yaml": """
stages:
  train:
    cmd: python train.py
    deps:
    - train.py
    params:
    - train
metrics:
- dvclive/metrics.json
plots:
- dvclive/plots/metrics:
    x: step
""",
    },
    truth="lr_too_low",
    symptom="The GRU barely learns: after 30 epochs the loss has only crept down a little from where it started and accuracy is still close to chance.",
    how="Adam with lr=3e-5 (the same script with lr=1e-3 reaches ~0.85 val acc by epoch 8 on this task): the loss decreases almost linearly and very slowly from ln 4 over all 30 epochs, gradients are healthy.",
)

SPECS["run12"] = dict(
    style="sacred", ship_script=True, start="2026-03-16T22:41:05.870000", step_seconds=1.2,
    script_path="/home/ben/glyphs/mlp.py", hostname="ben-laptop", sacred_id=31,
    truth="dead_relu",
    symptom="The MLP is stuck at about 10% validation accuracy with the loss flat at 2.30 for the whole run. What's going on?",
    how="init_weights sets every Linear bias to bias_init=-1.0 on top of Kaiming weights; the ReLUs in the 2nd and 3rd hidden layers never activate for any input, so no gradient reaches the hidden weights and the output is a constant.",
)

# ==== END SPECS ====


# ----------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------
def exec_run(name):
    """Child process: run the user script of `name` with the stand-ins installed."""
    import linecache
    install_shims()
    import torch
    torch.set_num_threads(1)
    meta = json.loads(os.environ["GEN_META"])
    src = SCRIPTS[name].lstrip("\n")
    path = meta["script_path"]
    linecache.cache[path] = (len(src), None, src.splitlines(True), path)
    code = compile(src, path, "exec")
    sys.argv = [os.path.basename(path)]
    g = {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__}
    exec(code, g)


def generate(name):
    spec = SPECS[name]
    run_dir = os.path.join(RUNS, name)
    if os.path.exists(run_dir):
        shutil.rmtree(run_dir)
    os.makedirs(run_dir)
    src = SCRIPTS[name].lstrip("\n")
    script_file = os.path.join(run_dir, "train.py")
    with open(script_file, "w") as f:
        f.write(src)
    scratch = []
    for rel, content in spec.get("files", {}).items():
        p = os.path.join(run_dir, rel)
        os.makedirs(os.path.dirname(p) or ".", exist_ok=True)
        with open(p, "w") as f:
            f.write(content.lstrip("\n"))
    if spec.get("prepare"):
        scratch += spec["prepare"](run_dir)
    meta = {
        "name": name,
        "start": spec["start"],
        "step_seconds": spec["step_seconds"],
        "script_path": spec["script_path"],
        "script_src_file": script_file,
        "hostname": spec.get("hostname", "workstation"),
        "sacred_id": spec.get("sacred_id", 1),
        "config_updates": spec.get("config_updates", {}),
        "deps": spec.get("deps", []),
        "python_version": "%d.%d.%d" % sys.version_info[:3],
    }
    env = dict(os.environ, GEN_RUN_DIR=run_dir, GEN_META=json.dumps(meta),
               GEN_DVC_REPO="1" if spec.get("dvc_repo") else "0",
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    import time
    t0 = time.time()
    p = subprocess.run([PY, os.path.abspath(__file__), "--exec", name], cwd=run_dir, env=env,
                       capture_output=True, text=True)
    dt = time.time() - t0
    log = p.stdout + p.stderr
    print(f"[{name}] rc={p.returncode} {dt:.1f}s")
    if p.returncode != 0 and not spec.get("expect_fail"):
        print(log[-3000:])
        raise SystemExit(f"{name} failed unexpectedly")
    for rel in scratch:
        q = os.path.join(run_dir, rel)
        if os.path.isdir(q):
            shutil.rmtree(q)
        elif os.path.exists(q):
            os.remove(q)
    if not spec.get("ship_script"):
        os.remove(script_file)
    return log


def write_truth():
    truth = {n: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]} for n, s in sorted(SPECS.items())}
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--exec":
        exec_run(sys.argv[2])
        sys.exit(0)
    names = sys.argv[1:] or sorted(SPECS)
    os.makedirs(RUNS, exist_ok=True)
    for n in names:
        generate(n)
    write_truth()
