"""One function per run. Each really trains / executes and writes the
user-visible files; returns the truth record."""
import os
import textwrap

import numpy as np
import torch

from repl import PathMap, Session, load_module, register_source, pdb_run, pdb_post_mortem

USER_MODULES = {"train", "trainer", "model", "dataset", "predict", "utils"}


def W(out, rel, text):
    p = os.path.join(out, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


def D(s):
    return textwrap.dedent(s).lstrip("\n")


def teacher(seed, n, d=20, k=10, hidden=48, sharp=1.5):
    """Labels from a random tanh teacher network (learnable, not linear)."""
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, d, generator=g)
    W1 = torch.randn(d, hidden, generator=g) / d ** 0.5
    W2 = torch.randn(hidden, k, generator=g)
    y = (torch.tanh(X @ W1 * sharp) @ W2).argmax(1)
    return X.numpy().astype(np.float32), y.numpy().astype(np.int64)


def blobs(seed, n, d=16, k=4, spread=1.0):
    """Overlapping gaussian classes: a task with an accuracy ceiling < 100%."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(0, 1.0, size=(k, d))
    y = rng.integers(0, k, size=n)
    X = centers[y] + rng.normal(0, spread, size=(n, d))
    return X.astype(np.float32), y.astype(np.int64)


# ---------------------------------------------------------------- run04
RUN04_TRAIN = D('''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

EPOCHS = 3
BATCH = 64
LR = 0.01

data = np.load("data/sensors_train.npz")
X = torch.tensor(data["X"], dtype=torch.float32)
y = torch.tensor(data["y"], dtype=torch.long)
train_loader = DataLoader(TensorDataset(X, y), batch_size=BATCH, shuffle=True)

model = nn.Sequential(
    nn.Linear(X.shape[1], 64),
    nn.ReLU(),
    nn.Linear(64, 64),
    nn.ReLU(),
    nn.Linear(64, 10),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)

history = []
optimizer.zero_grad()
for epoch in range(EPOCHS):
    model.train()
    for step, (xb, yb) in enumerate(train_loader):
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        grad_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()]))
        optimizer.step()
        history.append((loss.item(), grad_norm.item()))
        if step % 2 == 0:
            print(f"epoch {epoch} step {step:3d}  loss {loss.item():.4f}  grad_norm {grad_norm.item():.3f}")
    print(f"== epoch {epoch} mean loss {np.mean([h[0] for h in history[-len(train_loader):]]):.4f}")
''')


def run04(out, work):
    X, y = teacher(4, 4096)
    os.makedirs("data")
    np.savez("data/sensors_train.npz", X=X, y=y)
    pm = PathMap("/home/jonas/venvs/torch/lib/python3.11/site-packages", home="/home/jonas")
    s = Session({}, "ipython", pm)
    s.scripts["train.py"] = ("/home/jonas/code/sensor-cls/train.py", RUN04_TRAIN)
    s.cell("%run train.py")
    s.cell("[round(g, 1) for _, g in history[::12]]")
    s.cell("optimizer.param_groups[0]['lr'], optimizer.param_groups[0]['momentum']")
    s.cell("{n: round(p.grad.norm().item(), 2) for n, p in model.named_parameters()}")
    s.cell("optimizer.state_dict()['state'][0]['momentum_buffer'].norm()")
    W(out, "ipython_session.txt", s.text())
    W(out, "train.py", RUN04_TRAIN)
    W(out, "question.md", D('''
    My sensor classifier (10 classes, 20 features, 4k samples) trains for about one epoch and then the
    loss climbs back up and jumps around, while grad_norm goes up the whole time. Is lr=0.01 with
    momentum 0.9 just too aggressive here, or should I add gradient clipping? IPython session and
    train.py attached.
    '''))
    return {"truth": "missing_zero_grad",
            "symptom": "Loss falls for about an epoch, then climbs and bounces while grad_norm keeps rising; "
                       "is lr=0.01 with momentum 0.9 too aggressive, should I add clipping?",
            "how": "optimizer.zero_grad() is called once before the epoch loop instead of every step, so .grad "
                   "accumulates; the logged grad_norm climbs near-linearly from 0.5 to ~50 and the loss "
                   "turns upward after epoch 0."}


# ---------------------------------------------------------------- run11
RUN11_TRAIN = D('''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

cfg = dict(epochs=4, batch_size=64, lr=1e-3, clip=1.0)

raw = np.load("data/churn_features.npz")
X = torch.from_numpy(raw["X"])
y = torch.from_numpy(raw["y"])
loader = DataLoader(TensorDataset(X, y), batch_size=cfg["batch_size"], shuffle=True)

model = nn.Sequential(
    nn.Linear(X.shape[1], 128), nn.ReLU(),
    nn.Linear(128, 64), nn.ReLU(),
    nn.Linear(64, 2),
)
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
loss_fn = nn.CrossEntropyLoss()

print(f"{len(X)} samples, {len(loader)} batches/epoch")
for epoch in range(cfg["epochs"]):
    total, n = 0.0, 0
    for i, (xb, yb) in enumerate(loader):
        # standardize features with the batch statistics
        xb = (xb - xb.mean(0)) / xb.std(0)
        out = model(xb)
        loss = loss_fn(out, yb)
        opt.zero_grad()
        loss.backward()
        gn = nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
        opt.step()
        total += loss.item() * len(xb)
        n += len(xb)
        if i % 8 == 0:
            print(f"ep {epoch} it {i:3d} loss {loss.item():.4f} gnorm {gn.item():.3f}")
    print(f"epoch {epoch}: train_loss {total / n:.4f}")
''')


def run11(out, work):
    rng = np.random.default_rng(11)
    n = 64 * 40 + 1
    X = np.concatenate([rng.normal(0, 1, (n, 6)) * [3, 12, 0.5, 40, 1, 7] + [10, 50, 1, 300, 0, 20],
                        rng.integers(0, 2, (n, 4))], 1).astype(np.float32)
    z = (X[:, 0] - 10) / 3 - (X[:, 3] - 300) / 40 + 0.8 * X[:, 6] - 0.5 * X[:, 7] + rng.normal(0, 0.7, n)
    y = (z > 0).astype(np.int64)
    os.makedirs("data")
    np.savez("data/churn_features.npz", X=X, y=y)
    pm = PathMap("/opt/conda/lib/python3.11/site-packages", home="/home/priya")
    s = Session({}, "ipython", pm)
    s.scripts["train.py"] = ("/home/priya/churn/train.py", RUN11_TRAIN)
    s.cell("%run train.py")
    s.cell("[(n, p.isnan().any().item()) for n, p in model.named_parameters()]")
    s.cell("xb, yb = next(iter(loader))\nmodel(xb[:4])")
    W(out, "session.txt", s.text())
    W(out, "train.py", RUN11_TRAIN)
    W(out, "post.md", D('''
    **Loss goes to NaN after the first epoch and never recovers**

    First epoch looks totally fine, then every loss is `nan` from the end of epoch 0 on. I thought it was
    exploding gradients so I added `clip_grad_norm_(…, 1.0)` but nothing changed. Any ideas? Session output
    below, train.py attached.
    '''))
    return {"truth": "zero_variance_statistic",
            "symptom": "First epoch is fine, then the loss is nan forever; I added clip_grad_norm_ thinking it "
                       "was exploding gradients and nothing changed.",
            "how": "The loop standardizes each batch with xb.std(0); 2561 samples with batch 64 leave a last "
                   "batch of 1, whose std is NaN (the 'std(): degrees of freedom is <= 0' warning is printed), "
                   "so the last step of epoch 0 writes NaN into every weight."}



PDB_HEAD = D("""
Traceback (most recent call last):
  File "/usr/lib/python3.11/pdb.py", line 1793, in main
    pdb._run(target)
  File "/usr/lib/python3.11/pdb.py", line 1659, in _run
    self.run(target.code)
  File "/usr/lib/python3.11/bdb.py", line 600, in run
    exec(cmd, globals, locals)
  File "<string>", line 1, in <module>
""")


def _tb_from(exc, filename):
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    return tb


def lineno_of(src, needle):
    for i, l in enumerate(src.splitlines(), 1):
        if needle in l:
            return i
    raise ValueError(needle)


# ---------------------------------------------------------------- run01
RUN01_TRAINER = D("""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def build(cfg):
    torch.manual_seed(cfg["seed"])
    d = np.load(cfg["data"]["path"])
    tr = TensorDataset(torch.from_numpy(d["X_train"]), torch.from_numpy(d["y_train"]))
    va = TensorDataset(torch.from_numpy(d["X_val"]), torch.from_numpy(d["y_val"]))
    dim, layers = d["X_train"].shape[1], []
    for h in cfg["model"]["hidden"]:
        layers += [nn.Linear(dim, h), nn.ReLU()]
        dim = h
    layers.append(nn.Linear(dim, cfg["model"]["num_classes"]))
    model = nn.Sequential(*layers)
    opt = torch.optim.AdamW(model.parameters(), lr=float(cfg["optim"]["lr"]),
                            weight_decay=cfg["optim"]["weight_decay"])
    loaders = (DataLoader(tr, batch_size=cfg["train"]["batch_size"], shuffle=True),
               DataLoader(va, batch_size=512))
    return model, opt, loaders


def fit(model, opt, loaders, cfg):
    train_dl, val_dl = loaders
    hist = {"loss": [], "val_loss": [], "val_acc": []}
    crit = nn.CrossEntropyLoss()
    for epoch in range(cfg["train"]["epochs"]):
        model.train()
        for step, (xb, yb) in enumerate(train_dl):
            loss = crit(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            gn = nn.utils.clip_grad_norm_(model.parameters(), cfg["optim"]["clip"])
            opt.step()
            hist["loss"].append(loss.item())
            if step % cfg["train"]["log_every"] == 0:
                print(f"[ep {epoch} | {step:3d}/{len(train_dl)}] loss={loss.item():.4f} "
                      f"grad_norm={gn.item():.3f} lr={opt.param_groups[0]['lr']:.2e}")
        model.eval()
        with torch.no_grad():
            vl, vc, vn = 0.0, 0, 0
            for xb, yb in val_dl:
                out = model(xb)
                vl += crit(out, yb).item() * len(yb)
                vc += (out.argmax(1) == yb).sum().item()
                vn += len(yb)
        hist["val_loss"].append(vl / vn)
        hist["val_acc"].append(vc / vn)
        print(f"epoch {epoch}: train_loss={np.mean(hist['loss'][-len(train_dl):]):.4f} "
              f"val_loss={vl / vn:.4f} val_acc={vc / vn:.4f}")
    return hist
""")

RUN01_CFG = D("""
seed: 7
data:
  path: data/activity_v2.npz
model:
  hidden: [128, 128]
  num_classes: 10
optim:
  name: adamw
  lr: 2.0e-6
  weight_decay: 0.01
  clip: 5.0
train:
  batch_size: 64
  epochs: 4
  log_every: 2
""")


def run01(out, work):
    X, y = teacher(1, 8000)
    os.makedirs("data"); os.makedirs("configs")
    np.savez("data/activity_v2.npz", X_train=X[:6400], y_train=y[:6400], X_val=X[6400:], y_val=y[6400:])
    W(work, "configs/mlp_base.yaml", RUN01_CFG)
    load_module("trainer", RUN01_TRAINER, "/home/mei/projects/activity/trainer.py")
    pm = PathMap("/home/mei/miniforge3/envs/act/lib/python3.11/site-packages", home="/home/mei")
    s = Session({}, "ipython", pm)
    s.note("Jupyter console 6.6.3\n\nPython 3.11.7 | packaged by conda-forge | (main, Dec 23 2023, 14:43:09) [GCC 12.3.0]\n"
           "Type 'copyright', 'credits' or 'license' for more information\n"
           "IPython 8.22.2 -- An enhanced Interactive Python. Type '?' for help.\n\n")
    s.cell("import yaml, torch\nfrom trainer import build, fit")
    s.cell('cfg = yaml.safe_load(open("configs/mlp_base.yaml"))')
    s.cell("model, opt, loaders = build(cfg)")
    s.cell("hist = fit(model, opt, loaders, cfg)")
    s.cell("hist['val_acc']")
    s.cell("hist['loss'][0], hist['loss'][-1]")
    s.cell("torch.bincount(loaders[0].dataset.tensors[1])")
    W(out, "jupyter_console.txt", s.text())
    W(out, "configs/mlp_base.yaml", RUN01_CFG)
    W(out, "message.txt", D("""
    hey, the activity model isn't learning at all, loss sits at ~2.3 for all 4 epochs and val acc is basically
    random. labels look balanced-ish (see last cell). console output + the config are attached, any idea what's off?
    """))
    return {"truth": "lr_too_low",
            "symptom": "The model isn't learning at all: loss sits around 2.3 for all 4 epochs and val acc is basically random.",
            "how": "config lr is 2.0e-6 for AdamW (printed as lr=2.00e-06 on every log line); loss creeps down almost "
                   "linearly by a few hundredths over 400 steps while grad norms stay healthy (0.36-0.59)."}


# ---------------------------------------------------------------- run02
RUN02_DATASET = D("""
import torch
from torch.utils.data import Dataset


class WindowDataset(Dataset):
    # sliding windows over a 1-D load series: `window` steps in, `horizon` steps out

    def __init__(self, series, window=48, horizon=6):
        self.series = torch.as_tensor(series, dtype=torch.float32)
        self.window = window
        self.horizon = horizon

    def __len__(self):
        return len(self.series) - self.window

    def __getitem__(self, i):
        x = self.series[i : i + self.window]
        y = self.series[i + self.window : i + self.window + self.horizon]
        return x, y
""")

RUN02_TRAIN = D("""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from dataset import WindowDataset

torch.manual_seed(10)
series = np.load("data/load_hourly.npy")
series = (series - series.mean()) / series.std()

ds = WindowDataset(series, window=48, horizon=6)
loader = DataLoader(ds, batch_size=32, shuffle=True)

model = nn.Sequential(nn.Linear(48, 64), nn.ReLU(), nn.Linear(64, 6))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(5):
    for step, (xb, yb) in enumerate(loader):
        pred = model(xb)
        loss = nn.functional.mse_loss(pred, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"epoch {epoch} step {step} mse {loss.item():.4f}")
""")


def run02(out, work):
    rng = np.random.default_rng(2)
    t = np.arange(6000)
    series = (50 + 10 * np.sin(2 * np.pi * t / 24) + 4 * np.sin(2 * np.pi * t / 168)
              + rng.normal(0, 1.5, t.size)).astype(np.float32)
    os.makedirs("data")
    np.save("data/load_hourly.npy", series)
    pm = PathMap("/home/sam/.local/lib/python3.11/site-packages")
    fn = "/home/sam/forecast/train.py"
    register_source("/home/sam/forecast/dataset.py", RUN02_DATASET)
    load_module("dataset", RUN02_DATASET, "/home/sam/forecast/dataset.py")
    register_source(fn, RUN02_TRAIN)
    g = {"__name__": "__main__", "__file__": fn}
    import io, contextlib
    buf = io.StringIO()
    exc = None
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(RUN02_TRAIN, fn, "exec"), g)
        except Exception as e:  # the crash the user hit
            exc = e
    assert exc is not None
    tb = _tb_from(exc, fn)
    exc = exc.with_traceback(tb)
    names = []
    t_ = tb
    while t_ is not None:
        names.append(t_.tb_frame.f_code.co_name)
        t_ = t_.tb_next
    ups = len(names) - 1 - names.index("fetch")
    cmds = ["p len(batch)", "p [tuple(t.shape) for t in batch]"] + ["u"] * ups + [
        "p len(possibly_batched_index)", "p len(self.dataset), len(self.dataset.series)",
        "p [i for i in possibly_batched_index if len(self.dataset[i][1]) != 6]",
        "p max(possibly_batched_index)", "p self.dataset[max(possibly_batched_index)][0].shape, self.dataset[max(possibly_batched_index)][1].shape",
        "q"]
    text = "$ python -m pdb train.py\n> /home/sam/forecast/train.py(1)<module>()\n-> import numpy as np\n(Pdb) c\n"
    text += buf.getvalue()
    text += PDB_HEAD + pdb_post_mortem(exc, cmds, pm)[len(""):]
    W(out, "pdb_session.txt", text)
    W(out, "train.py", RUN02_TRAIN)
    W(out, "dataset.py", RUN02_DATASET)
    W(out, "question.txt", D("""
    Forecasting script dies partway through the first epoch (different step each run) with a stack error from
    the DataLoader. Every input window is 48 long so I don't get what's unequal. pdb session + both files attached.
    """))
    return {"truth": "shape_mismatch",
            "symptom": "The script dies partway through the first epoch (different step each run) with a stack "
                       "error from the DataLoader, although every input window is 48 long.",
            "how": "WindowDataset.__len__ returns len(series)-window but each item also needs `horizon` (6) target "
                   "steps, so the last 5 indices return short targets; default_collate's torch.stack fails when a "
                   "shuffled batch contains one (the pdb session shows a target of shape (k,) next to (6,))."}


# ---------------------------------------------------------------- run03 (healthy)
def run03(out, work):
    X, y = blobs(3, 6000, d=16, k=4, spread=1.6)
    pm = PathMap("/Users/lena/.pyenv/versions/3.11.7/lib/python3.11/site-packages", home="/Users/lena")
    ns = {"feats": X, "labels": y}
    s = Session(ns, "ipython", pm, start=6)
    exec("import numpy as np, torch", ns)
    s.cell(D("""
    import torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset
    torch.manual_seed(0)
    X, y = torch.from_numpy(feats), torch.from_numpy(labels)
    Xtr, ytr, Xva, yva = X[:4800], y[:4800], X[4800:], y[4800:]
    train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True)
    Xtr.shape, Xva.shape, torch.bincount(ytr), torch.bincount(yva)
    """))
    s.cell(D("""
    model = nn.Sequential(nn.Linear(16, 128), nn.ReLU(), nn.Dropout(0.5),
                          nn.Linear(128, 128), nn.ReLU(), nn.Dropout(0.5),
                          nn.Linear(128, 4))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()
    """))
    s.cell(D("""
    for epoch in range(8):
        model.train()
        run_loss, run_acc, seen = 0.0, 0, 0
        for i, (xb, yb) in enumerate(train_dl):
            out = model(xb)
            loss = crit(out, yb)
            opt.zero_grad(); loss.backward(); opt.step()
            run_loss += loss.item() * len(yb); run_acc += (out.argmax(1) == yb).sum().item(); seen += len(yb)
            if i % 5 == 0:
                print(f"  ep{epoch} it{i:02d} loss {loss.item():.3f}")
        model.eval()
        with torch.no_grad():
            vo = model(Xva)
            vl, va = crit(vo, yva).item(), (vo.argmax(1) == yva).float().mean().item()
        print(f"epoch {epoch}  train_loss {run_loss/seen:.4f} train_acc {run_acc/seen:.3f} | val_loss {vl:.4f} val_acc {va:.3f}")
    """))
    s.cell(D("""
    with torch.no_grad():
        to = model(Xtr)
    crit(to, ytr).item(), (to.argmax(1) == ytr).float().mean().item()
    """))
    s.cell(D("""
    model.train()
    with torch.no_grad():
        print(crit(model(Xtr), ytr).item(), crit(model(Xva), yva).item())
    """))
    W(out, "ipython_log.txt", s.text())
    W(out, "question.md", D("""
    My val loss is *lower* than my train loss in basically every epoch (and val acc is higher). That feels
    backwards: is my validation data somehow ending up in training, or is this fine? IPython session below
    (feats/labels were loaded from our parquet export in the cells before, 6000 rows, 16 features, 4 classes).
    """))
    return {"truth": "healthy",
            "symptom": "Val loss is lower than train loss in basically every epoch (val acc slightly higher); is validation "
                       "data leaking into training?",
            "how": "Nothing planted: disjoint split of an overlapping 4-class gaussian task (ceiling ~90%). Train "
                   "loss is a running mean under dropout 0.5; re-evaluated in eval mode the train set is as good "
                   "as val, and in train mode both are worse (In [4]/[5])."}


# ---------------------------------------------------------------- run05
def run05(out, work):
    rng = np.random.default_rng(5)
    n = 3000
    stars = rng.choice([1, 2, 3, 4, 5], size=n, p=[0.1, 0.08, 0.14, 0.3, 0.38])
    feats = rng.normal(0, 1, (n, 300)).astype(np.float32) * 0.3
    feats[:, :5] += np.eye(5, dtype=np.float32)[stars - 1]
    np.savez("review_vecs.npz", X=feats, stars=stars.astype(np.int64))
    pm = PathMap("/home/ubuntu/.venv/lib/python3.11/site-packages")
    s = Session({}, "python", pm)
    s.cell("import numpy as np, torch, torch.nn as nn, torch.nn.functional as F")
    s.cell('d = np.load("review_vecs.npz"); X = torch.from_numpy(d["X"]); y = torch.from_numpy(d["stars"])')
    s.cell("X.shape, y.shape, y.dtype")
    s.cell("model = nn.Sequential(nn.Linear(300, 64), nn.ReLU(), nn.Linear(64, 5))")
    s.cell("opt = torch.optim.Adam(model.parameters(), lr=1e-3)")
    s.cell(D("""
    for i in range(0, len(X), 32):
        loss = F.cross_entropy(model(X[i:i+32]), y[i:i+32])
        opt.zero_grad(); loss.backward(); opt.step()
    """))
    W(out, "post.md", "quick sanity run on my review-star classifier (5 classes) dies right away and I don't see why, "
      "shapes look right to me:\n\n```\n" + s.text() + "```\n")
    return {"truth": "label_out_of_range",
            "symptom": "A quick sanity run of a 5-class review-star classifier dies right away; the shapes look right.",
            "how": "Targets are the raw star ratings 1..5 while the head has 5 outputs (valid 0..4); cross_entropy "
                   "raises 'IndexError: Target 5 is out of bounds.' on the first batch."}


# ---------------------------------------------------------------- run06
def run06(out, work):
    import torch.nn as nn
    import torch.nn.functional as F
    X, y = teacher(6, 6000, d=24, k=8)
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    torch.manual_seed(6)
    model = nn.Sequential(nn.Linear(24, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                          nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 8))
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    hist = []
    for epoch in range(6):
        perm = torch.randperm(5000)
        tot = 0.0
        for i in range(0, 5000, 50):
            idx = perm[i:i + 50]
            loss = F.cross_entropy(model(Xt[idx]), yt[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            tot += loss.item()
        hist.append(round(tot / 100, 4))
    ns = {"torch": torch, "nn": nn, "F": F, "model": model, "hist": hist, "opt": opt,
          "Xva": Xt[5000:], "yva": yt[5000:], "xb": Xt[idx], "yb": yt[idx]}
    pm = PathMap("/home/ravi/miniconda3/lib/python3.11/site-packages", home="/home/ravi")
    s = Session(ns, "ipython", pm, start=31)
    s.cell("hist")
    s.cell("(model(Xva).argmax(1) == yva).float().mean()")
    s.cell(D("""
    acts = {}
    def save(name):
        def hook(mod, inp, out):
            acts[name] = out.detach()
        return hook
    for i, m in enumerate(model):
        if isinstance(m, nn.ReLU):
            m.register_forward_hook(save(f"relu{i}"))
    """))
    s.cell("with torch.no_grad():\n    _ = model(Xva)\n{k: round((v == 0).float().mean().item(), 3) for k, v in acts.items()}")
    s.cell("{k: int((v > 0).any(0).sum()) for k, v in acts.items()}")
    s.cell("loss = F.cross_entropy(model(xb), yb); opt.zero_grad(); loss.backward()\n"
           "{n: round((p.grad.abs().sum(1) == 0).float().mean().item(), 3) for n, p in model.named_parameters() if p.dim() == 2}")
    s.cell("model[2].bias[:10], model[4].bias[:10]")
    W(out, "ipython_session.txt", s.text())
    W(out, "question.md", D("""
    8-class MLP, loss went down a bit in the first epoch and has been stuck around the same value since
    (hist = mean train loss per epoch). Val accuracy is poor. I hooked the ReLUs to look at activations
    but I'm not sure what I'm looking at. What's going on?
    """))
    return {"truth": "dead_relu",
            "symptom": "Loss went down a bit in the first epoch and has been stuck since; val accuracy is poor. "
                       "I hooked the ReLUs but don't know what I'm looking at.",
            "how": "Trained with Adam at lr 0.05 (not shown); early large updates pushed the deeper layers' "
                   "pre-activations negative for every input: most relu outputs are exactly 0, only a handful "
                   "of units ever fire, and the grad rows of the weights feeding dead units are exactly 0."}


# ---------------------------------------------------------------- run07
RUN07_PREDICT = D("""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, d_in=20, hidden=256, n_classes=10, p=0.5):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
        )
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.body(x))


def load_model(path):
    model = Net()
    ckpt = torch.load(path, map_location="cpu")
    print(model.load_state_dict(ckpt["model"]))
    return model


def make_loader(path, batch_size=256):
    d = np.load(path)
    return DataLoader(TensorDataset(torch.from_numpy(d["X"]), torch.from_numpy(d["y"])),
                      batch_size=batch_size)


def evaluate(model, loader):
    correct = total = 0
    with torch.no_grad():
        for xb, yb in loader:
            pred = model(xb).argmax(dim=1)
            correct += (pred == yb).sum().item()
            total += len(yb)
    return correct / total
""")


def run07(out, work):
    import torch.nn as nn
    import torch.nn.functional as F
    X, y = teacher(7, 9000)
    os.makedirs("data"); os.makedirs("checkpoints")
    np.savez("data/val.npz", X=X[7500:], y=y[7500:])
    pred = load_module("predict", RUN07_PREDICT, "/home/ola/clf/predict.py")
    torch.manual_seed(7)
    model = pred.Net()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    Xt, yt = torch.from_numpy(X[:7500]), torch.from_numpy(y[:7500])
    Xv, yv = torch.from_numpy(X[7500:]), torch.from_numpy(y[7500:])
    import datetime
    t0 = datetime.datetime(2024, 5, 14, 10, 2, 11)
    ts = lambda sec: (t0 + datetime.timedelta(seconds=sec)).strftime("%Y-%m-%d %H:%M:%S")
    log = [f"{ts(0)} | INFO | train samples=7500 val samples=1500 batch=128 lr=0.002",
           f"{ts(0)} | INFO | Net(hidden=256, dropout=0.5)"]
    best = 0
    for epoch in range(12):
        model.train()
        perm = torch.randperm(7500)
        tl = 0.0
        for i in range(0, 7500, 128):
            idx = perm[i:i + 128]
            loss = F.cross_entropy(model(Xt[idx]), yt[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            o = model(Xv)
            vl, va = F.cross_entropy(o, yv).item(), (o.argmax(1) == yv).float().mean().item()
        line = (f"{ts(17 * epoch + 16)} | INFO | epoch {epoch + 1:2d}/12 "
                f"train_loss={tl / 7500:.4f} val_loss={vl:.4f} val_acc={va:.4f}")
        log.append(line)
        if va > best:
            best = va
            torch.save({"model": model.state_dict(), "epoch": epoch + 1, "val_acc": va}, "checkpoints/best.pt")
            log.append(f"{ts(17 * epoch + 16)} | INFO | saved checkpoints/best.pt (val_acc={va:.4f})")
    pm = PathMap("/home/ola/.venv/lib/python3.11/site-packages")
    torch.manual_seed(123)
    s = Session({}, "python", pm)
    s.cell("import torch")
    s.cell("from predict import load_model, make_loader, evaluate")
    s.cell('model = load_model("checkpoints/best.pt")')
    s.cell('torch.load("checkpoints/best.pt")["val_acc"]')
    s.cell('loader = make_loader("data/val.npz")')
    a1 = s.cell("evaluate(model, loader)")
    a2 = s.cell("evaluate(model, loader)")
    s.cell("x, y = next(iter(loader))")
    s.cell("with torch.no_grad():\n    print(model(x[:12]).argmax(1))\n    print(model(x[:12]).argmax(1))")
    s.cell("y[:12]")
    W(out, "repl.txt", s.text())
    W(out, "train_log.txt", "\n".join(log) + "\n")
    W(out, "predict.py", RUN07_PREDICT)
    W(out, "issue.md", D(f"""
    Training logged val_acc {best:.3f} for the best epoch and saved best.pt, but when I load that checkpoint in
    predict.py and run it on the *same* val.npz I get {a1:.4f}, and it isn't even the same number twice ({a2:.4f}).
    I think the checkpoint isn't being restored properly (even though load_state_dict says all keys matched).
    How do I check what actually got loaded?
    """))
    return {"truth": "eval_mode_forgotten",
            "symptom": f"Val acc was {best:.3f} in training but the loaded checkpoint scores {a1:.4f} on the same val set, "
                       "and differently each call; I think the checkpoint isn't restored properly.",
            "how": "predict.py never calls model.eval(): Dropout(0.5) and BatchNorm stay in training mode at "
                   "inference, so accuracy drops and predictions for the same inputs change between calls; all "
                   "keys load fine."}


# ---------------------------------------------------------------- run08
RUN08_TRAIN = D("""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(8)


class Classifier(nn.Module):
    def __init__(self, d_in, n_classes):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, 128), nn.ReLU(),
            nn.Linear(128, 128), nn.ReLU(),
            nn.Linear(128, n_classes),
        )
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        return self.softmax(self.net(x))


d = np.load("data/signals.npz")
Xtr, ytr = torch.from_numpy(d["X_train"]), torch.from_numpy(d["y_train"])
Xva, yva = torch.from_numpy(d["X_val"]), torch.from_numpy(d["y_val"])
train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True)

model = Classifier(Xtr.shape[1], 10)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(15):
    model.train()
    losses = []
    for xb, yb in train_dl:
        out = model(xb)
        loss = criterion(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
        val_loss = criterion(vo, yva).item()
        val_acc = (vo.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch:2d} | train loss {np.mean(losses):.4f} | val loss {val_loss:.4f} | val acc {val_acc:.3f}")
""")


def run08(out, work):
    X, y = teacher(8, 6000)
    os.makedirs("data")
    np.savez("data/signals.npz", X_train=X[:5000], y_train=y[:5000], X_val=X[5000:], y_val=y[5000:])
    pm = PathMap("/home/tom/venv/lib/python3.11/site-packages", home="/home/tom")
    s = Session({}, "ipython", pm)
    s.scripts["train.py"] = ("/home/tom/work/signals/train.py", RUN08_TRAIN)
    s.cell("%run train.py")
    s.cell("xb, yb = next(iter(train_dl))\nout = model(xb)\nout[:3]")
    s.cell("out.sum(1)[:8]")
    s.cell("criterion(out, yb), yb[:3]")
    W(out, "console.txt", s.text())
    W(out, "train.py", RUN08_TRAIN)
    W(out, "question.txt", D("""
    10-class problem. Accuracy climbs to a decent level but the cross-entropy stops at ~1.7 and won't go lower
    no matter how long I train. Is a loss that high normal for 10 classes when accuracy is this good?
    """))
    return {"truth": "double_softmax",
            "symptom": "Accuracy climbs to a decent level but cross-entropy stops around 1.7 and won't go lower; "
                       "is that normal for 10 classes?",
            "how": "The model ends in nn.Softmax(dim=1) and its probabilities are fed to nn.CrossEntropyLoss, "
                   "which applies log_softmax again; loss floors far above what the accuracy implies and outputs "
                   "sum to 1."}


# ---------------------------------------------------------------- run09 (healthy)
RUN09_TRAIN = D("""
import math

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

d = np.load(cfg["data"])
train_dl = DataLoader(TensorDataset(torch.from_numpy(d["X"]), torch.from_numpy(d["y"])),
                      batch_size=cfg["batch_size"], shuffle=True, drop_last=True)

model = nn.Sequential(nn.Linear(d["X"].shape[1], 96), nn.GELU(), nn.LayerNorm(96),
                      nn.Linear(96, 96), nn.GELU(), nn.Linear(96, 6))
optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
total = cfg["epochs"] * len(train_dl)
warmup = cfg["warmup_steps"]


def lr_lambda(step):
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1 + math.cos(math.pi * progress))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
criterion = nn.CrossEntropyLoss()

step = 0
for epoch in range(cfg["epochs"]):
    for xb, yb in train_dl:
        loss = criterion(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        step += 1
        if step % 100 == 0:
            print(f"step {step:4d}/{total} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.6f}")
print("done")
""")

RUN09_CFG = D("""
seed: 0
data: data/train.npz
batch_size: 32
epochs: 8
lr: 3.0e-4
weight_decay: 0.05
warmup_steps: 100
""")


def run09(out, work):
    X, y = teacher(9, 3200, d=12, k=6)
    os.makedirs("data")
    np.savez("data/train.npz", X=X, y=y)
    W(work, "config.yaml", RUN09_CFG)
    fn = "/home/kim/exp/train.py"
    register_source(fn, RUN09_TRAIN)
    bl = lineno_of(RUN09_TRAIN, "step += 1")
    cmds = [f"b {bl}, step == 300", "c", "l", "p loss.item(), step", "p optimizer.state_dict()['param_groups']",
            "p {n: round(p.grad.norm().item(), 5) for n, p in model.named_parameters()}",
            "p scheduler.get_last_lr(), total, warmup", "cl 1", "c", "q"]
    pm = PathMap("/home/kim/.venv/lib/python3.11/site-packages")
    g = {"__name__": "__main__", "__file__": fn}
    text = "$ python -m pdb train.py\n" + pdb_run(compile(RUN09_TRAIN, fn, "exec"), g, cmds, pm)
    assert text.endswith("done\n")
    text += "The program finished and will be restarted\n> /home/kim/exp/train.py(1)<module>()\n-> import math\n(Pdb) q\n"
    W(out, "pdb.txt", text)
    W(out, "config.yaml", RUN09_CFG)
    W(out, "question.md", D("""
    Stepping through my training loop in pdb to check things before a long run. Two questions: the lr I see in
    param_groups at step 300 is not the 3e-4 from my config — is the scheduler broken? And some grad norms
    (biases, 2.weight) are ~10x smaller than the others; is that a vanishing gradient problem?
    """))
    return {"truth": "healthy",
            "symptom": "In pdb the lr in param_groups at step 300 is not the configured 3e-4 and some grad norms are "
                       "tiny; is the scheduler broken / are gradients vanishing?",
            "how": "Nothing planted: 100-step linear warm-up then cosine decay over 800 steps exactly as configured "
                   "(param_groups shows initial_lr 3e-4 and the cosine value); the small grad norms are LayerNorm/bias "
                   "parameters, and loss falls normally to the end."}


# ---------------------------------------------------------------- run10
def run10(out, work):
    import torch.nn as nn
    import torch.nn.functional as F
    rng = np.random.default_rng(10)
    n = 4000
    sqft = rng.normal(1800, 600, n).clip(400)
    year = rng.normal(1985, 20, n).round()
    lot = rng.lognormal(8.9, 0.4, n)
    beds = rng.integers(1, 6, n).astype(float)
    dist = rng.gamma(2.0, 6.0, n)
    score = (sqft - 1800) / 600 + 0.6 * (year - 1985) / 20 + 0.4 * (np.log(lot) - 8.9) / 0.4 - 0.8 * (dist - 12) / 8 \
        + 0.3 * (beds - 3) + rng.normal(0, 0.4, n)
    tier = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    X = np.stack([sqft, year, lot, beds, dist], 1).astype(np.float32)
    ns = {"Xnp": X, "ynp": tier.astype(np.int64)}
    exec("import numpy as np, torch, torch.nn as nn, torch.nn.functional as F", ns)
    pm = PathMap("/home/ana/.venv/lib/python3.11/site-packages", home="/home/ana")
    s = Session(ns, "ipython", pm, start=12)
    exec(D("""
    torch.manual_seed(0)
    X, y = torch.from_numpy(Xnp), torch.from_numpy(ynp)
    ds = torch.utils.data.TensorDataset(X[:3200], y[:3200])
    dl = torch.utils.data.DataLoader(ds, batch_size=64, shuffle=True)
    model = nn.Sequential(nn.Linear(5, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    """), ns)
    s.cell(D("""
    for ep in range(10):
        tot = 0
        for xb, yb in dl:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad(); loss.backward(); opt.step()
            tot += loss.item()
        print(ep, round(tot / len(dl), 4))
    """))
    s.cell("xb[:3]")
    s.cell("X.mean(0), X.std(0)")
    s.cell("{n: f'{p.grad.norm().item():.3g}' for n, p in model.named_parameters()}")
    W(out, "ipython.txt", s.text())
    W(out, "post.md", D("""
    House price tier classifier (3 classes, 5 numeric columns: sqft, year built, lot size, bedrooms, distance to
    center). The first epoch's loss is huge and afterwards it just bounces around, way above ln(3). Gradient norms
    are in the hundreds/thousands. I suspect the default init is bad for this — should I switch to xavier/kaiming
    init or something?
    """))
    return {"truth": "unnormalized_inputs",
            "symptom": "The first epoch's loss is huge and then it bounces far above ln(3) with gradient norms in the "
                       "hundreds/thousands; I suspect the default init, should I switch to xavier/kaiming?",
            "how": "The five raw columns go straight into the MLP (sqft ~1800, year ~1985, lot ~7000, beds ~3, "
                   "distance ~12) with no scaling; epoch-0 loss ~30 and then 2.6-4.6 (chance 1.10), grad norms in the "
                   "hundreds to thousands; xb[:3] and X.mean/std show the raw scales."}


# ---------------------------------------------------------------- run12
RUN12_MODEL = D("""
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, in_dim, hidden=64, depth=3, n_classes=10):
        super().__init__()
        self.layers = []
        d = in_dim
        for _ in range(depth):
            self.layers.append(nn.Sequential(nn.Linear(d, hidden), nn.ReLU()))
            d = hidden
        self.head = nn.Linear(d, n_classes)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.head(x)
""")


def run12(out, work):
    X, y = teacher(12, 5000, d=20, k=10, sharp=2.5)
    ns = {"Xnp": X, "ynp": y}
    load_module("model", RUN12_MODEL, "/home/ben/mlp-exp/model.py")
    pm = PathMap("/home/ben/.venv/lib/python3.11/site-packages", home="/home/ben")
    s = Session(ns, "ipython", pm, start=3)
    s.cell("import torch, torch.nn.functional as F\nfrom model import MLP")
    s.cell("torch.manual_seed(0)\nX, y = torch.from_numpy(Xnp), torch.from_numpy(ynp)\nmodel = MLP(20)\nmodel")
    s.cell("opt = torch.optim.Adam(model.parameters(), lr=1e-2)")
    s.cell(D("""
    for epoch in range(15):
        perm = torch.randperm(len(X))
        tot, correct = 0.0, 0
        for i in range(0, len(X), 100):
            idx = perm[i:i+100]
            out = model(X[idx])
            loss = F.cross_entropy(out, y[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            tot += loss.item(); correct += (out.argmax(1) == y[idx]).sum().item()
        print(f"epoch {epoch:2d}  loss {tot / 50:.4f}  train acc {correct / len(X):.3f}")
    """))
    s.cell("opt.state_dict()['param_groups']")
    s.cell("[(n, tuple(p.shape)) for n, p in model.named_parameters()]")
    W(out, "ipython_session.txt", s.text())
    W(out, "model.py", RUN12_MODEL)
    W(out, "question.md", D("""
    Training loss plateaus around 1.8 and train accuracy is stuck around 0.4, even on the *training* data.
    3 hidden layers of 64 should easily fit 5k samples of 20 features (Xnp/ynp loaded from disk in the first
    two cells). What am I missing?
    """))
    return {"truth": "frozen_parameters",
            "symptom": "Training loss plateaus around 1.8 and train accuracy stays around 0.4 even on the training "
                       "data, although 3x64 hidden layers should fit 5k samples; what am I missing?",
            "how": "MLP stores its hidden layers in a plain Python list, so they are not registered: model.parameters() "
                   "(and the optimizer) holds only head.weight/head.bias (param_groups 'params': [0, 1]); the hidden "
                   "layers stay at their random init and only the linear head trains, so loss plateaus high."}


ALL = [
    ("run01", run01), ("run02", run02), ("run03", run03), ("run04", run04),
    ("run05", run05), ("run06", run06), ("run07", run07), ("run08", run08),
    ("run09", run09), ("run10", run10), ("run11", run11), ("run12", run12),
]
