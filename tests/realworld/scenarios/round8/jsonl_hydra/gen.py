#!/usr/bin/env python
"""Generator for the round-7 benchmark runs (research-code run folders).

Every run is produced by REALLY executing a small user-style training script
(torch, CPU, 1 thread, fixed seeds) with the run folder as working directory.
For half of the runs that script is shipped as runs/<name>/train.py; for the
others it is executed from OUTDIR/_scripts/<name>.py and not shipped.

usage:  python gen.py            # all runs
        python gen.py run03 run10  # only these
"""
import json
import os
import shutil
import subprocess
import sys
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS_DIR = os.path.join(HERE, "runs")
SCRIPTS_DIR = os.path.join(HERE, "_scripts")
PY = sys.executable

# ----------------------------------------------------------------------------
# run01: digits MLP, SGD + StepLR (config in epochs) ------------------------
# ----------------------------------------------------------------------------
S_RUN01 = r'''import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
np.random.seed(cfg["seed"])

X, y = load_digits(return_X_y=True)
X = (X / 16.0).astype(np.float32)
Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.2, random_state=cfg["seed"], stratify=y)
train_loader = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)),
                          batch_size=cfg["data"]["batch_size"], shuffle=True)
Xva, yva = torch.from_numpy(Xva), torch.from_numpy(yva)

model = nn.Sequential(
    nn.Linear(64, cfg["model"]["hidden"]), nn.ReLU(),
    nn.Linear(cfg["model"]["hidden"], cfg["model"]["hidden"] // 2), nn.ReLU(),
    nn.Linear(cfg["model"]["hidden"] // 2, 10),
)
optimizer = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"],
                            momentum=cfg["optim"]["momentum"],
                            weight_decay=cfg["optim"]["weight_decay"])
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg["sched"]["step_size"],
                                            gamma=cfg["sched"]["gamma"])

print(f"train={len(Xtr)} val={len(Xva)} batches/epoch={len(train_loader)}")
step = 0
log = open("metrics.jsonl", "w")
for epoch in range(cfg["epochs"]):
    model.train()
    running, n = 0.0, 0
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        scheduler.step()
        step += 1
        running += loss.item() * len(xb)
        n += len(xb)
        if step % cfg["log_every"] == 0:
            log.write(json.dumps({"step": step, "epoch": epoch, "loss": round(loss.item(), 5),
                                  "lr": optimizer.param_groups[0]["lr"]}) + "\n")
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        val_loss = F.cross_entropy(out, yva).item()
        val_acc = (out.argmax(1) == yva).float().mean().item()
    log.write(json.dumps({"step": step, "epoch": epoch, "val_loss": round(val_loss, 5),
                          "val_acc": round(val_acc, 4)}) + "\n")
    log.flush()
    print(f"epoch {epoch:3d} | train_loss {running / n:.4f} | val_loss {val_loss:.4f} | "
          f"val_acc {val_acc:.3f} | lr {optimizer.param_groups[0]['lr']:.3g}")
log.close()
torch.save(model.state_dict(), "model.pt")
print("done")
'''

C_RUN01 = {
    "seed": 7,
    "epochs": 40,
    "log_every": 5,
    "data": {"name": "digits", "batch_size": 32, "val_frac": 0.2},
    "model": {"type": "mlp", "hidden": 128},
    "optim": {"name": "sgd", "lr": 0.05, "momentum": 0.9, "weight_decay": 0.0001},
    "sched": {"name": "step", "step_size": 20, "gamma": 0.5},
}

# ----------------------------------------------------------------------------
# run02: GRU on noisy motif sequences, small batch SGD, warmup+cosine (healthy)
# ----------------------------------------------------------------------------
S_RUN02 = r'''import json, math, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open(".hydra/config.yaml"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])

T, K = cfg["data"]["seq_len"], cfg["model"]["num_classes"]
motifs = rng.normal(0, 1, size=(K, 6)).astype(np.float32)
motifs /= np.linalg.norm(motifs, axis=1, keepdims=True) / 3.5

def make(n):
    x = rng.normal(0, 1.0, size=(n, T, 1)).astype(np.float32)
    y = rng.integers(0, K, size=n)
    pos = rng.integers(0, T - 6, size=n)
    for i in range(n):
        x[i, pos[i]:pos[i] + 6, 0] += motifs[y[i]]
    return torch.from_numpy(x), torch.from_numpy(y)

Xtr, ytr = make(cfg["data"]["n_train"])
Xva, yva = make(cfg["data"]["n_val"])
if cfg["data"]["normalize"]:
    mu, sd = Xtr.mean(), Xtr.std()
    Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd

class GRUClassifier(nn.Module):
    def __init__(self, hidden, k):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, k)
    def forward(self, x):
        h, _ = self.gru(x)
        return self.head(h.max(dim=1).values)

model = GRUClassifier(cfg["model"]["hidden"], K)
o = cfg["optim"]
opt = torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"],
                      weight_decay=o["weight_decay"], nesterov=True)
steps, warm = cfg["trainer"]["max_steps"], cfg["trainer"]["warmup_steps"]
sched = torch.optim.lr_scheduler.LambdaLR(
    opt, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + math.cos(math.pi * (s - warm) / (steps - warm))))

bs = cfg["data"]["batch_size"]
log = open("metrics.jsonl", "w")
print(f"[{time.strftime('%H:%M:%S')}] gru hidden={cfg['model']['hidden']} params={sum(p.numel() for p in model.parameters())}")
perm, ptr = torch.randperm(len(Xtr)), 0
for step in range(1, steps + 1):
    if ptr + bs > len(Xtr):
        perm, ptr = torch.randperm(len(Xtr)), 0
    idx = perm[ptr:ptr + bs]; ptr += bs
    model.train()
    loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["trainer"]["grad_clip"])
    opt.step(); sched.step()
    if step % cfg["trainer"]["log_every"] == 0:
        log.write(json.dumps({"step": step, "loss": round(loss.item(), 4),
                              "lr": round(sched.get_last_lr()[0], 6), "grad_norm": round(gn.item(), 4)}) + "\n")
    if step % cfg["trainer"]["eval_every"] == 0:
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            el, ea = F.cross_entropy(out, yva).item(), (out.argmax(1) == yva).float().mean().item()
        log.write(json.dumps({"step": step, "eval_loss": round(el, 4), "eval_acc": round(ea, 4)}) + "\n")
        log.flush()
        print(f"[{time.strftime('%H:%M:%S')}] step {step}/{steps} loss {loss.item():.3f} eval_loss {el:.3f} eval_acc {ea:.3f}")
log.close()
'''

C_RUN02 = {
    "seed": 11,
    "model": {"name": "gru", "hidden": 32, "num_classes": 4},
    "optim": {"name": "sgd", "lr": 0.03, "momentum": 0.9, "weight_decay": 0.0001, "betas": None},
    "data": {"name": "motif_seq", "seq_len": 40, "n_train": 4000, "n_val": 1000,
             "batch_size": 16, "shuffle": True, "normalize": True},
    "trainer": {"max_steps": 2400, "warmup_steps": 200, "grad_clip": 5.0, "precision": 32,
                "log_every": 20, "eval_every": 200},
}

# ----------------------------------------------------------------------------
# run03: tabular regression in raw units, fp16 autocast + GradScaler --------
# ----------------------------------------------------------------------------
S_RUN03 = r'''import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open(".hydra/config.yaml"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])

n, d = cfg["data"]["n_samples"], cfg["data"]["n_features"]
X = rng.normal(size=(n, d)).astype(np.float32)
w = rng.normal(size=d) / np.sqrt(d)
z = X @ w + 0.35 * np.sin(2 * X[:, 0]) + 0.3 * X[:, 1] * X[:, 2] + 0.15 * rng.normal(size=n)
z = (z - z.mean()) / z.std()
y = (41000.0 + 12500.0 * z).astype(np.float32)          # price-like target
ntr = int(0.85 * n)
Xtr, ytr = torch.from_numpy(X[:ntr]), torch.from_numpy(y[:ntr])
Xva, yva = torch.from_numpy(X[ntr:]), torch.from_numpy(y[ntr:])
y_mean, y_std = ytr.mean().item(), ytr.std().item()

class Regressor(nn.Module):
    def __init__(self, d, h, y_mean, y_std):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, h), nn.GELU(), nn.Linear(h, h), nn.GELU(), nn.Linear(h, 1))
        self.y_mean, self.y_std = y_mean, y_std
    def forward(self, x):
        return (self.net(x) * self.y_std + self.y_mean).squeeze(-1)

model = Regressor(d, cfg["model"]["hidden"], y_mean, y_std)
o = cfg["optim"]
opt = torch.optim.AdamW(model.parameters(), lr=o["lr"], betas=tuple(o["betas"]), weight_decay=o["weight_decay"])
use_amp = cfg["trainer"]["precision"] == 16
scaler = torch.amp.GradScaler("cpu", enabled=use_amp)
bs = cfg["data"]["batch_size"]
print(f"precision={cfg['trainer']['precision']} amp={use_amp} n_train={ntr} y_mean={y_mean:.1f} y_std={y_std:.1f}")
log = open("metrics.jsonl", "w")
it, skipped = 0, 0
while it < cfg["trainer"]["max_steps"]:
    perm = torch.randperm(ntr) if cfg["data"]["shuffle"] else torch.arange(ntr)
    for i in range(0, ntr - bs + 1, bs):
        idx = perm[i:i + bs]
        with torch.autocast("cpu", dtype=torch.float16, enabled=use_amp):
            pred = model(Xtr[idx])
            loss = F.mse_loss(pred.float(), ytr[idx])
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["trainer"]["grad_clip"])
        scale_before = scaler.get_scale()
        scaler.step(opt)
        scaler.update()
        it += 1
        if not torch.isfinite(gn):
            skipped += 1
        if it % cfg["trainer"]["log_every"] == 0:
            log.write(json.dumps({"it": it, "train/mse": float(loss.item()), "train/rmse": float(loss.item()) ** 0.5,
                                  "grad/total_norm": float(gn.item()), "amp/scale": scaler.get_scale(),
                                  "amp/skipped_total": skipped, "optim/lr": opt.param_groups[0]["lr"]}) + "\n")
        if it % cfg["trainer"]["eval_every"] == 0:
            with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16, enabled=use_amp):
                pv = model(Xva).float()
            mae = (pv - yva).abs().mean().item()
            rmse = ((pv - yva) ** 2).mean().sqrt().item()
            log.write(json.dumps({"it": it, "eval/mae": mae, "eval/rmse": rmse}) + "\n")
            log.flush()
            print(f"it {it:5d}  mse {loss.item():.4g}  val_mae {mae:.1f}  scale {scaler.get_scale():.3g}  skipped {skipped}")
        if it >= cfg["trainer"]["max_steps"]:
            break
log.close()
'''

C_RUN03 = {
    "seed": 3,
    "model": {"name": "mlp_regressor", "hidden": 128},
    "optim": {"name": "adamw", "lr": 0.0003, "momentum": None, "weight_decay": 0.01, "betas": [0.9, 0.999]},
    "data": {"name": "listings_synth", "n_samples": 8000, "n_features": 24, "batch_size": 128,
             "shuffle": True, "normalize": True},
    "trainer": {"max_steps": 1200, "grad_clip": 1.0, "precision": 16, "log_every": 10, "eval_every": 100},
}

# ----------------------------------------------------------------------------
# run04: make_classification MLP, SGD momentum, per-step loop ----------------
# ----------------------------------------------------------------------------
S_RUN04 = r'''import csv
import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

X, y = make_classification(n_samples=cfg["data"]["n_samples"], n_features=20, n_informative=12,
                           n_redundant=4, n_classes=4, n_clusters_per_class=2, class_sep=1.2,
                           random_state=cfg["data"]["seed"])
Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.2, random_state=0)
mu, sd = Xtr.mean(0), Xtr.std(0)
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd
Xtr, Xva = torch.tensor(Xtr, dtype=torch.float32), torch.tensor(Xva, dtype=torch.float32)
ytr, yva = torch.tensor(ytr), torch.tensor(yva)

class MLP(nn.Module):
    def __init__(self, d_in, hidden, n_out):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, n_out))
    def forward(self, x):
        return self.net(x)

model = MLP(20, cfg["model"]["hidden"], 4)
optimizer = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"], momentum=cfg["optim"]["momentum"])

names = [n for n, _ in model.named_parameters() if n.endswith("weight")]
gcsv = csv.writer(open("grad_norms.csv", "w", newline=""))
gcsv.writerow(["it"] + names)
mlog = open("metrics.jsonl", "w")

bs = cfg["data"]["batch_size"]
g = torch.Generator().manual_seed(cfg["seed"])
perm, ptr = torch.randperm(len(Xtr), generator=g), 0
for it in range(1, cfg["train"]["max_steps"] + 1):
    if ptr + bs > len(Xtr):
        perm, ptr = torch.randperm(len(Xtr), generator=g), 0
    idx = perm[ptr:ptr + bs]
    ptr += bs
    model.train()
    logits = model(Xtr[idx])
    loss = F.cross_entropy(logits, ytr[idx])
    loss.backward()
    total = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
    optimizer.step()

    if it % cfg["train"]["log_every"] == 0:
        mlog.write(json.dumps({"it": it, "train/ce": loss.item(), "optim/lr": optimizer.param_groups[0]["lr"],
                               "grad/total_norm": total}) + "\n")
        gcsv.writerow([it] + [f"{dict(model.named_parameters())[n].grad.norm().item():.6g}" for n in names])
    if it % cfg["train"]["eval_every"] == 0:
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            ce = F.cross_entropy(out, yva).item()
            acc = (out.argmax(1) == yva).float().mean().item()
        mlog.write(json.dumps({"it": it, "eval/acc": acc, "eval/ce": ce}) + "\n")
        mlog.flush()
        print(f"it={it} train/ce={loss.item():.4f} eval/ce={ce:.4f} eval/acc={acc:.3f} |g|={total:.3g}")
mlog.close()
'''

C_RUN04 = {
    "seed": 0,
    "data": {"n_samples": 4000, "seed": 21, "batch_size": 64},
    "model": {"hidden": 64},
    "optim": {"name": "sgd", "lr": 0.002, "momentum": 0.9},
    "train": {"max_steps": 600, "log_every": 5, "eval_every": 50},
}

# ----------------------------------------------------------------------------
# run05: deep MLP on digits (config.yaml; per-layer grads, no step column) --
# ----------------------------------------------------------------------------
S_RUN05 = r'''import csv, json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
X, y = load_digits(return_X_y=True)
X = X.astype(np.float32) / 16.0
Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.25, random_state=1)
Xtr, Xva = torch.from_numpy(Xtr), torch.from_numpy(Xva)
ytr, yva = torch.from_numpy(ytr), torch.from_numpy(yva)

act = {"sigmoid": nn.Sigmoid, "tanh": nn.Tanh, "relu": nn.ReLU}[cfg["model"]["activation"]]
layers, d = [], 64
for _ in range(cfg["model"]["depth"]):
    layers += [nn.Linear(d, cfg["model"]["width"]), act()]
    d = cfg["model"]["width"]
layers.append(nn.Linear(d, 10))
model = nn.Sequential(*layers)
linears = [m for m in model if isinstance(m, nn.Linear)]
opt = torch.optim.SGD(model.parameters(), lr=cfg["optimizer"]["lr"], momentum=cfg["optimizer"]["momentum"])

f = open("grad_norms.csv", "w", newline="")
w = csv.writer(f)
w.writerow([f"fc{i}" for i in range(len(linears))])
log = open("metrics.jsonl", "w")
bs, it = cfg["batch_size"], 0
for ep in range(cfg["epochs"]):
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), bs):
        idx = perm[i:i + bs]
        out = model(Xtr[idx])
        loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        it += 1
        if it % cfg["log_interval"] == 0:
            acc = (out.argmax(1) == ytr[idx]).float().mean().item()
            log.write(json.dumps({"iter": it, "loss": round(loss.item(), 5), "acc": round(acc, 4),
                                  "lr": opt.param_groups[0]["lr"]}) + "\n")
            w.writerow([f"{l.weight.grad.norm().item():.3e}" for l in linears])
    with torch.no_grad():
        o = model(Xva)
        vl, va = F.cross_entropy(o, yva).item(), (o.argmax(1) == yva).float().mean().item()
    log.write(json.dumps({"iter": it, "val_loss": round(vl, 5), "val_acc": round(va, 4)}) + "\n")
    print(f"Epoch {ep + 1}/{cfg['epochs']}  loss={loss.item():.4f}  val_loss={vl:.4f}  val_acc={va:.4f}")
log.close(); f.close()
'''

C_RUN05 = {
    "seed": 5,
    "epochs": 25,
    "batch_size": 32,
    "log_interval": 10,
    "model": {"arch": "mlp", "depth": 10, "width": 64, "activation": "sigmoid"},
    "optimizer": {"type": "sgd", "lr": 0.1, "momentum": 0.9},
}

# ----------------------------------------------------------------------------
# run06: 6-layer ReLU MLP with custom init ----------------------------------
# ----------------------------------------------------------------------------
S_RUN06 = r'''import csv
import json
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from sklearn.datasets import make_classification
from sklearn.preprocessing import StandardScaler

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

X, y = make_classification(n_samples=3600, n_features=32, n_informative=16, n_redundant=8,
                           n_classes=5, n_clusters_per_class=1, class_sep=1.5, random_state=cfg["seed"])
sc = StandardScaler().fit(X[:3000])
X = torch.tensor(sc.transform(X), dtype=torch.float32)
y = torch.tensor(y)
Xtr, ytr, Xva, yva = X[:3000], y[:3000], X[3000:], y[3000:]


class DeepMLP(nn.Module):
    def __init__(self, d_in, width, depth, n_cls):
        super().__init__()
        dims = [d_in] + [width] * depth
        self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.out = nn.Linear(width, n_cls)
        self.apply(self.init_weights)

    @staticmethod
    def init_weights(m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, mean=0.0, std=1.0)
            nn.init.zeros_(m.bias)

    def forward(self, x):
        for layer in self.hidden:
            x = F.relu(layer(x))
        return self.out(x)


model = DeepMLP(32, cfg["model"]["width"], cfg["model"]["depth"], 5)
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])

layer_names = [f"hidden.{i}" for i in range(len(model.hidden))] + ["out"]
layers = list(model.hidden) + [model.out]
gf = open("grad_norms.csv", "w", newline="")
gw = csv.writer(gf)
gw.writerow(["global_step"] + layer_names)
mf = open("metrics.jsonl", "w")

step = 0
for epoch in range(cfg["epochs"]):
    model.train()
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), cfg["batch_size"]):
        idx = perm[i:i + cfg["batch_size"]]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
        if step % 5 == 0:
            gw.writerow([step] + [f"{l.weight.grad.norm().item():.4g}" for l in layers])
        opt.step()
        if step % 5 == 0:
            mf.write(json.dumps({"global_step": step, "loss": loss.item(), "grad_norm": gnorm,
                                 "lr": opt.param_groups[0]["lr"]}) + "\n")
        step += 1
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    mf.write(json.dumps({"global_step": step, "epoch": epoch, "val_loss": vl, "val_accuracy": va}) + "\n")
    mf.flush()
    print(f"[epoch {epoch:02d}] step {step} loss {loss.item():.4g} grad_norm {gnorm:.4g} val_loss {vl:.4g} val_acc {va:.3f}")
gf.close()
mf.close()
'''

C_RUN06 = {
    "seed": 42,
    "epochs": 15,
    "batch_size": 64,
    "model": {"width": 256, "depth": 6},
    "optim": {"name": "adam", "lr": 0.001},
}

# ----------------------------------------------------------------------------
# run07: MLP on make_classification, Adam with betas from config -----------
# ----------------------------------------------------------------------------
S_RUN07 = r'''import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
cfg = yaml.safe_load(open(".hydra/config.yaml"))
torch.manual_seed(cfg["seed"])
X, y = make_classification(n_samples=6000, n_features=40, n_informative=20, n_redundant=10, n_classes=6,
                           n_clusters_per_class=2, class_sep=1.0, random_state=cfg["seed"])
Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=1000, random_state=cfg["seed"])
if cfg["data"]["normalize"]:
    m, s = Xtr.mean(0), Xtr.std(0)
    Xtr, Xva = (Xtr - m) / s, (Xva - m) / s
Xtr, Xva = torch.tensor(Xtr, dtype=torch.float32), torch.tensor(Xva, dtype=torch.float32)
ytr, yva = torch.tensor(ytr), torch.tensor(yva)

h = cfg["model"]["hidden"]
model = nn.Sequential(nn.Linear(40, h), nn.ReLU(), nn.Dropout(cfg["model"]["dropout"]),
                      nn.Linear(h, h), nn.ReLU(), nn.Dropout(cfg["model"]["dropout"]), nn.Linear(h, 6))
o = cfg["optim"]
opt = torch.optim.Adam(model.parameters(), lr=o["lr"], betas=tuple(o["betas"]), weight_decay=o["weight_decay"])
bs = cfg["data"]["batch_size"]
log = open("metrics.jsonl", "w")
step = 0
while step < cfg["trainer"]["max_steps"]:
    perm = torch.randperm(len(Xtr)) if cfg["data"]["shuffle"] else torch.arange(len(Xtr))
    for i in range(0, len(Xtr) - bs + 1, bs):
        idx = perm[i:i + bs]
        model.train()
        out = model(Xtr[idx])
        loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad()
        loss.backward()
        if cfg["trainer"]["grad_clip"]:
            nn.utils.clip_grad_norm_(model.parameters(), cfg["trainer"]["grad_clip"])
        opt.step()
        step += 1
        if step % 10 == 0:
            log.write(json.dumps({"step": step, "train/loss": round(loss.item(), 4),
                                  "train/acc": round((out.argmax(1) == ytr[idx]).float().mean().item(), 4),
                                  "lr": o["lr"]}) + "\n")
        if step % 100 == 0:
            model.eval()
            with torch.no_grad():
                ov = model(Xva)
                vl, va = F.cross_entropy(ov, yva).item(), (ov.argmax(1) == yva).float().mean().item()
            log.write(json.dumps({"step": step, "val/loss": round(vl, 4), "val/acc": round(va, 4)}) + "\n")
            log.flush()
            print(f"step {step:5d} | train/loss {loss.item():.4f} | val/loss {vl:.4f} | val/acc {va:.4f}")
        if step >= cfg["trainer"]["max_steps"]:
            break
log.close()
'''

C_RUN07 = {
    "seed": 17,
    "model": {"name": "mlp", "hidden": 256, "dropout": 0.1},
    "optim": {"name": "adam", "lr": 0.001, "momentum": None, "weight_decay": 0.0, "betas": [0.999, 0.9]},
    "data": {"name": "synthetic_tabular", "batch_size": 64, "shuffle": True, "normalize": True},
    "trainer": {"max_steps": 2000, "grad_clip": None, "precision": 32},
}

# ----------------------------------------------------------------------------
# run08: 1D CNN on synthetic waveforms, "train only some modules" -----------
# ----------------------------------------------------------------------------
S_RUN08 = r'''import csv
import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])


def make_waves(n, length=128):
    t = np.linspace(0, 1, length, dtype=np.float32)
    X = np.zeros((n, 1, length), dtype=np.float32)
    y = rng.integers(0, 4, size=n)
    for i in range(n):
        f = rng.uniform(2, 8)
        ph = rng.uniform(0, 2 * np.pi)
        s = np.sin(2 * np.pi * f * t + ph)
        if y[i] == 1:
            s = np.sign(s)
        elif y[i] == 2:
            s = 2 * ((f * t + ph / (2 * np.pi)) % 1.0) - 1
        elif y[i] == 3:
            s = np.abs(s) * 2 - 1
        X[i, 0] = s + rng.normal(0, cfg["data"]["noise"], size=length)
    return torch.from_numpy(X), torch.from_numpy(y)


Xtr, ytr = make_waves(cfg["data"]["n_train"])
Xva, yva = make_waves(cfg["data"]["n_val"])


class WaveNetSmall(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv1d(1, ch, 7, padding=3), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(ch, ch, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(ch, ch, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
        )
        self.head = nn.Linear(ch, 4)

    def forward(self, x):
        return self.head(self.backbone(x).flatten(1))


model = WaveNetSmall(cfg["model"]["channels"])
for name, p in model.named_parameters():
    p.requires_grad = any(name.startswith(k) for k in cfg["train"]["trainable"])
optimizer = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
print(f"model params: {sum(p.numel() for p in model.parameters()):,}")

gfile = open("grad_norms.csv", "w", newline="")
gw = csv.writer(gfile)
pnames = [n for n, _ in model.named_parameters() if n.endswith("weight")]
gw.writerow(pnames)
mfile = open("metrics.jsonl", "w")

it = 0
bs = cfg["train"]["batch_size"]
for epoch in range(cfg["train"]["epochs"]):
    perm = torch.randperm(len(Xtr))
    model.train()
    for i in range(0, len(Xtr), bs):
        idx = perm[i:i + bs]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        loss.requires_grad_(True)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        it += 1
        params = dict(model.named_parameters())
        norms = [params[n].grad.norm().item() if params[n].grad is not None else 0.0 for n in pnames]
        if it % 10 == 0:
            mfile.write(json.dumps({"iteration": it, "train_loss": round(loss.item(), 5),
                                    "grad_norm": float(np.sqrt(sum(v * v for v in norms))),
                                    "lr": optimizer.param_groups[0]["lr"]}) + "\n")
            gw.writerow([f"{v:.5g}" for v in norms])
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    mfile.write(json.dumps({"iteration": it, "val_loss": round(vl, 5), "val_acc": round(va, 4)}) + "\n")
    mfile.flush()
    print(f"epoch {epoch + 1}: train_loss={loss.item():.4f} val_loss={vl:.4f} val_acc={va:.3f}")
gfile.close()
mfile.close()
'''

C_RUN08 = {
    "seed": 8,
    "data": {"n_train": 2400, "n_val": 600, "noise": 0.3},
    "model": {"name": "wavecnn", "channels": 32},
    "train": {"epochs": 12, "batch_size": 64, "lr": 0.001, "trainable": ["encoder", "classifier"]},
}

# ----------------------------------------------------------------------------
# run09: small CNN on 8x8 digits, Adam (healthy) -----------------------------
# ----------------------------------------------------------------------------
S_RUN09 = r'''import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

X, y = load_digits(return_X_y=True)
X = (X.reshape(-1, 1, 8, 8) / 16.0).astype(np.float32)
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=cfg["seed"], stratify=y)
train_dl = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)),
                      batch_size=cfg["data"]["batch_size"], shuffle=cfg["data"]["shuffle"])
Xte, yte = torch.from_numpy(Xte), torch.from_numpy(yte)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


model = SmallCNN()
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg["epochs"])

out_f = open("metrics.jsonl", "w")
step = 0
for epoch in range(cfg["epochs"]):
    model.train()
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 4 == 0:
            out_f.write(json.dumps({"step": step, "loss": round(loss.item(), 5), "lr": round(sched.get_last_lr()[0], 7)}) + "\n")
    sched.step()
    model.eval()
    with torch.no_grad():
        logits = model(Xte)
        vloss = F.cross_entropy(logits, yte).item()
        vacc = (logits.argmax(1) == yte).float().mean().item()
    out_f.write(json.dumps({"step": step, "val/loss": round(vloss, 5), "val/acc": round(vacc, 4)}) + "\n")
    out_f.flush()
    print(f"ep {epoch + 1:02d} step {step:4d} loss {loss.item():.4f} val/loss {vloss:.4f} val/acc {vacc:.4f}")
out_f.close()
torch.save(model.state_dict(), "last.pt")
'''

C_RUN09 = {
    "seed": 1,
    "epochs": 20,
    "data": {"batch_size": 64, "shuffle": True},
    "optim": {"name": "adam", "lr": 0.002, "weight_decay": 0.0},
}

# ----------------------------------------------------------------------------
# run10: GRU on the adding problem, Adam ------------------------------------
# ----------------------------------------------------------------------------
S_RUN10 = r"""import csv, json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open(".hydra/config.yaml"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])
T = cfg["data"]["seq_len"]

def adding_batch(n):
    vals = rng.uniform(0, 1, size=(n, T)).astype(np.float32)
    marks = np.zeros((n, T), dtype=np.float32)
    a = rng.integers(0, T // 2, n)
    b = rng.integers(T // 2, T, n)
    marks[np.arange(n), a] = 1.0
    marks[np.arange(n), b] = 1.0
    x = np.stack([vals, marks], -1)
    y = (vals * marks).sum(1)
    return torch.from_numpy(x), torch.from_numpy(y.astype(np.float32))

class GRUReg(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.rnn = nn.GRU(2, h, batch_first=True)
        self.head = nn.Linear(h, 1)
    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1]).squeeze(-1)

model = GRUReg(cfg["model"]["hidden"])
o = cfg["optim"]
opt = torch.optim.Adam(model.parameters(), lr=o["lr"], betas=tuple(o["betas"]), weight_decay=o["weight_decay"])
Xva, yva = adding_batch(1000)
names = [n for n, _ in model.named_parameters()]
gf = open("grad_norms.csv", "w", newline=""); gw = csv.writer(gf); gw.writerow(["it"] + names)
log = open("metrics.jsonl", "w")
bs = cfg["data"]["batch_size"]
print(f"adding problem T={T}; predicting the mean gives mse ~{yva.var().item():.4f}")
for it in range(1, cfg["trainer"]["max_steps"] + 1):
    xb, yb = adding_batch(bs)
    loss = F.mse_loss(model(xb), yb)
    opt.zero_grad()
    loss.backward()
    if cfg["trainer"]["grad_clip"]:
        gn = nn.utils.clip_grad_norm_(model.parameters(), cfg["trainer"]["grad_clip"]).item()
    else:
        gn = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
    if it % cfg["trainer"]["log_every"] == 0:
        log.write(json.dumps({"it": it, "train/mse": loss.item(), "grad/total_norm": gn, "optim/lr": o["lr"]}) + "\n")
        gw.writerow([it] + [f"{p.grad.norm().item():.4e}" for p in model.parameters()])
    opt.step()
    if it % cfg["trainer"]["eval_every"] == 0:
        with torch.no_grad():
            vl = F.mse_loss(model(Xva), yva).item()
        log.write(json.dumps({"it": it, "eval/mse": vl}) + "\n"); log.flush()
        print(f"it {it:4d} | train/mse {loss.item():.5f} | eval/mse {vl:.5f} | grad_norm {gn:.4g}")
log.close(); gf.close()
"""

C_RUN10 = {
    "seed": 4,
    "model": {"name": "gru", "hidden": 64},
    "optim": {"name": "adam", "lr": 0.2, "momentum": None, "weight_decay": 0.0, "betas": [0.9, 0.999]},
    "data": {"name": "adding", "seq_len": 50, "batch_size": 64, "shuffle": True, "normalize": False},
    "trainer": {"max_steps": 1500, "grad_clip": None, "precision": 32, "log_every": 5, "eval_every": 50},
}

# ----------------------------------------------------------------------------
# run11: breast-cancer tabular MLP with in-model batch standardisation -------
# ----------------------------------------------------------------------------
S_RUN11 = r'''import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

X, y = load_breast_cancer(return_X_y=True)
Xtr, Xte, ytr, yte = train_test_split(X.astype(np.float32), y.astype(np.float32),
                                      test_size=cfg["data"]["test_size"], random_state=cfg["seed"])
train_loader = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)),
                          batch_size=cfg["data"]["batch_size"], shuffle=True)
test_loader = DataLoader(TensorDataset(torch.from_numpy(Xte), torch.from_numpy(yte)), batch_size=256)


class Standardize(nn.Module):
    def forward(self, x):
        return (x - x.mean(dim=0)) / (x.std(dim=0) + 1e-6)


class TabNet(nn.Module):
    def __init__(self, d_in, hidden):
        super().__init__()
        self.norm = Standardize()
        self.mlp = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.mlp(self.norm(x)).squeeze(-1)


model = TabNet(X.shape[1], cfg["model"]["hidden"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
print(f"n_train={len(Xtr)} n_test={len(Xte)} steps/epoch={len(train_loader)}")

global_step = 0
with open("metrics.jsonl", "w") as mf:
    for epoch in range(cfg["epochs"]):
        model.train()
        for xb, yb in train_loader:
            logits = model(xb)
            loss = F.binary_cross_entropy_with_logits(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            global_step += 1
            mf.write(json.dumps({"global_step": global_step, "train_loss": loss.item(),
                                 "batch_size": len(xb), "lr": cfg["optim"]["lr"]}) + "\n")
        model.eval()
        correct, tot, tl = 0, 0, 0.0
        with torch.no_grad():
            for xb, yb in test_loader:
                lo = model(xb)
                tl += F.binary_cross_entropy_with_logits(lo, yb, reduction="sum").item()
                correct += ((lo > 0).float() == yb).sum().item()
                tot += len(yb)
        mf.write(json.dumps({"global_step": global_step, "epoch": epoch, "val_loss": tl / tot,
                             "val_acc": correct / tot}) + "\n")
        print(f"epoch {epoch} | step {global_step} | train_loss {loss.item():.4f} | val_loss {tl / tot:.4f} | val_acc {correct / tot:.3f}")
'''

C_RUN11 = {
    "seed": 2,
    "epochs": 12,
    "data": {"name": "breast_cancer", "test_size": 120, "batch_size": 64},
    "model": {"hidden": 64},
    "optim": {"name": "adam", "lr": 0.001},
}

# ----------------------------------------------------------------------------
# run12: small BN CNN on synthetic 16x16 shapes -------------------------------
# ----------------------------------------------------------------------------
S_RUN12 = r'''import json, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])
S = 16
yy, xx = np.mgrid[0:S, 0:S]

def shape_img(c):
    cx, cy, r = rng.uniform(5, 11), rng.uniform(5, 11), rng.uniform(2.5, 4.5)
    if c == 0:
        m = (xx - cx) ** 2 + (yy - cy) ** 2 <= r ** 2
    elif c == 1:
        m = (np.abs(xx - cx) <= r) & (np.abs(yy - cy) <= r)
    elif c == 2:
        m = ((np.abs(xx - cx) <= 0.8) & (np.abs(yy - cy) <= r)) | ((np.abs(yy - cy) <= 0.8) & (np.abs(xx - cx) <= r))
    else:
        m = (np.abs(xx - cx) + np.abs(yy - cy) <= r) & (yy >= cy)
    return m.astype(np.float32) + rng.normal(0, cfg["data"]["noise"], (S, S)).astype(np.float32)

def make(n):
    y = rng.integers(0, 4, n)
    return torch.from_numpy(np.stack([shape_img(c) for c in y])[:, None]), torch.from_numpy(y)

Xtr, ytr = make(cfg["data"]["n_train"])
Xva, yva = make(cfg["data"]["n_val"])

def block(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2))

model = nn.Sequential(block(1, 16), block(16, 32), block(32, 32), nn.Flatten(), nn.Linear(32 * 2 * 2, 4))
opt = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"], momentum=cfg["optim"]["momentum"],
                      weight_decay=cfg["optim"]["weight_decay"])
bs = cfg["data"]["batch_size"]
print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} start: n_train={len(Xtr)} batch_size={bs} epochs={cfg['epochs']}")
log = open("metrics.jsonl", "w")
step = 0
for epoch in range(cfg["epochs"]):
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr) - bs + 1, bs):
        idx = perm[i:i + bs]
        model.train()
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % cfg["log_every"] == 0:
            log.write(json.dumps({"step": step, "epoch": epoch, "loss": round(loss.item(), 4),
                                  "lr": cfg["optim"]["lr"]}) + "\n")
        if step % cfg["eval_every"] == 0:
            model.eval()
            with torch.no_grad():
                o = model(Xva)
                vl, va = F.cross_entropy(o, yva).item(), (o.argmax(1) == yva).float().mean().item()
            log.write(json.dumps({"step": step, "val_loss": round(vl, 4), "val_acc": round(va, 4)}) + "\n")
            log.flush()
            print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} step {step} epoch {epoch} loss {loss.item():.4f} val_loss {vl:.4f} val_acc {va:.4f}")
log.close()
'''

C_RUN12 = {
    "seed": 12,
    "epochs": 3,
    "log_every": 10,
    "eval_every": 200,
    "data": {"name": "shapes16", "n_train": 3000, "n_val": 600, "noise": 0.35, "batch_size": 2},
    "optim": {"name": "sgd", "lr": 0.02, "momentum": 0.9, "weight_decay": 0.0005},
}

# ----------------------------------------------------------------------------
RUNS = [
    dict(name="run01", script=S_RUN01, config=C_RUN01, style="plain", ship=True,
         truth="lr_schedule_bug",
         symptom="Training stops improving after the first couple of epochs and sits at a loss way above what this MLP should get on digits; more epochs don't help.",
         how="StepLR(step_size=20, gamma=0.5) from the config is meant per epoch (40 epochs, SGD lr 0.05) but scheduler.step() is called inside the batch loop (45 batches/epoch), so the lr halves every 20 batches: ~6e-6 by step 260 and ~4e-29 at the end."),
    dict(name="run02", script=S_RUN02, config=C_RUN02, style="hydra", ship=False,
         overrides=["data.batch_size=16", "optim.lr=0.03"],
         truth="healthy",
         symptom="The loss curve is really jumpy and accuracy only creeps up; is this run ok or is something broken?",
         how="Healthy: GRU on noisy motif sequences, batch 16 SGD+nesterov, warm-up+cosine; noisy per-step loss but steady eval improvement."),
    dict(name="run03", script=S_RUN03, config=C_RUN03, style="hydra", ship=False,
         overrides=["trainer.precision=16"],
         truth="mixed_precision_overflow",
         symptom="Loss goes down nicely for a while and then turns into inf and never comes back; eval error blows up too.",
         how="fp16 autocast + GradScaler; the model outputs prices in raw units (net(x)*y_std + y_mean, y_mean ~41k) so the fp16 weight grads overflow from the start (scale falls from 65536 to ~1e-3 in 26 steps) and once predictions pass 65504 the fp16 forward overflows, every step is skipped, the loss scale halves to 0 and loss/eval turn inf then NaN; the same script at precision 32 trains to val MAE ~2.3k."),
    dict(name="run04", script=S_RUN04, config=C_RUN04, style="plain", ship=True,
         truth="missing_zero_grad",
         symptom="Loss drops for the first ~60 iterations, then gets worse and bounces around at a much higher level while the gradient norm keeps growing.",
         how="optimizer.zero_grad() is never called in the training loop (SGD lr 0.002, momentum 0.9), so .grad accumulates over all steps."),
    dict(name="run05", script=S_RUN05, config=C_RUN05, style="plain", ship=False,
         truth="vanishing_gradients",
         symptom="The loss is stuck around 2.3 and accuracy is at chance for the whole run, even though digits should be easy.",
         how="10 hidden sigmoid layers (width 64, default init, no norm/residuals); per-layer grad norms fall by orders of magnitude toward the input and the net never leaves the chance plateau."),
    dict(name="run06", script=S_RUN06, config=C_RUN06, style="plain", ship=True,
         truth="bad_initialization",
         symptom="The loss is over a million at the very first step with gigantic gradient norms; later the train loss hits 0 but val loss stays in the hundreds of thousands and val accuracy is stuck around 83%.",
         how="Custom init_weights draws every Linear weight from N(0, 1) for a 6x256 ReLU MLP, so activations grow ~11x per layer and the logits are ~1e5 at step 0."),
    dict(name="run07", script=S_RUN07, config=C_RUN07, style="hydra", ship=False,
         overrides=["optim.betas=[0.999,0.9]"],
         truth="optimizer_misconfigured",
         symptom="Adam at a normal lr of 1e-3: it trains fine for a few hundred steps, then the loss explodes to crazy values and val accuracy falls to chance.",
         how="Adam betas set to [0.999, 0.9] (beta1 and beta2 swapped) in the config; lr is a sane 1e-3."),
    dict(name="run08", script=S_RUN08, config=C_RUN08, style="plain", ship=True,
         truth="frozen_parameters",
         symptom="The loss doesn't move at all, it sits at ~1.38 every epoch and val accuracy is stuck at ~27% on 4 classes.",
         how="requires_grad is set from name prefixes ['encoder','classifier'] but the modules are called backbone/head, so every parameter is frozen; the resulting backward error was silenced with loss.requires_grad_(True), so grads are None and nothing updates."),
    dict(name="run09", script=S_RUN09, config=C_RUN09, style="plain", ship=True,
         truth="healthy",
         symptom="Is this run ok? Just want a sanity check before I scale it up.",
         how="Healthy: small CNN on 8x8 digits, Adam 2e-3 with cosine per epoch; converges to ~98% val acc."),
    dict(name="run10", script=S_RUN10, config=C_RUN10, style="hydra", ship=False,
         overrides=["optim.lr=0.2"],
         truth="lr_too_high",
         symptom="The GRU gets the loss down in the first few dozen steps and then it just bounces around with big spikes and never gets better.",
         how="Adam lr set to 0.2 (config override) for a 64-unit GRU on the adding problem, no clipping; the same script with lr 1e-3 or 5e-2 converges."),
    dict(name="run11", script=S_RUN11, config=C_RUN11, style="plain", ship=True,
         truth="zero_variance_statistic",
         symptom="After the first epoch every loss is NaN, the first few steps looked fine.",
         how="Per-batch standardisation x.std(dim=0) inside the model; 449 training rows with batch 64 leave a last batch of 1, whose std is NaN (warning 'std(): degrees of freedom is <= 0'); the +1e-6 does not guard NaN."),
    dict(name="run12", script=S_RUN12, config=C_RUN12, style="plain", ship=False,
         truth="batch_size_too_small",
         symptom="Loss is extremely noisy and val accuracy swings all over the place between evals.",
         how="BatchNorm CNN trained with batch_size 2 (SGD lr 0.02, momentum 0.9): per-step loss very noisy, BN batch statistics from 2 samples make train/eval behaviour erratic."),
]


def write_config(run_dir, spec):
    if spec["style"] == "hydra":
        hd = os.path.join(run_dir, ".hydra")
        os.makedirs(hd, exist_ok=True)
        with open(os.path.join(hd, "config.yaml"), "w") as f:
            yaml.safe_dump(spec["config"], f, sort_keys=False)
        with open(os.path.join(hd, "overrides.yaml"), "w") as f:
            yaml.safe_dump(spec.get("overrides", []), f)
        with open(os.path.join(hd, "hydra.yaml"), "w") as f:
            yaml.safe_dump({"hydra": {"run": {"dir": f"runs/{spec['name']}"}, "job": {"name": "train"},
                                      "runtime": {"version": "1.3.2"}}}, f, sort_keys=False)
    else:
        with open(os.path.join(run_dir, "config.yaml"), "w") as f:
            yaml.safe_dump(spec["config"], f, sort_keys=False)


def build(spec):
    run_dir = os.path.join(RUNS_DIR, spec["name"])
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)
    write_config(run_dir, spec)
    if spec["ship"]:
        script = "train.py"
    else:
        os.makedirs(SCRIPTS_DIR, exist_ok=True)
        script = os.path.join(SCRIPTS_DIR, spec["name"] + ".py")
    with open(os.path.join(run_dir, script), "w") as f:
        f.write(spec["script"])
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    t0 = time.time()
    with open(os.path.join(run_dir, "stdout.log"), "w") as out:
        rc = subprocess.call([PY, script], cwd=run_dir, stdout=out, stderr=subprocess.STDOUT, env=env)
    # drop weights files a user would not attach
    for fn in ("model.pt", "last.pt"):
        p = os.path.join(run_dir, fn)
        if os.path.exists(p):
            os.remove(p)
    print(f"{spec['name']}: rc={rc} {time.time() - t0:.1f}s", flush=True)
    return rc


def main():
    want = set(sys.argv[1:])
    for spec in RUNS:
        if want and spec["name"] not in want:
            continue
        build(spec)
    truth = {s["name"]: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]} for s in RUNS}
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)


if __name__ == "__main__":
    main()
