"""Generator for round-11 Ray-Tune-style trial folders with planted faults.

Every run really trains a small torch model on CPU.  The trainable function of
each run is kept as source text: gen.py exec()s it with a tiny stand-in for
ray's report API that records what Ray Tune would write (params.json,
result.json, progress.csv), and, for about half of the runs, the same source is
written out as the user's train.py (with real ray imports and a Tuner main).

Usage:  python gen.py [key ...]     (no keys: generate all runs)
"""
import csv
import datetime as dt
import json
import math
import os
import shutil
import sys
import time

import numpy as np
import pandas as pd
import torch

torch.set_num_threads(1)
OUT = os.path.dirname(os.path.abspath(__file__))
RUNS_DIR = os.path.join(OUT, "runs")

# --------------------------------------------------------------------------
# Stand-in for ray.train / ray.air.session / ray.tune report API
# --------------------------------------------------------------------------


class Recorder:
    def __init__(self, trial_id, config, start_dt, pid, hostname, node_ip):
        self.trial_id = trial_id
        self.config = config
        self.start_dt = start_dt
        self.pid = pid
        self.hostname = hostname
        self.node_ip = node_ip
        self.rows = []
        self.t0 = time.perf_counter()
        self.last = self.t0

    def report(self, metrics=None, checkpoint=None, **kwargs):
        metrics = dict(metrics or {})
        metrics.update(kwargs)
        now = time.perf_counter()
        this_iter = now - self.last
        total = now - self.t0
        self.last = now
        wall = self.start_dt + dt.timedelta(seconds=total)
        it = len(self.rows) + 1
        row = {}
        for k, v in metrics.items():
            row[k] = _py(v)
        row.update({
            "timestamp": int(wall.timestamp()),
            "checkpoint_dir_name": None,
            "done": False,
            "training_iteration": it,
            "trial_id": self.trial_id,
            "date": wall.strftime("%Y-%m-%d_%H-%M-%S"),
            "time_this_iter_s": this_iter,
            "time_total_s": total,
            "pid": self.pid,
            "hostname": self.hostname,
            "node_ip": self.node_ip,
            "config": self.config,
            "time_since_restore": total,
            "iterations_since_restore": it,
        })
        self.rows.append(row)


def _py(v):
    if isinstance(v, dict):
        return {k: _py(x) for k, x in v.items()}
    if torch.is_tensor(v):
        v = v.item()
    if isinstance(v, (np.floating, np.integer)):
        v = v.item()
    return v


class _Shim:
    def __init__(self, rec):
        self._rec = rec

    def report(self, *a, **k):
        return self._rec.report(*a, **k)

    def get_context(self):
        return self


def _flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "/"))
        else:
            out[key] = v
    return out


def _csv_val(v):
    if v is None:
        return ""
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return v


def write_trial(folder, config, rows):
    os.makedirs(folder, exist_ok=True)
    rows[-1]["done"] = True
    with open(os.path.join(folder, "params.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
    with open(os.path.join(folder, "result.json"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    flat = []
    for r in rows:
        r2 = dict(r)
        r2.pop("config", None)
        flat.append(_flatten(r2))
    fields = list(flat[0].keys())
    with open(os.path.join(folder, "progress.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in flat:
            w.writerow({k: _csv_val(r.get(k)) for k in fields})


# --------------------------------------------------------------------------
# Data that exists only "on disk" for the user (the CSV of run nan_in_data)
# --------------------------------------------------------------------------


def housing_frame(path):
    rng = np.random.default_rng(11)
    n = 6000
    income = rng.lognormal(1.2, 0.45, n)
    age = rng.integers(1, 53, n).astype(float)
    households = rng.integers(40, 1800, n).astype(float)
    rooms = households * rng.normal(5.2, 1.1, n).clip(1.5)
    bedrooms = rooms * rng.normal(0.21, 0.03, n).clip(0.08)
    population = households * rng.normal(2.9, 0.6, n).clip(0.8)
    lat = rng.uniform(32.5, 41.9, n)
    lon = rng.uniform(-124.3, -114.3, n)
    value = (45000 * income + 900 * age - 6000 * np.abs(lat - 36.0)
             + 12000 * (rooms / households) - 40000 * (bedrooms / rooms)
             + rng.normal(0, 25000, n))
    value = value.clip(15000, 500001)
    df = pd.DataFrame({
        "longitude": lon.round(2), "latitude": lat.round(2),
        "housing_median_age": age, "total_rooms": rooms.round(0),
        "total_bedrooms": bedrooms.round(0), "population": population.round(0),
        "households": households, "median_income": income.round(4),
        "median_house_value": value.round(0),
    })
    # two blocks whose bedroom count is missing in the export
    df.loc[[1789, 4412], "total_bedrooms"] = np.nan
    return df


# --------------------------------------------------------------------------
# Run specifications
# --------------------------------------------------------------------------

HDR_EXEC = "import math\nimport numpy as np\nimport pandas as pd\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom torch.utils.data import DataLoader, TensorDataset\n"

HDR_TRAIN = "import math\n\nimport numpy as np\nimport pandas as pd\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom torch.utils.data import DataLoader, TensorDataset\n\nfrom ray import train, tune\n"

SPECS = []

# ---------------------------------------------------------------- healthy CNN
SPECS.append(dict(
    key="healthy_cnn", name="run07", truth="healthy",
    symptom="Is this trial OK? Just want a sanity check before I launch the full sweep.",
    how="Small 2-conv CNN on synthetic 16x16 shape images (4 classes), Adam lr 1e-3, batch 64, 15 epochs; nothing planted.",
    fn="train_cnn", write_train=True,
    config={"lr": 0.001, "batch_size": 64, "epochs": 15, "channels": 16, "seed": 0},
    src='''
def make_shapes(n, size=16, noise=0.45, seed=0):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, 1, size, size), dtype=np.float32)
    y = rng.integers(0, 4, n)
    idx = np.arange(size)
    for i in range(n):
        r, c = rng.integers(3, size - 3, 2)
        if y[i] == 0:
            X[i, 0, r, 2:size - 2] = 1.0
        elif y[i] == 1:
            X[i, 0, 2:size - 2, c] = 1.0
        elif y[i] == 2:
            X[i, 0, idx, (idx + c - size // 2) % size] = 1.0
        else:
            r, c = rng.integers(1, size - 6, 2)
            X[i, 0, r:r + 5, c] = X[i, 0, r:r + 5, c + 4] = 1.0
            X[i, 0, r, c:c + 5] = X[i, 0, r + 4, c:c + 5] = 1.0
    X += rng.normal(0, noise, X.shape).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(y).long()


class Net(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv1 = nn.Conv2d(1, ch, 3, padding=1)
        self.conv2 = nn.Conv2d(ch, 2 * ch, 3, padding=1)
        self.fc1 = nn.Linear(2 * ch * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


def train_cnn(config):
    torch.manual_seed(config["seed"])
    Xtr, ytr = make_shapes(3000, seed=1)
    Xva, yva = make_shapes(600, seed=2)
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    model = Net(config["channels"])
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    for epoch in range(config["epochs"]):
        model.train()
        total, n = 0.0, 0
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item() * len(xb)
            n += len(xb)
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = F.cross_entropy(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        train.report({"loss": total / n, "val_loss": val_loss, "val_accuracy": val_acc})
''',
    main='''
if __name__ == "__main__":
    tuner = tune.Tuner(
        train_cnn,
        param_space={
            "lr": tune.grid_search([1e-3, 3e-3]),
            "batch_size": 64,
            "epochs": 15,
            "channels": tune.grid_search([16, 32]),
            "seed": 0,
        },
        tune_config=tune.TuneConfig(metric="val_loss", mode="min"),
    )
    results = tuner.fit()
    print(results.get_best_result().config)
''',
))

# ---------------------------------------------------------------- lr too high
SPECS.append(dict(
    key="lr_high", name="run03", truth="lr_too_high",
    symptom="Loss went down nicely for the first few epochs, then started climbing and bouncing around, and around epoch 18 it blew up and has been stuck ever since with accuracy at 33%.",
    how="MLP 20-128-128-3 on make_classification-style data, SGD momentum 0.9 with lr=0.2 (the top value of an lr sweep; 0.003-0.03 is the sane range for this setup): loss falls for 3 epochs, then rises and oscillates, grad-norm spikes to ~7000 at epoch 19 and the net dies at chance loss ln 3.",
    fn="train_mlp", write_train=False,
    config={"lr": 0.2, "momentum": 0.9, "hidden": 128, "batch_size": 32, "epochs": 30, "n_features": 20, "n_classes": 3},
    src='''
def make_data(n, d, k, n_inf=8, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.random.default_rng(123).normal(0, 1.6, (k * 2, n_inf))
    y = rng.integers(0, k, n)
    sub = rng.integers(0, 2, n)
    X = rng.normal(0, 1, (n, d))
    X[:, :n_inf] += centers[y * 2 + sub]
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


def train_mlp(config):
    torch.manual_seed(0)
    d, k = config["n_features"], config["n_classes"]
    Xtr, ytr = make_data(3000, d, k, seed=1)
    Xva, yva = make_data(1000, d, k, seed=2)
    h = config["hidden"]
    model = nn.Sequential(nn.Linear(d, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, k))
    opt = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=config["momentum"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    for epoch in range(config["epochs"]):
        tot, n, gsum, gmax = 0.0, 0, 0.0, 0.0
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            g = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
            gsum += g
            gmax = max(gmax, g)
            opt.step()
            tot += loss.item() * len(xb)
            n += len(xb)
        with torch.no_grad():
            out = model(Xva)
            vl = F.cross_entropy(out, yva).item()
            va = (out.argmax(1) == yva).float().mean().item()
        train.report({"train_loss": tot / n, "val_loss": vl, "val_acc": va,
                      "grad_norm": gsum / len(loader), "grad_norm_max": gmax,
                      "lr": opt.param_groups[0]["lr"]})
''',
    main="",
))

# ---------------------------------------------------------------- lr too low
SPECS.append(dict(
    key="lr_low", name="run11", truth="lr_too_low",
    symptom="The loss is going down, but painfully slowly — 40 epochs and it's only gone from 1.39 to about 1.19. Is the CNN just too small for this?",
    how="Same kind of small CNN on synthetic shape images, Adam with lr=2e-5 (about 50x below what this model needs); test loss creeps down almost linearly from ln 4.",
    fn="trainable", write_train=False,
    config={"optimizer": "adam", "lr": 2e-05, "batch_size": 64, "epochs": 40, "width": 16},
    src='''
def make_shapes(n, size=16, noise=0.45, seed=0):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, 1, size, size), dtype=np.float32)
    y = rng.integers(0, 4, n)
    idx = np.arange(size)
    for i in range(n):
        r, c = rng.integers(3, size - 3, 2)
        if y[i] == 0:
            X[i, 0, r, 2:size - 2] = 1.0
        elif y[i] == 1:
            X[i, 0, 2:size - 2, c] = 1.0
        elif y[i] == 2:
            X[i, 0, idx, (idx + c - size // 2) % size] = 1.0
        else:
            r, c = rng.integers(1, size - 6, 2)
            X[i, 0, r:r + 5, c] = X[i, 0, r:r + 5, c + 4] = 1.0
            X[i, 0, r, c:c + 5] = X[i, 0, r + 4, c:c + 5] = 1.0
    X += rng.normal(0, noise, X.shape).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(y).long()


def trainable(config):
    torch.manual_seed(3)
    Xtr, ytr = make_shapes(2000, seed=5)
    Xte, yte = make_shapes(500, seed=6)
    w = config["width"]
    model = nn.Sequential(
        nn.Conv2d(1, w, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(w, 2 * w, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(2 * w * 16, 64), nn.ReLU(), nn.Linear(64, 4))
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    for ep in range(config["epochs"]):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            out = model(Xte)
            loss = F.cross_entropy(out, yte).item()
            acc = (out.argmax(1) == yte).float().mean().item()
        session.report({"mean_loss": loss, "mean_accuracy": acc})
''',
    main="",
))

# ------------------------------------------------------ optimizer misconfigured
SPECS.append(dict(
    key="opt_misconf", name="run05", truth="optimizer_misconfigured",
    symptom="Validation loss gets worse almost every epoch after epoch 1 and by the end even the training loss is climbing back up. lr is only 0.01, which is what we always use for this model.",
    how="MLP 16-64-64-4 classifier, SGD lr=0.01 but momentum=0.999 (config), so the heavy-ball term makes the effective step ~1000x the lr: val loss rises from 0.55 to 5.2, train loss drifts back up to 2.4, val acc falls 0.80 -> 0.68 (momentum 0.9 gives a stable 0.80 / val loss 0.54).",
    fn="objective", write_train=False,
    config={"optimizer": "sgd", "lr": 0.01, "momentum": 0.999, "weight_decay": 0.0, "hidden_units": 64, "batch_size": 64, "num_epochs": 60},
    src='''
def get_data(seed):
    rng = np.random.default_rng(seed)
    C = np.random.default_rng(77).normal(0, 0.45, (4, 16))
    y = rng.integers(0, 4, 2500)
    X = C[y] + rng.normal(0, 1.0, (2500, 16))
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


def objective(config):
    torch.manual_seed(7)
    Xtr, ytr = get_data(10)
    Xva, yva = get_data(11)
    h = config["hidden_units"]
    model = nn.Sequential(nn.Linear(16, h), nn.Tanh(), nn.Linear(h, h), nn.Tanh(), nn.Linear(h, 4))
    opt = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=config["momentum"],
                          weight_decay=config["weight_decay"])
    dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    for epoch in range(config["num_epochs"]):
        s, m = 0.0, 0
        for xb, yb in dl:
            opt.zero_grad()
            l = F.cross_entropy(model(xb), yb)
            l.backward()
            opt.step()
            s += l.item() * len(xb)
            m += len(xb)
        with torch.no_grad():
            o = model(Xva)
            train.report({"loss": s / m, "val_loss": F.cross_entropy(o, yva).item(),
                          "val_accuracy": (o.argmax(1) == yva).float().mean().item()})
''',
    main="",
))

# ---------------------------------------------------------------- overfitting
SPECS.append(dict(
    key="overfit", name="run01", truth="overfitting",
    symptom="Train loss goes down to basically zero but my validation loss started getting worse after the first few epochs and kept climbing for the whole run. Which checkpoint should I even trust?",
    how="Wide MLP 60-512-512-2 trained 150 epochs with Adam, no regularisation, on only 160 training samples (60 features, 5 informative, noisy); val set 1000.",
    fn="train_classifier", write_train=True,
    config={"lr": 0.001, "hidden": 512, "n_train": 160, "batch_size": 32, "epochs": 150, "dropout": 0.0},
    src='''
def load_split(n, seed):
    rng = np.random.default_rng(seed)
    w = np.random.default_rng(2024).normal(0, 1, 5)
    X = rng.normal(0, 1, (n, 60))
    logit = X[:, :5] @ w + rng.normal(0, 1.5, n)
    y = (logit > 0).astype(np.int64)
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


def train_classifier(config):
    torch.manual_seed(0)
    Xtr, ytr = load_split(config["n_train"], seed=100)
    Xva, yva = load_split(1000, seed=101)
    h = config["hidden"]
    model = nn.Sequential(
        nn.Linear(60, h), nn.ReLU(), nn.Dropout(config["dropout"]),
        nn.Linear(h, h), nn.ReLU(), nn.Dropout(config["dropout"]),
        nn.Linear(h, 2))
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    for epoch in range(config["epochs"]):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            otr, ova = model(Xtr), model(Xva)
            metrics = {
                "train_loss": F.cross_entropy(otr, ytr).item(),
                "train_acc": (otr.argmax(1) == ytr).float().mean().item(),
                "valid_loss": F.cross_entropy(ova, yva).item(),
                "valid_acc": (ova.argmax(1) == yva).float().mean().item(),
            }
        train.report(metrics)
''',
    main='''
if __name__ == "__main__":
    tuner = tune.Tuner(
        train_classifier,
        param_space={
            "lr": 1e-3,
            "hidden": tune.choice([256, 512]),
            "n_train": 160,
            "batch_size": 32,
            "epochs": 150,
            "dropout": 0.0,
        },
        tune_config=tune.TuneConfig(metric="valid_acc", mode="max", num_samples=4),
    )
    tuner.fit()
''',
))

# ---------------------------------------------------------- bad initialization
SPECS.append(dict(
    key="bad_init", name="run09", truth="bad_initialization",
    symptom="Loss is in the tens of millions from the very first epoch and validation loss never gets anywhere reasonable; accuracy stuck around 50%. The same data works fine with a sklearn MLP.",
    how="8-layer ReLU MLP (width 256) whose init_weights() draws every weight and bias from N(0, 1); activations blow up ~11x per layer so the first losses are astronomically large.",
    fn="train_deep_mlp", write_train=True,
    config={"lr": 0.001, "depth": 8, "width": 256, "batch_size": 128, "epochs": 25, "n_classes": 5},
    src='''
def make_dataset(n, seed, d=32, k=5):
    rng = np.random.default_rng(seed)
    centers = np.random.default_rng(9).normal(0, 0.3, (k, d))
    y = rng.integers(0, k, n)
    X = centers[y] + rng.normal(0, 1.0, (n, d))
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


class DeepMLP(nn.Module):
    def __init__(self, d_in, width, depth, n_out):
        super().__init__()
        layers = [nn.Linear(d_in, width), nn.ReLU()]
        for _ in range(depth - 2):
            layers += [nn.Linear(width, width), nn.ReLU()]
        layers.append(nn.Linear(width, n_out))
        self.net = nn.Sequential(*layers)
        self.init_weights()

    def init_weights(self):
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0.0, std=1.0)
                nn.init.normal_(m.bias, mean=0.0, std=1.0)

    def forward(self, x):
        return self.net(x)


def train_deep_mlp(config):
    torch.manual_seed(1)
    Xtr, ytr = make_dataset(4000, seed=1)
    Xva, yva = make_dataset(1000, seed=2)
    model = DeepMLP(32, config["width"], config["depth"], config["n_classes"])
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    for epoch in range(config["epochs"]):
        model.train()
        running, count, gn = 0.0, 0, []
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            gn.append(nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item())
            opt.step()
            running += loss.item() * len(xb)
            count += len(xb)
        model.eval()
        with torch.no_grad():
            logits = model(Xva)
            acc = (logits.argmax(1) == yva).float().mean().item()
            vloss = F.cross_entropy(logits, yva).item()
        train.report({"loss": running / count, "val_loss": vloss, "accuracy": acc,
                      "grad_norm": float(np.mean(gn))})
''',
    main='''
if __name__ == "__main__":
    tuner = tune.Tuner(
        train_deep_mlp,
        param_space={
            "lr": tune.loguniform(1e-4, 1e-2),
            "depth": 8,
            "width": 256,
            "batch_size": 128,
            "epochs": 25,
            "n_classes": 5,
        },
        tune_config=tune.TuneConfig(metric="accuracy", mode="max", num_samples=8),
    )
    tuner.fit()
''',
))

# ------------------------------------------------------------ lr schedule bug
SPECS.append(dict(
    key="sched_bug", name="run04", truth="lr_schedule_bug",
    symptom="Training improves for the first few epochs and then completely freezes — the loss hasn't moved in the last 40 epochs and val accuracy is stuck at 70%, way below what this setup should get.",
    how="Spiral-data MLP, Adam lr 0.01 with StepLR(step_size=lr_step_epochs=30, gamma=0.5) meant per epoch, but scheduler.step() is called inside the batch loop (57 batches/epoch): lr halves every 30 batches, is ~2e-5 by epoch 5 and ~1e-30 at the end; training freezes at loss 0.71 / val_acc 0.70 (same code with a constant lr reaches ~0.94).",
    fn="train_spiral", write_train=True,
    config={"optimizer": "adam", "lr": 0.01, "lr_step_epochs": 30, "lr_gamma": 0.5, "batch_size": 32, "epochs": 50, "hidden": 64},
    src='''
def spirals(n_per_class, seed, k=3, noise=0.25):
    rng = np.random.default_rng(seed)
    X, y = [], []
    for c in range(k):
        t = rng.uniform(0.0, 1.0, n_per_class)
        r = 5 * t
        theta = 2.5 * t * np.pi + 2 * np.pi * c / k
        pts = np.stack([r * np.sin(theta), r * np.cos(theta)], 1) + rng.normal(0, noise, (n_per_class, 2))
        X.append(pts)
        y.append(np.full(n_per_class, c))
    return torch.tensor(np.concatenate(X), dtype=torch.float32), torch.tensor(np.concatenate(y))


def train_spiral(config):
    torch.manual_seed(42)
    Xtr, ytr = spirals(600, seed=0)
    Xva, yva = spirals(200, seed=1)
    h = config["hidden"]
    model = nn.Sequential(nn.Linear(2, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(),
                          nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 3))
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=config["lr_step_epochs"],
                                                gamma=config["lr_gamma"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    for epoch in range(config["epochs"]):
        model.train()
        epoch_loss = 0.0
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            scheduler.step()
            epoch_loss += loss.item()
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = F.cross_entropy(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        train.report({"loss": epoch_loss / len(loader), "val_loss": val_loss,
                      "val_acc": val_acc, "lr": opt.param_groups[0]["lr"]})
''',
    main='''
if __name__ == "__main__":
    tuner = tune.Tuner(
        train_spiral,
        param_space={
            "optimizer": "adam",
            "lr": tune.grid_search([0.003, 0.01]),
            "lr_step_epochs": 30,
            "lr_gamma": 0.5,
            "batch_size": 32,
            "epochs": 50,
            "hidden": 64,
        },
        tune_config=tune.TuneConfig(metric="val_acc", mode="max"),
    )
    tuner.fit()
''',
))

# ---------------------------------------------------------------- label noise
SPECS.append(dict(
    key="label_noise", name="run12", truth="label_noise",
    symptom="Training accuracy sits around 50-55% for ages and the training loss never gets much below 1. Weirdly, validation accuracy was ~88% early on and then got worse once train accuracy finally started creeping up.",
    how="MLP 20-64-64-4 (Adam, wd 5e-4, 120 epochs) on clustered 4-class data of 4000 rows, but 45% of the training labels were replaced by a random other class before training (a bad label export, not in code); validation labels clean.",
    fn="train_fn", write_train=False,
    config={"lr": 0.001, "weight_decay": 0.0005, "hidden": 64, "batch_size": 128, "epochs": 120, "label_file": "labels_v2.csv"},
    src='''
def train_fn(config):
    torch.manual_seed(0)
    Xtr, ytr, Xva, yva = load_labelled()
    h = config["hidden"]
    model = nn.Sequential(nn.Linear(20, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 4))
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"], weight_decay=config["weight_decay"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    for epoch in range(config["epochs"]):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            otr, ova = model(Xtr), model(Xva)
        train.report({"train_loss": F.cross_entropy(otr, ytr).item(),
                      "train_accuracy": (otr.argmax(1) == ytr).float().mean().item(),
                      "val_loss": F.cross_entropy(ova, yva).item(),
                      "val_accuracy": (ova.argmax(1) == yva).float().mean().item()})
''',
    main="",
))


def load_labelled():
    rng = np.random.default_rng(5)
    C = np.random.default_rng(55).normal(0, 1.0, (8, 10))
    def draw(n):
        y = rng.integers(0, 4, n)
        sub = rng.integers(0, 2, n)
        X = rng.normal(0, 1, (n, 20))
        X[:, :10] += C[y * 2 + sub]
        return X, y
    Xtr, ytr = draw(4000)
    Xva, yva = draw(800)
    flip = rng.random(4000) < 0.45
    ytr = ytr.copy()
    ytr[flip] = (ytr[flip] + rng.integers(1, 4, flip.sum())) % 4
    t = lambda a, dtp: torch.tensor(a, dtype=dtp)
    return t(Xtr, torch.float32), t(ytr, torch.long), t(Xva, torch.float32), t(yva, torch.long)


# ---------------------------------------------------------------- nan in data
SPECS.append(dict(
    key="nan_data", name="run08", truth="nan_in_data",
    symptom="Training MSE was dropping fine and then suddenly everything became nan and never recovered. No lr change at that point.",
    how="Housing regression from a CSV in which two rows have an empty total_bedrooms; pandas mean/std skip NaN so only those rows stay NaN after standardisation and reach the model. Loss is finite until the first batch holding one of them, then NaN for good.",
    fn="train_regressor", write_train=True,
    config={"data_path": "/home/mk/data/housing_blocks.csv", "lr": 0.0005, "batch_size": 32, "epochs": 6, "hidden": 64, "report_every": 15},
    src='''
FEATURES = ["longitude", "latitude", "housing_median_age", "total_rooms", "total_bedrooms",
            "population", "households", "median_income"]


def prepare(df):
    df = df.copy()
    df["rooms_per_household"] = df["total_rooms"] / df["households"]
    df["bedrooms_per_room"] = df["total_bedrooms"] / df["total_rooms"]
    cols = FEATURES + ["rooms_per_household", "bedrooms_per_room"]
    X = (df[cols] - df[cols].mean()) / df[cols].std()
    y = df["median_house_value"] / 100_000.0
    return torch.tensor(X.values, dtype=torch.float32), torch.tensor(y.values, dtype=torch.float32)


def train_regressor(config):
    torch.manual_seed(2)
    df = pd.read_csv(config["data_path"])
    val_df = df.sample(frac=0.2, random_state=0)
    train_df = df.drop(val_df.index)
    Xtr, ytr = prepare(train_df)
    Xva, yva = prepare(val_df)
    h = config["hidden"]
    model = nn.Sequential(nn.Linear(Xtr.shape[1], h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 1))
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    step, window = 0, []
    for epoch in range(config["epochs"]):
        for xb, yb in loader:
            model.train()
            opt.zero_grad()
            loss = F.mse_loss(model(xb).squeeze(1), yb)
            loss.backward()
            opt.step()
            window.append(loss.item())
            step += 1
            if step % config["report_every"] == 0:
                model.eval()
                with torch.no_grad():
                    val_mse = F.mse_loss(model(Xva).squeeze(1), yva).item()
                train.report({"train_mse": float(np.mean(window)), "val_mse": val_mse,
                              "epoch": epoch, "step": step})
                window = []
''',
    main='''
if __name__ == "__main__":
    tuner = tune.Tuner(
        train_regressor,
        param_space={
            "data_path": "/home/mk/data/housing_blocks.csv",
            "lr": tune.grid_search([5e-4, 2e-3]),
            "batch_size": 32,
            "epochs": 6,
            "hidden": 64,
            "report_every": 15,
        },
        tune_config=tune.TuneConfig(metric="val_mse", mode="min"),
    )
    tuner.fit()
''',
))

# ------------------------------------------------------ numerical instability
SPECS.append(dict(
    key="num_instab", name="run02", truth="numerical_instability",
    symptom="Binary classifier was training fine (val acc ~89%) and then the loss turned into nan out of nowhere and accuracy dropped to 50%. Data has no NaNs, I checked.",
    how="Hand-written BCE: -(y*log(sigmoid(z)) + (1-y)*log(1-sigmoid(z))). Once a positive example gets z > ~17, sigmoid rounds to 1.0 in float32, log(1-p) = -inf and 0*(-inf) = NaN; NaN gradients then poison the weights.",
    fn="train_binary", write_train=True,
    config={"lr": 0.003, "hidden": 64, "batch_size": 64, "epochs": 60},
    src='''
def make_binary(n, seed):
    rng = np.random.default_rng(seed)
    w = np.random.default_rng(31).normal(0, 1, 10)
    X = rng.normal(0, 1, (n, 10))
    y = (X @ w + 0.8 * rng.normal(0, 1, n) > 0).astype(np.float32)
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


def bce(logits, target):
    p = torch.sigmoid(logits)
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


def train_binary(config):
    torch.manual_seed(4)
    Xtr, ytr = make_binary(3000, seed=1)
    Xva, yva = make_binary(1000, seed=2)
    h = config["hidden"]
    model = nn.Sequential(nn.Linear(10, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 1))
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    for epoch in range(config["epochs"]):
        model.train()
        losses = []
        for xb, yb in loader:
            opt.zero_grad()
            loss = bce(model(xb).squeeze(1), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            z = model(Xva).squeeze(1)
            val_loss = bce(z, yva).item()
            val_acc = ((z > 0).float() == yva).float().mean().item()
        train.report({"loss": float(np.mean(losses)), "val_loss": val_loss, "val_acc": val_acc})
''',
    main='''
if __name__ == "__main__":
    tuner = tune.Tuner(
        train_binary,
        param_space={"lr": tune.grid_search([1e-3, 3e-3]), "hidden": 64, "batch_size": 64, "epochs": 60},
        tune_config=tune.TuneConfig(metric="val_acc", mode="max"),
    )
    tuner.fit()
''',
))

# ------------------------------------------------------- vanishing gradients
SPECS.append(dict(
    key="vanish", name="run06", truth="vanishing_gradients",
    symptom="Loss sits at 0.693 from the first epoch to the last and accuracy is a coin flip. The shallow version of this model learned fine.",
    how="12-layer MLP with sigmoid activations (no normalisation, no residuals), default init, SGD lr 0.05; per-layer grad norms logged each epoch fall by orders of magnitude toward the input layers.",
    fn="train_deep", write_train=False,
    config={"activation": "sigmoid", "depth": 12, "width": 64, "lr": 0.05, "momentum": 0.0, "batch_size": 64, "epochs": 40},
    src='''
def get_data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(0, 1, (n, 16))
    y = ((X[:, 0] * X[:, 1] + X[:, 2] - 0.5 * X[:, 3]) > 0).astype(np.int64)
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


def train_deep(config):
    torch.manual_seed(8)
    Xtr, ytr = get_data(3000, 1)
    Xva, yva = get_data(1000, 2)
    act = {"sigmoid": nn.Sigmoid, "tanh": nn.Tanh, "relu": nn.ReLU}[config["activation"]]
    w = config["width"]
    layers = [nn.Linear(16, w), act()]
    for _ in range(config["depth"] - 2):
        layers += [nn.Linear(w, w), act()]
    layers.append(nn.Linear(w, 2))
    model = nn.Sequential(*layers)
    linears = [m for m in model if isinstance(m, nn.Linear)]
    opt = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=config["momentum"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    for epoch in range(config["epochs"]):
        gsum = np.zeros(len(linears))
        tl = 0.0
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            gsum += np.array([l.weight.grad.norm().item() for l in linears])
            opt.step()
            tl += loss.item()
        with torch.no_grad():
            out = model(Xva)
        grad_norms = {f"fc{i:02d}": float(g / len(loader)) for i, g in enumerate(gsum)}
        train.report({"loss": tl / len(loader), "val_loss": F.cross_entropy(out, yva).item(),
                      "acc": (out.argmax(1) == yva).float().mean().item(), "grad_norm": grad_norms})
''',
    main="",
))

# ------------------------------------------------------ healthy noisy / slow
SPECS.append(dict(
    key="healthy_gru", name="run10", truth="healthy",
    symptom="This one looks a lot noisier and slower than my other trials — is something wrong with it or is it fine?",
    how="GRU (hidden 32) on a synthetic sequence task (is token 3 more frequent than token 5 in a 40-token sequence, vocab 12), Adam lr 2e-4, batch 16, embedding dropout 0.3, 60 epochs; nothing planted: a slow start near ln 2 for ~8 epochs, then a noisy but steady climb to ~0.93 eval accuracy.",
    fn="train_seq", write_train=False,
    config={"lr": 0.0002, "batch_size": 16, "epochs": 60, "hidden_size": 32, "embed_dim": 16, "dropout": 0.3, "seq_len": 40, "vocab": 12},
    src='''
def make_seqs(n, L, V, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, V, (n, L))
    y = ((X == 3).sum(1) > (X == 5).sum(1)).astype(np.int64)
    return torch.tensor(X), torch.tensor(y)


class SeqNet(nn.Module):
    def __init__(self, V, E, H, p):
        super().__init__()
        self.emb = nn.Embedding(V, E)
        self.drop = nn.Dropout(p)
        self.rnn = nn.GRU(E, H, batch_first=True)
        self.head = nn.Linear(H, 2)

    def forward(self, x):
        _, h = self.rnn(self.drop(self.emb(x)))
        return self.head(h[-1])


def train_seq(config):
    torch.manual_seed(12)
    L, V = config["seq_len"], config["vocab"]
    Xtr, ytr = make_seqs(1200, L, V, 1)
    Xva, yva = make_seqs(400, L, V, 2)
    model = SeqNet(V, config["embed_dim"], config["hidden_size"], config["dropout"])
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    for epoch in range(config["epochs"]):
        model.train()
        tot = 0.0
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            tot += loss.item()
        model.eval()
        with torch.no_grad():
            out = model(Xva)
        train.report({"train_loss": tot / len(loader),
                      "eval_loss": F.cross_entropy(out, yva).item(),
                      "eval_accuracy": (out.argmax(1) == yva).float().mean().item()})
''',
    main="",
))


# --------------------------------------------------------------------------


class _CsvPandas:
    """pandas stand-in used only inside gen.py: read_csv of the user's data
    path returns the generated frame (the CSV is not shipped with the run)."""

    def __getattr__(self, name):
        return getattr(pd, name)

    def read_csv(self, path, *a, **k):
        return housing_frame(path)


def run_spec(spec, index):
    name = spec["name"]
    folder = os.path.join(RUNS_DIR, name)
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    rng = np.random.default_rng(1000 + index)
    trial_id = "".join(rng.choice(list("0123456789abcdef"), 5)) + f"_{int(rng.integers(0, 8)):05d}"
    start = dt.datetime(2024, 3, 4 + index, 9 + index % 7, 13 + 3 * index, 7)
    rec = Recorder(trial_id, spec["config"], start, pid=int(rng.integers(20000, 90000)),
                   hostname=["gpu-box-01", "mk-workstation", "ip-10-0-3-17"][index % 3],
                   node_ip=["10.0.0.11", "192.168.1.42", "10.0.3.17"][index % 3])
    shim = _Shim(rec)
    ns = {"__name__": "trainable_" + spec["key"]}
    exec(HDR_EXEC, ns)
    ns.update({"train": shim, "session": shim, "tune": shim, "pd": _CsvPandas(),
               "load_labelled": load_labelled})
    torch.set_num_threads(1)
    exec(spec["src"], ns)
    t0 = time.time()
    ns[spec["fn"]](dict(spec["config"]))
    wall = time.time() - t0
    write_trial(folder, spec["config"], rec.rows)
    if spec["write_train"]:
        hdr = HDR_TRAIN
        if "session.report" in spec["src"]:
            hdr = hdr.replace("from ray import train, tune\n", "from ray import tune\nfrom ray.air import session\n")
        with open(os.path.join(folder, "train.py"), "w") as f:
            f.write(hdr + "\n" + spec["src"].strip("\n") + "\n" + (("\n" + spec["main"].rstrip() + "\n") if spec["main"] else ""))
    return wall, rec.rows


def main(keys):
    os.makedirs(RUNS_DIR, exist_ok=True)
    truth_path = os.path.join(OUT, "truth.json")
    truth = json.load(open(truth_path)) if os.path.exists(truth_path) else {}
    for i, spec in enumerate(SPECS):
        if keys and spec["key"] not in keys:
            continue
        wall, rows = run_spec(spec, i)
        truth[spec["name"]] = {"truth": spec["truth"], "symptom": spec["symptom"], "how": spec["how"]}
        print(f"{spec['name']} {spec['key']:12s} {wall:6.1f}s  {len(rows)} iters", flush=True)
    truth = {k: truth[k] for k in sorted(truth)}
    json.dump(truth, open(truth_path, "w"), indent=2)


if __name__ == "__main__":
    main(sys.argv[1:])
