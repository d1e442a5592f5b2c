#!/usr/bin/env python
"""Generate the benchmark run folders under ./runs and ./truth.json.

Every run is produced by really training a small torch model on CPU: each user
script below is written into a scratch folder, executed with sys.executable,
and its terminal output (stdout + stderr, as a user would paste it) is saved
into runs/<name>/.  The 'loguru' and 'structlog' packages are not installed in
the environment, so tiny stand-ins that reproduce their output format are put
on PYTHONPATH for the subprocess only (rich is the real library).  A
sitecustomize shim pins the wall clock to a fixed start time per run so the
timestamps in the logs are stable; all seeds are fixed.

Usage:  python gen.py            (from any directory)
"""
import calendar
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS_DIR = os.path.join(HERE, "runs")

SHIMS = {
    'loguru/__init__.py': r'''import sys, time, inspect, os
_LEVELS = {"TRACE": 5, "DEBUG": 10, "INFO": 20, "SUCCESS": 25, "WARNING": 30, "ERROR": 40, "CRITICAL": 50}
_LCOL = {"TRACE": "\x1b[1m", "DEBUG": "\x1b[34m\x1b[1m", "INFO": "\x1b[1m", "SUCCESS": "\x1b[32m\x1b[1m",
         "WARNING": "\x1b[33m\x1b[1m", "ERROR": "\x1b[31m\x1b[1m", "CRITICAL": "\x1b[41m\x1b[1m"}
class _Logger:
    def __init__(self):
        self._sinks = {}
        self._n = 0
        self.add(sys.stderr)
    def add(self, sink, level="DEBUG", colorize=None, format=None, **kw):
        close = False
        if isinstance(sink, (str, os.PathLike)):
            sink = open(sink, "a", buffering=1)
            close = True
            colorize = bool(colorize)
        elif colorize is None:
            colorize = bool(os.environ.get("FORCE_COLOR")) or getattr(sink, "isatty", lambda: False)()
        self._n += 1
        self._sinks[self._n] = (sink, _LEVELS.get(level, level) if isinstance(level, str) else level, colorize, close)
        return self._n
    def remove(self, handler_id=None):
        if handler_id is None:
            self._sinks.clear()
        else:
            self._sinks.pop(handler_id, None)
    def _log(self, level, msg, *args, **kwargs):
        fr = inspect.currentframe().f_back.f_back
        name = fr.f_globals.get("__name__", "?")
        func = fr.f_code.co_name
        if func == "<module>":
            func = "<module>"
        line = fr.f_lineno
        if args or kwargs:
            msg = str(msg).format(*args, **kwargs)
        t = time.time()
        ts = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t)) + ".%03d" % int((t % 1) * 1000)
        for sink, lv, col, _ in list(self._sinks.values()):
            if _LEVELS[level] < lv:
                continue
            if col:
                c = _LCOL[level]
                s = (f"\x1b[32m{ts}\x1b[0m | {c}{level:<8}\x1b[0m | \x1b[36m{name}\x1b[0m:\x1b[36m{func}\x1b[0m:"
                     f"\x1b[36m{line}\x1b[0m - {c}{msg}\x1b[0m\n")
            else:
                s = f"{ts} | {level:<8} | {name}:{func}:{line} - {msg}\n"
            if callable(sink) and not hasattr(sink, "write"):
                sink(s)
            else:
                sink.write(s)
                try:
                    sink.flush()
                except Exception:
                    pass
    def trace(self, m, *a, **k): self._log("TRACE", m, *a, **k)
    def debug(self, m, *a, **k): self._log("DEBUG", m, *a, **k)
    def info(self, m, *a, **k): self._log("INFO", m, *a, **k)
    def success(self, m, *a, **k): self._log("SUCCESS", m, *a, **k)
    def warning(self, m, *a, **k): self._log("WARNING", m, *a, **k)
    def error(self, m, *a, **k): self._log("ERROR", m, *a, **k)
    def critical(self, m, *a, **k): self._log("CRITICAL", m, *a, **k)
logger = _Logger()
''',
    'structlog/__init__.py': r'''import sys, json, time, datetime
from . import processors, stdlib
_config = {"processors": [processors.add_log_level, processors.TimeStamper(fmt="iso"), processors.JSONRenderer()],
           "file": sys.stdout}
def configure(processors=None, logger_factory=None, **kw):
    if processors is not None:
        _config["processors"] = list(processors)
    if logger_factory is not None and hasattr(logger_factory, "_file"):
        _config["file"] = logger_factory._file
class PrintLoggerFactory:
    def __init__(self, file=None):
        self._file = file or sys.stdout
class BoundLogger:
    def __init__(self, name=None, ctx=None):
        self._name = name
        self._ctx = dict(ctx or {})
    def bind(self, **kw):
        c = dict(self._ctx); c.update(kw)
        return BoundLogger(self._name, c)
    def _emit(self, method, event, **kw):
        ed = dict(self._ctx); ed.update(kw); ed["event"] = event
        out = ed
        for p in _config["processors"]:
            out = p(None, method, out)
        f = _config["file"]
        f.write(out + "\n" if isinstance(out, str) else str(out) + "\n")
        f.flush()
    def debug(self, e, **k): self._emit("debug", e, **k)
    def info(self, e, **k): self._emit("info", e, **k)
    def warning(self, e, **k): self._emit("warning", e, **k)
    warn = warning
    def error(self, e, **k): self._emit("error", e, **k)
    def critical(self, e, **k): self._emit("critical", e, **k)
def get_logger(name=None, **kw):
    return BoundLogger(name, kw)
getLogger = get_logger
''',
    'structlog/processors.py': r'''import json, time, datetime
def add_log_level(logger, method, ed):
    ed["level"] = "warning" if method == "warn" else method
    return ed
class TimeStamper:
    def __init__(self, fmt=None, utc=True, key="timestamp"):
        self.fmt, self.utc, self.key = fmt, utc, key
    def __call__(self, logger, method, ed):
        t = time.time()
        if self.fmt == "iso":
            d = datetime.datetime.fromtimestamp(t, datetime.timezone.utc) if self.utc else datetime.datetime.fromtimestamp(t)
            s = d.isoformat()
            if self.utc:
                s = s.replace("+00:00", "Z")
            ed[self.key] = s
        elif self.fmt:
            ed[self.key] = time.strftime(self.fmt, time.gmtime(t) if self.utc else time.localtime(t))
        else:
            ed[self.key] = t
        return ed
class JSONRenderer:
    def __init__(self, sort_keys=False, **kw):
        self.sort_keys = sort_keys
    def __call__(self, logger, method, ed):
        return json.dumps(ed, sort_keys=self.sort_keys, default=str)
def format_exc_info(logger, method, ed):
    return ed
''',
    'structlog/stdlib.py': r'''def add_logger_name(logger, method, ed):
    return ed
''',
    'sitecustomize.py': r'''import os as _os, time as _time
if _os.environ.get("FAKE_T0"):
    _off = float(_os.environ["FAKE_T0"]) - _time.time()
    _tt, _tn = _time.time, _time.time_ns
    _time.time = lambda: _tt() + _off
    _time.time_ns = lambda: _tn() + int(_off * 1e9)
    if _os.environ.get("FAKE_RICH_CLOCK"):
        import datetime as _dt
        try:
            import rich.console as _rc
            _orig_init = _rc.Console.__init__
            def _init(self, *a, **k):
                k.setdefault("get_datetime", lambda: _dt.datetime.fromtimestamp(_time.time()))
                _orig_init(self, *a, **k)
            _rc.Console.__init__ = _init
        except ImportError:
            pass
''',
}

SCRIPTS = {
    'run01': r'''import argparse
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from loguru import logger

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--momentum", type=float, default=0.9)
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--seed", type=int, default=7)
args = parser.parse_args()

logger.remove()
logger.add(sys.stderr, colorize=True, level="DEBUG")


def make_glyphs(n, rng, templates):
    y = rng.integers(0, len(templates), size=n)
    X = np.zeros((n, 1, 12, 12), dtype=np.float32)
    for i, c in enumerate(y):
        dx, dy = rng.integers(0, 5, size=2)
        X[i, 0, dy:dy + 8, dx:dx + 8] = templates[c]
    X += rng.normal(0, 0.35, size=X.shape).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(y).long()


class SmallCNN(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 3 * 3, 64)
        self.fc2 = nn.Linear(64, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


def evaluate(model, X, y):
    model.eval()
    with torch.no_grad():
        out = model(X)
        loss = F.cross_entropy(out, y).item()
        acc = (out.argmax(1) == y).float().mean().item()
    model.train()
    return loss, acc


def main():
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    templates = (rng.random((10, 8, 8)) > 0.55).astype(np.float32)
    Xtr, ytr = make_glyphs(4000, rng, templates)
    Xva, yva = make_glyphs(800, rng, templates)
    logger.info("train={} val={} input={}", len(Xtr), len(Xva), tuple(Xtr.shape[1:]))

    model = SmallCNN()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    logger.info("model params: {}", sum(p.numel() for p in model.parameters()))
    logger.info("optimizer: SGD lr={} momentum={}", args.lr, args.momentum)

    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr),
                                         batch_size=args.batch_size, shuffle=True)
    step = 0
    for epoch in range(1, args.epochs + 1):
        t0 = time.time()
        tot, correct, n, gn_sum = 0.0, 0, 0, 0.0
        for xb, yb in loader:
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            loss.backward()
            gn = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
            opt.step()
            step += 1
            tot += loss.item() * len(xb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(xb)
            gn_sum += gn
            if step % 25 == 0:
                logger.debug("step {} | loss {:.4f} | grad_norm {:.3f}", step, loss.item(), gn)
        vl, va = evaluate(model, Xva, yva)
        logger.info("epoch {} | loss {:.4f} | acc {:.3f} | val_loss {:.4f} | val_acc {:.3f} | grad_norm {:.2f} | {:.1f}s",
                    epoch, tot / n, correct / n, vl, va, gn_sum / len(loader), time.time() - t0)
    logger.success("done, last val_acc {:.3f}", va)


if __name__ == "__main__":
    main()
''',
    'run02': r'''import math
import time

import numpy as np
import torch
import torch.nn as nn
import yaml
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, MofNCompleteColumn
from rich.table import Table
from rich import box

torch.set_num_threads(1)
console = Console()

with open("config.yaml") as f:
    cfg = yaml.safe_load(f)

torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])


def make_shapes(n):
    """16x16 images: bars, crosses, boxes, diagonals with jitter + noise."""
    y = rng.integers(0, 4, size=n)
    X = np.zeros((n, 1, 16, 16), dtype=np.float32)
    for i, c in enumerate(y):
        s = rng.integers(6, 11)
        ox, oy = rng.integers(0, 16 - s, size=2)
        patch = np.zeros((s, s), dtype=np.float32)
        if c == 0:
            patch[s // 2 - 1:s // 2 + 1, :] = 1
        elif c == 1:
            patch[s // 2, :] = 1
            patch[:, s // 2] = 1
        elif c == 2:
            patch[0, :] = patch[-1, :] = patch[:, 0] = patch[:, -1] = 1
        else:
            np.fill_diagonal(patch, 1)
        X[i, 0, oy:oy + s, ox:ox + s] = patch
    X += rng.normal(0, 0.45, size=X.shape).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(y)


Xtr, ytr = make_shapes(cfg["data"]["n_train"])
Xva, yva = make_shapes(cfg["data"]["n_val"])

model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 4),
)
opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg["epochs"])
crit = nn.CrossEntropyLoss()
dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr), batch_size=cfg["batch_size"], shuffle=True)

console.print(f"[bold]shapes-cnn[/bold] params={sum(p.numel() for p in model.parameters()):,} "
              f"train={len(Xtr)} val={len(Xva)}")
hist = []
for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    tl, tc, tn = 0.0, 0, 0
    with Progress(TextColumn("Epoch {task.fields[epoch]:>2}/{task.fields[total_ep]}"), BarColumn(),
                  TextColumn("{task.percentage:>3.0f}%"), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[info]}"), console=console) as prog:
        task = prog.add_task("train", total=len(dl), epoch=epoch, total_ep=cfg["epochs"], info="")
        for xb, yb in dl:
            opt.zero_grad()
            out = model(xb)
            loss = crit(out, yb)
            loss.backward()
            opt.step()
            tl += loss.item() * len(xb)
            tc += (out.argmax(1) == yb).sum().item()
            tn += len(xb)
            prog.update(task, advance=1, info=f"loss={tl / tn:.4f}")
    sched.step()
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = crit(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    hist.append((epoch, tl / tn, tc / tn, vl, va, opt.param_groups[0]["lr"]))

table = Table(title="training summary", box=box.HEAVY_HEAD)
for col in ["epoch", "train_loss", "train_acc", "val_loss", "val_acc", "lr"]:
    table.add_column(col, justify="right")
for e, a, b, c, d, lr in hist:
    table.add_row(str(e), f"{a:.4f}", f"{b:.4f}", f"{c:.4f}", f"{d:.4f}", f"{lr:.2e}")
console.print(table)
best = max(hist, key=lambda h: h[4])
console.print(f"best val_acc {best[4]:.4f} @ epoch {best[0]}")
''',
    'run03': r'''import logging
import math

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(name)s: %(message)s")
log = logging.getLogger("trainer")
diag = logging.getLogger("trainer.grads")

SEED = 3
EPOCHS = 60
LR = 0.1
DEPTH = 10
WIDTH = 64

torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)


def make_moons(n, noise=0.15):
    n1 = n // 2
    n2 = n - n1
    t1 = rng.uniform(0, math.pi, n1)
    t2 = rng.uniform(0, math.pi, n2)
    a = np.stack([np.cos(t1), np.sin(t1)], 1)
    b = np.stack([1 - np.cos(t2), 1 - np.sin(t2) - 0.5], 1)
    X = np.concatenate([a, b]) + rng.normal(0, noise, (n, 2))
    y = np.concatenate([np.zeros(n1), np.ones(n2)])
    p = rng.permutation(n)
    return torch.tensor(X[p], dtype=torch.float32), torch.tensor(y[p], dtype=torch.long)


class DeepMLP(nn.Module):
    def __init__(self, depth, width):
        super().__init__()
        layers = [nn.Linear(2, width), nn.Sigmoid()]
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.Sigmoid()]
        layers += [nn.Linear(width, 2)]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


Xtr, ytr = make_moons(2000)
Xva, yva = make_moons(500)
mu, sd = Xtr.mean(0), Xtr.std(0)
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd

model = DeepMLP(DEPTH, WIDTH)
linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
crit = nn.CrossEntropyLoss()
dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr), batch_size=100, shuffle=True)
log.info("model: %d Linear layers, %d params, activation=sigmoid", len(linears), sum(p.numel() for p in model.parameters()))
log.info("optimizer: SGD(lr=%s, momentum=0.9) batch_size=100 epochs=%d", LR, EPOCHS)

for epoch in range(1, EPOCHS + 1):
    model.train()
    tot, n = 0.0, 0
    layer_gn = torch.zeros(len(linears))
    for xb, yb in dl:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        layer_gn += torch.tensor([m.weight.grad.norm().item() for m in linears])
        opt.step()
        tot += loss.item() * len(xb)
        n += len(xb)
    layer_gn /= len(dl)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = crit(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    log.info("epoch %3d/%d  train_loss=%.4f  val_loss=%.4f  val_acc=%.4f", epoch, EPOCHS, tot / n, vl, va)
    if epoch == 1 or epoch % 5 == 0:
        diag.info("weight grad norms (input -> output): %s", " ".join(f"{g:.2e}" for g in layer_gn.tolist()))

log.info("finished. final val_acc=%.4f", va)
''',
    'run04': r'''import numpy as np
import torch
import torch.nn as nn
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

torch.set_num_threads(1)
console = Console()

N_CLASSES = 10
N_FEATURES = 32
EPOCHS = 25
BATCH = 128
LR = 1e-3


def make_classification(n, rng, centers):
    y = rng.integers(0, N_CLASSES, n)
    X = centers[y] + rng.normal(0, 1.0, (n, N_FEATURES))
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(N_FEATURES, 128), nn.ReLU(),
            nn.Linear(128, 128), nn.ReLU(),
            nn.Linear(128, N_CLASSES),
            nn.Softmax(dim=1),
        )

    def forward(self, x):
        return self.body(x)


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    centers = rng.normal(0, 0.9, (N_CLASSES, N_FEATURES))
    Xtr, ytr = make_classification(8000, rng, centers)
    Xva, yva = make_classification(2000, rng, centers)
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr), batch_size=BATCH, shuffle=True)

    model = Classifier()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    console.rule("[bold blue]training")
    console.print(f"classes={N_CLASSES} features={N_FEATURES} train={len(Xtr)} val={len(Xva)} lr={LR} bs={BATCH}")

    for epoch in range(1, EPOCHS + 1):
        model.train()
        run_loss, run_correct, seen = 0.0, 0, 0
        with Progress(TextColumn("[bold]Epoch {task.fields[ep]}"), BarColumn(bar_width=32),
                      TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn(), TimeRemainingColumn(),
                      TextColumn("{task.fields[stats]}"), console=console) as progress:
            task = progress.add_task("", total=len(dl), ep=epoch, stats="")
            for xb, yb in dl:
                optimizer.zero_grad()
                out = model(xb)
                loss = criterion(out, yb)
                loss.backward()
                optimizer.step()
                run_loss += loss.item() * len(xb)
                run_correct += (out.argmax(1) == yb).sum().item()
                seen += len(xb)
                progress.update(task, advance=1,
                                stats=f"loss={run_loss / seen:.4f} acc={run_correct / seen:.3f}")
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = criterion(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        console.print(f"  [cyan]val[/cyan] loss={val_loss:.4f} acc={val_acc:.3f}")

    console.rule("[bold green]done")
    torch.save(model.state_dict(), "classifier.pt")


if __name__ == "__main__":
    main()
''',
    'run05': r'''import logging
import sys

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import yaml

torch.set_num_threads(1)
logging.basicConfig(stream=sys.stdout, level=logging.INFO,
                    format="%(asctime)s %(levelname)-7s %(name)s - %(message)s")
logging.captureWarnings(True)
log_data = logging.getLogger("pipeline.data")
log_train = logging.getLogger("pipeline.train")
log_eval = logging.getLogger("pipeline.eval")

cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

df = pd.read_csv(cfg["data"]["path"])
log_data.info("loaded %d rows x %d cols from %s", len(df), df.shape[1], cfg["data"]["path"])
log_data.info("summary:\n%s", df.describe().T[["count", "mean", "std", "min", "max"]].round(3).to_string())
df["log_pressure"] = np.log(df["pressure_kpa"].values)
df["flow_per_kpa"] = df["flow_lpm"].values / df["pressure_kpa"].values
feats = cfg["data"]["features"]
target = cfg["data"]["target"]

val_df = df.sample(frac=cfg["data"]["val_frac"], random_state=cfg["seed"])
train_df = df.drop(val_df.index)
mean, std = train_df[feats].mean(), train_df[feats].std()
log_data.info("train=%d val=%d features=%s", len(train_df), len(val_df), feats)

def to_tensor(d):
    x = ((d[feats] - mean) / std).values.astype(np.float32)
    return torch.from_numpy(x), torch.tensor(d[target].values, dtype=torch.float32).unsqueeze(1)

Xtr, ytr = to_tensor(train_df)
Xva, yva = to_tensor(val_df)
g = torch.Generator().manual_seed(cfg["seed"])
dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr), batch_size=cfg["batch_size"],
                                 shuffle=True, generator=g)

model = nn.Sequential(nn.Linear(len(feats), 64), nn.GELU(), nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
mse = nn.MSELoss()
log_train.info("MLP params=%d optimizer=Adam lr=%g batch_size=%d epochs=%d",
               sum(p.numel() for p in model.parameters()), cfg["lr"], cfg["batch_size"], cfg["epochs"])

for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    running = 0.0
    for i, (xb, yb) in enumerate(dl, 1):
        opt.zero_grad()
        loss = mse(model(xb), yb)
        loss.backward()
        opt.step()
        running += loss.item()
        if i % cfg["log_every"] == 0:
            log_train.info("epoch=%d batch=%d/%d mse=%.5f", epoch, i, len(dl), running / cfg["log_every"])
            running = 0.0
    model.eval()
    with torch.no_grad():
        pred = model(Xva)
        vmse = mse(pred, yva).item()
        vmae = (pred - yva).abs().mean().item()
    log_eval.info("epoch=%d val_mse=%.5f val_mae=%.5f", epoch, vmse, vmae)

torch.save(model.state_dict(), "energy_mlp.pt")
log_train.info("saved energy_mlp.pt")
''',
    'run06': r'''import numpy as np
import torch
import torch.nn as nn
import yaml
from rich import box
from rich.console import Console
from rich.table import Table

torch.set_num_threads(1)
console = Console()
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])

n_feat, n_inf = cfg["data"]["n_features"], cfg["data"]["n_informative"]
w = rng.normal(0, 1, (n_inf, 3))


def sample(n):
    X = rng.normal(0, 1, (n, n_feat))
    logits = X[:, :n_inf] @ w + 0.8 * rng.normal(0, 1, (n, 3))
    y = logits.argmax(1)
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


Xtr, ytr = sample(cfg["data"]["n_train"])
Xva, yva = sample(cfg["data"]["n_val"])
console.log(f"dataset: train={len(Xtr)} val={len(Xva)} features={n_feat} classes=3")

h = cfg["model"]["hidden"]
model = nn.Sequential(nn.Linear(n_feat, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 3))
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
crit = nn.CrossEntropyLoss()
console.log(f"model: MLP hidden={h} params={sum(p.numel() for p in model.parameters()):,}")

table = Table(box=box.HEAVY_HEAD, title="metrics")
for c in ["epoch", "train_loss", "train_acc", "val_loss", "val_acc"]:
    table.add_column(c, justify="right")

dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr), batch_size=cfg["batch_size"], shuffle=True)
best = (1e9, 0)
for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    for xb, yb in dl:
        opt.zero_grad()
        crit(model(xb), yb).backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        o = model(Xtr)
        tl, ta = crit(o, ytr).item(), (o.argmax(1) == ytr).float().mean().item()
        o = model(Xva)
        vl, va = crit(o, yva).item(), (o.argmax(1) == yva).float().mean().item()
    if vl < best[0]:
        best = (vl, epoch)
    if epoch % cfg["log_every"] == 0 or epoch == 1:
        table.add_row(str(epoch), f"{tl:.4f}", f"{ta:.3f}", f"{vl:.4f}", f"{va:.3f}")

console.print(table)
console.log(f"best val_loss {best[0]:.4f} at epoch {best[1]}; final val_acc {va:.3f}")
torch.save(model.state_dict(), "last.pt")
console.log("saved last.pt")
''',
    'run07': r'''import math
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import yaml
from loguru import logger

torch.set_num_threads(1)


def load_cfg(path="config.yaml"):
    with open(path) as f:
        return yaml.safe_load(f)


def build_data(cfg, rng):
    k, d = cfg["data"]["classes"], cfg["data"]["dim"]
    means = rng.normal(0, 0.45, (k, d))
    def draw(n):
        y = rng.integers(0, k, n)
        x = means[y] + rng.normal(0, 1, (n, d))
        x[:, : d // 2] = np.tanh(x[:, : d // 2])
        return torch.tensor(x, dtype=torch.float32), torch.tensor(y)
    return draw(cfg["data"]["n_train"]), draw(cfg["data"]["n_val"])


class Net(nn.Module):
    def __init__(self, d, k, h):
        super().__init__()
        self.fc1 = nn.Linear(d, h)
        self.fc2 = nn.Linear(h, h)
        self.fc3 = nn.Linear(h, k)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.fc3(self.act(self.fc2(self.act(self.fc1(x)))))


def fit(cfg):
    torch.manual_seed(cfg["seed"])
    rng = np.random.default_rng(cfg["seed"])
    (Xtr, ytr), (Xva, yva) = build_data(cfg, rng)
    counts = torch.bincount(torch.tensor(ytr), minlength=cfg["data"]["classes"])
    logger.info("class counts {}", counts.tolist())
    model = Net(Xtr.shape[1], cfg["data"]["classes"], cfg["model"]["hidden"])
    opt = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"], momentum=cfg["optim"]["momentum"],
                          nesterov=True)
    crit = nn.CrossEntropyLoss()
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr),
                                     batch_size=cfg["batch_size"], shuffle=True)
    logger.info("train {} / val {} | params {}", len(Xtr), len(Xva), sum(p.numel() for p in model.parameters()))
    for epoch in range(1, cfg["epochs"] + 1):
        t0 = time.time()
        model.train()
        tot, n, gmax, gsum = 0.0, 0, 0.0, 0.0
        for xb, yb in dl:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            g = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
            gmax, gsum = max(gmax, g), gsum + g
            opt.step()
            tot += loss.item() * len(xb)
            n += len(xb)
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            vl = crit(out, yva).item()
            va = (out.argmax(1) == yva).float().mean().item()
        logger.info("epoch {} | loss {:.4f} | val_loss {:.4f} | acc {:.3f} | grad_norm {:.2f} (max {:.2f}) | lr {} | {:.1f}s",
                    epoch, tot / n, vl, va, gsum / len(dl), gmax, opt.param_groups[0]["lr"], time.time() - t0)
        if not math.isfinite(tot):
            logger.error("loss is not finite, stopping at epoch {}", epoch)
            break
    return model


if __name__ == "__main__":
    cfg = load_cfg(sys.argv[1] if len(sys.argv) > 1 else "config.yaml")
    logger.info("config: {}", cfg)
    fit(cfg)
''',
    'run08': r'''import math

import numpy as np
import structlog
import torch
import torch.nn as nn

torch.set_num_threads(1)
structlog.configure(processors=[
    structlog.processors.add_log_level,
    structlog.processors.TimeStamper(fmt="iso"),
    structlog.processors.JSONRenderer(),
])
log = structlog.get_logger()

SEED = 2024
torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)


def two_moons(n, noise):
    t = rng.uniform(0, math.pi, n)
    lab = rng.integers(0, 2, n)
    x = np.where(lab == 0, np.cos(t), 1 - np.cos(t))
    y = np.where(lab == 0, np.sin(t), 0.5 - np.sin(t))
    X = np.stack([x, y], 1) + rng.normal(0, noise, (n, 2))
    return torch.tensor(X, dtype=torch.float32), torch.tensor(lab)


Xtr, ytr = two_moons(1600, 0.35)
Xva, yva = two_moons(800, 0.35)
mu, sd = Xtr.mean(0), Xtr.std(0)
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd

model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.02)
loss_fn = nn.CrossEntropyLoss()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr), batch_size=8, shuffle=True)
log.info("start", model="mlp-2x32-tanh", optimizer="sgd", lr=0.02, batch_size=8, epochs=40,
         n_train=len(Xtr), n_val=len(Xva))

step = 0
for epoch in range(40):
    model.train()
    window = []
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        step += 1
        window.append(loss.item())
        if step % 100 == 0:
            log.info("train", step=step, epoch=epoch, loss=round(loss.item(), 4),
                     loss_avg100=round(sum(window) / len(window), 4))
            window = []
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        val_loss = loss_fn(out, yva).item()
        val_acc = (out.argmax(1) == yva).float().mean().item()
    log.info("eval", step=step, epoch=epoch, val_loss=round(val_loss, 4), val_acc=round(val_acc, 4))

torch.save(model.state_dict(), "moons_mlp.pt")
log.info("saved", path="moons_mlp.pt", step=step)
''',
    'run09': r'''import argparse
import math

import structlog
import torch
import torch.nn as nn

torch.set_num_threads(1)
p = argparse.ArgumentParser()
p.add_argument("--seq-len", type=int, default=80)
p.add_argument("--hidden", type=int, default=64)
p.add_argument("--lr", type=float, default=0.004)
p.add_argument("--momentum", type=float, default=0.9)
p.add_argument("--steps", type=int, default=500)
p.add_argument("--batch-size", type=int, default=32)
p.add_argument("--log-every", type=int, default=1)
p.add_argument("--eval-every", type=int, default=25)
p.add_argument("--seed", type=int, default=7)
args = p.parse_args()

structlog.configure(processors=[
    structlog.processors.TimeStamper(fmt="iso"),
    structlog.processors.add_log_level,
    structlog.processors.JSONRenderer(),
])
log = structlog.get_logger("seqreg").bind(run="rnn-sum")
torch.manual_seed(args.seed)


def batch(n, T):
    x = torch.randn(n, T, 1)
    y = x.sum(1) / math.sqrt(T)
    return x, y


class RNNRegressor(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.rnn = nn.RNN(1, h, batch_first=True, nonlinearity="relu")
        self.head = nn.Linear(h, 1)
        nn.init.orthogonal_(self.rnn.weight_hh_l0)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


model = RNNRegressor(args.hidden)
opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
mse = nn.MSELoss()
xv, yv = batch(1024, args.seq_len)
log.info("config", **vars(args), params=sum(p.numel() for p in model.parameters()))
for step in range(1, args.steps + 1):
    x, y = batch(args.batch_size, args.seq_len)
    opt.zero_grad()
    loss = mse(model(x), y)
    loss.backward()
    gn = math.sqrt(sum(float(p.grad.pow(2).sum()) for p in model.parameters()))
    opt.step()
    if step % args.log_every == 0:
        log.info("train_step", step=step, loss=float(f"{loss.item():.5g}"), grad_norm=float(f"{gn:.5g}"))
    if step % args.eval_every == 0:
        with torch.no_grad():
            vl = mse(model(xv), yv).item()
        log.info("validation", step=step, val_mse=round(vl, 5))
    if not math.isfinite(loss.item()):
        log.error("loss is not finite, aborting", step=step, loss=str(loss.item()))
        break
''',
    'run10': r'''import numpy as np
import torch
import torch.nn as nn
from loguru import logger

torch.set_num_threads(1)

CLASSES = ["circle", "square", "triangle", "star"]
PER_CLASS = 500
EPOCHS = 10
BATCH = 50
LOG_EVERY = 4


def load_split(rng, n_per_class):
    protos = np.random.default_rng(99).normal(0, 1.0, (len(CLASSES), 16))
    xs, ys = [], []
    for c, name in enumerate(CLASSES):
        xs.append(protos[c] + rng.normal(0, 1.6, (n_per_class, 16)))
        ys.append(np.full(n_per_class, c))
    X = np.concatenate(xs).astype(np.float32)
    y = np.concatenate(ys)
    return torch.from_numpy(X), torch.from_numpy(y)


def main():
    torch.manual_seed(17)
    rng = np.random.default_rng(17)
    Xtr, ytr = load_split(rng, PER_CLASS)
    Xva, yva = load_split(rng, 150)
    logger.info("train {} samples, val {} samples, classes {}", len(Xtr), len(Xva), CLASSES)

    train_ds = torch.utils.data.TensorDataset(Xtr, ytr)
    train_dl = torch.utils.data.DataLoader(train_ds, batch_size=BATCH)

    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, len(CLASSES)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(1, EPOCHS + 1):
        model.train()
        for xb, yb in train_dl:
            opt.zero_grad()
            out = model(xb)
            loss = loss_fn(out, yb)
            loss.backward()
            opt.step()
            step += 1
            if step % LOG_EVERY == 0:
                acc = (out.argmax(1) == yb).float().mean().item()
                logger.info("ep {:02d} step {:04d} | train/loss {:.4f} | train/acc {:.2f}", epoch, step, loss.item(), acc)
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            vloss = loss_fn(out, yva).item()
            pred = out.argmax(1)
            vacc = (pred == yva).float().mean().item()
            counts = torch.bincount(pred, minlength=len(CLASSES)).tolist()
        logger.success("ep {:02d} | val/loss {:.4f} | val/acc {:.3f} | pred_counts {}", epoch, vloss, vacc, counts)


if __name__ == "__main__":
    main()
''',
    'run11': r'''import logging

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from rich.logging import RichHandler

torch.set_num_threads(1)
logging.basicConfig(level="INFO", format="%(message)s", datefmt="[%X]",
                    handlers=[RichHandler(show_path=True, markup=False)])
log = logging.getLogger("train")

NUM_CLASSES = 10
DIM = 32
EPOCHS = 30
LR = 3e-3
HIDDEN = 256


def get_data(seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(0, 1.0, (NUM_CLASSES, DIM))

    def draw(n):
        y = rng.integers(0, NUM_CLASSES, n)
        x = centers[y] + rng.normal(0, 1.0, (n, DIM))
        return torch.tensor(x, dtype=torch.float32), torch.tensor(y)

    return draw(5000), draw(1000)


def cross_entropy(logits, target):
    probs = torch.softmax(logits, dim=1)
    one_hot = F.one_hot(target, NUM_CLASSES).float()
    return -(one_hot * torch.log(probs)).sum(dim=1).mean()


def main():
    torch.manual_seed(0)
    (Xtr, ytr), (Xva, yva) = get_data()
    model = nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                          nn.Linear(HIDDEN, NUM_CLASSES))
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr), batch_size=128, shuffle=True)
    log.info("train=%d val=%d classes=%d hidden=%d lr=%g", len(Xtr), len(Xva), NUM_CLASSES, HIDDEN, LR)

    for epoch in range(1, EPOCHS + 1):
        model.train()
        total, correct, seen = 0.0, 0, 0
        for xb, yb in loader:
            logits = model(xb)
            loss = cross_entropy(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(yb)
            correct += (logits.argmax(1) == yb).sum().item()
            seen += len(yb)
        model.eval()
        with torch.no_grad():
            logits = model(Xva)
            val_loss = cross_entropy(logits, yva).item()
            val_acc = (logits.argmax(1) == yva).float().mean().item()
        log.info("epoch %02d  loss=%.6f  acc=%.4f  val_loss=%.6f  val_acc=%.4f",
                 epoch, total / seen, correct / seen, val_loss, val_acc)

    torch.save(model.state_dict(), "model_final.pt")
    log.info("saved model_final.pt")


if __name__ == "__main__":
    main()
''',
    'run12': r'''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from rich import box
from rich.console import Console
from rich.table import Table

torch.set_num_threads(1)
console = Console()
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])

K, D = cfg["data"]["classes"], cfg["data"]["dim"]
centers = rng.normal(0, 0.8, (K, D))


def draw(n):
    y = rng.integers(0, K, n)
    x = centers[y] + rng.normal(0, 1, (n, D))
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


Xtr, ytr = draw(cfg["data"]["n_train"])
Xva, yva = draw(cfg["data"]["n_val"])
class_counts = torch.bincount(torch.tensor(ytr), minlength=K)
console.log(f"train={len(Xtr)} val={len(Xva)} classes={K} counts={class_counts.tolist()}")


class MLP(nn.Module):
    def __init__(self, d, k, width, depth, bias_init):
        super().__init__()
        dims = [d] + [width] * depth
        self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.out = nn.Linear(width, k)
        for lin in self.hidden:
            nn.init.kaiming_normal_(lin.weight, nonlinearity="relu")
            nn.init.constant_(lin.bias, bias_init)

    def forward(self, x, record=None):
        for lin in self.hidden:
            x = F.relu(lin(x))
            if record is not None:
                record.append(x)
        return self.out(x)


m = cfg["model"]
model = MLP(D, K, m["width"], m["depth"], m["bias_init"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr), batch_size=cfg["batch_size"], shuffle=True)
console.log(f"MLP width={m['width']} depth={m['depth']} params={sum(p.numel() for p in model.parameters()):,}")

table = Table(title="run summary", box=box.SQUARE)
cols = ["epoch", "train_loss", "val_loss", "val_acc", "grad_norm"] + [f"zero_act_l{i + 1}" for i in range(m["depth"])]
for c in cols:
    table.add_column(c, justify="right")

for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    tot, n, gsum = 0.0, 0, 0.0
    for xb, yb in dl:
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        gsum += torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters())).item()
        opt.step()
        tot += loss.item() * len(xb)
        n += len(xb)
    model.eval()
    acts = []
    with torch.no_grad():
        out = model(Xva, record=acts)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    zero = [f"{(a == 0).float().mean().item():.1%}" for a in acts]
    table.add_row(str(epoch), f"{tot / n:.4f}", f"{vl:.4f}", f"{va:.3f}", f"{gsum / len(dl):.2e}", *zero)

console.print(table)
console.log(f"final val_acc={va:.3f}")
''',
}

CONFIGS = {
    'run02': r'''seed: 1234
epochs: 15
batch_size: 64
data:
  n_train: 3000
  n_val: 600
optim:
  name: adamw
  lr: 0.002
  weight_decay: 0.0001
scheduler: cosine
''',
    'run05': r'''seed: 21
data:
  path: data/sensors.csv
  features: [temp_c, log_pressure, flow_lpm, flow_per_kpa, vibration, humidity]
  target: energy_kwh
  val_frac: 0.15
batch_size: 64
lr: 0.001
epochs: 6
log_every: 5
''',
    'run06': r'''seed: 5
data:
  n_train: 160
  n_val: 1000
  n_features: 40
  n_informative: 6
model:
  hidden: 256
optim:
  lr: 0.001
  weight_decay: 0.0
batch_size: 32
epochs: 150
log_every: 2
''',
    'run07': r'''seed: 42
data:
  classes: 5
  dim: 24
  n_train: 5000
  n_val: 1000
model:
  hidden: 128
optim:
  name: sgd
  lr: 0.65
  momentum: 0.9
batch_size: 128
epochs: 30
''',
    'run12': r'''seed: 0
data:
  classes: 6
  dim: 20
  n_train: 6000
  n_val: 1500
model:
  width: 128
  depth: 3
  bias_init: -2.0
optim:
  name: adam
  lr: 0.001
batch_size: 128
epochs: 20
''',
}

PREP = {
    'run05': r'''import os
import numpy as np
import pandas as pd
rng = np.random.default_rng(11)
n = 6000
temp = rng.normal(40, 8, n)
pressure = rng.gamma(4.0, 25.0, n)
flow = rng.gamma(3.0, 2.0, n)
vib = rng.normal(0, 1, n)
hum = rng.uniform(20, 80, n)
energy = 0.04 * temp + 0.8 * np.log(pressure) + 0.3 * flow + 0.2 * vib ** 2 - 0.01 * hum + rng.normal(0, 0.3, n)
df = pd.DataFrame({"temp_c": temp.round(2), "pressure_kpa": pressure.round(3), "flow_lpm": flow.round(3),
                   "vibration": vib.round(4), "humidity": hum.round(1), "energy_kwh": energy.round(4)})
os.makedirs("data", exist_ok=True)
df.loc[[119, 4162], "flow_lpm"] = np.nan
df.to_csv("data/sensors.csv", index=False)
''',
}

# name, script, how it is invoked, where its output goes, and the ground truth.
RUNS = [
    dict(name="run01", script="run01", script_name="train.py", argv=["--lr", "0.002", "--epochs", "12"],
         cmd_in_log=True, log="terminal_output.txt", include_train=True, t0="2026-02-11 09:14:05",
         env={},
         truth="missing_zero_grad",
         symptom="Training loss creeps up every epoch and accuracy never gets off chance on a simple "
                 "10-class image task, even with a small learning rate.",
         how="optimizer.zero_grad() is never called in the training loop (SGD lr=0.002, momentum 0.9), so "
             "gradients accumulate across all steps; logged grad_norm climbs steadily."),
    dict(name="run02", script="run02", script_name="train.py", argv=[], cmd_in_log=False, log="console.txt",
         include_train=False, t0="2026-02-13 16:40:27", env={"COLUMNS": "100", "FAKE_RICH_CLOCK": "1"},
         truth="healthy",
         symptom="Is this run ok? Anything I should worry about before I ship the checkpoint?",
         how="No fault: BatchNorm CNN on synthetic 16x16 shape images, AdamW 2e-3 with cosine decay, 15 epochs."),
    dict(name="run03", script="run03", script_name="train.py", argv=[], cmd_in_log=False, log="train.log",
         include_train=True, t0="2026-02-16 11:02:48", env={},
         truth="vanishing_gradients",
         symptom="Loss sits around 0.69 and validation accuracy is exactly 50% for all 60 epochs on two-moons; "
                 "the network never learns anything.",
         how="10 hidden layers of width 64 with sigmoid activations and no normalisation or residuals; "
             "first-layer weight gradients are ~1e-9 vs ~1e-1 at the output."),
    dict(name="run04", script="run04", script_name="train.py", argv=[], cmd_in_log=False, log="output.txt",
         include_train=True, t0="2026-02-18 20:31:09", env={"COLUMNS": "100", "FAKE_RICH_CLOCK": "1"},
         truth="double_softmax",
         symptom="Accuracy is basically 100% but the loss will not go below about 1.46 no matter how long I train.",
         how="The model ends in nn.Softmax(dim=1) and its output is fed to nn.CrossEntropyLoss, which applies "
             "log_softmax again; loss floors at log(1+9/e)=1.461 for 10 classes."),
    dict(name="run05", script="run05", script_name="train.py", argv=[], cmd_in_log=False, log="pipeline.log",
         include_train=False, t0="2026-02-20 07:55:31", env={},
         truth="nan_in_data",
         symptom="The regression loss is fine for the first 50 batches and then turns into nan and stays nan.",
         how="Two rows of data/sensors.csv have an empty flow_lpm cell (read as NaN); mean/std normalisation "
             "skips NaN so only those rows are NaN; the first one is drawn in batch 53 of epoch 1."),
    dict(name="run06", script="run06", script_name="train.py", argv=[], cmd_in_log=False, log="stdout.txt",
         include_train=False, t0="2026-02-23 13:17:54", env={"COLUMNS": "96", "FAKE_RICH_CLOCK": "1"},
         truth="overfitting",
         symptom="Train accuracy hits 100% within ten epochs but my validation loss keeps getting worse the "
                 "longer I train.",
         how="160 training samples, 40 features of which 6 informative, 2x256 MLP, Adam, no weight decay or "
             "dropout, 150 epochs."),
    dict(name="run07", script="run07", script_name="train.py", argv=["config.yaml"], cmd_in_log=True,
         log="train.log", include_train=False, t0="2026-02-25 10:06:12", env={},
         truth="lr_too_high",
         symptom="Loss went down for the first couple of epochs, then started bouncing and climbing, and "
                 "val loss has huge spikes.",
         how="SGD (nesterov, momentum 0.9) with lr=0.65 on a 3-layer MLP; the same setup at lr=0.05 trains "
             "normally."),
    dict(name="run08", script="run08", script_name="train.py", argv=[], cmd_in_log=False, log="events.jsonl",
         include_train=True, t0="2026-02-26 18:44:40", env={},
         truth="healthy",
         symptom="The training loss is really jumpy and it takes forever to improve. Is this run ok?",
         how="No fault: small tanh MLP on noisy two-moons, plain SGD lr 0.02 with batch size 8 for 40 epochs; "
             "per-step loss is noisy, val loss falls slowly and then levels off."),
    dict(name="run09", script="run09", script_name="rnn_sum.py", argv=["--seq-len", "80", "--lr", "0.004"],
         cmd_in_log=False, cmd_file="command.txt", log="log.jsonl", include_train=False,
         t0="2026-03-02 14:03:11", env={},
         truth="exploding_gradients",
         symptom="My RNN trains for about 130 steps, then the loss suddenly shoots to the hundreds and "
                 "thousands and then nan.",
         how="Vanilla ReLU RNN (orthogonal recurrent init) over 80 time steps, SGD momentum 0.9, no gradient "
             "clipping; grad_norm goes ~1 -> 13 -> 237 -> 2e4 -> 1.6e5 before the loss becomes nan at step 135."),
    dict(name="run10", script="run10", script_name="train.py", argv=[], cmd_in_log=False, log="train.log",
         include_train=True, t0="2026-03-04 08:21:37", env={"FORCE_COLOR": "1"},
         truth="data_not_shuffled",
         symptom="The loss jumps up and down in the same pattern every epoch and the model almost never "
                 "predicts 'circle' on the validation set.",
         how="Training arrays are concatenated class by class and the DataLoader has no shuffle=True, so every "
             "epoch sees all circles, then squares, triangles, stars."),
    dict(name="run11", script="run11", script_name="train.py", argv=[], cmd_in_log=False,
         log="train_output.txt", include_train=True, t0="2026-03-05 15:58:03",
         env={"COLUMNS": "110"},
         truth="numerical_instability",
         symptom="Training looked perfect (loss ~2e-5, 100% accuracy) and then at epoch 21 everything became "
                 "nan; val_loss was nan once before that too.",
         how="Hand-written cross-entropy: -(one_hot * torch.log(torch.softmax(logits))).sum(); once a logit gap "
             "exceeds ~100 softmax underflows to 0, log gives -inf and 0*-inf gives nan."),
    dict(name="run12", script="run12", script_name="train.py", argv=[], cmd_in_log=False, log="console.log",
         include_train=False, t0="2026-03-06 12:29:50", env={"COLUMNS": "120", "FAKE_RICH_CLOCK": "1"},
         truth="dead_relu",
         symptom="The loss is stuck at 1.79 from the first epoch and accuracy stays at chance; the model just "
                 "isn't learning.",
         how="All hidden-layer biases are initialised to -2.0 (config model.bias_init) under Kaiming weights, so "
             "87% / 99.5% / 100% of the ReLU outputs in layers 1/2/3 are zero for every input."),
]


def write_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def run_one(spec, shim_dir):
    name = spec["name"]
    out_dir = os.path.join(RUNS_DIR, name)
    os.makedirs(out_dir)
    work = tempfile.mkdtemp(prefix=f"_work_{name}_", dir=HERE)
    try:
        script_name = spec["script_name"]
        with open(os.path.join(work, script_name), "w") as f:
            f.write(SCRIPTS[spec["script"]])
        if spec["script"] in CONFIGS:
            with open(os.path.join(work, "config.yaml"), "w") as f:
                f.write(CONFIGS[spec["script"]])
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "FORCE_COLOR", "NO_COLOR"))}
        env.update({
            "PYTHONPATH": shim_dir,
            "PYTHONUNBUFFERED": "1",
            "PYTHONHASHSEED": "0",
            "TZ": "UTC",
            "COLUMNS": "100",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "FAKE_T0": str(calendar.timegm(time.strptime(spec["t0"], "%Y-%m-%d %H:%M:%S"))),
        })
        env.update(spec.get("env", {}))
        if spec["script"] in PREP:
            subprocess.run([sys.executable, "-c", PREP[spec["script"]]], cwd=work, env=env, check=True)
        t = time.time()
        proc = subprocess.run([sys.executable, script_name] + spec["argv"], cwd=work, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        text = proc.stdout.decode()
        # keep the paste free of this machine's paths
        text = text.replace(work + os.sep, "").replace(work, ".")
        text = text.replace(sys.prefix, "/home/dev/.venv")
        cmd = " ".join(["python", script_name] + spec["argv"])
        if spec.get("cmd_in_log"):
            text = f"$ {cmd}\n" + text
        with open(os.path.join(out_dir, spec["log"]), "w") as f:
            f.write(text)
        if spec.get("cmd_file"):
            with open(os.path.join(out_dir, spec["cmd_file"]), "w") as f:
                f.write(cmd + "\n")
        if spec["script"] in CONFIGS:
            shutil.copy(os.path.join(work, "config.yaml"), os.path.join(out_dir, "config.yaml"))
        if spec["include_train"]:
            shutil.copy(os.path.join(work, script_name), os.path.join(out_dir, "train.py"))
        print(f"{name}: exit {proc.returncode}, {time.time() - t:.1f}s, {len(text.splitlines())} log lines")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    only = sys.argv[1:]
    if not only and os.path.isdir(RUNS_DIR):
        shutil.rmtree(RUNS_DIR)
    os.makedirs(RUNS_DIR, exist_ok=True)
    shim_dir = tempfile.mkdtemp(prefix="_work_shims_", dir=HERE)
    try:
        write_tree(shim_dir, SHIMS)
        for spec in RUNS:
            if only and spec["name"] not in only:
                continue
            if os.path.isdir(os.path.join(RUNS_DIR, spec["name"])):
                shutil.rmtree(os.path.join(RUNS_DIR, spec["name"]))
            run_one(spec, shim_dir)
    finally:
        shutil.rmtree(shim_dir, ignore_errors=True)
    truth = {s["name"]: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]} for s in RUNS}
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
