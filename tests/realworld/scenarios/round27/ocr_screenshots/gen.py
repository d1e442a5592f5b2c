#!/usr/bin/env python3
"""Generate 12 OCR-of-screenshot style debugging scenarios from real (tiny, CPU) training runs.
Usage: .venv/bin/python gen.py [--only run01,run05]"""
import json
import linecache
import os
import random
import shutil
import sys
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from common import teacher_data, run_script, read_jsonl, write, SCRIPTS
from ocr import ocr, chart, wrap

torch.set_num_threads(1)
RUNS = os.path.join(HERE, "runs")
WORK = os.path.join(HERE, ".work")
TRUTH = {}
TORCH_DIR = os.path.dirname(torch.__file__)


def R(seed):
    return random.Random(seed)


def rd(run, name, text):
    write(os.path.join(RUNS, run, name), text)


def copy_script(run, script, name="train.py"):
    shutil.copy(os.path.join(SCRIPTS, script), os.path.join(RUNS, run, name))


def wdir(run):
    p = os.path.join(WORK, run)
    shutil.rmtree(p, ignore_errors=True)
    os.makedirs(os.path.join(p, "data"), exist_ok=True)
    return p


def truth(run, cause, symptom, how):
    TRUTH[run] = {"truth": cause, "symptom": symptom, "how": how}


def fit(model, X, y, epochs, bs, lr, seed, log=None, opt="adam", train_eval=None):
    g = torch.Generator().manual_seed(seed)
    dl = DataLoader(TensorDataset(X, y), batch_size=bs, shuffle=True, generator=g)
    o = torch.optim.Adam(model.parameters(), lr=lr)
    hist = []
    for ep in range(1, epochs + 1):
        model.train()
        tot = cor = n = 0
        for xb, yb in dl:
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            o.zero_grad()
            loss.backward()
            o.step()
            tot += loss.item() * len(xb)
            cor += (out.argmax(1) == yb).sum().item()
            n += len(xb)
        rec = {"epoch": ep, "train_loss": tot / n, "train_acc": cor / n}
        if log:
            rec.update(log(model))
        hist.append(rec)
    return hist


@torch.no_grad()
def evaluate(model, X, y):
    model.eval()
    out = model(X)
    return {"loss": F.cross_entropy(out, y).item(), "acc": (out.argmax(1) == y).float().mean().item()}


# ----------------------------------------------------------------------------------------------
def run01():
    """StepLR meant per epoch, stepped per batch."""
    run = "run01"
    w = wdir(run)
    X, y = teacher_data(4000, 20, 6, seed=11, teacher_seed=101)
    np.savez(os.path.join(w, "data/sensors_v2.npz"), x_train=X[:3200].numpy(), y_train=y[:3200].numpy(),
             x_val=X[3200:].numpy(), y_val=y[3200:].numpy())
    txt, rc = run_script("s01.py", w, [], "", env_extra={"TB_SHIM_OUT": os.path.join(w, "tb.jsonl")})
    tb = read_jsonl(os.path.join(w, "tb.jsonl"))
    lines = txt.rstrip("\n").split("\n")
    rng = R(101)
    prompt = "(venv) ana@ws-04:~/sensor-cls$ python train.py\n"
    parts = []
    chunk = 42
    for i in range(0, len(lines), chunk):
        seg = "\n".join(lines[i:i + chunk])
        if i == 0:
            seg = prompt + seg
        parts.append(ocr(seg, rng, rate=0.05, width=104, num_damage=1, cut_top=(i > 0), cut_bottom=(i + chunk < len(lines)),
                         protect=[r"lr 0\.0"]))
    body = "[OCR of 3 terminal screenshots, pasted in order — some lines at the screen edges are cut]\n\n"
    body += "\n----- screenshot 1/3 -----\n".join([""] + parts[:1]) if False else ""
    out = "[OCR of %d terminal screenshots, pasted in order; lines at the screen edges are cut]\n" % len(parts)
    for k, ptxt in enumerate(parts):
        out += "\n===== image %d =====\n" % (k + 1) + ptxt
    rd(run, "screenshot1_ocr.txt", out)
    loss = [(r["step"], r["value"]) for r in tb if r["tag"] == "train/loss"]
    lr = [(r["step"], r["value"]) for r in tb if r["tag"] == "train/lr"]
    vacc = [(r["step"], r["value"]) for r in tb if r["tag"] == "val/acc"]
    c = "[TensorBoard screenshot, transcribed. Scalars tab, 3 cards visible, smoothing 0.6]\n\n"
    c += chart("train/loss", [s for s, _ in loss], [v for _, v in loss], x_label="Step", smooth=0.6,
               readoff_at=[0, 50, 100, 200, 500, 1000, 2000], panel="TB")
    c += "\n" + chart("train/lr", [s for s, _ in lr], [v for _, v in lr], x_label="Step",
                      readoff_at=[1, 25, 50, 100, 150, 2000], fmt="%.2g")
    c += "\n" + chart("val/acc", [s for s, _ in vacc], [v for _, v in vacc], x_label="Step",
                      readoff_at=[50, 100, 500, 1000, 2000], fmt="%.3f")
    rd(run, "screenshot2_ocr.txt", ocr(c, R(102), rate=0.03, num_damage=0, cut_top=False, protect=[r"read off"]))
    last = [l for l in lines if l.startswith("Epoch")]
    rd(run, "post.md",
       "**Loss plateaus after 2 epochs — model too small?**\n\n"
       "Small MLP on our sensor features (6 classes, 3.2k train rows). Loss drops in the first two epochs and then "
       "sits there for the remaining 38, val acc stuck around %s. I attached screenshots of the terminal and of "
       "TensorBoard. Do I just need a bigger network? Script is train.py (run with defaults).\n"
       % last[-1].split("val_acc ")[1].split(" ")[0])
    copy_script(run, "s01.py")
    truth(run, "lr_schedule_bug",
          "Loss stops improving after ~2 epochs and stays flat for the remaining 38; is the MLP just too small?",
          "StepLR(step_size=10, gamma=0.5) meant per epoch is stepped after every batch (50/epoch), so lr is "
          "0.0016 after epoch 1 and ~0 from epoch 3: the printed lr reads 0.00000, the TensorBoard lr card falls "
          "to zero within ~150 steps and losses freeze.")


# ----------------------------------------------------------------------------------------------
class Classifier(nn.Module):
    def __init__(self, d=32, k=10):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, k))

    def forward(self, x):
        return self.net(x)


def run02():
    """DDP-saved state dict with 'module.' prefix loaded with strict=False -> random weights."""
    run = "run02"
    torch.manual_seed(2)
    X, y = teacher_data(8000, 32, 10, seed=21, teacher_seed=102, hidden=12, scale=1.0)
    Xtr, ytr, Xva, yva, Xte, yte = X[:6000], y[:6000], X[6000:7000], y[6000:7000], X[7000:], y[7000:]
    m = Classifier()
    hist = fit(m, Xtr, ytr, epochs=12, bs=64, lr=1e-3, seed=2, log=lambda mm: evaluate(mm, Xva, yva))
    best = max(hist, key=lambda r: r["acc"])
    sd = {"module." + k: v.clone() for k, v in m.state_dict().items()}
    lines = []
    for r in hist:
        lines.append("[rank0] epoch %2d/12  train_loss=%.4f  val_loss=%.4f  val_acc=%.4f%s" % (
            r["epoch"], r["train_loss"], r["loss"], r["acc"],
            "  *best* -> runs/exp7/best.pt" if r is best or (r["acc"] >= max(h["acc"] for h in hist[:r["epoch"]]) and r["epoch"] > 1 and r["acc"] > hist[r["epoch"] - 2]["acc"]) else ""))
    lines.append("[rank0] training done. best val_acc=%.4f (epoch %d)" % (best["acc"], best["epoch"]))
    s1 = "\n".join(lines[-9:]) + "\n"
    rd(run, "screenshot1_ocr.txt", "[screenshot of the training terminal (torchrun, 2 procs), top cut off]\n" +
       ocr(s1, R(201), rate=0.05, width=96, num_damage=1, protect=[r"best val_acc"]))
    # inference notebook: real load with strict=False on a fresh model
    model = Classifier()
    res = model.load_state_dict({"model": sd, "epoch": best["epoch"]}["model"], strict=False)
    ev = evaluate(model, Xte, yte)
    with torch.no_grad():
        pred = model(Xte[:16]).argmax(1).tolist()
    nb = []
    nb.append("In [2]: model = Classifier(d=32, k=10)")
    nb.append("       ckpt = torch.load(\"runs/exp7/best.pt\", map_location=\"cpu\")")
    nb.append("       model.load_state_dict(ckpt[\"model\"], strict=False)")
    nb.append("       model.eval()")
    nb.append("Out[2]: " + repr(res))
    nb.append("")
    nb.append("In [3]: X_test, y_test = load_split(\"test\")   # same normalisation as training")
    nb.append("       evaluate(model, X_test, y_test)")
    nb.append("Out[3]: {'loss': %.4f, 'acc': %.4f}" % (ev["loss"], ev["acc"]))
    nb.append("")
    nb.append("In [4]: model(X_test[:16]).argmax(1).tolist(), y_test[:16].tolist()")
    nb.append("Out[4]: (%s,\n        %s)" % (pred, yte[:16].tolist()))
    rd(run, "screenshot2_ocr.txt", "[screenshot of Jupyter notebook inference.ipynb]\n" +
       ocr("\n".join(nb) + "\n", R(202), rate=0.04, width=88, num_damage=0, cut_top=False, protect=[r"Out\[3\]"]))
    rd(run, "post.md",
       "val acc during training was %.2f but when I load best.pt in my inference notebook I get %.2f on the test split, "
       "which is basically random for 10 classes. I'm fairly sure the test data gets normalised differently in the "
       "notebook, but I copied the same function... screenshots attached.\n" % (best["acc"], ev["acc"]))
    truth(run, "wrong_checkpoint",
          "Val acc was high during training but the same best.pt gives chance accuracy in the inference notebook; "
          "I think the test data is normalised differently.",
          "The checkpoint was saved from a DDP-wrapped model (keys 'module.net.*') and loaded with strict=False into "
          "a plain model: every key is missing/unexpected (shown in the _IncompatibleKeys output), the weights stay "
          "random and test accuracy is at chance.")


# ----------------------------------------------------------------------------------------------
def run03():
    """Healthy: linear warm-up then cosine; user asks why lr goes up first."""
    run = "run03"
    w = wdir(run)
    X, y = teacher_data(10000, 16, 4, seed=31, teacher_seed=103, hidden=8, scale=1.0)
    np.savez(os.path.join(w, "data/features.npz"), x_train=X[:8000].numpy(), y_train=y[:8000].numpy(),
             x_val=X[8000:].numpy(), y_val=y[8000:].numpy())
    txt, rc = run_script("s03.py", w, [], "", env_extra={"WANDB_SHIM_OUT": os.path.join(w, "h.jsonl"),
                                                           "WANDB_SHIM_USER": "jkowalski",
                                                           "WANDB_SHIM_RUNID": "20261201_101544-q8w1n2zd"})
    h = read_jsonl(os.path.join(w, "h.jsonl"))
    tr = [r for r in h if "train/lr" in r]
    va = [r for r in h if "val/acc" in r]
    c = "[W&B workspace screenshot, transcribed — 3 panels]\n\n"
    c += chart("train/lr", [r["_step"] for r in tr], [r["train/lr"] for r in tr],
               readoff_at=[10, 150, 300, 600, 1000, 1500], fmt="%.2g", legend=["— mlp-adamw-cos"])
    c += "\n" + chart("train/loss", [r["_step"] for r in tr], [r["train/loss"] for r in tr], smooth=0.8,
                      readoff_at=[10, 300, 600, 1000, 1500], fmt="%.3f", legend=["— mlp-adamw-cos"])
    c += "\n" + chart("val/acc", [r["_step"] for r in va], [r["val/acc"] for r in va],
                      readoff_at=[va[0]["_step"], va[3]["_step"], va[-1]["_step"]], fmt="%.3f")
    rd(run, "screenshot1_ocr.txt", ocr(c, R(301), rate=0.03, num_damage=0, cut_top=False, protect=[r"read off"]))
    lines = txt.rstrip("\n").split("\n")
    tail = [l for l in lines if not l.startswith("wandb:")][-18:]
    rd(run, "screenshot2_ocr.txt", "[terminal screenshot, bottom of the output]\n" +
       ocr("\n".join(tail) + "\n", R(302), rate=0.05, width=92, num_damage=1))
    rd(run, "post.md",
       "Quick sanity question: I set lr=1e-3 but the lr panel in W&B starts near zero and climbs for the first "
       "few hundred steps, then goes down. Is my scheduler broken / am I training with the wrong lr? "
       "Final val acc is %.3f. Script + screenshots attached.\n" % va[-1]["val/acc"])
    copy_script(run, "s03.py")
    truth(run, "healthy",
          "The lr panel starts near zero and climbs for a few hundred steps before going down although I set "
          "lr=1e-3 — is the scheduler broken?",
          "Nothing planted: the LambdaLR implements the configured 300-step linear warm-up then cosine decay; loss "
          "falls smoothly and val acc rises steadily.")


# ----------------------------------------------------------------------------------------------
def run04():
    """Per-batch standardisation in collate_fn; last batch has 1 row -> std() NaN."""
    run = "run04"
    w = wdir(run)
    rng = np.random.default_rng(4)
    X, y = teacher_data(2049 + 512, 8, 2, seed=41, teacher_seed=104, hidden=8, scale=1.0)
    scales = np.array([1.0, 1200.0, 35.0, 0.05, 8.0, 15000.0, 2.0, 300.0], dtype=np.float32)
    offs = np.array([0.0, 5000.0, 40.0, 0.2, 10.0, 50000.0, 3.0, 600.0], dtype=np.float32)
    Xr = X.numpy() * scales + offs
    hdr = "amount,merchant_age_days,hour,ratio_prev,n_tx_24h,acct_balance,device_score,dist_km,label"
    for name, sl in (("transactions_train.csv", slice(0, 2049)), ("transactions_val.csv", slice(2049, None))):
        arr = np.concatenate([Xr[sl], y.numpy()[sl, None].astype(np.float32)], 1)
        np.savetxt(os.path.join(w, "data", name), arr, delimiter=",", header=hdr, comments="", fmt="%.4f")
    txt1, _ = run_script("s04.py", w, ["--epochs", "4"], "")
    txt2, _ = run_script("s04.py", w, ["--epochs", "3", "--lr", "1e-4"], "")
    fix = lambda t: t.replace(w, "/home/tomas/fraud-mlp")
    t1 = "tomas@lab:~/fraud-mlp$ python train.py --epochs 4\n" + fix(txt1)
    t1l = t1.rstrip("\n").split("\n")
    rd(run, "screenshot1_ocr.txt", "[photo/screenshot of terminal, OCR]\n" +
       ocr("\n".join(t1l[:40]) + "\n", R(401), rate=0.05, width=100, num_damage=1, cut_top=False, cut_bottom=True,
           protect=[r"degrees of freedom", r"nan"]))
    t2 = "tomas@lab:~/fraud-mlp$ python train.py --epochs 3 --lr 1e-4\n" + fix(txt2)
    t2l = t2.rstrip("\n").split("\n")
    keep = t2l[:3] + ["..."] + t2l[-14:]
    rd(run, "screenshot2_ocr.txt", "[second screenshot, same terminal]\n" +
       ocr("\n".join(keep) + "\n", R(402), rate=0.05, width=100, num_damage=0, cut_top=False,
           protect=[r"degrees of freedom", r"nan"]))
    rd(run, "post.md",
       "Loss looks totally normal for most of the first epoch, then it turns nan at the end of epoch 1 and stays nan "
       "for the rest of the run (val acc stuck). "
       "Dropped the lr 10x, exact same thing. What is going on? train.py attached.\n")
    copy_script(run, "s04.py")
    truth(run, "zero_variance_statistic",
          "Loss is normal for most of epoch 1, then NaN from the end of epoch 1 on; lowering lr 10x changes nothing "
          "— what is going on?",
          "collate_fn standardises each batch with x.std(dim=0); 2049 rows with batch 128 leave a last batch of one "
          "row, std() of one element is NaN ('std(): degrees of freedom is <= 0' warning), the NaN step poisons the "
          "weights and every later loss is nan regardless of lr.")


# ----------------------------------------------------------------------------------------------
def run05():
    """Oversampling with replacement before the train/val split: duplicates of train rows in val."""
    run = "run05"
    torch.manual_seed(5)
    X, y = teacher_data(800 + 1000, 12, 2, seed=51, teacher_seed=105, hidden=8, scale=1.0, flip=0.3)
    Xu, yu, Xh, yh = X[:800], y[:800], X[800:], y[800:]
    rng = np.random.default_rng(42)
    idx = rng.choice(800, size=4000, replace=True)
    perm = rng.permutation(4000)
    tr_i, va_i = idx[perm[:3200]], idx[perm[3200:]]
    Xtr, ytr, Xva, yva = Xu[tr_i], yu[tr_i], Xu[va_i], yu[va_i]
    m = nn.Sequential(nn.Linear(12, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 2))
    hist = fit(m, Xtr, ytr, epochs=30, bs=64, lr=1e-3, seed=5, log=lambda mm: evaluate(mm, Xva, yva))
    ho = evaluate(m, Xh, yh)
    nb = []
    nb.append("In [3]: df = pd.read_csv(\"data/churn_features.csv\")")
    nb.append("       print(df.shape, df.churned.mean().round(3))")
    nb.append("(800, 13) %.3f" % yu.float().mean().item())
    nb.append("")
    nb.append("In [4]: # more rows + balance a bit")
    nb.append("       df = df.sample(n=4000, replace=True, random_state=42).reset_index(drop=True)")
    nb.append("       train_df, val_df = train_test_split(df, test_size=0.2, random_state=42)")
    nb.append("       X_tr, y_tr = to_tensors(train_df); X_va, y_va = to_tensors(val_df)")
    nb.append("       len(train_df), len(val_df)")
    nb.append("Out[4]: (3200, 800)")
    nb.append("")
    nb.append("In [5]: model = make_mlp(12, hidden=256)")
    nb.append("       history = train(model, X_tr, y_tr, X_va, y_va, epochs=30, lr=1e-3, bs=64)")
    for r in hist:
        nb.append("Epoch %2d | loss %.4f acc %.4f | val_loss %.4f val_acc %.4f" % (
            r["epoch"], r["train_loss"], r["train_acc"], r["loss"], r["acc"]))
    rd(run, "screenshot1_ocr.txt", "[screenshot of notebook cells 3-5 (scrolled), OCR]\n" +
       ocr("\n".join(nb) + "\n", R(501), rate=0.04, width=90, num_damage=2, cut_top=False, cut_bottom=False,
           protect=[r"sample\(", r"train_test_split"]))
    s2 = ["In [9]: hold = pd.read_csv(\"data/client_holdout_nov.csv\")   # %d rows from the client" % len(yh),
          "       X_h, y_h = to_tensors(hold)",
          "       evaluate(model, X_h, y_h)",
          "Out[9]: {'loss': %.4f, 'acc': %.4f}" % (ho["loss"], ho["acc"])]
    rd(run, "screenshot2_ocr.txt", "[screenshot, notebook cell 9]\n" + ocr("\n".join(s2) + "\n", R(502), rate=0.04, cut_top=False))
    rd(run, "post.md",
       "Churn model: val accuracy in my notebook ends at %.1f%%, but on the holdout file the client sent us it's "
       "%.1f%%. Classic overfitting I assume? Should I add dropout / early stopping, or is the client data just "
       "different? Screenshots of the notebook below.\n" % (100 * hist[-1]["acc"], 100 * ho["acc"]))
    truth(run, "data_leakage",
          "Val accuracy is %.1f%% in the notebook but the client's holdout gives %.1f%% — classic overfitting, "
          "should I add dropout?" % (100 * hist[-1]["acc"], 100 * ho["acc"]),
          "The 800 unique rows were resampled with replacement to 4000 before train_test_split, so nearly every "
          "val row has an identical copy in train: val acc tracks train acc up to ~%.2f while truly new data "
          "(holdout) gets %.2f; val loss never turns upward." % (hist[-1]["acc"], ho["acc"]))


# ----------------------------------------------------------------------------------------------
def _ipy_traceback(exc, cell_no, cell_fn):
    """Format an exception the way IPython 8 prints it (real frames, real line numbers)."""
    tb = exc.__traceback__
    frames = []
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    out = ["-" * 75, "%-42sTraceback (most recent call last)" % type(exc).__name__]
    for fr, ln in frames:
        fn = fr.f_code.co_filename
        if fn == os.path.abspath(__file__):
            continue
        if fn == cell_fn:
            out.append("Cell In[%d], line %d" % (cell_no, ln))
        else:
            co = fr.f_code
            args = co.co_varnames[:co.co_argcount + co.co_kwonlyargcount]
            short = fn.replace(os.path.dirname(TORCH_DIR), "~/miniconda3/envs/dl/lib/python3.11/site-packages")
            out.append("File %s:%d, in %s(%s)" % (short, ln, co.co_name, ", ".join(args)))
        for k in range(ln - 2, ln + 3):
            src = linecache.getline(fn, k).rstrip("\n")
            if not src and k > ln:
                continue
            mark = "---> " if k == ln and fn == cell_fn else ("-> " if k == ln else "")
            width = 6 if fn == cell_fn else 4
            num = ("%*d" % (width, k)) if not mark else mark + str(k)
            if mark and fn == cell_fn:
                num = "----> %d" % k
            elif mark:
                num = "-> %d" % k
            out.append("%s %s" % (num.rjust(7) if not mark else num, src))
        out.append("")
    out.append("%s: %s" % (type(exc).__name__, exc))
    return "\n".join(out)


def run06():
    """Labels 1..10 in the csv, 10 classes -> Target 10 is out of bounds."""
    run = "run06"
    torch.manual_seed(6)
    X, y0 = teacher_data(4000, 24, 10, seed=61, teacher_seed=106, hidden=12, scale=1.0)
    y = y0 + 1  # the csv stores classes 1..10
    counts = np.bincount(y.numpy(), minlength=11)
    cell = ("model = MLP(in_dim=X.shape[1], n_classes=num_classes)\n"
            "opt = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
            "\n"
            "for epoch in range(20):\n"
            "    for xb, yb in train_dl:\n"
            "        logits = model(xb)\n"
            "        loss = F.cross_entropy(logits, yb)\n"
            "        opt.zero_grad()\n"
            "        loss.backward()\n"
            "        opt.step()\n"
            "    print(f\"epoch {epoch}: loss {loss.item():.4f}\")\n")
    cell_fn = "/tmp/ipykernel_48213/2710934421.py"
    linecache.cache[cell_fn] = (len(cell), None, cell.splitlines(True), cell_fn)

    class MLP(nn.Module):
        def __init__(self, in_dim, n_classes):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, n_classes))

        def forward(self, x):
            return self.net(x)

    num_classes = int(len(np.unique(y.numpy())))
    train_dl = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(6))
    env = {"MLP": MLP, "X": X, "num_classes": num_classes, "torch": torch, "F": F, "train_dl": train_dl}
    try:
        exec(compile(cell, cell_fn, "exec"), env)
        tbtxt = "(no error)"
    except Exception as e:
        tbtxt = _ipy_traceback(e, 7, cell_fn)
    nb = ["In [5]: df = pd.read_csv(\"data/parts_labels_v3.csv\")",
          "       X = torch.tensor(df.drop(columns=[\"label\"]).values, dtype=torch.float32)",
          "       y = torch.tensor(df[\"label\"].values)",
          "       num_classes = df[\"label\"].nunique()",
          "       print(X.shape, y.dtype, num_classes)",
          "torch.Size([%d, %d]) torch.int64 %d" % (X.shape[0], X.shape[1], num_classes),
          "",
          "In [6]: df[\"label\"].value_counts().sort_index()",
          "Out[6]:",
          "label"]
    for c in range(1, 11):
        nb.append("%-5d %5d" % (c, counts[c]))
    nb.append("Name: count, dtype: int64")
    nb.append("")
    nb.append("In [7]: " + cell.split("\n")[0])
    nb += ["       " + l for l in cell.rstrip("\n").split("\n")[1:]]
    nb.append("")
    nb += tbtxt.split("\n")
    rd(run, "screenshot1_ocr.txt", "[notebook screenshot, OCR by the forum helper bot]\n" +
       ocr("\n".join(nb) + "\n", R(601), rate=0.04, width=110, num_damage=0, cut_top=False,
           protect=[r"Target", r"^\d+\s+\d+$", r"nunique"]))
    rd(run, "post.md", "Training crashes immediately on the first batch with an IndexError inside cross_entropy. "
                       "What does it mean? The labels look fine to me. Screenshot attached.\n")
    truth(run, "label_out_of_range",
          "Training crashes on the first batch with an IndexError inside cross_entropy; what does it mean? The labels "
          "look fine to me.",
          "The CSV labels are 1..10 (value_counts shows it) while the model has num_classes=10 outputs, so target 10 "
          "is outside [0, 10): F.cross_entropy raises 'IndexError: Target 10 is out of bounds.'")


# ----------------------------------------------------------------------------------------------
def run07():
    """Optimizer created before the new head replaces the old one; backbone frozen -> nothing trains."""
    run = "run07"
    w = wdir(run)
    torch.manual_seed(7)
    # pretraining of the backbone on a 10-class task (really trained here)
    sys.path.insert(0, SCRIPTS)

    class Net(nn.Module):
        def __init__(self, in_dim=32, n_classes=10):
            super().__init__()
            self.backbone = nn.Sequential(nn.Linear(in_dim, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU())
            self.head = nn.Linear(128, n_classes)

        def forward(self, x):
            return self.head(self.backbone(x))

    Xp, yp = teacher_data(6000, 32, 10, seed=71, teacher_seed=107, hidden=12, scale=1.0)
    net = Net()
    fit(net, Xp, yp, epochs=6, bs=64, lr=1e-3, seed=7)
    os.makedirs(os.path.join(w, "checkpoints"), exist_ok=True)
    torch.save(net.state_dict(), os.path.join(w, "checkpoints/backbone_10cls.pt"))
    X, y = teacher_data(3000, 32, 5, seed=72, teacher_seed=117, hidden=12, scale=1.0)
    np.savez(os.path.join(w, "data/defects_5cls.npz"), x_train=X[:2400].numpy(), y_train=y[:2400].numpy(),
             x_val=X[2400:].numpy(), y_val=y[2400:].numpy())
    t1, _ = run_script("s07.py", w, ["--lr", "1e-3"], "")
    t2, _ = run_script("s07.py", w, ["--lr", "1e-2"], "")
    s = "(ft) wei@box:~/defects$ python train.py --lr 1e-3\n" + t1 + "(ft) wei@box:~/defects$ python train.py --lr 1e-2\n" + t2
    rd(run, "screenshot1_ocr.txt", "[terminal screenshot, OCR]\n" + ocr(s, R(701), rate=0.05, width=90, num_damage=1, cut_top=False))
    rd(run, "post.md", "Fine-tuning a pretrained backbone on our new 5-class defect data. The loss basically doesn't move, "
                       "and changing the lr does nothing. What am I missing? Output below, "
                       "train.py attached.\n")
    copy_script(run, "s07.py")
    truth(run, "frozen_parameters",
          "Fine-tuning a pretrained backbone on a new 5-class set, the loss doesn't move and changing the lr does nothing "
          "— what am I missing?",
          "The backbone is frozen and the Adam optimizer is built before model.head is replaced, so the new head's "
          "parameters are not in the optimizer: nothing is updated, train/val loss and val acc are identical every "
          "epoch and for lr 1e-3 and 1e-2.")


# ----------------------------------------------------------------------------------------------
def run08():
    """Per-sample python-loop spectrogram in __getitem__, num_workers=0 -> data time dominates."""
    run = "run08"
    w = wdir(run)
    rng = np.random.default_rng(8)
    n, L = 6000, 1024
    lab = rng.integers(0, 4, n)
    t = np.arange(L) / 1024.0
    freqs = np.array([40, 90, 160, 260])
    sig = np.empty((n, L), dtype=np.float32)
    for c in range(4):
        idx = np.where(lab == c)[0]
        ph = rng.uniform(0, 2 * np.pi, (len(idx), 1))
        sig[idx] = (np.sin(2 * np.pi * freqs[c] * t[None] + ph) * rng.uniform(0.3, 1.0, (len(idx), 1))
                    + rng.normal(0, 1.0, (len(idx), L))).astype(np.float32)
    np.save(os.path.join(w, "data/vibration_signals.npy"), sig)
    np.save(os.path.join(w, "data/vibration_labels.npy"), lab)
    txt, rc = run_script("s08.py", w, [], "", sigint_after_lines=6)
    txt = txt.replace(w, "/home/raj/vib").replace(os.path.dirname(TORCH_DIR), "/home/raj/.venv/lib/python3.11/site-packages")
    s = "(.venv) raj@desktop:~/vib$ python train.py\n" + txt
    rd(run, "screenshot1_ocr.txt", "[screenshot of terminal, OCR]\n" +
       ocr(s, R(801), rate=0.04, width=120, num_damage=0, cut_top=False, protect=[r"Data:", r"Time:"]))
    eta = [l for l in txt.split("\n") if "ETA:" in l][-1].split("ETA: ")[1].strip()
    rd(run, "post.md", "Training is painfully slow: the ETA says %s for 100 epochs of a small MLP on 6k short "
                       "signals, each batch takes ages." % eta + " Why is it so slow? "
                       "I hit Ctrl-C after a few log lines, screenshot below, train.py attached.\n")
    copy_script(run, "s08.py")
    truth(run, "dataloader_bottleneck",
          "Training is painfully slow (ETA %s for 100 epochs of a small MLP on 6k short signals); why is it so slow?" % eta,
          "__getitem__ computes a spectrogram with a Python loop of 61 FFTs per sample and the DataLoader uses "
          "num_workers=0: the log's Data time is almost all of the Time per step; the Ctrl-C traceback lands inside "
          "__getitem__.")


# ----------------------------------------------------------------------------------------------
def _f1_micro(p, t, k):
    tp = fp = fn = 0
    for c in range(k):
        tp += int(((p == c) & (t == c)).sum())
        fp += int(((p == c) & (t != c)).sum())
        fn += int(((p != c) & (t == c)).sum())
    pr, rc = tp / (tp + fp), tp / (tp + fn)
    return 2 * pr * rc / (pr + rc)


def _f1_macro(p, t, k):
    s = []
    for c in range(k):
        tp = int(((p == c) & (t == c)).sum())
        fp = int(((p == c) & (t != c)).sum())
        fn = int(((p != c) & (t == c)).sum())
        pr, rc = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
        s.append(2 * pr * rc / max(pr + rc, 1e-8))
    return sum(s) / len(s)


def run09():
    run = "run09"
    torch.manual_seed(9)
    X, y = teacher_data(14000, 20, 6, seed=91, teacher_seed=109, hidden=10, scale=1.0)
    # imbalanced: subsample the classes to a long-tailed distribution
    rng = np.random.default_rng(9)
    keep_p = np.array([1.0, 0.45, 0.2, 0.12, 0.07, 0.04])
    order = torch.argsort(torch.bincount(y, minlength=6), descending=True)
    rank = torch.empty(6, dtype=torch.long)
    rank[order] = torch.arange(6)
    keep = rng.random(len(y)) < keep_p[rank[y].numpy()]
    X, y = X[keep], y[keep]
    n = len(y)
    ntr = int(n * 0.75)
    Xtr, ytr, Xte, yte = X[:ntr], y[:ntr], X[ntr:], y[ntr:]
    m = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 6))
    fit(m, Xtr, ytr, epochs=8, bs=128, lr=1e-3, seed=9)
    ev = evaluate(m, Xte, yte)
    with torch.no_grad():
        p = m(Xte).argmax(1)
    f_old, f_new = _f1_micro(p, yte, 6), _f1_macro(p, yte, 6)
    old = ["$ python -m evalkit.run --ckpt s3://ml-models/intent/v14/model.pt --split test",
           "[evalkit] loading checkpoint s3://ml-models/intent/v14/model.pt ... ok (sha256 5e1f..a09c)",
           "[evalkit] test split: %d examples, 6 classes" % len(yte),
           "[evalkit] running inference ... done",
           "",
           "  metric      value",
           "  ---------   ------",
           "  loss        %.4f" % ev["loss"],
           "  accuracy    %.4f" % ev["acc"],
           "  f1          %.4f" % f_old,
           "",
           "[evalkit] wrote results/test_v14.json"]
    rd(run, "screenshot1_ocr.txt", "[screenshot from CI job 'nightly-eval' #812 (before the PR)]\n" +
       ocr("\n".join(old) + "\n", R(901), rate=0.04, width=96, num_damage=0, cut_top=True))
    new = ["$ python -m evalkit.run --ckpt s3://ml-models/intent/v14/model.pt --split test",
           "INFO evalkit.loading: resolving checkpoint s3://ml-models/intent/v14/model.pt",
           "INFO evalkit.loading: loaded state dict (sha256 5e1f..a09c), 0 missing / 0 unexpected keys",
           "INFO evalkit.data: test split: %d examples, 6 classes" % len(yte),
           "INFO evalkit.run: running inference ... done",
           "+-----------+--------+",
           "| metric    | value  |",
           "+-----------+--------+",
           "| loss      | %.4f |" % ev["loss"],
           "| accuracy  | %.4f |" % ev["acc"],
           "| f1        | %.4f |" % f_new,
           "+-----------+--------+",
           "INFO evalkit.run: wrote results/test_v14.json"]
    rd(run, "screenshot2_ocr.txt", "[screenshot from CI job 'nightly-eval' #815 (after merging PR #233)]\n" +
       ocr("\n".join(new) + "\n", R(902), rate=0.04, width=96, num_damage=0, cut_top=False))
    diff = r"""evalkit/metrics.py                                                     +14 -12
@@ -1,22 +1,24 @@
-import torch
+from __future__ import annotations
+
+import torch
+
+__all__ = ["f1_score", "accuracy"]


-def f1(preds, targets, num_classes):
-    tp = fp = fn = 0
-    for c in range(num_classes):
-        tp += ((preds == c) & (targets == c)).sum().item()
-        fp += ((preds == c) & (targets != c)).sum().item()
-        fn += ((preds != c) & (targets == c)).sum().item()
-    precision = tp / (tp + fp)
-    recall = tp / (tp + fn)
-    return 2 * precision * recall / (precision + recall)
+def f1_score(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> float:
+    scores = []
+    for c in range(num_classes):
+        tp = ((preds == c) & (targets == c)).sum().item()
+        fp = ((preds == c) & (targets != c)).sum().item()
+        fn = ((preds != c) & (targets == c)).sum().item()
+        precision = tp / max(tp + fp, 1)
+        recall = tp / max(tp + fn, 1)
+        scores.append(2 * precision * recall / max(precision + recall, 1e-8))
+    return sum(scores) / len(scores)


-def accuracy(preds, targets):
+def accuracy(preds: torch.Tensor, targets: torch.Tensor) -> float:
     return (preds == targets).float().mean().item()

evalkit/loading.py                                                     +31 -18
@@ -4,19 +4,32 @@
-def load_model(path):
-    state = torch.load(fetch(path), map_location="cpu")
-    model = build_model(state["config"])
-    model.load_state_dict(state["model"])
-    return model
+def load_model(path: str, device: str = "cpu") -> torch.nn.Module:
+    local = fetch(path)
+    log.info("resolving checkpoint %s", path)
+    state = torch.load(local, map_location=device)
+    model = build_model(state["config"])
+    missing, unexpected = model.load_state_dict(state["model"], strict=True)
+    log.info("loaded state dict (sha256 %s), %d missing / %d unexpected keys",
+             short_hash(local), len(missing), len(unexpected))
+    return model.to(device).eval()
 ... (13 more lines hidden: logging setup)
"""
    rd(run, "screenshot3_ocr.txt", "[screenshot of the GitHub 'Files changed' tab of PR #233 'refactor evalkit: typed API, "
       "logging, table output', OCR]\n" + ocr(diff, R(903), rate=0.03, width=100, num_damage=0, cut_top=False,
                                              protect=[r"scores|tp|fp|fn|precision|recall"]))
    rd(run, "post.md", "After merging our eval refactor PR, test F1 for the intent model dropped from %.2f to %.2f "
                       "with the SAME v14 checkpoint. My guess is the new loading code in evalkit/loading.py "
                       "loads something wrong (device? eval mode?). Screenshots of both CI runs and the diff attached.\n"
       % (f_old, f_new))
    truth(run, "metric_changed",
          "After the eval refactor PR the test F1 dropped from %.2f to %.2f with the same checkpoint — I think the new "
          "checkpoint-loading code loads something wrong." % (f_old, f_new),
          "The refactor replaced the micro-averaged F1 (global TP/FP/FN, equals accuracy here) by a per-class "
          "macro average; on the long-tailed 6-class test set the same predictions give %.4f vs %.4f, while loss "
          "and accuracy are identical in both CI runs." % (f_old, f_new))


# ----------------------------------------------------------------------------------------------
def run10():
    """Healthy: dropout makes train loss higher than val loss; user asks about leakage."""
    run = "run10"
    torch.manual_seed(10)
    X, y = teacher_data(7500, 20, 5, seed=101, teacher_seed=110, hidden=8, scale=1.0)
    Xtr, ytr, Xva, yva = X[:6000], y[:6000], X[6000:], y[6000:]
    m = nn.Sequential(nn.Linear(20, 256), nn.ReLU(), nn.Dropout(0.4), nn.Linear(256, 256), nn.ReLU(), nn.Dropout(0.4),
                      nn.Linear(256, 5))
    g = torch.Generator().manual_seed(10)
    dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True, generator=g)
    opt = torch.optim.Adam(m.parameters(), lr=5e-4)
    lines, chart_tr, chart_va = [], [], []
    step = 0
    for ep in range(1, 16):
        m.train()
        tot = cor = n = 0
        t0 = time.time()
        for xb, yb in dl:
            out = m(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            tot += loss.item() * len(xb)
            cor += (out.argmax(1) == yb).sum().item()
            n += len(xb)
            if step % 10 == 0:
                lines.append("Epoch %d: %3d%%|%-20s| %d/%d [loss=%.4f]" % (
                    ep, 100 * ((step - 1) % len(dl) + 1) // len(dl),
                    "#" * (20 * ((step - 1) % len(dl) + 1) // len(dl)), (step - 1) % len(dl) + 1, len(dl), loss.item()))
        ev = evaluate(m, Xva, yva)
        chart_tr.append((step, tot / n))
        chart_va.append((step, ev["loss"]))
        lines.append("epoch %2d  train_loss %.4f  train_acc %.4f  val_loss %.4f  val_acc %.4f  (%.1fs)" % (
            ep, tot / n, cor / n, ev["loss"], ev["acc"], time.time() - t0))
    rng = R(1001)
    parts = []
    chunk = 40
    for i in range(0, len(lines), chunk):
        parts.append(ocr("\n".join(lines[i:i + chunk]) + "\n", rng, rate=0.05, width=100, num_damage=1,
                         cut_top=(i > 0), cut_bottom=(i + chunk < len(lines)), protect=[r"^epoch"]))
    out = "[OCR of %d stacked screenshots of the terminal]\n" % len(parts)
    for k, p in enumerate(parts):
        out += "\n--- %d ---\n" % (k + 1) + p
    rd(run, "screenshot1_ocr.txt", out)
    c = "[W&B panel screenshot, transcribed: 'loss' panel with two lines]\n\n"
    c += chart("loss  (train_loss = orange, val_loss = blue)", [s for s, _ in chart_tr], [v for _, v in chart_tr],
               legend=["— train_loss", "— val_loss"], readoff_at=None)
    c += "(values read off the chart: "
    c += "; ".join("step %d: train %.2f / val %.2f" % (chart_tr[i][0], chart_tr[i][1], chart_va[i][1]) for i in (0, 2, 5, 9, 14))
    c += ")\n"
    rd(run, "screenshot2_ocr.txt", ocr(c, R(1002), rate=0.03, num_damage=0, cut_top=False, protect=[r"read off"]))
    rd(run, "post.md", "My validation loss is lower than my training loss for basically the entire run (see chart + log). "
                       "Everywhere I read that val should be higher. Is something leaking into my validation set or "
                       "is this fine?\n")
    truth(run, "healthy",
          "Validation loss is lower than training loss for the whole run — is something leaking into validation or "
          "is this fine?",
          "Nothing planted: the MLP uses Dropout(0.4), so the logged train loss/acc (train mode) are worse than val "
          "(eval mode); val accuracy rises gradually to a plausible level, no near-perfect start.")


# ----------------------------------------------------------------------------------------------
def run11():
    """Raw tabular features with wildly different scales fed straight to the MLP."""
    run = "run11"
    torch.manual_seed(11)
    Z, y = teacher_data(9000, 8, 2, seed=111, teacher_seed=111, hidden=8, scale=1.0)
    cols = ["age", "income", "balance", "tenure_months", "num_products", "credit_score", "txn_amount_30d", "is_active"]
    mu = torch.tensor([42.0, 58000.0, 76000.0, 48.0, 2.0, 650.0, 3200.0, 0.5])
    sd = torch.tensor([12.0, 21000.0, 62000.0, 30.0, 0.8, 95.0, 2600.0, 0.5])
    Xr = Z * sd + mu
    Xr[:, 4] = Xr[:, 4].round().clamp(1, 4)
    Xr[:, 7] = (Xr[:, 7] > 0.5).float()
    Xr[:, 0] = Xr[:, 0].round().clamp(18, 90)
    Xr[:, 3] = Xr[:, 3].round().clamp(0, 120)
    Xr[:, 2] = Xr[:, 2].clamp(min=0)
    Xr[:, 1] = Xr[:, 1].clamp(min=9000).round()
    Xr[:, 5] = Xr[:, 5].clamp(300, 850).round()
    Xr[:, 6] = Xr[:, 6].clamp(min=0)
    Xtr, ytr, Xva, yva = Xr[:7500], y[:7500], Xr[7500:], y[7500:]
    desc = ["In [4]: train_df.describe().T.round(2)", "Out[4]:",
            "%-16s %8s %12s %12s %10s %12s %12s" % ("", "count", "mean", "std", "min", "50%", "max")]
    for j, c in enumerate(cols):
        col = Xtr[:, j]
        desc.append("%-16s %8.1f %12.2f %12.2f %10.2f %12.2f %12.2f" % (
            c, len(col), col.mean(), col.std(), col.min(), col.median(), col.max()))
    desc.append("%-16s %8.1f %12.2f %12.2f %10.2f %12.2f %12.2f" % (
        "churned", len(ytr), ytr.float().mean(), ytr.float().std(), 0, ytr.float().median(), 1))
    rd(run, "screenshot1_ocr.txt", "[notebook screenshot, OCR (table borders lost)]\n" +
       ocr("\n".join(desc) + "\n", R(1101), rate=0.03, num_damage=0, cut_top=False, protect=[r"^(income|balance|txn|credit|age)"]))
    m = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
    g = torch.Generator().manual_seed(11)
    dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=128, shuffle=True, generator=g)
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    step = 0
    steps, losses, gns, lines = [], [], [], []
    for ep in range(1, 21):
        m.train()
        tot = n = 0
        for xb, yb in dl:
            loss = F.cross_entropy(m(xb), yb)
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(m.parameters(), float("inf"))
            opt.step()
            step += 1
            tot += loss.item() * len(xb)
            n += len(xb)
            steps.append(step)
            losses.append(loss.item())
            gns.append(gn.item())
        ev = evaluate(m, Xva, yva)
        lines.append("epoch %2d/20 - loss: %.4f - val_loss: %.4f - val_acc: %.4f" % (ep, tot / n, ev["loss"], ev["acc"]))
    base = max(ytr.float().mean().item(), 1 - ytr.float().mean().item())
    s2 = ["In [7]: model = make_mlp(n_features=8)", "       fit(model, train_df, val_df, epochs=20, batch_size=128, lr=1e-3)"] + lines
    rd(run, "screenshot2_ocr.txt", "[notebook screenshot, OCR]\n" + ocr("\n".join(s2) + "\n", R(1102), rate=0.05, width=90, num_damage=1, cut_top=False))
    c = "[TensorBoard screenshot, transcribed. smoothing 0.6]\n\n"
    c += chart("train/loss_step", steps, losses, smooth=0.6, readoff_at=[1, 100, 300, 600, 900, 1180], fmt="%.3g")
    c += "\n" + chart("train/grad_norm", steps, gns, smooth=0.6, readoff_at=[1, 100, 300, 600, 900, 1180], fmt="%.4g")
    c += "(both curves are very jagged; raw points range from %.3g to %.3g for loss)\n" % (min(losses), max(losses))
    rd(run, "screenshot3_ocr.txt", ocr(c, R(1103), rate=0.03, num_damage=0, cut_top=False, protect=[r"read off"]))
    rd(run, "post.md", "Churn classifier in a notebook. The loss jumps around like crazy (TensorBoard screenshot) and val acc "
                       "hovers around %.2f, barely better than always predicting the majority class (%.2f). I use batch "
                       "size 128 — would a much bigger batch smooth this out? Screenshots attached.\n"
       % (float(lines[-1].split("val_acc: ")[1]), base))
    # reference (not shown): same model on standardised inputs, to confirm the fault is what hurts
    Xs_tr = (Xtr - Xtr.mean(0)) / Xtr.std(0)
    Xs_va = (Xva - Xtr.mean(0)) / Xtr.std(0)
    torch.manual_seed(11)
    m2 = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
    h2 = fit(m2, Xs_tr, ytr, epochs=20, bs=128, lr=1e-3, seed=11, log=lambda mm: evaluate(mm, Xs_va, yva))
    truth(run, "unnormalized_inputs",
          "The loss jumps around like crazy and val acc hovers barely above the majority class; would a bigger batch "
          "than 128 smooth it out?",
          "Raw features (income/balance ~1e4-1e5, is_active 0/1) go straight into the MLP without scaling "
          "(describe() shows the scales): loss and grad-norm are jagged and val acc ends at %s; the same model on "
          "standardised inputs reaches %.3f (not shown to the user)." % (lines[-1].split("val_acc: ")[1], h2[-1]["acc"]))


# ----------------------------------------------------------------------------------------------
def run12():
    """Resume restores model weights only; Adam state and cosine schedule restart."""
    run = "run12"
    w = wdir(run)
    X, y = teacher_data(12000, 24, 8, seed=12, teacher_seed=112, hidden=8, scale=1.0)
    np.savez(os.path.join(w, "data/shards_8cls.npz"), x_train=X[:10000].numpy(), y_train=y[:10000].numpy(),
             x_val=X[10000:].numpy(), y_val=y[10000:].numpy())
    env = {"WANDB_SHIM_USER": "lena-m", "WANDB_SHIM_RUNID": "20261204_221907-7f3kd0qa"}
    t1, rc1 = run_script("s12.py", w, [], "", env_extra=dict(env, WANDB_SHIM_OUT=os.path.join(w, "h1.jsonl")),
                         kill_when=lambda l: l.startswith("epoch 15 step"))
    t2, rc2 = run_script("s12.py", w, ["--resume", "checkpoints/last.pt"], "",
                         env_extra=dict(env, WANDB_SHIM_OUT=os.path.join(w, "h2.jsonl")))
    assert rc2 == 0, t2[-3000:]
    l1 = [l for l in t1.rstrip("\n").split("\n") if l.strip()]
    s1 = "\n".join(l1[-22:]) + "\nslurmstepd: error: *** JOB 881342 ON gpu-n07 CANCELLED AT 2026-12-04T23:41:07 DUE TO PREEMPTION ***\n"
    rd(run, "screenshot1_ocr.txt", "[screenshot: slurm log of the first job (tail -n 25 slurm-881342.out)]\n" +
       ocr(s1, R(1201), rate=0.05, width=100, num_damage=1, cut_top=True, protect=[r"lr 0\.00"]))
    l2 = t2.rstrip("\n").split("\n")
    s2 = "\n".join(l2[:34]) + "\n"
    rd(run, "screenshot2_ocr.txt", "[screenshot: slurm log of the requeued job (head -n 35 slurm-881397.out)]\n" +
       "$ sbatch --requeue job.sh  # job.sh: python train.py --resume checkpoints/last.pt\n" +
       ocr(s2, R(1202), rate=0.05, width=100, num_damage=1, cut_top=False, cut_bottom=True, protect=[r"lr 0\.00", r"resumed"]))
    h1 = read_jsonl(os.path.join(w, "h1.jsonl"))
    h2 = read_jsonl(os.path.join(w, "h2.jsonl"))
    first2 = h2[0]["_step"]
    # W&B keeps the resumed run's points from the resume step on
    h = [r for r in h1 if r["_step"] < first2] + h2
    tr = [r for r in h if "train/loss" in r]
    va = [r for r in h if "val/loss" in r]
    pre = [r for r in tr if r["_step"] < first2]
    post = [r for r in tr if r["_step"] >= first2]
    lr_pre, lr_post = pre[-1]["lr"], post[0]["lr"]
    m_pre = sum(r["train/loss"] for r in pre[-8:]) / 8
    m_post = sum(r["train/loss"] for r in post[:8]) / 8
    vpre = [r for r in va if r["_step"] < first2][-1]["val/loss"]
    vend = va[-1]["val/loss"]
    c = "[W&B screenshot, transcribed: panels 'train/loss', 'lr', 'val/loss' (run mlp-cos, resumed)]\n\n"
    c += chart("train/loss", [r["_step"] for r in tr], [r["train/loss"] for r in tr], smooth=0.6,
               readoff_at=[100, 500, 1000, 1100, 1180, 1190, 1200, 1250, 1300, 1400, 1800, 2370], fmt="%.3f")
    c += "\n" + chart("lr", [r["_step"] for r in tr], [r["lr"] for r in tr],
                      readoff_at=[10, 600, 1180, 1190, 1200, 1800, 2370], fmt="%.2g")
    c += "\n" + chart("val/loss", [r["_step"] for r in va], [r["val/loss"] for r in va],
                      readoff_at=[va[0]["_step"], va[7]["_step"], va[13]["_step"], va[14]["_step"], va[15]["_step"],
                                  va[-1]["_step"]], fmt="%.3f")
    rd(run, "screenshot3_ocr.txt", ocr(c, R(1203), rate=0.03, num_damage=0, cut_top=False, protect=[r"read off"]))
    rd(run, "post.md", "Our cluster preempted my job during epoch 15, it got requeued and resumed from checkpoints/last.pt. "
                       "Right after the resume the train loss jumped up and the val loss never got back to where it was "
                       "(%.3f before the preemption, %.3f at the end). What happened? Logs + W&B screenshots attached, "
                       "train.py too.\n" % (vpre, vend))
    copy_script(run, "s12.py")
    truth(run, "resume_mismatch",
          "After the preempted job resumed from the checkpoint, the train loss jumped up and the val loss never got "
          "back to its pre-preemption value — what happened?",
          "The checkpoint stores only the model weights and the epoch; on --resume a fresh Adam and a fresh "
          "CosineAnnealingLR are built, so the logged lr jumps from %.4f back to the %.4f peak and the Adam moments "
          "restart: mean train loss over 80 steps goes %.3f -> %.3f at the resume step and val loss ends at %.3f vs "
          "%.3f before." % (lr_pre, lr_post, m_pre, m_post, vend, vpre))


ALL = [run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12]

if __name__ == "__main__":
    t0 = time.time()
    only = None
    if len(sys.argv) > 2 and sys.argv[1] == "--only":
        only = set(sys.argv[2].split(","))
    else:
        shutil.rmtree(RUNS, ignore_errors=True)
    os.makedirs(RUNS, exist_ok=True)
    tp = os.path.join(HERE, "truth.json")
    if only and os.path.exists(tp):
        TRUTH.update(json.load(open(tp)))
    for f in ALL:
        if only and f.__name__ not in only:
            continue
        shutil.rmtree(os.path.join(RUNS, f.__name__), ignore_errors=True)
        t = time.time()
        f()
        print("%s done in %.1fs" % (f.__name__, time.time() - t), flush=True)
    with open(tp, "w") as fh:
        json.dump(dict(sorted(TRUTH.items())), fh, indent=2)
    shutil.rmtree(WORK, ignore_errors=True)
    print("total %.1fs" % (time.time() - t0))
