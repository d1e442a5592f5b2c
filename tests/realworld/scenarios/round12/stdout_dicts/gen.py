#!/usr/bin/env python
"""Generator for the stdout-dict benchmark runs (round 12).

Every run folder under runs/ is produced by really executing a small torch training script on CPU
(deterministic seeds) and capturing its merged stdout/stderr the way `nohup`, `tee` or slurm would,
plus the banner/warning noise such captures carry. A tiny tqdm stand-in (same line format, '\r'
updates on stderr) is put on PYTHONPATH because the venv has no tqdm.

Usage: python gen.py [runNN ...]   (no args: regenerate everything)
"""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

PY = "/work/main/.venv/bin/python"
OUT = Path(__file__).resolve().parent
RUNS_DIR = OUT / "runs"
TRUTH = OUT / "truth.json"
WORK = OUT / "_work"
SHIM = WORK / "_shim"

SHIM_TQDM = r'''
import sys, time

_BLOCKS = " ▏▎▍▌▋▊▉█"


def _fmt_t(s):
    s = int(s)
    m, s = divmod(s, 60)
    h, m = divmod(m, 60)
    return (f"{h:d}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}")


class tqdm:
    def __init__(self, iterable=None, total=None, desc=None, leave=True, file=None,
                 disable=False, dynamic_ncols=False, unit="it", **kw):
        self.iterable = iterable
        if total is None and iterable is not None and hasattr(iterable, "__len__"):
            total = len(iterable)
        self.total = total
        self.desc = desc
        self.leave = leave
        self.fp = file or sys.stderr
        self.disable = disable
        self.n = 0
        self.start = time.time()
        self.last_len = 0
        self.last_n = 0
        self.miniters = max(1, (total or 100) // 25)
        if not disable:
            self._draw()

    def _line(self):
        el = time.time() - self.start
        rate = self.n / el if (el > 0 and self.n) else None
        pre = (self.desc + ": ") if self.desc else ""
        if rate is None:
            rs = "?it/s"
        elif rate >= 1:
            rs = f"{rate:5.2f}it/s"
        else:
            rs = f"{1 / rate:5.2f}s/it"
        if self.total:
            frac = self.n / self.total
            full = int(frac * 10)
            part = int((frac * 10 - full) * 8)
            bar = "█" * full + (_BLOCKS[part] if full < 10 else "")
            bar = bar.ljust(10)
            rem = _fmt_t((self.total - self.n) / rate) if rate else "?"
            return f"{pre}{int(frac * 100):3d}%|{bar}| {self.n}/{self.total} [{_fmt_t(el)}<{rem}, {rs}]"
        return f"{pre}{self.n}it [{_fmt_t(el)}, {rs}]"

    def _draw(self):
        s = self._line()
        self.fp.write("\r" + s + " " * max(0, self.last_len - len(s)))
        self.fp.flush()
        self.last_len = len(s)

    def update(self, n=1):
        self.n += n
        if self.disable:
            return
        if self.n - self.last_n >= self.miniters or (self.total and self.n >= self.total):
            self.last_n = self.n
            self._draw()

    def __iter__(self):
        for x in self.iterable:
            yield x
            self.update(1)

    def __len__(self):
        return self.total or 0

    def write(self, s, file=None):
        if not self.disable:
            self.fp.write("\r" + " " * self.last_len + "\r")
            self.fp.flush()
        out = file or sys.stdout
        out.write(str(s) + "\n")
        out.flush()
        if not self.disable:
            self._draw()

    def set_description(self, desc=None, refresh=True):
        self.desc = desc

    def close(self):
        if self.disable:
            return
        self._draw()
        if self.leave:
            self.fp.write("\n")
        else:
            self.fp.write("\r" + " " * self.last_len + "\r")
        self.fp.flush()
        self.disable = True


def trange(n, **kw):
    return tqdm(range(n), **kw)
'''

# ---------------------------------------------------------------------------
# the training scripts (what the users ran)
# ---------------------------------------------------------------------------
SCRIPTS = {}

SCRIPTS['A'] = r'''import os, sys, time, math, json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader
from tqdm.auto import tqdm

torch.set_num_threads(1)
torch.manual_seed(1234)
np.random.seed(1234)

cfg = dict(learning_rate=3e-4, per_device_train_batch_size=32, per_device_eval_batch_size=128,
           num_train_epochs=5, warmup_ratio=0.1, weight_decay=0.01, max_grad_norm=1.0,
           logging_steps=20, output_dir="outputs/mlp-clusters", seed=1234)
print(f"torch {torch.__version__} | cuda available: {torch.cuda.is_available()} | device: cpu")
print("TrainingArguments:", json.dumps(cfg))

rng = np.random.default_rng(7)
K, D, N = 5, 24, 7500
centers = rng.normal(0.0, 1.0, size=(K, D)) * 0.6
y = rng.integers(0, K, N)
X = (centers[y] + rng.normal(0.0, 1.0, size=(N, D))).astype(np.float32)
mu, sd = X[:6000].mean(0), X[:6000].std(0)
X = (X - mu) / sd
Xtr, ytr, Xva, yva = X[:6000], y[:6000], X[6000:], y[6000:]
train_ds = TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr))
val_ds = TensorDataset(torch.from_numpy(Xva), torch.from_numpy(yva))
train_dl = DataLoader(train_ds, batch_size=cfg["per_device_train_batch_size"], shuffle=True)
val_dl = DataLoader(val_ds, batch_size=cfg["per_device_eval_batch_size"])

model = nn.Sequential(nn.Linear(D, 128), nn.GELU(), nn.Dropout(0.1), nn.Linear(128, 128), nn.GELU(), nn.Linear(128, K))
decay = [p for n, p in model.named_parameters() if n.endswith("weight")]
no_decay = [p for n, p in model.named_parameters() if n.endswith("bias")]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg["weight_decay"]},
                         {"params": no_decay, "weight_decay": 0.0}], lr=cfg["learning_rate"])
steps_per_epoch = len(train_dl)
total_steps = steps_per_epoch * cfg["num_train_epochs"]
warmup = int(cfg["warmup_ratio"] * total_steps)
def lr_lambda(step):
    if step < warmup:
        return step / max(1, warmup)
    return max(0.0, (total_steps - step) / max(1, total_steps - warmup))
sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)

@torch.no_grad()
def evaluate(epoch):
    model.eval()
    t0 = time.time(); tot = 0.0; correct = 0; n = 0; steps = 0
    for xb, yb in val_dl:
        out = model(xb)
        tot += F.cross_entropy(out, yb, reduction="sum").item()
        correct += (out.argmax(-1) == yb).sum().item(); n += len(yb); steps += 1
    rt = time.time() - t0
    model.train()
    return {"eval_loss": tot / n, "eval_accuracy": correct / n, "eval_runtime": round(rt, 4),
            "eval_samples_per_second": round(n / rt, 3), "eval_steps_per_second": round(steps / rt, 3),
            "epoch": round(epoch, 2)}

n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("***** Running training *****")
print(f"  Num examples = {len(train_ds):,}")
print(f"  Num Epochs = {cfg['num_train_epochs']:,}")
print(f"  Instantaneous batch size per device = {cfg['per_device_train_batch_size']:,}")
print(f"  Total train batch size (w. parallel, distributed & accumulation) = {cfg['per_device_train_batch_size']:,}")
print(f"  Gradient Accumulation steps = 1")
print(f"  Total optimization steps = {total_steps:,}")
print(f"  Number of trainable parameters = {n_params:,}")

pbar = tqdm(total=total_steps)
t_start = time.time(); step = 0; acc = 0.0; nacc = 0; all_loss = 0.0
model.train()
for epoch in range(cfg["num_train_epochs"]):
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["max_grad_norm"])
        opt.step(); sched.step(); step += 1
        acc += loss.item(); nacc += 1; all_loss += loss.item()
        pbar.update(1)
        if step % cfg["logging_steps"] == 0:
            pbar.write(str({"loss": round(acc / nacc, 4), "grad_norm": gn.item(),
                            "learning_rate": sched.get_last_lr()[0], "epoch": round(step / steps_per_epoch, 2)}))
            acc = 0.0; nacc = 0
    pbar.write(str(evaluate(step / steps_per_epoch)))
    ck = f"{cfg['output_dir']}/checkpoint-{step}"
    pbar.write(f"Saving model checkpoint to {ck}")
    os.makedirs(ck, exist_ok=True)
    torch.save(model.state_dict(), f"{ck}/pytorch_model.bin")
rt = time.time() - t_start
pbar.write("\n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n")
pbar.write(str({"train_runtime": round(rt, 4), "train_samples_per_second": round(len(train_ds) * cfg["num_train_epochs"] / rt, 3),
                "train_steps_per_second": round(total_steps / rt, 3), "train_loss": all_loss / total_steps,
                "epoch": float(cfg["num_train_epochs"])}))
pbar.close()
'''

SCRIPTS['B'] = r'''import argparse, os, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

p = argparse.ArgumentParser()
p.add_argument("--learning_rate", type=float, default=0.01)
p.add_argument("--per_device_train_batch_size", type=int, default=16)
p.add_argument("--per_device_eval_batch_size", type=int, default=64)
p.add_argument("--num_train_epochs", type=int, default=10)
p.add_argument("--warmup_ratio", type=float, default=0.0)
p.add_argument("--weight_decay", type=float, default=0.0)
p.add_argument("--max_grad_norm", type=float, default=1.0)
p.add_argument("--logging_steps", type=int, default=20)
p.add_argument("--fp16", action="store_true")
p.add_argument("--output_dir", default="runs/digits_cnn")
p.add_argument("--seed", type=int, default=0)
args = p.parse_args()
print(args)

torch.set_num_threads(1)
torch.manual_seed(args.seed)
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"device={device}")


class NoisyDigits(Dataset):
    """8x8 glyphs, random 1px shifts, heavy pixel noise."""
    def __init__(self, n, seed):
        g = np.random.default_rng(1000)
        self.templates = (g.random((10, 8, 8)) < 0.35).astype(np.float32)
        r = np.random.default_rng(seed)
        self.y = r.integers(0, 10, n)
        imgs = self.templates[self.y]
        dx = r.integers(-1, 2, n); dy = r.integers(-1, 2, n)
        imgs = np.stack([np.roll(np.roll(im, a, 0), b, 1) for im, a, b in zip(imgs, dx, dy)])
        imgs = imgs + r.normal(0, 0.9, imgs.shape)
        self.x = ((imgs - 0.35) / 1.0).astype(np.float32)[:, None]

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), int(self.y[i])


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 4 * 4, 10)

    def forward(self, x):
        x = F.relu(self.c1(x))
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


train_ds, val_ds = NoisyDigits(2000, 1), NoisyDigits(800, 2)
train_dl = DataLoader(train_ds, batch_size=args.per_device_train_batch_size, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=args.per_device_eval_batch_size)
model = SmallCNN().to(device)
opt = torch.optim.SGD(model.parameters(), lr=args.learning_rate, momentum=0.9, weight_decay=args.weight_decay)
scaler = torch.cuda.amp.GradScaler(enabled=args.fp16)
steps_per_epoch = len(train_dl)
total = steps_per_epoch * args.num_train_epochs
warm = int(args.warmup_ratio * total)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: s / max(1, warm) if s < warm else max(0.0, (total - s) / max(1, total - warm)))


@torch.no_grad()
def evaluate(epoch):
    model.eval()
    t0 = time.time(); loss_sum = 0.0; hit = 0; n = 0; k = 0
    for x, y in val_dl:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss_sum += F.cross_entropy(out, y, reduction="sum").item()
        hit += (out.argmax(1) == y).sum().item(); n += len(y); k += 1
    dt = time.time() - t0
    model.train()
    return {"eval_loss": loss_sum / n, "eval_accuracy": hit / n, "eval_runtime": round(dt, 4),
            "eval_samples_per_second": round(n / dt, 3), "eval_steps_per_second": round(k / dt, 3), "epoch": round(epoch, 2)}


print("***** Running training *****")
print(f"  Num examples = {len(train_ds):,}")
print(f"  Num Epochs = {args.num_train_epochs}")
print(f"  Instantaneous batch size per device = {args.per_device_train_batch_size}")
print(f"  Total optimization steps = {total:,}")
print(f"  Number of trainable parameters = {sum(p.numel() for p in model.parameters()):,}")
step = 0; run_loss = 0.0; cnt = 0; tot_loss = 0.0; t0 = time.time()
for ep in range(args.num_train_epochs):
    for x, y in train_dl:
        x, y = x.to(device), y.to(device)
        with torch.autocast(device_type=device, dtype=torch.float16 if device == "cuda" else torch.bfloat16, enabled=args.fp16 and device == "cuda"):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        scaler.step(opt); scaler.update(); sched.step(); step += 1
        run_loss += loss.item(); cnt += 1; tot_loss += loss.item()
        if step % args.logging_steps == 0:
            print({"loss": round(run_loss / cnt, 4), "grad_norm": gn.item(), "learning_rate": sched.get_last_lr()[0], "epoch": round(step / steps_per_epoch, 2)})
            run_loss = 0.0; cnt = 0
    print(evaluate(step / steps_per_epoch))
    if (ep + 1) % 2 == 0:
        ck = os.path.join(args.output_dir, f"checkpoint-{step}")
        print(f"Saving model checkpoint to {ck}")
        os.makedirs(ck, exist_ok=True)
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(), "step": step}, os.path.join(ck, "state.pt"))
rt = time.time() - t0
print({"train_runtime": round(rt, 4), "train_samples_per_second": round(len(train_ds) * args.num_train_epochs / rt, 3),
       "train_steps_per_second": round(total / rt, 3), "train_loss": tot_loss / total, "epoch": float(args.num_train_epochs)})
'''

SCRIPTS['C'] = r'''import argparse, os, time, math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader
from tqdm.auto import tqdm

ap = argparse.ArgumentParser()
ap.add_argument("--learning_rate", type=float, default=1e-3)
ap.add_argument("--per_device_train_batch_size", type=int, default=64)
ap.add_argument("--num_train_epochs", type=int, default=12)
ap.add_argument("--warmup_ratio", type=float, default=0.0)
ap.add_argument("--weight_decay", type=float, default=0.0)
ap.add_argument("--max_grad_norm", type=float, default=1.0)
ap.add_argument("--lr_scheduler_type", default="constant")
ap.add_argument("--logging_steps", type=int, default=10)
ap.add_argument("--output_dir", default="ckpt/spiral")
ap.add_argument("--optim", default="adamw")
args = ap.parse_args()
torch.set_num_threads(1)
torch.manual_seed(3)
print(f"[rank0] args: {vars(args)}")


def spirals(n, k=3, noise=0.2, seed=0):
    r = np.random.default_rng(seed)
    y = r.integers(0, k, n)
    t = r.uniform(0.0, 1.0, n)
    ang = t * 3.5 + y * 2 * np.pi / k
    x = np.stack([t * np.cos(ang), t * np.sin(ang)], 1) * 2.0 + r.normal(0, noise * t[:, None] + 0.02, (n, 2))
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


Xtr, ytr = spirals(4000, seed=11)
Xva, yva = spirals(1000, seed=12)
tl = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.per_device_train_batch_size, shuffle=True)
vl = DataLoader(TensorDataset(Xva, yva), batch_size=256)
model = nn.Sequential(nn.Linear(2, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 3))
if args.optim == "sgd":
    opt = torch.optim.SGD(model.parameters(), lr=args.learning_rate, momentum=0.9, weight_decay=args.weight_decay)
else:
    opt = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
spe = len(tl); total = spe * args.num_train_epochs
warm = int(args.warmup_ratio * total)
if args.lr_scheduler_type == "constant":
    f = lambda s: min(1.0, s / warm) if warm else 1.0
else:
    f = lambda s: s / max(1, warm) if s < warm else max(0.0, (total - s) / max(1, total - warm))
sched = torch.optim.lr_scheduler.LambdaLR(opt, f)


@torch.no_grad()
def evaluate(ep):
    model.eval(); t = time.time()
    out = torch.cat([model(x) for x, _ in vl])
    dt = time.time() - t
    model.train()
    return {"eval_loss": F.cross_entropy(out, yva).item(), "eval_accuracy": (out.argmax(1) == yva).float().mean().item(),
            "eval_runtime": round(dt, 4), "eval_samples_per_second": round(len(yva) / dt, 3),
            "eval_steps_per_second": round(len(vl) / dt, 3), "epoch": round(ep, 2)}


print("***** Running training *****")
print(f"  Num examples = {len(Xtr):,}")
print(f"  Num Epochs = {args.num_train_epochs:,}")
print(f"  Instantaneous batch size per device = {args.per_device_train_batch_size:,}")
print(f"  Total optimization steps = {total:,}")
bar = tqdm(total=total)
gs = 0; acc = 0.0; k = 0; tl_sum = 0.0; t0 = time.time()
for ep in range(args.num_train_epochs):
    for x, y in tl:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        opt.step(); sched.step(); gs += 1; bar.update(1)
        acc += loss.item(); k += 1; tl_sum += loss.item()
        if gs % args.logging_steps == 0:
            bar.write(str({"loss": round(acc / k, 4), "grad_norm": gn.item(), "learning_rate": sched.get_last_lr()[0], "epoch": round(gs / spe, 2)}))
            acc = 0.0; k = 0
    bar.write(str(evaluate(gs / spe)))
    if (ep + 1) % 4 == 0:
        bar.write(f"Saving model checkpoint to {args.output_dir}/checkpoint-{gs}")
        os.makedirs(f"{args.output_dir}/checkpoint-{gs}", exist_ok=True)
        torch.save(model.state_dict(), f"{args.output_dir}/checkpoint-{gs}/model.pt")
rt = time.time() - t0
bar.write(str({"train_runtime": round(rt, 4), "train_samples_per_second": round(len(Xtr) * args.num_train_epochs / rt, 3),
               "train_steps_per_second": round(total / rt, 3), "train_loss": tl_sum / total, "epoch": float(args.num_train_epochs)}))
bar.close()
'''

SCRIPTS['D'] = r'''import argparse
import os
import time

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    parser = argparse.ArgumentParser(description="tabular classifier")
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    parser.add_argument("--per_device_train_batch_size", type=int, default=32)
    parser.add_argument("--num_train_epochs", type=int, default=10)
    parser.add_argument("--lr_decay_every", type=int, default=2, help="halve the lr every N epochs")
    parser.add_argument("--weight_decay", type=float, default=0.0)
    parser.add_argument("--max_grad_norm", type=float, default=1.0)
    parser.add_argument("--logging_steps", type=int, default=25)
    parser.add_argument("--output_dir", type=str, default="outputs/tab")
    return parser.parse_args()


def load_data(seed=5):
    rng = np.random.default_rng(seed)
    n, d, k = 4000, 20, 6
    centers = rng.normal(0, 1, (k, d)) * 0.6
    y = rng.integers(0, k, n)
    x = centers[y] + rng.normal(0, 1, (n, d))
    x = x + 0.5 * np.sin(2 * x[:, ::-1])
    x = (x - x.mean(0)) / x.std(0)
    x = torch.tensor(x, dtype=torch.float32)
    y = torch.tensor(y)
    return (x[:3200], y[:3200]), (x[3200:], y[3200:])


def macro_f1(pred, y, k):
    f1s = []
    for c in range(k):
        tp = ((pred == c) & (y == c)).sum().item()
        fp = ((pred == c) & (y != c)).sum().item()
        fn = ((pred != c) & (y == c)).sum().item()
        f1s.append(2 * tp / max(1, 2 * tp + fp + fn))
    return sum(f1s) / k


def main():
    args = get_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    (xtr, ytr), (xva, yva) = load_data()
    train_loader = DataLoader(TensorDataset(xtr, ytr), batch_size=args.per_device_train_batch_size, shuffle=True)
    model = nn.Sequential(
        nn.Linear(20, 256), nn.ReLU(),
        nn.Linear(256, 256), nn.ReLU(),
        nn.Linear(256, 6),
    )
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.lr_decay_every, gamma=0.5)

    steps_per_epoch = len(train_loader)
    print(f"train={len(xtr)} val={len(xva)} steps/epoch={steps_per_epoch} total_steps={steps_per_epoch * args.num_train_epochs}")
    step, running, n_running = 0, 0.0, 0
    start = time.time()
    for epoch in range(args.num_train_epochs):
        model.train()
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            optimizer.step()
            scheduler.step()
            step += 1
            running += loss.item()
            n_running += 1
            if step % args.logging_steps == 0:
                print({"loss": round(running / n_running, 4), "grad_norm": grad_norm.item(),
                       "learning_rate": optimizer.param_groups[0]["lr"], "epoch": round(step / steps_per_epoch, 2)})
                running, n_running = 0.0, 0

        model.eval()
        t0 = time.time()
        with torch.no_grad():
            logits = model(xva)
            val_loss = loss_fn(logits, yva).item()
            pred = logits.argmax(-1)
        rt = time.time() - t0
        print({"eval_loss": val_loss, "eval_accuracy": (pred == yva).float().mean().item(),
               "eval_macro_f1": macro_f1(pred, yva, 6), "eval_runtime": round(rt, 4),
               "eval_samples_per_second": round(len(yva) / rt, 3), "epoch": float(epoch + 1)})
        if (epoch + 1) % 5 == 0:
            path = os.path.join(args.output_dir, f"checkpoint-{step}")
            print(f"Saving model checkpoint to {path}")
            os.makedirs(path, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(path, "model.pt"))
    print({"train_runtime": round(time.time() - start, 4), "epoch": float(args.num_train_epochs)})


if __name__ == "__main__":
    main()
'''

SCRIPTS['E'] = r'''import sys, os, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(2024)
LR = 1e-4; BS = 32; EPOCHS = 60; LOG_EVERY = 10; EVAL_EVERY = 1
print(f"python {sys.version.split()[0]} torch {torch.__version__} | cuda: {torch.cuda.is_available()}")
print(f"config: lr={LR} batch_size={BS} epochs={EPOCHS} weight_decay=0.0 dropout=0.0 hidden=512x3")

rng = np.random.default_rng(99)
D = 60
w = np.zeros(D); w[:6] = rng.normal(0, 1, 6)
def sample(n):
    x = rng.normal(0, 1, (n, D))
    logit = x @ w + 0.8 * x[:, 0] * x[:, 1]
    y = (logit + rng.normal(0, 1.0, n) > 0).astype(np.int64)
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)
xtr, ytr = sample(320)
xva, yva = sample(2000)
dl = DataLoader(TensorDataset(xtr, ytr), batch_size=BS, shuffle=True)
model = nn.Sequential(nn.Linear(D, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 2))
opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.0)
print(f"train examples: {len(xtr)}  eval examples: {len(xva)}  params: {sum(p.numel() for p in model.parameters()):,}")
spe = len(dl); step = 0; run = 0.0; k = 0
for ep in range(1, EPOCHS + 1):
    model.train()
    for xb, yb in dl:
        out = model(xb); loss = F.cross_entropy(out, yb)
        opt.zero_grad(); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(); step += 1; run += loss.item(); k += 1
        if step % LOG_EVERY == 0:
            print({'loss': round(run / k, 4), 'grad_norm': gn.item(), 'learning_rate': LR, 'epoch': round(step / spe, 2)})
            run = 0.0; k = 0
    if ep % EVAL_EVERY == 0:
        model.eval(); t0 = time.time()
        with torch.no_grad():
            o = model(xva); el = F.cross_entropy(o, yva).item(); acc = (o.argmax(1) == yva).float().mean().item()
            tacc = (model(xtr).argmax(1) == ytr).float().mean().item()
        rt = time.time() - t0
        print({'eval_loss': el, 'eval_accuracy': acc, 'train_accuracy': tacc, 'eval_runtime': round(rt, 4),
               'eval_samples_per_second': round(len(yva) / rt, 3), 'epoch': float(ep)})
    if ep % 20 == 0:
        print(f"Saving model checkpoint to ./out/checkpoint-{step}")
        os.makedirs(f"out/checkpoint-{step}", exist_ok=True)
        torch.save(model.state_dict(), f"out/checkpoint-{step}/pytorch_model.bin")
'''

SCRIPTS['F'] = r'''import argparse, json, os, random, time, math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--learning_rate", type=float, default=5e-4)
parser.add_argument("--per_device_train_batch_size", type=int, default=32)
parser.add_argument("--num_train_epochs", type=int, default=8)
parser.add_argument("--warmup_ratio", type=float, default=0.06)
parser.add_argument("--weight_decay", type=float, default=0.01)
parser.add_argument("--max_grad_norm", type=float, default=1.0)
parser.add_argument("--logging_steps", type=int, default=25)
parser.add_argument("--output_dir", default="tagger_out")
parser.add_argument("--seed", type=int, default=17)
args = parser.parse_args()
torch.set_num_threads(1)
random.seed(args.seed); np.random.seed(args.seed); torch.manual_seed(args.seed)

PAD_ID = 0
VOCAB = ["<pad>"] + [f"w{i}" for i in range(1, 64)]
TAGS = ["NOUN", "VERB", "ADJ", "DET"]
g = np.random.default_rng(123)
LEXICON = {i: int(g.integers(0, len(TAGS))) for i in range(1, len(VOCAB))}


def make_corpus(n, seed):
    r = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        L = int(r.integers(5, 21))
        toks = r.integers(1, len(VOCAB), L).tolist()
        out.append({"input_ids": toks, "labels": [LEXICON[t] for t in toks]})
    return out


class TagDataset(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


def collate(batch):
    max_len = max(len(b["input_ids"]) for b in batch)
    input_ids = torch.full((len(batch), max_len), PAD_ID, dtype=torch.long)
    labels = torch.full((len(batch), max_len), -100, dtype=torch.long)
    attention_mask = torch.zeros((len(batch), max_len), dtype=torch.long)
    for i, b in enumerate(batch):
        n = len(b["input_ids"])
        input_ids[i, :n] = torch.tensor(b["input_ids"])
        attention_mask[i, :n] = 1
        labels[i, max_len - n:] = torch.tensor(b["labels"])
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}


class Tagger(nn.Module):
    def __init__(self, vocab, n_tags, dim=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=PAD_ID)
        self.ff = nn.Sequential(nn.Linear(dim, 128), nn.GELU(), nn.Linear(128, n_tags))

    def forward(self, input_ids, attention_mask=None, labels=None):
        logits = self.ff(self.emb(input_ids))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)
        return loss, logits


train_ds = TagDataset(make_corpus(3000, 1))
eval_ds = TagDataset(make_corpus(500, 2))
train_dl = DataLoader(train_ds, batch_size=args.per_device_train_batch_size, shuffle=True, collate_fn=collate)
eval_dl = DataLoader(eval_ds, batch_size=64, collate_fn=collate)
model = Tagger(len(VOCAB), len(TAGS))
opt = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
spe = len(train_dl); total = spe * args.num_train_epochs; warm = int(args.warmup_ratio * total)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: s / max(1, warm) if s < warm else max(0.0, (total - s) / max(1, total - warm)))
print(f"vocab_size={len(VOCAB)} num_labels={len(TAGS)} id2label={dict(enumerate(TAGS))}")
ex = collate([train_ds[0]])
print("example input_ids:", ex["input_ids"][0].tolist())
print("example labels:   ", ex["labels"][0].tolist())
print("***** Running training *****")
print(f"  Num examples = {len(train_ds):,}")
print(f"  Num Epochs = {args.num_train_epochs}")
print(f"  Instantaneous batch size per device = {args.per_device_train_batch_size}")
print(f"  Total optimization steps = {total:,}")


@torch.no_grad()
def evaluate(epoch):
    model.eval(); t0 = time.time(); tot = 0.0; ntok = 0; hit = 0; nb = 0
    for b in eval_dl:
        loss, logits = model(**b)
        m = b["labels"] != -100
        tot += loss.item() * m.sum().item(); ntok += m.sum().item()
        hit += (logits.argmax(-1)[m] == b["labels"][m]).sum().item(); nb += 1
    dt = time.time() - t0
    model.train()
    return {"eval_loss": tot / ntok, "eval_accuracy": hit / ntok, "eval_runtime": round(dt, 4),
            "eval_samples_per_second": round(len(eval_ds) / dt, 3), "eval_steps_per_second": round(nb / dt, 3), "epoch": round(epoch, 2)}


step = 0; acc = 0.0; k = 0; t_start = time.time(); tot_loss = 0.0
model.train()
for epoch in range(args.num_train_epochs):
    for batch in train_dl:
        loss, _ = model(**batch)
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        opt.step(); sched.step(); opt.zero_grad(); step += 1
        acc += loss.item(); k += 1; tot_loss += loss.item()
        if step % args.logging_steps == 0:
            print({"loss": round(acc / k, 4), "grad_norm": gn.item(), "learning_rate": sched.get_last_lr()[0], "epoch": round(step / spe, 2)})
            acc = 0.0; k = 0
    print(evaluate(step / spe))
    ck = os.path.join(args.output_dir, f"checkpoint-{step}")
    print(f"Saving model checkpoint to {ck}")
    os.makedirs(ck, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(ck, "pytorch_model.bin"))
    with open(os.path.join(ck, "config.json"), "w") as f:
        json.dump({"id2label": dict(enumerate(TAGS)), "vocab_size": len(VOCAB)}, f)
rt = time.time() - t_start
print({"train_runtime": round(rt, 4), "train_samples_per_second": round(len(train_ds) * args.num_train_epochs / rt, 3),
       "train_steps_per_second": round(total / rt, 3), "train_loss": tot_loss / total, "epoch": float(args.num_train_epochs)})
'''

SCRIPTS['G'] = r'''import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--learning_rate", type=float, default=1e-3)
    p.add_argument("--per_device_train_batch_size", type=int, default=64)
    p.add_argument("--num_train_epochs", type=int, default=15)
    p.add_argument("--warmup_ratio", type=float, default=0.1)
    p.add_argument("--weight_decay", type=float, default=0.0)
    p.add_argument("--max_grad_norm", type=float, default=1.0)
    p.add_argument("--logging_steps", type=int, default=30)
    p.add_argument("--output_dir", default="./results")
    return p.parse_args()


class Net(nn.Module):
    def __init__(self, d_in=32, width=192, n_cls=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, width), nn.LayerNorm(width), nn.ReLU(),
                                  nn.Linear(width, width), nn.LayerNorm(width), nn.ReLU())
        self.head = nn.Linear(width, n_cls)

    def forward(self, x):
        return self.head(self.body(x))


def build_data():
    r = np.random.default_rng(31)
    n = 6000
    x = r.normal(size=(n, 32)).astype(np.float32)
    s1 = x[:, 0] * x[:, 1] + np.sin(2 * x[:, 2])
    s2 = x[:, 3] ** 2 - 1 + 0.5 * x[:, 4]
    y = (s1 > 0).astype(np.int64) * 2 + (s2 > 0).astype(np.int64)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    return TensorDataset(x[:5000], y[:5000]), TensorDataset(x[5000:], y[5000:])


def main():
    args = parse()
    torch.set_num_threads(1)
    torch.manual_seed(8)
    print(f"Namespace{tuple(sorted(vars(args).items()))}")
    train_set, eval_set = build_data()
    train_loader = DataLoader(train_set, batch_size=args.per_device_train_batch_size, shuffle=True)
    eval_loader = DataLoader(eval_set, batch_size=500)
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
    steps_per_epoch = len(train_loader)
    max_steps = steps_per_epoch * args.num_train_epochs
    warmup_steps = math.ceil(args.warmup_ratio * max_steps)

    def lr_lambda(s):
        if s < warmup_steps:
            return float(s) / float(max(1, warmup_steps))
        progress = (s - warmup_steps) / max(1, max_steps - warmup_steps)
        return 0.5 * (1.0 + math.cos(math.pi * progress))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
    print("***** Running training *****")
    print(f"  Num examples = {len(train_set):,}")
    print(f"  Num Epochs = {args.num_train_epochs:,}")
    print(f"  Instantaneous batch size per device = {args.per_device_train_batch_size:,}")
    print(f"  Gradient Accumulation steps = 1")
    print(f"  Total optimization steps = {max_steps:,}")
    print(f"  Number of trainable parameters = {sum(p.numel() for p in model.parameters()):,}")
    global_step, tr_loss, logged, t0 = 0, 0.0, 0, time.time()
    total_loss = 0.0
    for epoch in range(args.num_train_epochs):
        model.train()
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            global_step += 1
            tr_loss += loss.item(); logged += 1; total_loss += loss.item()
            if global_step % args.logging_steps == 0:
                print({"loss": round(tr_loss / logged, 4), "grad_norm": grad_norm.item(),
                       "learning_rate": scheduler.get_last_lr()[0], "epoch": round(global_step / steps_per_epoch, 2)})
                tr_loss, logged = 0.0, 0
        model.eval()
        start = time.time()
        with torch.no_grad():
            ls, hit, n = 0.0, 0, 0
            for x, y in eval_loader:
                out = model(x)
                ls += F.cross_entropy(out, y, reduction="sum").item()
                hit += (out.argmax(1) == y).sum().item(); n += len(y)
        dur = time.time() - start
        print({"eval_loss": ls / n, "eval_accuracy": hit / n, "eval_runtime": round(dur, 4),
               "eval_samples_per_second": round(n / dur, 3), "eval_steps_per_second": round(len(eval_loader) / dur, 3),
               "epoch": float(epoch + 1)})
        if (epoch + 1) % 5 == 0:
            out_dir = os.path.join(args.output_dir, f"checkpoint-{global_step}")
            print(f"Saving model checkpoint to {out_dir}")
            os.makedirs(out_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, os.path.join(out_dir, "ckpt.pt"))
    runtime = time.time() - t0
    print({"train_runtime": round(runtime, 4), "train_samples_per_second": round(len(train_set) * args.num_train_epochs / runtime, 3),
           "train_steps_per_second": round(max_steps / runtime, 3), "train_loss": total_loss / max_steps,
           "epoch": float(args.num_train_epochs)})


if __name__ == "__main__":
    main()
'''

SCRIPTS['H'] = r'''import argparse, os, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ap = argparse.ArgumentParser()
ap.add_argument("--learning_rate", type=float, default=3e-3)
ap.add_argument("--per_device_train_batch_size", type=int, default=64)
ap.add_argument("--num_train_epochs", type=int, default=8)
ap.add_argument("--warmup_ratio", type=float, default=0.05)
ap.add_argument("--weight_decay", type=float, default=0.01)
ap.add_argument("--max_grad_norm", type=float, default=1.0)
ap.add_argument("--logging_steps", type=int, default=10)
ap.add_argument("--save_steps", type=int, default=200)
ap.add_argument("--output_dir", default="out/gru-seqcls")
ap.add_argument("--resume_from_checkpoint", default=None)
args = ap.parse_args()
torch.set_num_threads(1)
torch.manual_seed(21)
print(f"args: {vars(args)}")


def make_data(n, seed):
    r = np.random.default_rng(seed)
    x = r.normal(size=(n, 20, 4)).astype(np.float32)
    a = x[:, :, 0].sum(1) + 0.5 * x[:, :, 2].sum(1)
    b = x[:, :, 1].sum(1) - 0.5 * x[:, -5:, 3].sum(1)
    y = (a > 0).astype(np.int64) * 2 + (b > 0).astype(np.int64)
    return torch.from_numpy(x), torch.from_numpy(y)


class GRUClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 64, batch_first=True)
        self.out = nn.Linear(64, 4)

    def forward(self, x):
        _, h = self.rnn(x)
        return self.out(h[-1])


xtr, ytr = make_data(5000, 0)
xva, yva = make_data(1000, 1)
g = torch.Generator().manual_seed(0)
train_dl = DataLoader(TensorDataset(xtr, ytr), batch_size=args.per_device_train_batch_size, shuffle=True, generator=g)
model = GRUClassifier()
opt = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
spe = len(train_dl); max_steps = spe * args.num_train_epochs; warm = int(args.warmup_ratio * max_steps)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: s / max(1, warm) if s < warm else max(0.0, (max_steps - s) / max(1, max_steps - warm)))

global_step = 0
if args.resume_from_checkpoint:
    print(f"Loading model from {args.resume_from_checkpoint}.")
    state = torch.load(os.path.join(args.resume_from_checkpoint, "pytorch_model.bin"))
    model.load_state_dict(state)
    global_step = int(args.resume_from_checkpoint.rstrip("/").split("-")[-1])

start_epoch, skip = divmod(global_step, spe)
print("***** Running training *****")
print(f"  Num examples = {len(xtr):,}")
print(f"  Num Epochs = {args.num_train_epochs:,}")
print(f"  Instantaneous batch size per device = {args.per_device_train_batch_size:,}")
print(f"  Total optimization steps = {max_steps:,}")
if global_step:
    print("  Continuing training from checkpoint, will skip to saved global_step")
    print(f"  Continuing training from epoch {start_epoch}")
    print(f"  Continuing training from global step {global_step}")
    print(f"  Will skip the first {start_epoch} epochs then the first {skip} batches in the first epoch.")


@torch.no_grad()
def evaluate(ep):
    model.eval(); t = time.time(); out = model(xva); dt = time.time() - t
    model.train()
    return {"eval_loss": F.cross_entropy(out, yva).item(), "eval_accuracy": (out.argmax(1) == yva).float().mean().item(),
            "eval_runtime": round(dt, 4), "eval_samples_per_second": round(len(yva) / dt, 3), "epoch": round(ep, 2)}


run, k, t0 = 0.0, 0, time.time()
model.train()
for epoch in range(args.num_train_epochs):
    for i, (x, y) in enumerate(train_dl):
        if epoch < start_epoch or (epoch == start_epoch and i < skip):
            continue
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        opt.step(); sched.step(); global_step += 1
        run += loss.item(); k += 1
        if global_step % args.logging_steps == 0:
            print({"loss": round(run / k, 4), "grad_norm": gn.item(), "learning_rate": sched.get_last_lr()[0], "epoch": round(global_step / spe, 2)})
            run, k = 0.0, 0
        if global_step % args.save_steps == 0:
            ck = os.path.join(args.output_dir, f"checkpoint-{global_step}")
            print(f"Saving model checkpoint to {ck}")
            os.makedirs(ck, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(ck, "pytorch_model.bin"))
    if epoch >= start_epoch:
        print(evaluate(global_step / spe))
rt = time.time() - t0
print({"train_runtime": round(rt, 4), "train_steps_per_second": round(max_steps / rt, 3), "epoch": float(args.num_train_epochs)})
'''

SCRIPTS['I'] = r'''import argparse, os, time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--learning_rate", type=float, default=5e-3)
p.add_argument("--per_device_train_batch_size", type=int, default=128)
p.add_argument("--num_train_epochs", type=int, default=40)
p.add_argument("--weight_decay", type=float, default=0.0)
p.add_argument("--max_grad_norm", type=float, default=5.0)
p.add_argument("--logging_steps", type=int, default=20)
p.add_argument("--output_dir", default="chk")
args = p.parse_args()
torch.set_num_threads(1)
torch.manual_seed(5)


def make_moons(n, noise, seed):
    r = np.random.default_rng(seed)
    m = n // 2
    t1, t2 = r.uniform(0, np.pi, m), r.uniform(0, np.pi, n - m)
    a = np.stack([np.cos(t1), np.sin(t1)], 1)
    b = np.stack([1 - np.cos(t2), 0.5 - np.sin(t2)], 1)
    x = np.concatenate([a, b]) + r.normal(0, noise, (n, 2))
    y = np.concatenate([np.zeros(m), np.ones(n - m)])
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)


def bce(logits, target):
    p = torch.sigmoid(logits)
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


xtr, ytr = make_moons(3000, 0.1, 0)
xva, yva = make_moons(1000, 0.1, 1)
dl = DataLoader(TensorDataset(xtr, ytr), batch_size=args.per_device_train_batch_size, shuffle=True)
model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
spe = len(dl)
print(f"{len(xtr)} train / {len(xva)} eval, {spe} steps per epoch, {spe * args.num_train_epochs} steps total")
step, acc, k = 0, 0.0, 0
for ep in range(args.num_train_epochs):
    model.train()
    for x, y in dl:
        loss = bce(model(x).squeeze(-1), y)
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        opt.step()
        step += 1; acc += loss.item(); k += 1
        if step % args.logging_steps == 0:
            print({"loss": round(acc / k, 4), "grad_norm": gn.item(), "learning_rate": args.learning_rate, "epoch": round(step / spe, 2)})
            acc, k = 0.0, 0
    model.eval(); t0 = time.time()
    with torch.no_grad():
        z = model(xva).squeeze(-1)
        vl = bce(z, yva).item()
        va = ((z > 0).float() == yva).float().mean().item()
    dt = time.time() - t0
    print({"eval_loss": vl, "eval_accuracy": va, "eval_runtime": round(dt, 4), "eval_samples_per_second": round(len(yva) / dt, 3), "epoch": float(ep + 1)})
    if (ep + 1) % 10 == 0:
        print(f"Saving model checkpoint to {args.output_dir}/checkpoint-{step}")
        os.makedirs(f"{args.output_dir}/checkpoint-{step}", exist_ok=True)
        torch.save(model.state_dict(), f"{args.output_dir}/checkpoint-{step}/model.pt")
'''

SCRIPTS['J'] = r'''import os, time, math, warnings
from collections import Counter
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(77)
LEARNING_RATE = 2e-3
BATCH = 64
EPOCHS = 20
LOG_STEPS = 25
LABELS = ["normal", "minor", "major", "critical"]

rng = np.random.default_rng(4)
N = 8000
priors = np.array([0.70, 0.15, 0.10, 0.05])
y = rng.choice(4, size=N, p=priors)
mu = rng.normal(0, 1, (4, 16)) * 0.2
x = mu[y] + rng.normal(0, 1, (N, 16))
x = np.concatenate([x, np.tanh(x[:, :4] * x[:, 4:8])], 1).astype(np.float32)
xtr, ytr = torch.from_numpy(x[:6400]), torch.from_numpy(y[:6400])
xva, yva = torch.from_numpy(x[6400:]), torch.from_numpy(y[6400:])

counts = np.bincount(ytr.numpy(), minlength=4)
class_weights = torch.tensor(counts / counts.sum(), dtype=torch.float32)
print("label counts (train):", dict(zip(LABELS, counts.tolist())))
print("class weights:", class_weights)
loss_fn = nn.CrossEntropyLoss(weight=class_weights)

model = nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=0.01)
dl = DataLoader(TensorDataset(xtr, ytr), batch_size=BATCH, shuffle=True)
spe = len(dl); total = spe * EPOCHS
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.0, 1 - s / total))


def f1_macro(pred, tgt):
    out = []
    for c in range(4):
        tp = ((pred == c) & (tgt == c)).sum().item(); fp = ((pred == c) & (tgt != c)).sum().item(); fn = ((pred != c) & (tgt == c)).sum().item()
        out.append(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn))
    return sum(out) / 4


print("***** Running training *****")
print(f"  Num examples = {len(xtr):,}")
print(f"  Num Epochs = {EPOCHS}")
print(f"  Instantaneous batch size per device = {BATCH}")
print(f"  Total optimization steps = {total:,}")
step = 0; run = 0.0; k = 0
for ep in range(EPOCHS):
    model.train()
    for xb, yb in dl:
        loss = loss_fn(model(xb), yb)
        opt.zero_grad(); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(); sched.step(); step += 1; run += loss.item(); k += 1
        if step % LOG_STEPS == 0:
            print({'loss': round(run / k, 4), 'grad_norm': gn.item(), 'learning_rate': sched.get_last_lr()[0], 'epoch': round(step / spe, 2)})
            run = 0.0; k = 0
    model.eval(); t0 = time.time()
    with torch.no_grad():
        logits = model(xva)
        pred = logits.argmax(1)
        el = loss_fn(logits, yva).item()
    rt = time.time() - t0
    print({'eval_loss': el, 'eval_accuracy': (pred == yva).float().mean().item(), 'eval_f1_macro': f1_macro(pred, yva),
           'eval_runtime': round(rt, 4), 'eval_samples_per_second': round(len(yva) / rt, 3), 'epoch': float(ep + 1)})
    if (ep + 1) % 5 == 0:
        hist = Counter(LABELS[i] for i in pred.tolist())
        print(f"[epoch {ep + 1}] eval prediction counts: {dict(hist)}")
        print(f"[epoch {ep + 1}] sample preds: {[LABELS[i] for i in pred[:8].tolist()]}")
        print(f"[epoch {ep + 1}] sample gold:  {[LABELS[i] for i in yva[:8].tolist()]}")
        print(f"Saving model checkpoint to ./ckpt/severity-mlp/checkpoint-{step}")
        os.makedirs(f"ckpt/severity-mlp/checkpoint-{step}", exist_ok=True)
        torch.save(model.state_dict(), f"ckpt/severity-mlp/checkpoint-{step}/pytorch_model.bin")
'''

SCRIPTS['K'] = r'''import os, time, json
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader
from tqdm.auto import tqdm

torch.set_num_threads(1)
torch.manual_seed(0)
DATA = "data/sensor_features.csv"
cfg = {"learning_rate": 2e-3, "per_device_train_batch_size": 32, "num_train_epochs": 2, "warmup_ratio": 0.1,
       "weight_decay": 0.01, "max_grad_norm": 1.0, "logging_steps": 10, "dataloader_num_workers": 0}
print(f"Training/evaluation parameters {cfg}")

if not os.path.exists(DATA):
    os.makedirs("data", exist_ok=True)
    r = np.random.default_rng(12)
    X = r.normal(size=(2000, 16))
    y = (X[:, :3].sum(1) + 0.5 * X[:, 3] * X[:, 4] > 0).astype(int)
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(16)]); df["label"] = y
    df.to_csv(DATA, index=False)


class SensorDataset(Dataset):
    def __init__(self, path, rows):
        self.path = path
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        df = pd.read_csv(self.path)
        row = df.iloc[self.rows[i]]
        feats = row[[c for c in df.columns if c.startswith("f")]].to_numpy(dtype=np.float32)
        return torch.from_numpy(feats), int(row["label"])


idx = np.random.default_rng(0).permutation(2000)
train_ds, eval_ds = SensorDataset(DATA, idx[:1600]), SensorDataset(DATA, idx[1600:1856])
train_dl = DataLoader(train_ds, batch_size=cfg["per_device_train_batch_size"], shuffle=True, num_workers=cfg["dataloader_num_workers"])
eval_dl = DataLoader(eval_ds, batch_size=64)
model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
opt = torch.optim.AdamW(model.parameters(), lr=cfg["learning_rate"], weight_decay=cfg["weight_decay"])
spe = len(train_dl); total = spe * cfg["num_train_epochs"]; warm = int(cfg["warmup_ratio"] * total)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: s / max(1, warm) if s < warm else max(0.0, (total - s) / max(1, total - warm)))
print("***** Running training *****")
print(f"  Num examples = {len(train_ds):,}")
print(f"  Num Epochs = {cfg['num_train_epochs']}")
print(f"  Instantaneous batch size per device = {cfg['per_device_train_batch_size']}")
print(f"  Total optimization steps = {total:,}")
print(f"  Number of trainable parameters = {sum(p.numel() for p in model.parameters()):,}")

pbar = tqdm(total=total)
step = 0; run = 0.0; k = 0; dsum = 0.0; ssum = 0.0; t_start = time.time(); tot_loss = 0.0
for ep in range(cfg["num_train_epochs"]):
    model.train()
    t_end = time.time()
    for xb, yb in train_dl:
        t_data = time.time() - t_end
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad(); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["max_grad_norm"])
        opt.step(); sched.step(); step += 1; pbar.update(1)
        t_step = time.time() - t_end
        run += loss.item(); k += 1; dsum += t_data; ssum += t_step; tot_loss += loss.item()
        if step % cfg["logging_steps"] == 0:
            pbar.write(str({"loss": round(run / k, 4), "grad_norm": gn.item(), "learning_rate": sched.get_last_lr()[0],
                            "data_time": round(dsum / k, 4), "step_time": round(ssum / k, 4),
                            "samples_per_second": round(k * cfg["per_device_train_batch_size"] / ssum, 2), "epoch": round(step / spe, 2)}))
            run = 0.0; k = 0; dsum = 0.0; ssum = 0.0
        t_end = time.time()
    model.eval(); t0 = time.time(); ls = 0.0; hit = 0; n = 0; nb = 0
    with torch.no_grad():
        for xb, yb in eval_dl:
            out = model(xb); ls += F.cross_entropy(out, yb, reduction="sum").item(); hit += (out.argmax(1) == yb).sum().item(); n += len(yb); nb += 1
    rt = time.time() - t0
    pbar.write(str({"eval_loss": ls / n, "eval_accuracy": hit / n, "eval_runtime": round(rt, 4),
                    "eval_samples_per_second": round(n / rt, 3), "eval_steps_per_second": round(nb / rt, 3), "epoch": float(ep + 1)}))
    pbar.write(f"Saving model checkpoint to output/sensor-mlp/checkpoint-{step}")
    os.makedirs(f"output/sensor-mlp/checkpoint-{step}", exist_ok=True)
    torch.save(model.state_dict(), f"output/sensor-mlp/checkpoint-{step}/pytorch_model.bin")
rt = time.time() - t_start
pbar.write(str({"train_runtime": round(rt, 4), "train_samples_per_second": round(len(train_ds) * cfg["num_train_epochs"] / rt, 3),
                "train_steps_per_second": round(total / rt, 3), "train_loss": tot_loss / total, "epoch": float(cfg["num_train_epochs"])}))
pbar.close()
'''

SCRIPTS['L'] = r'''import os, sys, time, warnings
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(14)
args = dict(learning_rate=1e-3, per_device_train_batch_size=32, num_train_epochs=6, warmup_ratio=0.0,
            weight_decay=0.0, max_grad_norm=1.0, logging_steps=10, output_dir="./bow_clf")
print("Running with", args)

# bag-of-words counts -> term frequencies
r = np.random.default_rng(4)
n_docs, vocab, k = 5000, 40, 3
topic = r.integers(0, k, n_docs)
rates = r.gamma(0.5, 1.0, (k, vocab))
rates /= rates.sum(1, keepdims=True)
length = r.poisson(7, n_docs)
counts = np.stack([r.multinomial(L, rates[t]) for t, L in zip(topic, length)]).astype(np.float32)
tf = counts / counts.sum(axis=1, keepdims=True)
feats = np.log1p(tf * 100)
print(f"docs={n_docs} vocab={vocab} classes={k} avg_len={counts.sum(1).mean():.2f}")
X = torch.from_numpy(feats.astype(np.float32)); Y = torch.from_numpy(topic)
tr, va = slice(0, 4200), slice(4200, None)
dl = DataLoader(TensorDataset(X[tr], Y[tr]), batch_size=args["per_device_train_batch_size"], shuffle=True)
model = nn.Sequential(nn.Linear(vocab, 128), nn.ReLU(), nn.Linear(128, k))
opt = torch.optim.Adam(model.parameters(), lr=args["learning_rate"])
spe = len(dl)
print("***** Running training *****")
print(f"  Num examples = {4200:,}")
print(f"  Num Epochs = {args['num_train_epochs']}")
print(f"  Instantaneous batch size per device = {args['per_device_train_batch_size']}")
print(f"  Total optimization steps = {spe * args['num_train_epochs']:,}")
step = 0; run = 0.0; c = 0
for ep in range(args["num_train_epochs"]):
    model.train()
    for xb, yb in dl:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad(); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args["max_grad_norm"])
        opt.step(); step += 1; run += loss.item(); c += 1
        if step % args["logging_steps"] == 0:
            print({'loss': round(run / c, 4), 'grad_norm': gn.item(), 'learning_rate': args["learning_rate"], 'epoch': round(step / spe, 2)})
            run = 0.0; c = 0
    model.eval(); t0 = time.time()
    with torch.no_grad():
        o = model(X[va]); el = F.cross_entropy(o, Y[va]).item(); acc = (o.argmax(1) == Y[va]).float().mean().item()
    rt = time.time() - t0
    print({'eval_loss': el, 'eval_accuracy': acc, 'eval_runtime': round(rt, 4), 'eval_samples_per_second': round(800 / rt, 3), 'epoch': float(ep + 1)})
    if (ep + 1) % 2 == 0:
        print(f"Saving model checkpoint to {args['output_dir']}/checkpoint-{step}")
        os.makedirs(f"{args['output_dir']}/checkpoint-{step}", exist_ok=True)
        torch.save(model.state_dict(), f"{args['output_dir']}/checkpoint-{step}/pytorch_model.bin")
'''

# ---------------------------------------------------------------------------
# run table
# ---------------------------------------------------------------------------
SITE = "/work/main/.venv/lib/python3.11/site-packages"

RUNS = [
    dict(name="run01", script="E", out="train.out", ship=False, argv=[],
         header="nohup: ignoring input\n",
         env_site="/home/kpatel/miniconda3/envs/dl/lib/python3.11/site-packages",
         trailer="",
         truth="overfitting",
         symptom="Train loss is basically 0 and train accuracy 100%, but the eval loss has been climbing since around epoch 11 and eval accuracy never gets past 0.80 - what's going on?",
         how="320 training samples of a 60-dim noisy binary problem (6 informative features) fit by a 3x512 MLP (557k params) with AdamW lr 1e-4, no weight decay, no dropout, 60 epochs, no early stopping."),
    dict(name="run02", script="D", out="train.log", ship=True,
         argv=["--learning_rate", "1e-3", "--per_device_train_batch_size", "32", "--num_train_epochs", "10",
               "--lr_decay_every", "2", "--weight_decay", "0.0", "--max_grad_norm", "1.0", "--logging_steps", "20"],
         runsh="""#!/bin/bash
# tabular baseline
python train.py \\
    --learning_rate 1e-3 \\
    --per_device_train_batch_size 32 \\
    --num_train_epochs 10 \\
    --lr_decay_every 2 \\
    --weight_decay 0.0 \\
    --max_grad_norm 1.0 \\
    --logging_steps 20 \\
    --output_dir outputs/tab 2>&1 | tee train.log
""",
         header="", env_site="/home/lucia/.venvs/tab/lib/python3.11/site-packages", trailer="",
         truth="lr_schedule_bug",
         symptom="Loss drops a tiny bit right at the start and then doesn't move at all for 10 epochs; the eval numbers are literally identical every epoch.",
         how="StepLR(step_size=lr_decay_every=2, gamma=0.5) meant per epoch but scheduler.step() is called every batch: the lr halves every 2 steps: ~1e-6 at step 20, ~1e-9 at step 40, ~3e-154 at the end; the model is frozen after ~20 steps (same script with a per-epoch step reaches eval acc 0.77)."),
    dict(name="run03", script="A", out="train.out", ship=False, argv=[],
         header="nohup: ignoring input\n",
         env_site="/opt/conda/lib/python3.11/site-packages", trailer="",
         truth="healthy",
         symptom="Is this run ok? Just want a sanity check before I scale it up.",
         how="Healthy: 5-class 24-dim Gaussian clusters, 2x128 GELU MLP, AdamW lr 3e-4 with 10% warm-up and linear decay, weight decay 0.01 off biases, 5 epochs."),
    dict(name="run04", script="H", out="nohup.out", ship=True, resume=True,
         argv=["--learning_rate", "1e-2", "--per_device_train_batch_size", "64", "--num_train_epochs", "8",
               "--warmup_ratio", "0.0", "--weight_decay", "0.01", "--max_grad_norm", "1.0", "--save_steps", "200",
               "--output_dir", "out/gru-seqcls"],
         runsh="""#!/usr/bin/env bash
cd "$(dirname "$0")"
export PYTHONUNBUFFERED=1
nohup python train.py \\
  --learning_rate 1e-2 \\
  --per_device_train_batch_size 64 \\
  --num_train_epochs 8 \\
  --warmup_ratio 0.0 \\
  --weight_decay 0.01 \\
  --max_grad_norm 1.0 \\
  --save_steps 200 \\
  --output_dir out/gru-seqcls "$@" &
""",
         header="", env_site="/home/tomasz/venv/lib/python3.11/site-packages", trailer="",
         truth="resume_mismatch",
         symptom="The machine went down around step 450 so I restarted from the last checkpoint (checkpoint-400), and the loss jumped from ~0.14 back up to ~0.5 and eval accuracy dropped - why didn't it just continue?",
         how="First launch killed after step 450 (checkpoint-400 saved with model weights only). Relaunch with --resume_from_checkpoint loads the weights and the step counter but builds a fresh AdamW (no moments) and a fresh LambdaLR that starts at step 0: the logged lr jumps from 2.9e-3 (last line before the crash) back to 9.8e-3 and the loss jumps 0.14-0.16 -> 0.50, eval acc 0.93 -> 0.89."),
    dict(name="run05", script="C", out="slurm-48213.out", ship=False,
         argv=["--optim", "sgd", "--learning_rate", "0.8", "--per_device_train_batch_size", "64", "--num_train_epochs", "12",
               "--warmup_ratio", "0.0", "--weight_decay", "0.0", "--max_grad_norm", "1.0", "--lr_scheduler_type", "constant"],
         header="""SLURM_JOB_ID=48213  node=cn-0412  partition=short  cpus-per-task=2
Lmod: loading python/3.11.7
{site}/torchvision/io/image.py:13: UserWarning: Failed to load image Python extension: 'libc10_cuda.so: cannot open shared object file: No such file or directory'If you don't plan on using image functionality from `torchvision.io`, you can ignore this warning. Otherwise, there might be something wrong with your environment. Did you have `libjpeg` or `libpng` installed before building `torchvision` from source?
  warn(
""",
         env_site="/scratch/rmendes/envs/spiral/lib/python3.11/site-packages",
         trailer="slurmstepd: info: job 48213 completed\n",
         truth="lr_too_high",
         symptom="Loss dropped fast in the first epoch but since then it keeps bouncing around and spiking, and the eval loss is all over the place.",
         how="3-class spirals, 3x128 ReLU MLP, SGD momentum 0.9 with lr 0.8 constant (a sane lr is ~0.05): after a good first epoch the loss oscillates 0.1-1.8 with grad-norm spikes up to ~37 and eval loss jumping 0.2-2.1."),
    dict(name="run06", script="F", out="nohup.out", ship=True,
         argv=["--learning_rate", "5e-4", "--per_device_train_batch_size", "32", "--num_train_epochs", "8",
               "--warmup_ratio", "0.06", "--weight_decay", "0.01", "--max_grad_norm", "1.0", "--logging_steps", "25"],
         runsh="""#!/bin/sh
export PYTHONUNBUFFERED=1
nohup python train.py --learning_rate 5e-4 --per_device_train_batch_size 32 --num_train_epochs 8 --warmup_ratio 0.06 --weight_decay 0.01 --max_grad_norm 1.0 --logging_steps 25 --output_dir tagger_out &
""",
         header="", env_site="/usr/local/lib/python3.11/site-packages", trailer="",
         truth="label_misalignment",
         symptom="My toy POS tagger is stuck at ~1.34 loss and ~38% token accuracy from the first epoch on; every word has exactly one tag, so it should get ~100%.",
         how="Collate right-pads input_ids but writes the labels at the END of the row (labels[i, max_len-n:]), so in every sequence shorter than the batch maximum the tags are shifted against the tokens; a per-token tagger can only learn the rare full-length rows: loss ~1.335 vs ln4=1.386 from start to end (the fixed collate reaches 100% in 2 epochs)."),
    dict(name="run07", script="L", out="nohup.out", ship=False, argv=[],
         header="", env_site="/home/s.okafor/.local/lib/python3.11/site-packages", trailer="",
         truth="nan_in_data",
         symptom="Loss turned into nan partway through the first epoch and stays nan for the rest of training; eval loss is nan too.",
         how="Bag-of-words term frequencies counts/counts.sum(axis=1): 3 empty documents (length 0) give 0/0 = NaN rows (numpy 'invalid value encountered in divide' warning at the top of the log); loss is finite for 90 steps and becomes NaN at the first batch that holds one of the 2 NaN training rows, and stays NaN."),
    dict(name="run08", script="B", out="nohup.out", ship=True,
         argv=["--learning_rate", "0.01", "--per_device_train_batch_size", "16", "--num_train_epochs", "10",
               "--warmup_ratio", "0.0", "--weight_decay", "0.0", "--max_grad_norm", "1.0", "--logging_steps", "25", "--fp16"],
         runsh="""#!/bin/bash
export PYTHONUNBUFFERED=1
nohup python train.py \\
    --learning_rate 0.01 \\
    --per_device_train_batch_size 16 \\
    --num_train_epochs 10 \\
    --warmup_ratio 0.0 \\
    --weight_decay 0.0 \\
    --max_grad_norm 1.0 \\
    --logging_steps 25 \\
    --fp16 &
""",
         header="", env_site="/home/mei/anaconda3/lib/python3.11/site-packages", trailer="",
         truth="healthy",
         symptom="Is this run ok? The loss is pretty jumpy and eval accuracy only creeps up a couple of points per epoch.",
         how="Healthy but slow/noisy: 10-class 8x8 glyphs with heavy pixel noise (sigma 0.9) and 1px shifts, small CNN, SGD momentum 0.9 lr 0.01 linear decay, batch 16; loss falls steadily but noisily and eval accuracy climbs slowly. --fp16 on a CPU box only produces the GradScaler warnings."),
    dict(name="run09", script="J", out="slurm-90311.out", ship=False, argv=[],
         header="""=== job 90311 (severity-mlp) started on gpu-b07 ===
CUDA_VISIBLE_DEVICES=
""",
         env_site="/home/jkim/envs/sev/lib/python3.11/site-packages",
         trailer="=== job 90311 finished, exit code 0 ===\n",
         truth="mode_collapse",
         symptom="Accuracy is ~70% from the very first epoch and never changes, macro-F1 is stuck at 0.2, and yet the training loss does go down.",
         how="4 imbalanced classes (70/15/10/5 %) with weak features; CrossEntropyLoss class weights set to the class FREQUENCIES (counts/counts.sum()) instead of inverse frequencies, which multiplies the imbalance (~200:1 for the rarest class): the model predicts 'normal' for 1593-1600 of 1600 eval rows every epoch (printed prediction counts), accuracy = majority share 0.696, macro-F1 0.205 (inverse weights give macro-F1 0.41)."),
    dict(name="run10", script="G", out="train.out", ship=True,
         argv=["--learning_rate", "1e-3", "--per_device_train_batch_size", "64", "--num_train_epochs", "15",
               "--warmup_ratio", "0.1", "--weight_decay", "1.0", "--max_grad_norm", "1.0", "--logging_steps", "30"],
         runsh="""#!/bin/bash
nohup python -u train.py \\
  --learning_rate 1e-3 \\
  --per_device_train_batch_size 64 \\
  --num_train_epochs 15 \\
  --warmup_ratio 0.1 \\
  --weight_decay 1.0 \\
  --max_grad_norm 1.0 \\
  --logging_steps 30 \\
  --output_dir ./results > train.out 2>&1 &
""",
         header="nohup: ignoring input\n", env_site="/home/ubuntu/venv/lib/python3.11/site-packages", trailer="",
         truth="optimizer_misconfigured",
         symptom="The loss plateaus around 1.18 after two epochs and eval accuracy even drifts down from ~0.59 to ~0.48; the same model got ~88% before I changed some settings.",
         how="torch.optim.Adam(..., weight_decay=1.0): coupled L2 of strength 1.0 inside plain Adam pins the weights near zero; loss stalls at ~1.18 (ln4=1.39) and eval acc ~0.48 while the same run with weight_decay 0.01 reaches loss 0.16 / eval acc 0.88."),
    dict(name="run11", script="K", out="train.out", ship=False, argv=[],
         header="""nohup: ignoring input
wandb: Tracking run with wandb version 0.16.6
wandb: W&B syncing is set to `offline` in this directory.
wandb: Run `wandb online` or set WANDB_MODE=online to enable cloud syncing.
""",
         env_site="/home/dev/.pyenv/versions/3.11.7/lib/python3.11/site-packages",
         trailer="wandb: You can sync this run to the cloud by running:\nwandb: wandb sync ./wandb/offline-run-20240611_101522-3k2l9x1q\n",
         truth="dataloader_bottleneck",
         symptom="Training is crazy slow for a tiny MLP on 1,600 rows - only a few hundred samples/s and ~10 steps/s on the CPU box. Is something wrong?",
         how="Dataset.__getitem__ re-reads and parses the whole 2000-row CSV with pandas for every single sample (num_workers=0): data_time is ~98% of step_time in every log line (tens of ms per 32-sample step for a 5k-parameter MLP), eval of 256 rows takes ~1 s; the loss itself trains normally (0.69 -> 0.22, eval acc 0.91)."),
    dict(name="run12", script="I", out="slurm-77120.out", ship=True,
         argv=["--learning_rate", "5e-3", "--per_device_train_batch_size", "128", "--num_train_epochs", "40",
               "--weight_decay", "0.0", "--max_grad_norm", "5.0", "--logging_steps", "20"],
         runsh="""#!/bin/bash
#SBATCH --job-name=moons
#SBATCH --cpus-per-task=2
#SBATCH --time=00:20:00
#SBATCH --output=slurm-%j.out
module load python/3.11
source ~/envs/moons/bin/activate
python -u train.py \\
    --learning_rate 5e-3 \\
    --per_device_train_batch_size 128 \\
    --num_train_epochs 40 \\
    --weight_decay 0.0 \\
    --max_grad_norm 5.0 \\
    --logging_steps 20 \\
    --output_dir chk
""",
         header="Loading python/3.11\n",
         env_site="/home/avi/envs/moons/lib/python3.11/site-packages", trailer="",
         truth="numerical_instability",
         symptom="It trains great, eval accuracy ~99.9%, and then out of nowhere around epoch 12 the loss becomes nan and accuracy drops to 50%.",
         how="Hand-written BCE -(y*log(sigmoid(z)) + (1-y)*log(1-sigmoid(z))) on clean, separable two-moons: once a positive sample's logit passes ~17, sigmoid rounds to 1.0 in float32, (1-y)*log(0) = 0*(-inf) = NaN, the NaN gradient poisons the weights; no grad-norm growth or loss rise beforehand (BCEWithLogitsLoss would not do this)."),
]


PROJ = {"run01": "/home/kpatel/tabnoise", "run02": "/home/lucia/tab", "run03": "/opt/app", "run04": "/home/tomasz/seqcls",
        "run05": "/scratch/rmendes/spiral", "run06": "/srv/tagger", "run07": "/home/s.okafor/bow", "run08": "/home/mei/digits",
        "run09": "/home/jkim/severity", "run10": "/home/ubuntu/quad", "run11": "/home/dev/sensors", "run12": "/home/avi/moons"}


def sanitize(text, run):
    text = text.replace(SITE, run["env_site"])
    text = text.replace(str(WORK / run["name"]), PROJ[run["name"]])
    text = text.replace(str(WORK), "/home/user")
    return text


def launch(workdir, argv, kill_after=None):
    env = dict(os.environ)
    env.update(PYTHONPATH=str(SHIM), PYTHONUNBUFFERED="1", PYTHONHASHSEED="0", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1", PYTHONWARNINGS="default")
    env.pop("PYTHONSTARTUP", None)
    p = subprocess.Popen([PY, "train.py"] + argv, cwd=workdir, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    chunks = []
    for line in iter(p.stdout.readline, b""):
        chunks.append(line)
        if kill_after and kill_after.encode() in line:
            p.kill()
            break
    p.stdout.close()
    p.wait()
    return b"".join(chunks).decode("utf-8")


def main():
    only = set(sys.argv[1:])
    if RUNS_DIR.exists() and not only:
        shutil.rmtree(RUNS_DIR)
    RUNS_DIR.mkdir(parents=True, exist_ok=True)
    (SHIM / "tqdm").mkdir(parents=True, exist_ok=True)
    (SHIM / "tqdm" / "__init__.py").write_text(SHIM_TQDM)
    (SHIM / "tqdm" / "auto.py").write_text("from . import tqdm, trange\n")
    truth = {}
    if TRUTH.exists() and only:
        truth = json.loads(TRUTH.read_text())
    for run in RUNS:
        name = run["name"]
        if only and name not in only:
            continue
        t0 = time.time()
        wd = WORK / name
        if wd.exists():
            shutil.rmtree(wd)
        wd.mkdir(parents=True)
        src = SCRIPTS[run["script"]]
        (wd / "train.py").write_text(src)
        if run.get("resume"):
            first = launch(wd, run["argv"], kill_after="'epoch': 5.7}")
            second = launch(wd, run["argv"] + ["--resume_from_checkpoint", "out/gru-seqcls/checkpoint-400"])
            body = first + second
        else:
            body = launch(wd, run["argv"])
        text = run["header"].format(site=run["env_site"]) + body + run["trailer"]
        text = sanitize(text, run)
        rd = RUNS_DIR / name
        if rd.exists():
            shutil.rmtree(rd)
        rd.mkdir(parents=True)
        (rd / run["out"]).write_text(text)
        if run["ship"]:
            (rd / "train.py").write_text(src)
            (rd / "run.sh").write_text(run["runsh"])
            os.chmod(rd / "run.sh", 0o755)
        truth[name] = {"truth": run["truth"], "symptom": run["symptom"], "how": run["how"]}
        print(f"{name}: {run['truth']:<24s} {time.time() - t0:5.1f}s -> {run['out']}", flush=True)
    TRUTH.write_text(json.dumps(dict(sorted(truth.items())), indent=2) + "\n")
    shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
