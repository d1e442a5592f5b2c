#!/usr/bin/env python
"""Generate benchmark run folders by really training small torch models on CPU.

Each run is a concrete user script (TEMPLATE filled with that run's data/model/optimiser
code) plus a YAML config. The script is executed in a scratch folder under a tiny shim that
only shifts the wall-clock shown in log timestamps to the run's (fictional) start date;
every number in the logs is what the script really measured. Afterwards only what a user
would hand over is copied to runs/<name>/: the log (with the sbatch wrapper's header) and,
for about half of the runs, train.py and configs/exp.yaml.

Usage: python gen.py [run names...]      (default: all runs; seeds are fixed)
       python gen.py --verify [run names]  (rerun a shipped-code run with the planted setting undone)
"""
import calendar
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time

import yaml

OUT = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(OUT, "_build")
RUNS = os.path.join(OUT, "runs")
PY = sys.executable

SHIM = r'''
import logging, runpy, sys, time
OFF = float(sys.argv[1])
logging.Formatter.converter = staticmethod(lambda t: time.gmtime(t + OFF))
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
'''

# --------------------------------------------------------------------------------------
# The lab's training script skeleton. Per-run code goes into the {..} slots.
# --------------------------------------------------------------------------------------
TEMPLATE = '''\
import argparse
import logging
import math
import os
import sys
import time
from datetime import datetime

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
{imports}
log = logging.getLogger("train")


def setup_logging(path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fmt = logging.Formatter("%(asctime)s - %(levelname)s - %(message)s")
    log.setLevel(logging.INFO)
    for h in (logging.FileHandler(path), logging.StreamHandler(sys.stdout)):
        h.setFormatter(fmt)
        log.addHandler(h)


def seed_everything(seed):
    np.random.seed(seed)
    torch.manual_seed(seed)


def fmt_num(v):
    if v != v or v in (float("inf"), float("-inf")):
        return str(v)
    if v == 0:
        return "0.00"
    if abs(v) < 0.005 or abs(v) >= 1e5:
        return f"{{v:.1e}}"
    return f"{{v:.2f}}"


# ---------------------------------------------------------------- data
{data}

# ---------------------------------------------------------------- model
{model}

# ---------------------------------------------------------------- optim
{optim}

# ---------------------------------------------------------------- loss / eval
{loss}


{evaluate}


{monitor}
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/exp.yaml")
    ap.add_argument("--log-file", default=None)
    args = ap.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    log_file = args.log_file or os.path.join("logs", datetime.now().strftime("train_%Y%m%d_%H%M%S.log"))
    setup_logging(log_file)
    torch.set_num_threads(cfg.get("threads", 1))
    seed_everything(cfg["seed"])
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    log.info("exp=%s | device=%s | torch %s | pid %d", cfg["name"], device, torch.__version__, os.getpid())
    log.info("config:\\n%s", yaml.safe_dump(cfg, sort_keys=False).rstrip())

    train_loader, val_loader = build_data(cfg)
    model = build_model(cfg).to(device)
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log.info("model:\\n%s", model)
    log.info("trainable params: %s", f"{{n_params:,}}")
    opt, sched = build_optimizer(model, cfg)

    tcfg = cfg["train"]
    epochs, log_every = tcfg["epochs"], tcfg["log_every"]
    total = epochs * len(train_loader)
    use_amp = bool(tcfg.get("amp", False))
    scaler = torch.amp.GradScaler(device.type, enabled=use_amp)
    clip = tcfg.get("grad_clip") or float("inf")
    monitor, mode = tcfg["monitor"], tcfg.get("monitor_mode", "max")
    patience = tcfg.get("patience", 0)
    best, best_ep, bad_epochs = None, 0, 0
    it = 0
    t_start = time.time()
    log.info("start training: %d epochs x %d it/epoch = %d its (bs=%d)", epochs, len(train_loader), total, tcfg["batch_size"])
    for ep in range(1, epochs + 1):
        model.train()
        acc = {{}}
        n_acc, correct, seen = 0, 0, 0
        d_sum = s_sum = 0.0
        warned_data = warned_small = False
        ep_t0 = time.time()
        t_prev = time.perf_counter()
        for xb, yb in train_loader:
            t0 = time.perf_counter()
            data_t = t0 - t_prev
            xb, yb = xb.to(device), yb.to(device)
            with torch.autocast(device.type, dtype=torch.float16, enabled=use_amp):
                out = model(xb)
                parts = compute_loss(out, yb, model, cfg)
                loss = sum(parts.values())
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip).item()
            scale_before = scaler.get_scale()
            scaler.step(opt)
            scaler.update()
            if use_amp and scaler.get_scale() < scale_before:
                log.warning("it %d: non-finite grads, optimizer step skipped (loss scale %.1f -> %.1f)",
                            it + 1, scale_before, scaler.get_scale())
            it += 1
            t_prev = time.perf_counter()
            step_t = t_prev - t0 + data_t

            for k, v in parts.items():
                acc[k] = acc.get(k, 0.0) + v.item()
            acc["_loss"] = acc.get("_loss", 0.0) + loss.item()
            n_acc += 1
            d_sum += data_t
            s_sum += step_t
            if out.dim() > 1 and out.shape[-1] > 1:
                correct += (out.argmax(-1) == yb).sum().item()
                seen += yb.numel()
            if gnorm < 1e-4 and not warned_small:
                log.warning("it %d: grad norm %.2e is tiny", it, gnorm)
                warned_small = True

            if it % log_every == 0:
                comp = ", ".join(f"{{k}}={{fmt_num(v / n_acc)}}" for k, v in acc.items() if k != "_loss")
                lr = opt.param_groups[0]["lr"]
                extra = f" scale={{scaler.get_scale():.4g}}" if use_amp else ""
                log.info("[ep %d | it %d/%d] loss=%.4f (%s) lr=%.1e gnorm=%.3g%s data_t=%.3fs step_t=%.3fs",
                         ep, it, total, acc["_loss"] / n_acc, comp, lr, gnorm, extra, d_sum / n_acc, s_sum / n_acc)
                if d_sum / s_sum > 0.5 and not warned_data:
                    log.warning("input pipeline: data_t is %.0f%% of step_t over the last %d its (num_workers=%d)",
                                100 * d_sum / s_sum, n_acc, cfg["data"].get("num_workers", 0))
                    warned_data = True
                if tcfg.get("log_layer_grads"):
                    log_layer_grads(model)
                acc = {{}}
                n_acc = 0
                d_sum = s_sum = 0.0
        if sched is not None:
            sched.step()

        metrics = evaluate(model, val_loader, device, cfg)
        if seen:
            metrics = {{"train_acc": correct / seen, **metrics}}
        if tcfg.get("log_act_stats"):
            log_act_stats(model, val_loader, device)
        cur = metrics[monitor]
        improved = best is None or (cur > best if mode == "max" else cur < best)
        if improved:
            best, best_ep, bad_epochs = cur, ep, 0
            if tcfg.get("save_ckpt", True):
                torch.save(model.state_dict(), os.path.join(os.path.dirname(log_file), "best.pt"))
        else:
            bad_epochs += 1
        body = " | ".join(f"{{k}} {{v:.4f}}" for k, v in metrics.items())
        log.info(">> VAL ep %03d | %s | best %s %.4f (ep %d) | %.2fs", ep, body, monitor, best, best_ep, time.time() - ep_t0)
        if patience and bad_epochs and bad_epochs % patience == 0:
            log.warning("%s has not improved for %d epochs (best %.4f at ep %d)", monitor, bad_epochs, best, best_ep)
    el = int(time.time() - t_start)
    log.info("done in %02d:%02d:%02d | best %s=%.4f at ep %d", el // 3600, el % 3600 // 60, el % 60, monitor, best, best_ep)


if __name__ == "__main__":
    main()
'''

# --------------------------------------------------------------------------------------
# Reusable code blocks
# --------------------------------------------------------------------------------------
EVAL_CLS = '''\
@torch.no_grad()
def evaluate(model, loader, device, cfg):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        out = model(xb)
        tot += F.cross_entropy(out, yb, reduction="sum").item()
        correct += (out.argmax(-1) == yb).sum().item()
        n += yb.numel()
    return {{"val_loss": tot / n, "{acc}": correct / n}}'''

NO_MONITOR = ""

LAYER_GRADS = '''\
def log_layer_grads(model):
    names = []
    for name, p in model.named_parameters():
        if name.endswith("weight") and p.grad is not None:
            names.append(f"{name.rsplit('.', 1)[0]}={p.grad.norm().item():.1e}")
    log.info("grad_norm/layer: %s", " ".join(names))

'''

ACT_STATS = '''\
@torch.no_grad()
def log_act_stats(model, loader, device):
    model.eval()
    acts = {}
    hooks = [m.register_forward_hook(lambda m, i, o, n=n: acts.setdefault(n, []).append(o.detach()))
             for n, m in model.named_modules() if isinstance(m, nn.ReLU)]
    for xb, _ in loader:
        model(xb.to(device))
    for h in hooks:
        h.remove()
    zero, never = [], []
    for n, outs in acts.items():
        a = torch.cat(outs)
        zero.append(f"{n}={(a == 0).float().mean().item():.2f}")
        never.append(f"{n}={int(((a > 0).sum(0) == 0).sum().item())}/{a.shape[1]}")
    log.info("act stats (val) | relu zero frac: %s | units never active: %s", " ".join(zero), " ".join(never))

'''


def tensor_loaders_code(extra=""):
    return extra


# --------------------------------------------------------------------------------------
# Per-run specs
# --------------------------------------------------------------------------------------
RUN_SPECS = []


def spec(**kw):
    RUN_SPECS.append(kw)


# ---- run01: label noise (log only) --------------------------------------------------------
spec(
    name="run01", ship_code=False, start="2024-02-12 09:41:07", job=3318842, node="cn-c017",
    truth="label_noise",
    symptom="Train accuracy never gets past ~71% and the train loss stays high (~0.9) for most of the run; val tops out at ~67% around epoch 13 and then slowly drops while train loss keeps creeping down.",
    how="40% of the training/validation labels were replaced with uniformly random classes before the split (data built with make_classification, class_sep=1.5; with 30% of labels effectively wrong the best achievable accuracy is ~70%); model 2x128 MLP, Adam 1e-3, 35 epochs.",
    imports="from sklearn.datasets import make_classification\nfrom sklearn.model_selection import train_test_split\nfrom torch.utils.data import DataLoader, TensorDataset\n",
    data='''\
def load_sensor_set(cfg):
    d = cfg["data"]
    X, y = make_classification(n_samples=d["n_samples"], n_features=d["n_features"], n_informative=12,
                               n_redundant=4, n_classes=d["n_classes"], class_sep=1.5, flip_y=0.0,
                               random_state=d["source_seed"])
    rng = np.random.RandomState(d["annotation_seed"])
    relabel = rng.rand(len(y)) < 0.4
    y = y.copy()
    y[relabel] = rng.randint(0, d["n_classes"], relabel.sum())
    return X.astype(np.float32), y


def build_data(cfg):
    X, y = load_sensor_set(cfg)
    Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=cfg["data"]["val_frac"], random_state=cfg["seed"])
    mu, sd = Xtr.mean(0), Xtr.std(0) + 1e-6
    Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd
    log.info("dataset %s: train=%d val=%d features=%d classes=%d", cfg["data"]["name"], len(ytr), len(yva),
             X.shape[1], cfg["data"]["n_classes"])
    bs = cfg["train"]["batch_size"]
    tr = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=bs, shuffle=True)
    va = DataLoader(TensorDataset(torch.from_numpy(Xva), torch.from_numpy(yva)), batch_size=512)
    return tr, va''',
    model='''\
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


def build_model(cfg):
    m = cfg["model"]
    return MLP(cfg["data"]["n_features"], m["hidden"], cfg["data"]["n_classes"])''',
    optim='''\
def build_optimizer(model, cfg):
    o = cfg["optim"]
    return torch.optim.Adam(model.parameters(), lr=o["lr"]), None''',
    loss='''\
def compute_loss(out, y, model, cfg):
    return {"ce": F.cross_entropy(out, y)}''',
    evaluate=EVAL_CLS.format(acc="val_acc"),
    monitor=NO_MONITOR,
    cfg=dict(name="sensors_v3_mlp", seed=7,
             data=dict(name="sensors_v3", n_samples=8000, n_features=20, n_classes=4, source_seed=3,
                       annotation_seed=1, val_frac=0.2),
             model=dict(arch="mlp", hidden=[128, 128]),
             optim=dict(name="adam", lr=1.0e-3),
             train=dict(epochs=35, batch_size=128, log_every=25, monitor="val_acc", patience=8)),
)

# ---- run02: healthy, noisy/slow (code) -----------------------------------------------------
spec(
    name="run02", ship_code=True, start="2024-03-05 16:22:48", job=3402117, node="cn-c004",
    truth="healthy",
    symptom="Val accuracy creeps up slowly and wobbles by a point or two between epochs, and train acc ends ~4 points above val (93% vs 89%); is this run ok or should I change something?",
    how="No fault: hard 3-class synthetic tabular task (class_sep=0.7), MLP with dropout, SGD+Nesterov lr 0.01, batch 16, cosine schedule; val acc rises 0.63 -> 0.89 with epoch-to-epoch wobble, val loss keeps falling until ~ep 30 then flattens; no divergence, no rising val loss.",
    imports="from sklearn.datasets import make_classification\nfrom sklearn.model_selection import train_test_split\nfrom torch.utils.data import DataLoader, TensorDataset\n",
    data='''\
def build_data(cfg):
    d = cfg["data"]
    X, y = make_classification(n_samples=d["n_samples"], n_features=d["n_features"], n_informative=8,
                               n_redundant=6, n_classes=3, n_clusters_per_class=2, class_sep=0.7,
                               flip_y=0.0, random_state=d["data_seed"])
    Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.2, stratify=y, random_state=d["data_seed"])
    mu, sd = Xtr.mean(0), Xtr.std(0)
    Xtr = torch.tensor((Xtr - mu) / sd, dtype=torch.float32)
    Xva = torch.tensor((Xva - mu) / sd, dtype=torch.float32)
    ytr, yva = torch.tensor(ytr), torch.tensor(yva)
    log.info("train %s  val %s  class counts %s", tuple(Xtr.shape), tuple(Xva.shape), torch.bincount(ytr).tolist())
    tr = DataLoader(TensorDataset(Xtr, ytr), batch_size=cfg["train"]["batch_size"], shuffle=True, drop_last=True)
    va = DataLoader(TensorDataset(Xva, yva), batch_size=256)
    return tr, va''',
    model='''\
def build_model(cfg):
    m = cfg["model"]
    d_in = cfg["data"]["n_features"]
    return nn.Sequential(
        nn.Linear(d_in, m["width"]), nn.ReLU(), nn.Dropout(m["dropout"]),
        nn.Linear(m["width"], m["width"]), nn.ReLU(), nn.Dropout(m["dropout"]),
        nn.Linear(m["width"], 3),
    )''',
    optim='''\
def build_optimizer(model, cfg):
    o = cfg["optim"]
    opt = torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"], nesterov=True,
                          weight_decay=o["weight_decay"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg["train"]["epochs"], eta_min=o["lr"] * 0.05)
    return opt, sched''',
    loss='''\
def compute_loss(out, y, model, cfg):
    return {"ce": F.cross_entropy(out, y)}''',
    evaluate=EVAL_CLS.format(acc="val_acc"),
    monitor=NO_MONITOR,
    cfg=dict(name="tab3_mlp_sgd", seed=11,
             data=dict(n_samples=3000, n_features=30, data_seed=5),
             model=dict(width=128, dropout=0.3),
             optim=dict(name="sgd", lr=0.01, momentum=0.9, weight_decay=5.0e-4, schedule="cosine"),
             train=dict(epochs=40, batch_size=16, log_every=50, monitor="val_acc", patience=10)),
)

# ---- run03: fp16 overflow (code) ---------------------------------------------------------
spec(
    name="run03", ship_code=True, start="2024-03-11 22:05:31", job=3419906, node="cn-c021",
    truth="mixed_precision_overflow",
    symptom="Switched on amp (fp16) to speed up the price model and now loss and val MAE are inf from the first log line on, with a burst of 'step skipped' warnings at the start and scale stuck at 0.5; the same config with amp: false trains to ~37k MAE.",
    how="fp16 autocast + GradScaler on a price-regression MLP whose forward multiplies the head output by price_scale=1e5 (output in dollars); the first 17 steps overflow in the fp16 backward (loss scale halves 65536 -> 0.5), and as soon as the first real updates push predictions past 65504 the fp16 output overflows to inf, so loss and val MAE stay inf for the rest of the run. Verified: same script with amp: false reaches val MAE ~37k.",
    imports="import pandas as pd\nfrom torch.utils.data import DataLoader, TensorDataset\n",
    data='''\
FEATURES = ["sqft", "bedrooms", "bathrooms", "age_years", "lot_sqft", "garage", "dist_center_km",
            "school_score", "crime_idx", "lat", "lon", "renovated"]


def build_data(cfg):
    df = pd.read_csv(cfg["data"]["path"])
    va_mask = df["split"] == "val"
    X = df[FEATURES].to_numpy(np.float32)
    y = df["price"].to_numpy(np.float32)
    mu, sd = X[~va_mask].mean(0), X[~va_mask].std(0)
    X = (X - mu) / sd
    log.info("%s: %d rows (train %d / val %d), price mean %.0f, max %.0f", cfg["data"]["path"], len(df),
             (~va_mask).sum(), va_mask.sum(), y.mean(), y.max())
    bs = cfg["train"]["batch_size"]
    tr = DataLoader(TensorDataset(torch.from_numpy(X[~va_mask]), torch.from_numpy(y[~va_mask])), batch_size=bs,
                    shuffle=True)
    va = DataLoader(TensorDataset(torch.from_numpy(X[va_mask]), torch.from_numpy(y[va_mask])), batch_size=512)
    return tr, va''',
    model='''\
class PriceNet(nn.Module):
    def __init__(self, d_in, width, price_scale):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, width), nn.GELU(), nn.Linear(width, width // 2), nn.GELU())
        self.head = nn.Linear(width // 2, 1)
        self.register_buffer("price_scale", torch.tensor(float(price_scale)))

    def forward(self, x):
        return self.head(self.body(x)).squeeze(-1) * self.price_scale


def build_model(cfg):
    return PriceNet(len(FEATURES), cfg["model"]["width"], cfg["model"]["price_scale"])''',
    optim='''\
def build_optimizer(model, cfg):
    o = cfg["optim"]
    return torch.optim.AdamW(model.parameters(), lr=o["lr"], weight_decay=o["weight_decay"]), None''',
    loss='''\
def compute_loss(out, y, model, cfg):
    return {"l1": F.l1_loss(out.float(), y)}''',
    evaluate='''\
@torch.no_grad()
def evaluate(model, loader, device, cfg):
    model.eval()
    se = ae = 0.0
    n = 0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        with torch.autocast(device.type, dtype=torch.float16, enabled=bool(cfg["train"].get("amp", False))):
            pred = model(xb).float()
        se += ((pred - yb) ** 2).sum().item()
        ae += (pred - yb).abs().sum().item()
        n += yb.numel()
    return {"val_mae": ae / n, "val_rmse": math.sqrt(se / n)}''',
    monitor=NO_MONITOR,
    cfg=dict(name="house_price_mlp_amp", seed=3,
             data=dict(path="data/houses_2023q4.csv"),
             model=dict(width=128, price_scale=100000.0),
             optim=dict(name="adamw", lr=3.0e-3, weight_decay=1.0e-4),
             train=dict(epochs=12, batch_size=64, log_every=20, amp=True, monitor="val_mae",
                        monitor_mode="min")),
)

# ---- run04: overfitting (log only) ---------------------------------------------------------
spec(
    name="run04", ship_code=False, start="2024-03-19 10:12:55", job=3455310, node="cn-c009",
    truth="overfitting",
    symptom="Train loss goes basically to zero but the val loss got worse and worse after the first ~10 epochs; val top1 is stuck below 80%.",
    how="600 training rows of a 60-feature, 3-class synthetic task (only 10 informative features) fitted by a 2x512 MLP with Adam 3e-4, no dropout/weight decay, 100 epochs; val loss bottoms out around epoch 10 then rises steadily while train loss goes to ~0.",
    imports="from sklearn.datasets import make_classification\nfrom sklearn.model_selection import train_test_split\nfrom torch.utils.data import DataLoader, TensorDataset\n",
    data='''\
def build_data(cfg):
    d = cfg["data"]
    X, y = make_classification(n_samples=d["n_samples"], n_features=d["n_features"], n_informative=10,
                               n_redundant=5, n_classes=3, class_sep=1.5, flip_y=0.0, random_state=d["seed"])
    Xtr, Xva, ytr, yva = train_test_split(X.astype(np.float32), y, train_size=d["n_train"], stratify=y,
                                          random_state=d["seed"])
    mu, sd = Xtr.mean(0), Xtr.std(0)
    Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd
    log.info("assay_v2: train=%d val=%d features=%d", len(ytr), len(yva), X.shape[1])
    bs = cfg["train"]["batch_size"]
    tr = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=bs, shuffle=True)
    va = DataLoader(TensorDataset(torch.from_numpy(Xva), torch.from_numpy(yva)), batch_size=512)
    return tr, va''',
    model='''\
def build_model(cfg):
    w = cfg["model"]["width"]
    d_in = cfg["data"]["n_features"]
    return nn.Sequential(nn.Linear(d_in, w), nn.ReLU(), nn.Linear(w, w), nn.ReLU(), nn.Linear(w, 3))''',
    optim='''\
def build_optimizer(model, cfg):
    return torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"]), None''',
    loss='''\
def compute_loss(out, y, model, cfg):
    return {"ce": F.cross_entropy(out, y)}''',
    evaluate=EVAL_CLS.format(acc="val_top1"),
    monitor=NO_MONITOR,
    cfg=dict(name="assay_v2_mlp512", seed=0,
             data=dict(name="assay_v2", n_samples=3000, n_features=60, n_train=600, seed=4),
             model=dict(arch="mlp", width=512),
             optim=dict(name="adam", lr=3.0e-4),
             train=dict(epochs=100, batch_size=32, log_every=19, monitor="val_loss", monitor_mode="min",
                        patience=15)),
)

# ---- run05: dead relu (code) -----------------------------------------------------------------
spec(
    name="run05", ship_code=True, start="2024-04-02 13:47:20", job=3510773, node="cn-c012",
    truth="dead_relu",
    symptom="Loss hangs around 2.30 the whole time and accuracy is ~10%, like it's guessing; gradients aren't NaN and the lr is the one that worked before.",
    how="All Linear biases initialised to a constant -3.0 (config init.bias) on a 3-hidden-layer ReLU MLP over standardised digits; act stats show 99-100% zero activations and all 128 units of the last hidden layer never active on any val input, so no gradient reaches the hidden layers (only the output bias moves) and the loss stays at ln 10 for 20 epochs.",
    imports="from sklearn.datasets import load_digits\nfrom sklearn.model_selection import train_test_split\nfrom torch.utils.data import DataLoader, TensorDataset\n",
    data='''\
def build_data(cfg):
    X, y = load_digits(return_X_y=True)
    Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.2, stratify=y, random_state=cfg["seed"])
    mu, sd = Xtr.mean(0), Xtr.std(0) + 1e-6
    Xtr, Xva = ((Xtr - mu) / sd).astype(np.float32), ((Xva - mu) / sd).astype(np.float32)
    log.info("digits standardized: train=%d val=%d", len(ytr), len(yva))
    bs = cfg["train"]["batch_size"]
    tr = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=bs, shuffle=True)
    va = DataLoader(TensorDataset(torch.from_numpy(Xva), torch.from_numpy(yva)), batch_size=512)
    return tr, va''',
    model='''\
class Net(nn.Module):
    def __init__(self, hidden, n_out=10):
        super().__init__()
        layers, d = [], 64
        for i, h in enumerate(hidden):
            layers += [nn.Linear(d, h), nn.ReLU()]
            d = h
        self.features = nn.Sequential(*layers)
        self.fc_out = nn.Linear(d, n_out)

    def forward(self, x):
        return self.fc_out(self.features(x))


def init_weights(model, cfg):
    for m in model.modules():
        if isinstance(m, nn.Linear):
            nn.init.kaiming_uniform_(m.weight, nonlinearity="relu")
            nn.init.constant_(m.bias, cfg["init"]["bias"])


def build_model(cfg):
    model = Net(cfg["model"]["hidden"])
    init_weights(model, cfg)
    return model''',
    optim='''\
def build_optimizer(model, cfg):
    o = cfg["optim"]
    return torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"]), None''',
    loss='''\
def compute_loss(out, y, model, cfg):
    return {"ce": F.cross_entropy(out, y)}''',
    evaluate=EVAL_CLS.format(acc="val_acc"),
    monitor=ACT_STATS,
    cfg=dict(name="digits_mlp3", seed=21,
             model=dict(hidden=[256, 256, 128]),
             init=dict(weight="kaiming_uniform", bias=-3.0),
             optim=dict(name="sgd", lr=0.05, momentum=0.9),
             train=dict(epochs=20, batch_size=64, log_every=10, monitor="val_acc", log_act_stats=True,
                        patience=6)),
)

# ---- run06: healthy, converges well (log only) ---------------------------------------------
spec(
    name="run06", ship_code=False, start="2024-04-16 08:30:02", job=3561920, node="cn-c003",
    truth="healthy",
    symptom="First run with the new small CNN on digits; is this run ok?",
    how="No fault: small 2-conv CNN on sklearn digits, AdamW 2e-3 with cosine decay, explicit L2 term, 25 epochs; converges to ~98% val acc.",
    imports="from sklearn.datasets import load_digits\nfrom sklearn.model_selection import train_test_split\nfrom torch.utils.data import DataLoader, TensorDataset\n",
    data='''\
def build_data(cfg):
    X, y = load_digits(return_X_y=True)
    X = (X.reshape(-1, 1, 8, 8) / 16.0 - 0.5) / 0.5
    Xtr, Xva, ytr, yva = train_test_split(X.astype(np.float32), y, test_size=0.2, stratify=y, random_state=1)
    log.info("digits 8x8: train=%d val=%d", len(ytr), len(yva))
    tr = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=cfg["train"]["batch_size"],
                    shuffle=True)
    va = DataLoader(TensorDataset(torch.from_numpy(Xva), torch.from_numpy(yva)), batch_size=256)
    return tr, va''',
    model='''\
class SmallCNN(nn.Module):
    def __init__(self, c=16, n_out=10, p=0.2):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, c, 3, padding=1), nn.ReLU(),
            nn.Conv2d(c, 2 * c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(2 * c * 16, 64), nn.ReLU(), nn.Dropout(p), nn.Linear(64, n_out))

    def forward(self, x):
        return self.head(self.conv(x))


def build_model(cfg):
    return SmallCNN(cfg["model"]["channels"], p=cfg["model"]["dropout"])''',
    optim='''\
def build_optimizer(model, cfg):
    o = cfg["optim"]
    opt = torch.optim.AdamW(model.parameters(), lr=o["lr"], weight_decay=0.0)
    return opt, torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg["train"]["epochs"])''',
    loss='''\
def compute_loss(out, y, model, cfg):
    reg = sum((p ** 2).sum() for n, p in model.named_parameters() if n.endswith("weight"))
    return {"ce": F.cross_entropy(out, y), "reg": cfg["optim"]["l2"] * reg}''',
    evaluate=EVAL_CLS.format(acc="val_acc"),
    monitor=NO_MONITOR,
    cfg=dict(name="digits_cnn_v1", seed=2,
             model=dict(arch="smallcnn", channels=16, dropout=0.2),
             optim=dict(name="adamw", lr=2.0e-3, l2=1.0e-4, schedule="cosine"),
             train=dict(epochs=25, batch_size=64, log_every=10, monitor="val_acc")),
)

# ---- run07: dataloader bottleneck (log only) ----------------------------------------------
spec(
    name="run07", ship_code=False, start="2024-04-23 19:03:44", job=3590241, node="cn-g002",
    truth="dataloader_bottleneck",
    symptom="Tiny CNN on 32x32 images but each epoch takes way longer than I'd expect and the machine looks mostly idle; the loss itself goes down fine.",
    how="Each sample is rendered and augmented on the fly in Dataset.__getitem__ (scipy rotate with cubic spline + gaussian blur + per-pixel elastic shift) at 2x supersampling with num_workers=0; measured data_t is ~0.08 s of a ~0.10 s step (84-85%) on every log line, and the trainer's own pipeline warning fires every epoch.",
    imports="from scipy import ndimage\nfrom torch.utils.data import DataLoader, Dataset\n",
    data='''\
class ShapesDataset(Dataset):
    CLASSES = ["circle", "square", "triangle", "cross"]

    def __init__(self, n, size, seed, augment, supersample=1, fixed=False):
        self.n, self.size, self.seed, self.augment = n, size, seed, augment
        self.ss, self.fixed = supersample, fixed
        self.labels = np.random.RandomState(seed).randint(0, len(self.CLASSES), n)

    def __len__(self):
        return self.n

    def render(self, k, rng):
        s = self.size * self.ss
        yy, xx = np.mgrid[:s, :s].astype(np.float32)
        cx, cy = rng.uniform(s * 0.35, s * 0.65, 2)
        r = rng.uniform(s * 0.18, s * 0.3)
        if k == 0:
            img = ((xx - cx) ** 2 + (yy - cy) ** 2 < r ** 2)
        elif k == 1:
            img = (abs(xx - cx) < r * 0.8) & (abs(yy - cy) < r * 0.8)
        elif k == 2:
            img = (yy - cy < r * 0.7) & (yy - cy > -r) & (abs(xx - cx) < (yy - cy + r) * 0.6)
        else:
            img = ((abs(xx - cx) < r * 0.25) & (abs(yy - cy) < r)) | ((abs(yy - cy) < r * 0.25) & (abs(xx - cx) < r))
        return img.astype(np.float32)

    def __getitem__(self, i):
        rng = np.random.RandomState(self.seed * 100003 + i + (0 if self.fixed else np.random.randint(1 << 30)))
        k = int(self.labels[i])
        img = self.render(k, rng)
        if self.augment:
            img = ndimage.rotate(img, rng.uniform(-180, 180), reshape=False, order=3, mode="constant")
            dx = ndimage.gaussian_filter(rng.randn(*img.shape), 3 * self.ss) * 2.0 * self.ss
            dy = ndimage.gaussian_filter(rng.randn(*img.shape), 3 * self.ss) * 2.0 * self.ss
            yy, xx = np.mgrid[:img.shape[0], :img.shape[1]]
            img = ndimage.map_coordinates(img, [yy + dy, xx + dx], order=3, mode="constant")
            img = ndimage.gaussian_filter(img, rng.uniform(0.3, 1.2) * self.ss)
        if self.ss > 1:
            img = ndimage.zoom(img, 1.0 / self.ss, order=1)
        img = img + rng.randn(*img.shape).astype(np.float32) * 0.1
        return torch.from_numpy(img.astype(np.float32))[None], k


def build_data(cfg):
    d = cfg["data"]
    tr_ds = ShapesDataset(d["n_train"], d["size"], seed=1, augment=True, supersample=d["supersample"])
    va_ds = ShapesDataset(d["n_val"], d["size"], seed=2, augment=True, supersample=d["supersample"], fixed=True)
    log.info("shapes: train=%d val=%d size=%d augment=%s workers=%d", len(tr_ds), len(va_ds), d["size"], True,
             d["num_workers"])
    tr = DataLoader(tr_ds, batch_size=cfg["train"]["batch_size"], shuffle=True, num_workers=d["num_workers"])
    va = DataLoader(va_ds, batch_size=256, num_workers=d["num_workers"])
    return tr, va''',
    model='''\
def build_model(cfg):
    c = cfg["model"]["channels"]
    return nn.Sequential(
        nn.Conv2d(1, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(c, 2 * c, 3, padding=1), nn.BatchNorm2d(2 * c), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(2 * c, 2 * c, 3, padding=1), nn.BatchNorm2d(2 * c), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(2 * c, 4),
    )''',
    optim='''\
def build_optimizer(model, cfg):
    o = cfg["optim"]
    return torch.optim.Adam(model.parameters(), lr=o["lr"]), None''',
    loss='''\
def compute_loss(out, y, model, cfg):
    return {"ce": F.cross_entropy(out, y, label_smoothing=cfg["train"]["label_smoothing"])}''',
    evaluate=EVAL_CLS.format(acc="val_acc"),
    monitor=NO_MONITOR,
    cfg=dict(name="shapes32_cnn_aug", seed=5,
             data=dict(n_train=1600, n_val=384, size=32, supersample=2, num_workers=0),
             model=dict(channels=8),
             optim=dict(name="adam", lr=1.0e-3),
             train=dict(epochs=8, batch_size=64, log_every=10, label_smoothing=0.05, monitor="val_acc")),
)

# ---- run08: lr too low (code) ------------------------------------------------------------
spec(
    name="run08", ship_code=True, start="2024-05-07 11:15:39", job=3644412, node="cn-c017",
    truth="lr_too_low",
    symptom="The 1D-CNN barely learns: loss creeps down from 1.386 to 1.362 in an almost straight line over 30 epochs and val acc is only ~34% on a 4-class problem.",
    how="Adam with lr 3e-6 (config optim.lr) on a small 1D CNN for 4-class waveform sequences; loss falls almost linearly from ln 4 by only a few hundredths over 30 epochs, gradients healthy. Verified: same script with lr 1e-3 reaches 100% val acc by epoch 2.",
    imports="from torch.utils.data import DataLoader, TensorDataset\n",
    data='''\
def make_waveforms(n, length, rng):
    t = np.linspace(0, 1, length, dtype=np.float32)
    y = rng.randint(0, 4, n)
    f = rng.uniform(3, 9, n)[:, None]
    ph = rng.uniform(0, 2 * np.pi, n)[:, None]
    arg = 2 * np.pi * f * t[None] + ph
    X = np.where(y[:, None] == 0, np.sin(arg),
        np.where(y[:, None] == 1, np.sign(np.sin(arg)),
        np.where(y[:, None] == 2, 2 * ((arg / (2 * np.pi)) % 1) - 1,
                 np.sin(arg) * (np.abs(np.sin(arg / 4)) > 0.5))))
    X = X + 0.3 * rng.randn(n, length)
    return X.astype(np.float32)[:, None], y


def build_data(cfg):
    d = cfg["data"]
    rng = np.random.RandomState(d["seed"])
    Xtr, ytr = make_waveforms(d["n_train"], d["length"], rng)
    Xva, yva = make_waveforms(d["n_val"], d["length"], rng)
    log.info("waveforms: train=%d val=%d len=%d", len(ytr), len(yva), d["length"])
    tr = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=cfg["train"]["batch_size"],
                    shuffle=True)
    va = DataLoader(TensorDataset(torch.from_numpy(Xva), torch.from_numpy(yva)), batch_size=256)
    return tr, va''',
    model='''\
class ConvNet1d(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(1, c, 7, padding=3), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(c, c, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(c, c, 5, padding=2), nn.ReLU(), nn.AdaptiveMaxPool1d(1),
        )
        self.fc = nn.Linear(c, 4)

    def forward(self, x):
        return self.fc(self.net(x).flatten(1))


def build_model(cfg):
    return ConvNet1d(cfg["model"]["channels"])''',
    optim='''\
def build_optimizer(model, cfg):
    o = cfg["optim"]
    opt = torch.optim.Adam(model.parameters(), lr=o["lr"], betas=tuple(o["betas"]))
    return opt, None''',
    loss='''\
def compute_loss(out, y, model, cfg):
    return {"ce": F.cross_entropy(out, y)}''',
    evaluate=EVAL_CLS.format(acc="val_acc"),
    monitor=NO_MONITOR,
    cfg=dict(name="wave4_cnn1d", seed=8,
             data=dict(n_train=2048, n_val=512, length=128, seed=42),
             model=dict(channels=32),
             optim=dict(name="adam", lr=3.0e-6, betas=[0.9, 0.999]),
             train=dict(epochs=30, batch_size=64, log_every=32, monitor="val_acc")),
)

# ---- run09: vanishing gradients (log only) ----------------------------------------------
spec(
    name="run09", ship_code=False, start="2024-05-21 15:58:12", job=3701185, node="cn-c008",
    truth="vanishing_gradients",
    symptom="Deeper version of my tabular classifier is stuck at the starting loss (~1.61) for 40 epochs while the 2-layer one trained fine.",
    how="10 stacked Linear+Sigmoid layers (width 64, default init, no normalisation or skip connections) on a 5-class synthetic task with SGD momentum; logged per-layer grad norms fall from ~1e-1 at the head to ~1e-9 at the first layer and the loss stays at ln 5.",
    imports="from sklearn.datasets import make_classification\nfrom sklearn.model_selection import train_test_split\nfrom torch.utils.data import DataLoader, TensorDataset\n",
    data='''\
def build_data(cfg):
    d = cfg["data"]
    X, y = make_classification(n_samples=d["n_samples"], n_features=d["n_features"], n_informative=20,
                               n_redundant=10, n_classes=5, class_sep=1.5, random_state=d["seed"])
    Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.2, random_state=d["seed"])
    mu, sd = Xtr.mean(0), Xtr.std(0)
    Xtr, Xva = ((Xtr - mu) / sd).astype(np.float32), ((Xva - mu) / sd).astype(np.float32)
    log.info("tab5: train=%d val=%d features=%d", len(ytr), len(yva), X.shape[1])
    tr = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=cfg["train"]["batch_size"],
                    shuffle=True)
    va = DataLoader(TensorDataset(torch.from_numpy(Xva), torch.from_numpy(yva)), batch_size=512)
    return tr, va''',
    model='''\
class DeepNet(nn.Module):
    def __init__(self, d_in, width, depth, n_out):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(d_in if i == 0 else width, width) for i in range(depth)])
        self.act = nn.Sigmoid()
        self.out = nn.Linear(width, n_out)

    def forward(self, x):
        for layer in self.layers:
            x = self.act(layer(x))
        return self.out(x)


def build_model(cfg):
    m = cfg["model"]
    return DeepNet(cfg["data"]["n_features"], m["width"], m["depth"], 5)''',
    optim='''\
def build_optimizer(model, cfg):
    o = cfg["optim"]
    return torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"]), None''',
    loss='''\
def compute_loss(out, y, model, cfg):
    return {"ce": F.cross_entropy(out, y)}''',
    evaluate=EVAL_CLS.format(acc="val_acc"),
    monitor=LAYER_GRADS,
    cfg=dict(name="tab5_deepnet_d10", seed=13,
             data=dict(n_samples=4000, n_features=40, seed=17),
             model=dict(arch="deepnet", width=64, depth=10, act="sigmoid"),
             optim=dict(name="sgd", lr=0.05, momentum=0.9),
             train=dict(epochs=40, batch_size=64, log_every=100, log_layer_grads=True, monitor="val_acc",
                        patience=10)),
)

# ---- run10: data leakage (code) ---------------------------------------------------------
spec(
    name="run10", ship_code=True, start="2024-06-04 09:02:26", job=3760093, node="cn-c014",
    truth="data_leakage",
    symptom="New churn model gets val AUC 0.996 after the first epoch and 1.000 from epoch 5 on, with val accuracy above train accuracy; our previous model was around 0.90 AUC. Too good to be true?",
    how="Feature list is 'every column except customer_id and churned', which keeps cancel_reason_code (non-zero only for churned customers, filled after the fact); the target leaks into the inputs, val is near-perfect from epoch 1 and above train acc. Verified: same script without that column gives val AUC ~0.91.",
    imports="import pandas as pd\nfrom sklearn.metrics import roc_auc_score\nfrom torch.utils.data import DataLoader, TensorDataset\n",
    data='''\
def build_data(cfg):
    df = pd.read_csv(cfg["data"]["path"])
    features = [c for c in df.columns if c not in ("customer_id", "churned", "split")]
    log.info("features (%d): %s", len(features), ", ".join(features))
    X = df[features].to_numpy(np.float32)
    y = df["churned"].to_numpy(np.int64)
    tr_mask = (df["split"] == "train").to_numpy()
    mu, sd = X[tr_mask].mean(0), X[tr_mask].std(0) + 1e-6
    X = (X - mu) / sd
    log.info("rows: train=%d val=%d | churn rate train=%.3f val=%.3f", tr_mask.sum(), (~tr_mask).sum(),
             y[tr_mask].mean(), y[~tr_mask].mean())
    bs = cfg["train"]["batch_size"]
    tr = DataLoader(TensorDataset(torch.from_numpy(X[tr_mask]), torch.from_numpy(y[tr_mask])), batch_size=bs,
                    shuffle=True)
    va = DataLoader(TensorDataset(torch.from_numpy(X[~tr_mask]), torch.from_numpy(y[~tr_mask])), batch_size=1024)
    return tr, va''',
    model='''\
def build_model(cfg):
    m = cfg["model"]
    d_in = m["n_features"]
    return nn.Sequential(nn.Linear(d_in, m["width"]), nn.ReLU(), nn.Dropout(m["dropout"]),
                         nn.Linear(m["width"], m["width"]), nn.ReLU(), nn.Dropout(m["dropout"]),
                         nn.Linear(m["width"], 2))''',
    optim='''\
def build_optimizer(model, cfg):
    o = cfg["optim"]
    return torch.optim.Adam(model.parameters(), lr=o["lr"], weight_decay=o["weight_decay"]), None''',
    loss='''\
def compute_loss(out, y, model, cfg):
    return {"ce": F.cross_entropy(out, y)}''',
    evaluate='''\
@torch.no_grad()
def evaluate(model, loader, device, cfg):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    probs, ys = [], []
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        out = model(xb)
        tot += F.cross_entropy(out, yb, reduction="sum").item()
        correct += (out.argmax(-1) == yb).sum().item()
        n += yb.numel()
        probs.append(out.softmax(-1)[:, 1].cpu())
        ys.append(yb.cpu())
    auc = roc_auc_score(torch.cat(ys).numpy(), torch.cat(probs).numpy())
    return {"val_loss": tot / n, "val_acc": correct / n, "val_auc": auc}''',
    monitor=NO_MONITOR,
    cfg=dict(name="churn_mlp_v2", seed=4,
             data=dict(path="data/churn_snapshot.csv"),
             model=dict(n_features=12, width=64, dropout=0.3),
             optim=dict(name="adam", lr=1.0e-3, weight_decay=1.0e-5),
             train=dict(epochs=15, batch_size=128, log_every=20, monitor="val_auc")),
)

# ---- run11: plateau / underfitting (log only) --------------------------------------------
spec(
    name="run11", ship_code=False, start="2024-06-18 17:40:09", job=3822640, node="cn-c002",
    truth="plateau_underfitting",
    symptom="Loss drops over the first few epochs and then sits around 0.84-0.87 for the rest of the run, with only ~45-55% accuracy on the 3-class spirals, train and val alike; 40 epochs didn't help.",
    how="3-class two-dimensional spirals fitted by an MLP with a single hidden layer of 3 units (21 parameters), Adam 1e-2, 40 epochs: loss falls to ~0.88 by epoch 5 and then only creeps to 0.83 by epoch 40, accuracy 42-58%, train and val equal, gradients healthy.",
    imports="from torch.utils.data import DataLoader, TensorDataset\n",
    data='''\
def make_spirals(n_per_class, k, jitter, rng):
    X, Y = [], []
    for c in range(k):
        r = np.linspace(0.05, 1, n_per_class)
        th = np.linspace(c * 4, (c + 1) * 4, n_per_class) * 1.2 + rng.randn(n_per_class) * jitter
        X.append(np.c_[r * np.sin(th), r * np.cos(th)])
        Y += [c] * n_per_class
    return np.concatenate(X).astype(np.float32), np.array(Y)


def build_data(cfg):
    d = cfg["data"]
    rng = np.random.RandomState(d["seed"])
    X, y = make_spirals(d["n_per_class"], 3, d["angle_jitter"], rng)
    idx = rng.permutation(len(y))
    n_va = int(len(y) * 0.2)
    va_i, tr_i = idx[:n_va], idx[n_va:]
    log.info("spirals: train=%d val=%d", len(tr_i), len(va_i))
    tr = DataLoader(TensorDataset(torch.from_numpy(X[tr_i]), torch.from_numpy(y[tr_i])), batch_size=cfg["train"]["batch_size"],
                    shuffle=True)
    va = DataLoader(TensorDataset(torch.from_numpy(X[va_i]), torch.from_numpy(y[va_i])), batch_size=1024)
    return tr, va''',
    model='''\
def build_model(cfg):
    h = cfg["model"]["hidden"]
    return nn.Sequential(nn.Linear(2, h), nn.ReLU(), nn.Linear(h, 3))''',
    optim='''\
def build_optimizer(model, cfg):
    return torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"]), None''',
    loss='''\
def compute_loss(out, y, model, cfg):
    return {"ce": F.cross_entropy(out, y)}''',
    evaluate=EVAL_CLS.format(acc="val_acc"),
    monitor=NO_MONITOR,
    cfg=dict(name="spirals3_mlp", seed=9,
             data=dict(n_per_class=1000, angle_jitter=0.2, seed=0),
             model=dict(hidden=3),
             optim=dict(name="adam", lr=1.0e-2),
             train=dict(epochs=40, batch_size=32, log_every=75, monitor="val_acc", patience=10)),
)

# ---- run12: optimizer misconfigured (code) -----------------------------------------------
spec(
    name="run12", ship_code=True, start="2024-07-01 12:26:51", job=3890517, node="cn-c011",
    truth="optimizer_misconfigured",
    symptom="Same MLP and lr as my earlier digits run, but now the train loss won't go below ~0.75 and val acc is stuck in the low 80s instead of ~97%. I only touched the optim section of the yaml.",
    how="SGD with weight_decay 0.05 (config optim.weight_decay; 100x the usual 5e-4) on a 2-hidden-layer MLP over digits, lr 0.05 momentum 0.9: the decay term dominates, train and val loss floor at ~0.76 with ~83% accuracy. Verified: same script with weight_decay 5e-4 reaches ~97% val acc (0.1 or more collapses to chance).",
    imports="from sklearn.datasets import load_digits\nfrom sklearn.model_selection import train_test_split\nfrom torch.utils.data import DataLoader, TensorDataset\n",
    data='''\
def build_data(cfg):
    X, y = load_digits(return_X_y=True)
    X = (X / 16.0).astype(np.float32)
    Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.2, stratify=y, random_state=cfg["data"]["split_seed"])
    log.info("digits: train=%d val=%d", len(ytr), len(yva))
    bs = cfg["train"]["batch_size"]
    tr = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=bs, shuffle=True)
    va = DataLoader(TensorDataset(torch.from_numpy(Xva), torch.from_numpy(yva)), batch_size=512)
    return tr, va''',
    model='''\
def build_model(cfg):
    h1, h2 = cfg["model"]["hidden"]
    return nn.Sequential(nn.Linear(64, h1), nn.ReLU(), nn.Linear(h1, h2), nn.ReLU(), nn.Linear(h2, 10))''',
    optim='''\
def build_optimizer(model, cfg):
    o = cfg["optim"]
    opt = torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"], weight_decay=o["weight_decay"])
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=o["step_size"], gamma=o["gamma"])
    return opt, sched''',
    loss='''\
def compute_loss(out, y, model, cfg):
    return {"ce": F.cross_entropy(out, y)}''',
    evaluate=EVAL_CLS.format(acc="val_acc"),
    monitor=NO_MONITOR,
    cfg=dict(name="digits_mlp_sgd_b", seed=12,
             data=dict(name="digits", split_seed=0),
             model=dict(hidden=[256, 128]),
             optim=dict(name="sgd", lr=0.05, momentum=0.9, weight_decay=0.05, step_size=10, gamma=0.5),
             train=dict(epochs=30, batch_size=64, log_every=12, monitor="val_acc", patience=8)),
)


# --------------------------------------------------------------------------------------
# Data files some scripts read (not shipped: a user hands over code + logs, not data)
# --------------------------------------------------------------------------------------
def write_house_csv(path):
    import numpy as np
    import pandas as pd
    rng = np.random.RandomState(2023)
    n = 6000
    sqft = rng.lognormal(7.5, 0.35, n)
    bedrooms = np.clip(np.round(sqft / 600 + rng.randn(n) * 0.7), 1, 7)
    bathrooms = np.clip(np.round(bedrooms * 0.6 + rng.randn(n) * 0.5), 1, 5)
    age = rng.uniform(0, 90, n)
    lot = sqft * rng.uniform(1.5, 6, n)
    garage = rng.randint(0, 3, n)
    dist = rng.gamma(2.0, 6.0, n)
    school = rng.uniform(2, 10, n)
    crime = rng.gamma(2.0, 1.5, n)
    lat = 47.5 + rng.randn(n) * 0.1
    lon = -122.2 + rng.randn(n) * 0.1
    reno = (rng.rand(n) < 0.2).astype(int)
    price = (150 * sqft + 12000 * bathrooms + 8000 * garage - 900 * age - 4000 * dist + 15000 * school
             - 6000 * crime + 40000 * reno + 60000) * np.exp(rng.randn(n) * 0.12)
    price = np.clip(price, 60000, None)
    split = np.where(rng.rand(n) < 0.2, "val", "train")
    pd.DataFrame(dict(sqft=sqft.round(0), bedrooms=bedrooms, bathrooms=bathrooms, age_years=age.round(1),
                      lot_sqft=lot.round(0), garage=garage, dist_center_km=dist.round(2), school_score=school.round(1),
                      crime_idx=crime.round(2), lat=lat.round(5), lon=lon.round(5), renovated=reno,
                      price=price.round(0), split=split)).to_csv(path, index=False)


def write_churn_csv(path):
    import numpy as np
    import pandas as pd
    rng = np.random.RandomState(77)
    n = 12000
    tenure = rng.randint(1, 72, n)
    monthly = rng.uniform(20, 120, n)
    contract = rng.randint(0, 3, n)
    support_calls = rng.poisson(1.5, n)
    late_pay = rng.poisson(0.5, n)
    usage_gb = rng.gamma(2, 20, n)
    n_products = rng.randint(1, 5, n)
    autopay = (rng.rand(n) < 0.5).astype(int)
    age = rng.randint(18, 85, n)
    discount = (rng.rand(n) < 0.25).astype(int)
    region = rng.randint(0, 6, n)
    logit = (-1.2 - 0.045 * tenure + 0.018 * monthly - 0.8 * contract + 0.35 * support_calls + 0.5 * late_pay
             - 0.4 * autopay - 0.3 * (n_products - 1) + 0.4 * discount + rng.logistic(size=n) * 0.6)
    churned = (logit > 0).astype(int)
    cancel_reason = np.where(churned == 1, rng.randint(1, 6, n), 0)
    split = np.where(rng.rand(n) < 0.2, "val", "train")
    pd.DataFrame(dict(customer_id=np.arange(100000, 100000 + n), tenure_months=tenure, monthly_charges=monthly.round(2),
                      contract_type=contract, support_calls_90d=support_calls, late_payments=late_pay,
                      usage_gb=usage_gb.round(1), n_products=n_products, autopay=autopay, age=age,
                      promo_discount=discount, region_code=region, cancel_reason_code=cancel_reason,
                      churned=churned, split=split)).to_csv(path, index=False)


DATA_FILES = {"run03": ("data/houses_2023q4.csv", write_house_csv),
              "run10": ("data/churn_snapshot.csv", write_churn_csv)}


def slurm_header(s, start_epoch):
    st = time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime(start_epoch - 4))
    return textwrap.dedent(f"""\
        ==================== SLURM ====================
        SLURM_JOB_ID        = {s['job']}
        SLURM_JOB_NAME      = {s['cfg']['name']}
        SLURM_JOB_PARTITION = cpu
        SLURM_JOB_NODELIST  = {s['node']}
        SLURM_CPUS_PER_TASK = 1
        SLURM_MEM_PER_NODE  = 8G
        SLURM_SUBMIT_DIR    = /home/jdoe/proj/runs/{s['name']}
        start               = {st}
        ===============================================
        """)


def render_script(s):
    return TEMPLATE.format(imports=s["imports"], data=s["data"], model=s["model"], optim=s["optim"],
                           loss=s["loss"], evaluate=s["evaluate"], monitor=s["monitor"])


def build_run(s):
    work = os.path.join(BUILD, s["name"])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "configs"))
    os.makedirs(os.path.join(work, "logs"))
    with open(os.path.join(work, "train.py"), "w") as f:
        f.write(render_script(s))
    with open(os.path.join(work, "configs", "exp.yaml"), "w") as f:
        yaml.safe_dump(s["cfg"], f, sort_keys=False)
    if s["name"] in DATA_FILES:
        rel, fn = DATA_FILES[s["name"]]
        os.makedirs(os.path.join(work, os.path.dirname(rel)), exist_ok=True)
        fn(os.path.join(work, rel))
    start = calendar.timegm(time.strptime(s["start"], "%Y-%m-%d %H:%M:%S"))
    stamp = time.strftime("%Y%m%d_%H%M%S", time.gmtime(start))
    log_rel = f"logs/train_{stamp}.log"
    with open(os.path.join(work, log_rel), "w") as f:
        f.write(slurm_header(s, start))
    with open(os.path.join(BUILD, "shim.py"), "w") as f:
        f.write(SHIM)
    off = round(start - time.time())
    t0 = time.time()
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", TZ="UTC", PYTHONHASHSEED="0")
    p = subprocess.run([PY, os.path.join(BUILD, "shim.py"), str(off), "train.py", "--config", "configs/exp.yaml",
                        "--log-file", log_rel], cwd=work, env=env, capture_output=True, text=True)
    if p.returncode != 0 or "Logging error" in p.stderr:
        print(p.stdout[-3000:], p.stderr[-5000:])
        raise SystemExit(f"{s['name']} failed")
    print(f"{s['name']}: {time.time() - t0:.1f}s", flush=True)

    dst = os.path.join(RUNS, s["name"])
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(os.path.join(dst, "logs"))
    shutil.copy(os.path.join(work, log_rel), os.path.join(dst, log_rel))
    if s["ship_code"]:
        os.makedirs(os.path.join(dst, "configs"))
        shutil.copy(os.path.join(work, "train.py"), os.path.join(dst, "train.py"))
        shutil.copy(os.path.join(work, "configs", "exp.yaml"), os.path.join(dst, "configs", "exp.yaml"))


def write_truth():
    truth = {s["name"]: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]} for s in RUN_SPECS}
    path = os.path.join(OUT, "truth.json")
    old = {}
    if os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
    old.update(truth)
    old = {k: old[k] for k in sorted(old) if k in truth}
    with open(path, "w") as f:
        json.dump(old, f, indent=2)


# Counterfactual checks: the same script with the planted setting undone (config key, new value,
# optional source replacement). Used only to confirm the fault is the cause; nothing is shipped.
VERIFY = {
    "run03": (("train", "amp"), False, None),
    "run08": (("optim", "lr"), 1.0e-3, None),
    "run10": (("model", "n_features"), 11, ('("customer_id", "churned", "split")',
                                            '("customer_id", "churned", "split", "cancel_reason_code")')),
    "run12": (("optim", "weight_decay"), 5.0e-4, None),
}


def verify(name):
    (sec, key), value, src = VERIFY[name]
    work = os.path.join(BUILD, name)
    chk = os.path.join(BUILD, name + "_verify")
    shutil.rmtree(chk, ignore_errors=True)
    shutil.copytree(work, chk)
    with open(os.path.join(chk, "configs", "exp.yaml")) as f:
        cfg = yaml.safe_load(f)
    cfg[sec][key] = value
    with open(os.path.join(chk, "configs", "exp.yaml"), "w") as f:
        yaml.safe_dump(cfg, f, sort_keys=False)
    if src:
        path = os.path.join(chk, "train.py")
        code = open(path).read()
        assert src[0] in code
        open(path, "w").write(code.replace(src[0], src[1]))
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    subprocess.run([PY, "train.py", "--log-file", "logs/verify.log"], cwd=chk, env=env, check=True,
                   capture_output=True)
    last = [l for l in open(os.path.join(chk, "logs", "verify.log")) if ">> VAL" in l][-1]
    print(f"verify {name} ({sec}.{key}={value}): {last.split(' - INFO - ')[1].strip()}")


def main():
    args = sys.argv[1:]
    if args and args[0] == "--verify":
        for name in args[1:] or sorted(VERIFY):
            verify(name)
        return
    want = set(args)
    os.makedirs(BUILD, exist_ok=True)
    for s in RUN_SPECS:
        if not want or s["name"] in want:
            build_run(s)
    write_truth()


if __name__ == "__main__":
    main()
