#!/usr/bin/env python3
"""Generate 12 homework/autograder-style debugging runs by really training tiny torch models on CPU.

Usage: .venv/bin/python gen.py        (writes runs/ and truth.json next to this file)
"""
import json
import os
import shutil
import sys
import time

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))
from data import make_digits, make_tabular  # noqa: E402
from common import (run_script, format_tb, gradescope_json, gs_test, write, seed_all,  # noqa: E402
                    TORCH_DIR)

torch.set_num_threads(1)
RUNS = os.path.join(HERE, "runs")
WORK = os.path.join(HERE, ".work")
SUB = os.path.join(HERE, "gen_support", "submissions")
TRUTH = {}


def rd(p):
    return os.path.join(RUNS, p)


def wdir(name):
    p = os.path.join(WORK, name)
    os.makedirs(p, exist_ok=True)
    return p


def copy_sub(src, dst_dir, dst_name):
    os.makedirs(dst_dir, exist_ok=True)
    shutil.copy(os.path.join(SUB, src), os.path.join(dst_dir, dst_name))
    return os.path.join(dst_dir, dst_name)


def acc_of(pred, y):
    return float((np.asarray(pred) == np.asarray(y)).mean())


def pytest_report(root, tests, wall, py="3.11.9", extra_fail_text=None):
    """tests: list of (nodeid, passed, failure_text)."""
    lines = ["============================= test session starts ==============================",
             f"platform linux -- Python {py}, pytest-8.2.2, pluggy-1.5.0",
             f"rootdir: {root}", "plugins: timeout-2.3.1", f"collected {len(tests)} items", ""]
    n = len(tests)
    for i, (nid, ok, _) in enumerate(tests):
        pct = f"[{int(round(100 * (i + 1) / n)):3d}%]"
        s = f"{nid} {'PASSED' if ok else 'FAILED'}"
        lines.append(s + " " * max(1, 80 - len(s) - len(pct)) + pct)
    fails = [t for t in tests if not t[1]]
    if fails:
        lines += ["", "=" * 35 + " FAILURES " + "=" * 35]
        for nid, _, txt in fails:
            name = nid.split("::")[-1]
            lines.append(("_" * 29 + f" {name} " + "_" * 29))
            lines += ["", txt.rstrip(), ""]
        lines.append("=========================== short test summary info ============================")
        for nid, _, txt in fails:
            last = [l for l in txt.splitlines() if l.startswith("E ")]
            lines.append(f"FAILED {nid} - {last[0][2:].strip() if last else ''}")
    np_ = sum(1 for t in tests if t[1])
    summ = (f" {len(fails)} failed, {np_} passed in {wall:.2f}s " if fails else f" {np_} passed in {wall:.2f}s ")
    pad = (80 - len(summ)) // 2
    lines.append("=" * pad + summ + "=" * (80 - pad - len(summ)))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# run01: notebook export, course data sorted by class, student slices batches in order
# ---------------------------------------------------------------------------------------------
def run01():
    out = rd("run01")
    w = wdir("run01")
    X, y = make_digits(3000, seed=101, noise=5.0, sort_by_class=True)  # course file is sorted by label
    os.makedirs(os.path.join(w, "hw2_data"), exist_ok=True)
    np.savez(os.path.join(w, "hw2_data", "train.npz"), X=X, y=y)
    nb = copy_sub("r01_hw2_mlp.py", out, "hw2_mlp.py")
    stdout, exc, wall, g = run_script(nb, w)
    assert exc is None, exc
    # notebook cell outputs as the student copied them from Jupyter
    cells, cur = {}, None
    for line in stdout.splitlines():
        if line.startswith("torch.Size"):
            cells.setdefault(2, []).append(line)
        elif line.startswith("epoch"):
            cells.setdefault(4, []).append(line)
        else:
            cells.setdefault(5, []).append(line)
    txt = []
    for k in (2, 4, 5):
        txt.append(f"In [{k}]:")
        txt += cells[k]
        txt.append("")
    write(os.path.join(out, "notebook_output.txt"), "\n".join(txt))

    # ---- autograder: rebuild MLP from the notebook, load submitted weights, hidden test set ----
    t0 = time.time()
    Xt, yt = make_digits(2000, seed=9101, noise=5.0)
    Model = g["MLP"]
    m = Model()
    m.load_state_dict(torch.load(os.path.join(w, "mlp_weights.pt")))
    m.eval()
    with torch.no_grad():
        logits = m(torch.tensor(Xt) / 16.0)
    pred = logits.argmax(1).numpy()
    acc = acc_of(pred, yt)
    counts = np.bincount(pred, minlength=10)
    n_params = sum(p.numel() for p in m.parameters())
    wall_g = time.time() - t0
    T = "tests/test_hw2.py::"
    fail_txt = (
        "    def test_hidden_accuracy(submission, hidden_test):\n"
        "        model = submission.load_model(\"mlp_weights.pt\")\n"
        "        acc = accuracy(model, hidden_test.X, hidden_test.y)\n"
        ">       assert acc >= 0.90, f\"hidden test accuracy {acc:.4f} is below 0.90\"\n"
        f"E       AssertionError: hidden test accuracy {acc:.4f} is below 0.90\n"
        f"E       assert {acc:.4f} >= 0.9\n\n"
        "tests/test_hw2.py:58: AssertionError\n"
        "----------------------------- Captured stdout call -----------------------------\n"
        f"hidden test: {len(yt)} samples\n"
        f"predicted class counts: {counts.tolist()}")
    tests = [(T + "test_notebook_has_mlp_class", True, ""),
             (T + "test_forward_output_shape", True, ""),
             (T + "test_weights_load_strict", True, ""),
             (T + "test_at_least_one_hidden_layer", True, ""),
             (T + "test_param_budget", n_params < 100000, ""),
             (T + "test_hidden_accuracy", acc >= 0.90, fail_txt)]
    rep = pytest_report("/autograder/source", tests, wall_g)
    score = 50 if acc < 0.90 else 100
    rep += f"\nHW2 autograder -- total score: {score:.1f} / 100.0  (hidden accuracy is worth 50 pts)\n"
    write(os.path.join(out, "autograder_output.txt"), rep)
    TRUTH["run01"] = {
        "truth": "data_not_shuffled",
        "symptom": f"The autograder says my hidden-test accuracy is {acc:.2f}, but my training loss at the end is "
                   f"{g['losses'][-1]:.3f}?! How can the loss be that low and the accuracy that bad?",
        "how": "The course's train.npz is sorted by label and the notebook slices X_train[i:i+50] in order with no "
               "permutation; the per-batch loss log is a saw-tooth that drops within each class block and jumps at "
               "every class boundary/epoch start, and the final model predicts almost only the last classes "
               f"(hidden acc {acc:.3f}, predicted class counts {counts.tolist()}).",
    }


# ---------------------------------------------------------------------------------------------
# run02: healthy -- dropout makes the running train accuracy lower than val accuracy
# ---------------------------------------------------------------------------------------------
def run02():
    out = rd("run02")
    X, y = make_digits(4000, seed=201, noise=5.0)
    full = torch.utils.data.TensorDataset(torch.tensor(X) / 16.0, torch.tensor(y))
    tr, va = torch.utils.data.random_split(full, [3000, 1000], generator=torch.Generator().manual_seed(0))
    Xtr, ytr = full.tensors[0][tr.indices], full.tensors[1][tr.indices]
    Xva, yva = full.tensors[0][va.indices], full.tensors[1][va.indices]
    torch.manual_seed(3)
    m = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, 256), nn.ReLU(),
                      nn.Dropout(0.5), nn.Linear(256, 10))
    opt = torch.optim.Adam(m.parameters(), 1e-3)
    rows = []
    for e in range(10):
        m.train()
        perm = torch.randperm(3000)
        c, tl = 0, 0.0
        for i in range(0, 3000, 64):
            idx = perm[i:i + 64]
            o = m(Xtr[idx])
            loss = nn.functional.cross_entropy(o, ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            c += (o.argmax(1) == ytr[idx]).sum().item()
            tl += loss.item() * len(idx)
        m.eval()
        with torch.no_grad():
            o = m(Xva)
            vl = nn.functional.cross_entropy(o, yva).item()
            vacc = (o.argmax(1) == yva).float().mean().item()
        rows.append((e + 1, tl / 3000, c / 3000, vl, vacc))
    assert all(r[4] > r[2] for r in rows)
    Xt, yt = make_digits(2000, seed=9201, noise=5.0)
    with torch.no_grad():
        hacc = acc_of(m(torch.tensor(Xt) / 16.0).argmax(1).numpy(), yt)
    log = "\n".join(f"epoch {r[0]:2d} | train loss {r[1]:.3f} acc {r[2]:.3f} | val loss {r[3]:.3f} acc {r[4]:.3f}"
                    for r in rows)
    post = f"""# [HW3 Q2] Val accuracy higher than train accuracy every epoch -- did I split wrong?

**Posted in:** hw3 > q2-mlp  ·  **Anonymous to classmates**  ·  14 views

Hi! Gradescope gave me full marks on Q2 (hidden test accuracy {hacc:.3f}), so I'm not worried about the grade, but my
log looks weird to me: validation accuracy is higher than training accuracy in *every* epoch. My study-group
partner said that usually means data leakage and that I might lose points on the written part if I report it.

I split like this (Digits8x8 `train.npz`, 4000 samples):

```python
full = TensorDataset(torch.tensor(X) / 16.0, torch.tensor(y))
train_set, val_set = random_split(full, [3000, 1000], generator=torch.Generator().manual_seed(0))
```

Model is the one from the handout: 64 -> 256 -> 256 -> 10 with ReLU and `nn.Dropout(0.5)` after each hidden layer,
Adam lr 1e-3, batch 64. Train accuracy is the running accuracy over the batches of the epoch, val is computed
after the epoch with `model.eval()`.

```
{log}
```

Is this ok or should I re-split? Thanks!
"""
    write(os.path.join(out, "post.md"), post)
    TRUTH["run02"] = {
        "truth": "healthy",
        "symptom": "My validation accuracy is higher than my training accuracy in every epoch -- a friend said "
                   "that means data leakage. Is my split wrong? (Gradescope gave me full marks.)",
        "how": "Nothing planted: a clean random_split and an MLP with Dropout(0.5); the running train accuracy is "
               "measured with dropout active while val uses eval(), so val is a few points above train; hidden "
               f"test accuracy {hacc:.3f} matches val.",
    }


# ---------------------------------------------------------------------------------------------
# run03: softmax layer inside the model, CrossEntropyLoss on top
# ---------------------------------------------------------------------------------------------
def run03():
    out = rd("run03")
    w = wdir("run03")
    os.makedirs(os.path.join(w, "data"), exist_ok=True)
    X, y = make_digits(3000, seed=301, noise=5.0)
    Xv, yv = make_digits(800, seed=302, noise=5.0)
    np.savez(os.path.join(w, "data", "train.npz"), X=X, y=y)
    np.savez(os.path.join(w, "data", "val.npz"), X=Xv, y=yv)
    path = copy_sub("r03_train.py", out, "train.py")
    stdout, exc, wall, g = run_script(path, w)
    assert exc is None, exc
    write(os.path.join(out, "train_output.txt"), "$ python train.py\n" + stdout)
    # ---- autograder ----
    t0 = time.time()
    Xt, yt = make_digits(2000, seed=9301, noise=5.0)
    m = g["DigitNet"]()
    m.load_state_dict(torch.load(os.path.join(w, "model.pt")))
    P = g["predict_proba"](m, Xt)
    rows_ok = bool(np.allclose(P.sum(1), 1.0, atol=1e-4))
    acc = acc_of(P.argmax(1), yt)
    ll = float(-np.mean(np.log(np.clip(P[np.arange(len(yt)), yt], 1e-15, 1))))
    pmax = float(P.max())
    et = time.time() - t0 + wall
    tests = [
        gs_test("1.1 DigitNet can be constructed", "1.1", 5, True, "ok"),
        gs_test("1.2 model.pt loads into DigitNet", "1.2", 5, True, "ok"),
        gs_test("1.3 predict_proba returns (N, 10) with rows summing to 1", "1.3", 10, rows_ok,
                f"shape={tuple(P.shape)}, max |row sum - 1| = {np.abs(P.sum(1) - 1).max():.2e}"),
        gs_test("2.1 Hidden test accuracy >= 0.90", "2.1", 40, acc >= 0.90,
                f"Expected accuracy >= 0.90, got {acc:.4f} on 2000 hidden samples."),
        gs_test("2.2 Hidden test log-loss <= 0.35", "2.2", 20, ll <= 0.35,
                f"Expected log-loss <= 0.35, got {ll:.4f}. (largest probability your model assigned to any class "
                f"on the hidden set: {pmax:.4f})"),
        gs_test("3.1 Runtime under 10 minutes", "3.1", 0, True, f"{wall:.1f}s"),
    ]
    write(os.path.join(out, "results.json"), gradescope_json(tests, et))
    last = stdout.strip().splitlines()[-2]
    TRUTH["run03"] = {
        "truth": "double_softmax",
        "symptom": f"My training loss won't go below ~{float(last.split('train_loss=')[1].split()[0]):.2f} and Gradescope "
                   f"fails my log-loss test ({ll:.2f} > 0.35) even though the accuracy test passes. What am I doing wrong?",
        "how": "DigitNet ends with nn.Softmax(dim=1) and is trained with nn.CrossEntropyLoss, so the loss is computed "
               "on softmaxed probabilities: train loss floors near 1.5 and falls slowly in the first epochs; predict_proba "
               "softmaxes the already-softmaxed output again, so the grader's probabilities never exceed e/(e+9)~0.232 "
               f"(max {pmax:.4f}) and log-loss is {ll:.3f} while accuracy is fine ({acc:.3f}).",
    }


# ---------------------------------------------------------------------------------------------
# run04: a few empty cells in the course CSV -> NaN features reach the model at one batch
# ---------------------------------------------------------------------------------------------
COLS = ["attendance_rate", "quiz_avg", "hw_minutes", "lab_score", "forum_posts", "office_hours_min",
        "late_days", "lms_clicks", "midterm_z", "reading_pages", "prereq_gpa", "video_minutes"]


def write_csv(path, X, y):
    with open(path, "w") as f:
        f.write(",".join(COLS + ["outcome"]) + "\n")
        for row, lab in zip(X, y):
            f.write(",".join("" if np.isnan(v) else f"{v:g}" for v in row) + f",{lab}\n")


def run04():
    out = rd("run04")
    w = wdir("run04")
    os.makedirs(os.path.join(w, "data"), exist_ok=True)
    X, y, miss = make_tabular(4000, seed=401, n_missing=3)
    write_csv(os.path.join(w, "data", "train.csv"), X, y)
    path = copy_sub("r04_train.py", out, "train.py")
    out1, exc, wall1, _ = run_script(path, w, ["--lr", "1e-3"])
    assert exc is None, exc
    # ---- autograder on the submitted model.pt / col_max.npy (from the lr=1e-3 run) ----
    tg = time.time()
    Xt, yt, _ = make_tabular(1500, seed=9401)
    m = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
    m.load_state_dict(torch.load(os.path.join(w, "model.pt")))
    cm = np.load(os.path.join(w, "col_max.npy"))
    with torch.no_grad():
        logits = m(torch.tensor(Xt / cm, dtype=torch.float32))
    n_nan = int(torch.isnan(logits).any(1).sum())
    pred = logits.argmax(1).numpy()
    acc = acc_of(pred, yt)
    counts = np.bincount(pred, minlength=3).tolist()
    tg = time.time() - tg
    out2, exc, wall2, _ = run_script(path, w, ["--lr", "1e-5", "--epochs", "1"])
    assert exc is None, exc
    write(os.path.join(out, "run_lr1e-3.log"), "$ python train.py --lr 1e-3\n" + out1)
    write(os.path.join(out, "run_lr1e-5.log"), "$ python train.py --lr 1e-5 --epochs 1\n" + out2)
    tests = [
        gs_test("Q1 submission files present (train.py, model.pt, col_max.npy)", "1", 5, True, "ok"),
        gs_test("Q2 model.pt loads into reference architecture 12-64-64-3", "2", 5, True, "ok"),
        gs_test("Q3 logits are finite", "3", 10, n_nan == 0,
                f"{n_nan}/{len(yt)} test rows produced non-finite logits."),
        gs_test("Q4 hidden test accuracy >= 0.80", "4", 60, acc >= 0.80,
                f"Expected >= 0.80, got {acc:.4f}. Predicted class counts: {counts}"),
    ]
    write(os.path.join(out, "gradescope_results.json"),
          gradescope_json(tests, wall1 + tg, output="Loaded model.pt and col_max.npy; scaled test features with "
                          "your col_max; 1500 hidden rows."))
    first_nan = next(l for l in out1.splitlines() if "loss nan" in l)
    TRUTH["run04"] = {
        "truth": "nan_in_data",
        "symptom": "My loss suddenly turns into nan in the first epoch and Gradescope gives me almost nothing. "
                   "I lowered the learning rate from 1e-3 to 1e-5 like the FAQ says and it still happens.",
        "how": f"data/train.csv has {len(miss)} empty cells (rows {miss}); genfromtxt turns them into NaN and the "
               "nanmax-based scaling keeps them, so the loss is finite and grad-norm small until the first shuffled "
               f"batch holding such a row ('{first_nan.strip()}'), identical for lr 1e-3 and 1e-5; the weights then "
               f"stay NaN and the grader's logits are all NaN (acc {acc:.3f}).",
    }


# ---------------------------------------------------------------------------------------------
# run05: StepLR meant per epoch but stepped after every batch
# ---------------------------------------------------------------------------------------------
def run05():
    out = rd("run05")
    w = wdir("run05")
    os.makedirs(os.path.join(w, "data"), exist_ok=True)
    X, y = make_digits(3000, seed=501, noise=5.0)
    Xv, yv = make_digits(800, seed=502, noise=5.0)
    np.savez(os.path.join(w, "data", "train.npz"), X=X, y=y)
    np.savez(os.path.join(w, "data", "val.npz"), X=Xv, y=yv)
    shutil.copy(os.path.join(SUB, "r05_config.yaml"), os.path.join(w, "config.yaml"))
    path = copy_sub("r05_train.py", out, "train.py")
    shutil.copy(os.path.join(SUB, "r05_config.yaml"), os.path.join(out, "config.yaml"))
    stdout, exc, wall, g = run_script(path, w)
    assert exc is None, exc
    write(os.path.join(out, "train_log.txt"), stdout)
    # ---- autograder: best.pt on hidden test ----
    Xt, yt = make_digits(2000, seed=9501, noise=5.0)
    tg = time.time()
    m = g["build_model"](128)
    m.load_state_dict(torch.load(os.path.join(w, "best.pt")))
    m.eval()
    with torch.no_grad():
        acc = acc_of(m(torch.tensor(Xt / 16.0, dtype=torch.float32)).argmax(1).numpy(), yt)
    pts = 50 if acc >= 0.90 else (35 if acc >= 0.80 else (20 if acc >= 0.60 else 0))
    tests = [
        gs_test("A3.1 best.pt present and loads", "A3.1", 10, True, "Loaded best.pt (state_dict, 3 Linear layers)."),
        gs_test("A3.2 config.yaml has required keys", "A3.2", 5, True, "ok"),
        gs_test("A3.3 Hidden test accuracy (tiered: 0.60 / 0.80 / 0.90)", "A3.3", 50, pts == 50,
                f"Hidden test accuracy: {acc:.4f} -> {pts}/50 points (full credit at >= 0.90).", score=pts),
        gs_test("A3.4 Training log submitted", "A3.4", 5, True, "ok"),
    ]
    write(os.path.join(out, "results.json"), gradescope_json(tests, time.time() - tg))
    best = float(stdout.strip().splitlines()[-1].split()[-1])
    TRUTH["run05"] = {
        "truth": "lr_schedule_bug",
        "symptom": f"My val accuracy gets to about {best:.2f} in the first few epochs and then never moves for the "
                   "rest of the 30 epochs. I think my model is underfitting -- should I make the hidden layer bigger?",
        "how": "config says halve the lr every 20 epochs, but train.py calls scheduler.step() after every batch, so the "
               "lr is halved every 20 batches and is below 1e-3 by epoch 3 and ~1e-23 at the end (the log's lr "
               "column); train loss and val accuracy freeze from epoch 4 on and the grader's hidden accuracy is {acc:.3f}.",
    }


# ---------------------------------------------------------------------------------------------
# run06: course .npz (MATLAB heritage) labels digit 0 as 10 -> CrossEntropyLoss target out of range
# ---------------------------------------------------------------------------------------------
def run06():
    out = rd("run06")
    w = wdir("run06")
    X, y = make_digits(5000, seed=601, noise=5.0)
    y_mat = np.where(y == 0, 10, y).reshape(-1, 1).astype(np.uint8)  # as distributed: 1..10
    np.savez(os.path.join(w, "hw3_digits.npz"), X=X, y=y_mat)
    path = os.path.join(w, "train_nn.py")
    shutil.copy(os.path.join(SUB, "r06_train.py"), path)
    stdout, exc, wall, _ = run_script(path, w)
    assert isinstance(exc, IndexError), exc
    tb = format_tb(exc, [(path, "/Users/jchen/Documents/ml-course/hw3/train_nn.py"),
                         (TORCH_DIR, "/Users/jchen/miniforge3/envs/ml/lib/python3.11/site-packages/torch")])
    code = open(path).read().strip()
    post = f"""**IndexError: Target 10 is out of bounds -- HW3 Problem 4**

Posted by Jamie C. (student) in `hw3`

My training crashes on the very first batch. I printed the output shape and it is (64, 10), which matches the
10 digit classes, so I don't get what is out of bounds. Code (the loading part is from the starter notebook):

```python
{code}
```

Output:

```
$ python train_nn.py
{stdout.rstrip()}
{tb.rstrip()}
```
"""
    write(os.path.join(out, "post.md"), post)
    TRUTH["run06"] = {
        "truth": "label_out_of_range",
        "symptom": "Training crashes on the very first batch with an IndexError inside cross_entropy, but my output "
                   "shape is (64, 10), which matches the 10 classes. What is out of bounds?",
        "how": "The course file stores labels 1..10 (digit 0 is labelled 10, MATLAB style) and the script feeds them "
               "unchanged to a 10-output CrossEntropyLoss; the real traceback ends in 'IndexError: Target 10 is out "
               "of bounds.' on the first batch.",
    }


# ---------------------------------------------------------------------------------------------
# run07: Colab disconnect, resume restores only the weights (fresh SGD momentum + fresh StepLR)
# ---------------------------------------------------------------------------------------------
def run07():
    out = rd("run07")
    X, y = make_digits(3000, seed=701, noise=6.0)
    Xv, yv = make_digits(1000, seed=702, noise=6.0)
    X, y, Xv, yv = torch.tensor(X) / 16, torch.tensor(y), torch.tensor(Xv) / 16, torch.tensor(yv)

    def mk():
        return nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))

    def mkopt(m):
        opt = torch.optim.SGD(m.parameters(), 0.1, momentum=0.9, weight_decay=5e-4)
        return opt, torch.optim.lr_scheduler.StepLR(opt, 10, 0.1)

    ckpt = "/content/drive/MyDrive/ml-hw/a3/ckpt"
    E, nb = 30, (3000 + 63) // 64

    def epoch(m, opt, sch, e, log, stop_after=None):
        m.train()
        perm = torch.randperm(3000)
        tl, t0 = 0.0, time.time()
        for b, i in enumerate(range(0, 3000, 64)):
            idx = perm[i:i + 64]
            loss = nn.functional.cross_entropy(m(X[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(idx)
            if (b + 1) % 10 == 0:
                log.append(f"  [epoch {e:2d}/{E}] step {b + 1:2d}/{nb}  loss {loss.item():.4f}")
            if stop_after and b + 1 == stop_after:
                return None
        m.eval()
        with torch.no_grad():
            o = m(Xv)
            vl = nn.functional.cross_entropy(o, yv).item()
            va = (o.argmax(1) == yv).float().mean().item()
        lr = sch.get_last_lr()[0]
        log.append(f"Epoch {e:2d}/{E} | lr {lr:.2e} | train_loss {tl / 3000:.4f} | val_loss {vl:.4f} | "
                   f"val_acc {va:.4f} | {time.time() - t0:.2f}s | saved {ckpt}/epoch_{e:02d}.pt")
        sch.step()
        return va

    torch.manual_seed(0)
    m = mk()
    opt, sch = mkopt(m)
    log1 = ["Mounted at /content/drive", f"train: {len(X)}  val: {len(Xv)}", "epochs: 30, batch 64, SGD(lr=0.1, "
            "momentum=0.9, wd=5e-4), StepLR(step_size=10, gamma=0.1)", ""]
    accs = {}
    for e in range(1, 13):
        accs[e] = epoch(m, opt, sch, e, log1)
    sd = {k: v.clone() for k, v in m.state_dict().items()}
    epoch(m, opt, sch, 13, log1, stop_after=27)       # runtime disconnected part-way through epoch 13
    write(os.path.join(out, "colab_session1.log"), "\n".join(log1) + "\n")

    m = mk()
    m.load_state_dict(sd)
    opt, sch = mkopt(m)
    log2 = ["Mounted at /content/drive", f"train: {len(X)}  val: {len(Xv)}", "epochs: 30, batch 64, SGD(lr=0.1, "
            "momentum=0.9, wd=5e-4), StepLR(step_size=10, gamma=0.1)",
            f"Found checkpoint {ckpt}/epoch_12.pt -> resuming at epoch 13", ""]
    for e in range(13, 31):
        accs[e] = epoch(m, opt, sch, e, log2)
    write(os.path.join(out, "colab_session2.log"), "\n".join(log2) + "\n")
    tg = time.time()
    Xt, yt = make_digits(2000, seed=9701, noise=6.0)
    m.eval()
    with torch.no_grad():
        hacc = acc_of(m(torch.tensor(Xt) / 16).argmax(1).numpy(), yt)
    tests = [gs_test("final.pt loads", "1", 10, True, "ok"),
             gs_test("Hidden test accuracy >= 0.88", "2", 40, hacc >= 0.88,
                     f"Expected >= 0.88, got {hacc:.4f}"),
             gs_test("Written answers uploaded", "3", 0, True, "Manually graded.")]
    write(os.path.join(out, "gradescope_results.json"), gradescope_json(tests, time.time() - tg))
    post = f"""### A3: student's accuracy got worse after resuming on Colab -- ideas? (instructors only)

Posted by **TA Priya** · private to instructors

Hi all, a student came to OH with this and I couldn't explain it. Their Colab runtime disconnected during epoch
13 of 30; they re-ran the notebook, it picked up `epoch_12.pt` from Drive and trained to epoch 30. Val accuracy
was {accs[12]:.3f} at epoch 12 but only {accs[30]:.3f} at the end, and Gradescope gives {hacc:.4f} on the hidden
set (threshold 0.88). The student asks whether they can just submit the epoch-12 checkpoint instead, but I'd
rather understand why 18 more epochs made it worse. Both logs attached. Architecture is the standard 64-256-256-10
MLP from the handout.
"""
    write(os.path.join(out, "post.md"), post)
    TRUTH["run07"] = {
        "truth": "resume_mismatch",
        "symptom": f"Val accuracy was {accs[12]:.3f} when Colab disconnected at epoch 12, but after resuming it "
                   f"finished at {accs[30]:.3f} and Gradescope gives {hacc:.3f}. Why would 18 more epochs make it worse?",
        "how": "The resume path reloads only the model weights and builds a fresh SGD (momentum buffer lost) and a "
               "fresh StepLR, so the lr jumps from 1e-2 back to 1e-1 at epoch 13 (loss jumps up, val drops) and the "
               "run ends at lr 1e-2 instead of 1e-3; visible in the lr column of the two logs.",
    }


# ---------------------------------------------------------------------------------------------
# run08: healthy -- normal mini-batch noise in a long step log, full marks
# ---------------------------------------------------------------------------------------------
def run08():
    out = rd("run08")
    X, y = make_digits(6000, seed=801, noise=5.0)
    Xv, yv = make_digits(1000, seed=802, noise=5.0)
    X, y, Xv, yv = torch.tensor(X) / 16, torch.tensor(y), torch.tensor(Xv) / 16, torch.tensor(yv)
    torch.manual_seed(8)
    m = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    cfg = "model: mlp\nhidden: [128, 128]\nactivation: relu\noptimizer: adam\nlr: 0.001\nbatch_size: 32\n" \
          "epochs: 8\nseed: 8\nlog_every: 5\n"
    write(os.path.join(out, "config.yaml"), cfg)
    log = [f"[{0:6.1f}s] loaded Digits8x8: train={len(X)} val={len(Xv)}",
           f"[{0:6.1f}s] params: {sum(p.numel() for p in m.parameters())}"]
    t0 = time.time()
    step = 0
    logged = []
    for e in range(1, 9):
        m.train()
        perm = torch.randperm(len(X))
        for i in range(0, len(X), 32):
            idx = perm[i:i + 32]
            loss = nn.functional.cross_entropy(m(X[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 5 == 0:
                log.append(f"[{time.time() - t0:6.1f}s] epoch {e:2d} step {step:5d}  loss {loss.item():.4f}")
                logged.append((step, loss.item()))
        m.eval()
        with torch.no_grad():
            o = m(Xv)
            va = (o.argmax(1) == yv).float().mean().item()
            vl = nn.functional.cross_entropy(o, yv).item()
        log.append(f"[{time.time() - t0:6.1f}s] ===> epoch {e:2d} done  val_loss {vl:.4f}  val_acc {va:.4f}")
    write(os.path.join(out, "train_log.txt"), "\n".join(log) + "\n")
    tg = time.time()
    Xt, yt = make_digits(2000, seed=9801, noise=5.0)
    with torch.no_grad():
        hacc = acc_of(m(torch.tensor(Xt) / 16).argmax(1).numpy(), yt)
    tests = [gs_test("Part 1: model loads", "1", 10, True, "ok"),
             gs_test("Part 2: hidden test accuracy >= 0.90", "2", 70, hacc >= 0.90,
                     f"Expected >= 0.90, got {hacc:.4f}"),
             gs_test("Part 3: config.yaml present", "3", 20, True, "ok")]
    write(os.path.join(out, "results.json"), gradescope_json(tests, time.time() - tg))
    assert hacc >= 0.90
    # the biggest upward jump between consecutive logged steps in the second half of training
    late = [(a, b) for a, b in zip(logged, logged[1:]) if a[0] > step // 2]
    a, b = max(late, key=lambda ab: ab[1][1] - ab[0][1])
    TRUTH["run08"] = {
        "truth": "healthy",
        "symptom": f"I got full marks, but my loss jumps around a lot late in training (e.g. {a[1]:.2f} at step "
                   f"{a[0]} then {b[1]:.2f} at step {b[0]}). Is my learning rate too high, or is that normal?",
        "how": "Nothing planted: a 2x128 MLP, Adam 1e-3, batch 32, 8 epochs; the per-step loss is logged from single "
               "32-sample batches so it fluctuates, while the per-epoch val loss falls and settles (val acc ~0.95, no "
               f"sustained rise) and the hidden test accuracy is {hacc:.3f}.",
    }


# ---------------------------------------------------------------------------------------------
# run09: BatchNorm1d + drop_last=False; grader's training subset leaves a last batch of 1 sample
# ---------------------------------------------------------------------------------------------
GRADER_A4 = """import numpy as np


def accuracy(pred, y):
    return float((np.asarray(pred) == np.asarray(y)).mean())


def test_train_small(submission, X_small, y_small):
    print(f"[grader] train_model on X_small {X_small.shape}, y_small {y_small.shape}")
    model = submission.train_model(X_small, y_small)
    return model


def test_hidden_accuracy(submission, model, X_test, y_test, threshold=0.85):
    acc = accuracy(submission.predict(model, X_test), y_test)
    assert acc >= threshold, f"hidden accuracy {acc:.4f} < {threshold}"
    return acc
"""


def run09():
    out = rd("run09")
    w = wdir("run09")
    X, y = make_digits(3600, seed=901, noise=5.0)
    np.savez(os.path.join(w, "a4_data.npz"), X=X, y=y)
    path = copy_sub("r09_train.py", out, "train.py")
    stdout, exc, wall, _ = run_script(path, w)
    assert exc is None, exc
    write(os.path.join(out, "local_run.txt"), "$ python train.py\n" + stdout)
    # ---- autograder ----
    from common import import_module
    gpath = os.path.join(w, "test_a4.py")
    write(gpath, GRADER_A4)
    grader = import_module(gpath, "test_a4")
    sub = import_module(os.path.join(out, "train.py"), "submission_a4")
    Xs, ys = make_digits(1089, seed=9901, noise=5.0)
    import io
    import contextlib
    buf = io.StringIO()
    t0 = time.time()
    err = None
    with contextlib.redirect_stdout(buf):
        try:
            grader.test_train_small(sub, Xs, ys)
        except Exception as e:  # noqa
            err = e
    et = time.time() - t0
    assert isinstance(err, ValueError), err
    tb = format_tb(err, [(gpath, "/autograder/source/tests/test_a4.py"),
                         (os.path.join(out, "train.py"), "/autograder/submission/train.py"),
                         (TORCH_DIR, "/usr/local/lib/python3.11/site-packages/torch")])
    tests = [
        gs_test("0) Submission imports (train_model, predict present)", "0", 5, True, ""),
        gs_test("1) train_model runs on the autograder's training subset", "1", 25, False,
                buf.getvalue() + "Test Failed: " + str(err) + "\n\n" + tb),
        gs_test("2) Hidden test accuracy >= 0.85", "2", 60, False,
                "Skipped: depends on test 1 (no trained model)."),
        gs_test("3) Runtime < 300 s", "3", 10, True, f"{et:.2f}s"),
    ]
    write(os.path.join(out, "results.json"), gradescope_json(tests, et))
    vacc = stdout.strip().splitlines()[-1].split()[-1]
    post = f"""## A4 autograder crashes in batch_norm but my code runs fine locally

Posted by Anonymous Atom (student) · Ed Discussion · A4

My `train.py` trains without any problem on my laptop (val accuracy {vacc}, output attached) but the
autograder fails test 1 with a `ValueError` from inside `torch/nn/functional.py` and I get 15/100. I didn't change
anything in the interface. Is Gradescope using a different PyTorch version than the one in the setup guide
(I have 2.x)? Should I pin something in requirements.txt? Attached: train.py, local_run.txt, results.json.
"""
    write(os.path.join(out, "post.md"), post)
    TRUTH["run09"] = {
        "truth": "zero_variance_statistic",
        "symptom": "train.py runs fine on my laptop (val accuracy " + vacc + ") but the autograder crashes with a "
                   "ValueError inside batch_norm. Is Gradescope using a different PyTorch version?",
        "how": "The model uses BatchNorm1d and a DataLoader with batch_size 64 and drop_last=False; the grader's "
               "training subset has 1089 = 17*64 + 1 samples, so the last batch holds one sample and BatchNorm "
               "in training mode raises 'Expected more than 1 value per channel when training' (locally 3000 "
               "samples leave a last batch of 56).",
    }


# ---------------------------------------------------------------------------------------------
# run10: "validation" rows are also training rows (X_train = X instead of X[:-800])
# ---------------------------------------------------------------------------------------------
def run10():
    out = rd("run10")
    Xn, yn = make_digits(4000, seed=1001, noise=7.0)
    X, y = torch.tensor(Xn) / 16, torch.tensor(yn)
    X_train, y_train = X, y
    X_val, y_val = X[-800:], y[-800:]
    log = [f"Labelled examples: {len(X)}", f"train: {tuple(X_train.shape)}  val: {tuple(X_val.shape)}",
           "MLP(64-512-512-10), Adam(lr=1e-3), batch_size=64, epochs=25", ""]
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(64, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    opt = torch.optim.Adam(m.parameters(), 1e-3)
    n = len(X_train)
    for e in range(1, 26):
        m.train()
        perm = torch.randperm(n)
        c, tl = 0, 0.0
        for i in range(0, n, 64):
            idx = perm[i:i + 64]
            o = m(X_train[idx])
            loss = nn.functional.cross_entropy(o, y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            c += (o.argmax(1) == y_train[idx]).sum().item()
            tl += loss.item() * len(idx)
        m.eval()
        with torch.no_grad():
            o = m(X_val)
            vl = nn.functional.cross_entropy(o, y_val).item()
            va = (o.argmax(1) == y_val).float().mean().item()
        log.append(f"Epoch {e:02d} | train_loss {tl / n:.4f} | train_acc {c / n:.4f} | val_loss {vl:.4f} | "
                   f"val_acc {va:.4f}")
    torch.save(m.state_dict(), os.path.join(wdir("run10"), "model.pt"))
    log.append("Saved model.pt")
    write(os.path.join(out, "notebook_output.txt"), "\n".join(log) + "\n")
    t0 = time.time()
    Xt, yt = make_digits(2000, seed=9001, noise=7.0)
    with torch.no_grad():
        hacc = acc_of(m(torch.tensor(Xt) / 16).argmax(1).numpy(), yt)
    et = time.time() - t0
    pts = 40 if hacc >= 0.85 else round(40 * max(0.0, (hacc - 0.60) / 0.25), 1)
    txt = f"""Autograder Results -- Project 1: Digits8x8 classifier
-----------------------------------------------------
Student submission: project1.ipynb, model.pt

[PASS] (10.0/10.0) Notebook runs top to bottom without errors
[PASS] (10.0/10.0) model.pt loads into the architecture defined in the notebook
[PASS] (5.0/5.0)   Parameter count <= 500k (found {sum(p.numel() for p in m.parameters())})
[{'PASS' if hacc >= 0.85 else 'FAIL'}] ({pts:.1f}/40.0)  Hidden test accuracy (full credit >= 0.85, zero credit <= 0.60)
         Evaluated on 2000 held-out examples. Accuracy: {hacc:.4f}
[----] (--/35.0)  Written report (manually graded)

Autograded score: {25 + pts:.1f} / 65.0
Total run time: {et:.2f}s
"""
    write(os.path.join(out, "autograder_output.txt"), txt)
    post = f"""**[P1] Hidden test accuracy way lower than my validation accuracy?**

Hi, my validation accuracy reaches {va:.3f} (notebook output attached), but the autograder says
{hacc:.4f} on the hidden test set and I only get {pts:.1f}/40 on that part. That's a huge gap. Is the hidden test set
drawn from a different distribution than the labelled data we got? If so, how are we supposed to tune for it?
"""
    write(os.path.join(out, "post.md"), post)
    TRUTH["run10"] = {
        "truth": "data_leakage",
        "symptom": f"My validation accuracy is {va:.3f} but the autograder says {hacc:.2f} on the hidden test set. Is "
                   "the hidden test set from a different distribution than the data we were given?",
        "how": "The notebook takes X_val = X[-800:] but trains on all 4000 labelled rows (X_train = X), so the 800 "
               "val rows are also training rows: the log shows train: (4000, 64) and val: (800, 64) from 4000 "
               "labelled examples, val accuracy above train accuracy every epoch and climbing to ~1.0 as the big "
               f"MLP memorises, while the hidden test set gives {hacc:.3f}.",
    }


# ---------------------------------------------------------------------------------------------
# run11: predict() used by the grader never switches to eval mode (Dropout 0.5 + BatchNorm active)
# ---------------------------------------------------------------------------------------------
def run11():
    out = rd("run11")
    w = wdir("run11")
    X, y = make_digits(3000, seed=1101, noise=5.0)
    np.savez(os.path.join(w, "p2_train.npz"), X=X, y=y)
    path = copy_sub("r11_submission.py", out, "submission.py")
    stdout, exc, wall, _ = run_script(path, w)
    assert exc is None, exc
    write(os.path.join(out, "local_output.txt"), "$ python submission.py\n" + stdout)
    # ---- autograder: fresh import, train on the full public train set, predict hidden test twice ----
    from common import import_module
    t0 = time.time()
    sub = import_module(path, "submission_p2")
    Xg, yg = make_digits(3000, seed=1101, noise=5.0)
    model = sub.train(Xg, yg)
    Xt, yt = make_digits(2000, seed=9111, noise=5.0)
    p1 = sub.predict(model, Xt)
    p2 = sub.predict(model, Xt)
    a1, a2 = acc_of(p1, yt), acc_of(p2, yt)
    ndiff = int((p1 != p2).sum())
    et = time.time() - t0
    tiers = lambda a: 50 if a >= 0.92 else (40 if a >= 0.88 else (25 if a >= 0.80 else 10))  # noqa: E731
    tests = [
        gs_test("P2.1 train() returns an nn.Module", "P2.1", 10, True, ""),
        gs_test("P2.2 predict() output shape and dtype", "P2.2", 10, True, f"shape {p1.shape}, dtype {p1.dtype}"),
        gs_test("P2.3 predict() is deterministic (two calls on the same input)", "P2.3", 10, ndiff == 0,
                f"{ndiff} of {len(p1)} predictions changed between two identical calls."),
        gs_test("P2.4 Hidden test accuracy (0.80 / 0.88 / 0.92 tiers)", "P2.4", 50, tiers(a1) == 50,
                f"Accuracy on 2000 hidden samples: {a1:.4f} -> {tiers(a1)}/50 (full credit >= 0.92).",
                score=tiers(a1)),
        gs_test("P2.5 Training time < 120 s", "P2.5", 20, True, f"train() took {et:.1f}s"),
    ]
    write(os.path.join(out, "results.json"), gradescope_json(tests, et))
    vacc = float(stdout.strip().splitlines()[-1].split()[-1])
    TRUTH["run11"] = {
        "truth": "eval_mode_forgotten",
        "symptom": f"Locally my validation accuracy is {vacc:.2f} but Gradescope gives {a1:.2f}, and one of its tests "
                   "says my predictions change between calls. What's going on?",
        "how": "train() leaves the model in training mode (and evaluate() switches back to train() after its "
               "eval), and predict(), which the grader uses, never calls model.eval(): Dropout(0.5) and "
               "batch-statistics BatchNorm stay active at test time, so "
               f"hidden accuracy drops to {a1:.3f} and {ndiff}/{len(p1)} predictions differ between two identical calls.",
    }


# ---------------------------------------------------------------------------------------------
# run12: 12-layer sigmoid MLP, default init, no normalisation/residuals -> gradients vanish toward the input
# ---------------------------------------------------------------------------------------------
def run12():
    out = rd("run12")
    X, y = make_digits(3000, seed=1201, noise=5.0)
    Xv, yv = make_digits(1000, seed=1202, noise=5.0)
    X, y, Xv, yv = torch.tensor(X) / 16, torch.tensor(y), torch.tensor(Xv) / 16, torch.tensor(yv)

    def mk(depth, width=64):
        layers, d = [], 64
        for _ in range(depth - 1):
            layers += [nn.Linear(d, width), nn.Sigmoid()]
            d = width
        layers.append(nn.Linear(d, 10))
        return nn.Sequential(*layers)

    def train(depth, epochs, per_layer):
        torch.manual_seed(0)
        m = mk(depth)
        opt = torch.optim.SGD(m.parameters(), lr=0.5, momentum=0.9)
        lins = [l for l in m if isinstance(l, nn.Linear)]
        log = [f"depth={depth} width=64 activation=sigmoid  params={sum(p.numel() for p in m.parameters())}"]
        for e in range(1, epochs + 1):
            perm = torch.randperm(3000)
            tl = 0.0
            for i in range(0, 3000, 64):
                idx = perm[i:i + 64]
                loss = nn.functional.cross_entropy(m(X[idx]), y[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                tl += loss.item() * len(idx)
            with torch.no_grad():
                o = m(Xv)
                va = (o.argmax(1) == yv).float().mean().item()
                vl = nn.functional.cross_entropy(o, yv).item()
            log.append(f"epoch {e:2d}  train_loss {tl / 3000:.4f}  val_loss {vl:.4f}  val_acc {va:.4f}")
            if per_layer:
                log.append("  grad-norm (last batch) per layer:")
                for k, l in enumerate(lins):
                    log.append(f"    fc{k + 1:<2d} ({l.in_features:>2d}->{l.out_features:<2d})  |dW| {l.weight.grad.norm():.3e}"
                               f"  |db| {l.bias.grad.norm():.3e}  |W| {l.weight.norm():.3f}")
        return m, log, va

    m3, log2, va2 = train(3, 15, per_layer=False)
    m12, log12, va12 = train(12, 20, per_layer=True)
    write(os.path.join(out, "q2_shallow_log.txt"), "\n".join(log2) + "\n")
    write(os.path.join(out, "q3_deep_log.txt"), "\n".join(log12) + "\n")
    write(os.path.join(out, "config_q3.yaml"),
          "# Q3: deeper network, same optimiser settings as Q2\ndepth: 12\nwidth: 64\nactivation: sigmoid\n"
          "init: pytorch_default\noptimizer: sgd\nlr: 0.5\nmomentum: 0.9\nbatch_size: 64\nepochs: 20\n")
    Xt, yt = make_digits(2000, seed=9121, noise=5.0)
    with torch.no_grad():
        hacc = acc_of(m12(torch.tensor(Xt) / 16).argmax(1).numpy(), yt)
        hacc3 = acc_of(m3(torch.tensor(Xt) / 16).argmax(1).numpy(), yt)
    txt = (f"test_q2_shallow_accuracy ... ok (hidden acc {hacc3:.4f})\n"
           f"test_q3_deep_accuracy ... FAIL\n"
           f"    AssertionError: Q3 deep model hidden accuracy {hacc:.4f} < 0.85\n"
           f"test_q3_grad_norm_table_present ... ok\n\n"
           f"Ran 3 tests\nFAILED (failures=1)\nQ2: 20/20   Q3(a): 0/25   Q3(b): 5/5\n")
    write(os.path.join(out, "autograder_output.txt"), txt)
    TRUTH["run12"] = {
        "truth": "vanishing_gradients",
        "symptom": f"My 12-layer network for Q3 doesn't learn at all -- loss stays at 2.30 and accuracy ~{va12:.2f} -- "
                   f"while the 3-layer one from Q2 with the same optimizer gets {va2:.2f}. Deeper should be better, no?",
        "how": "12 Linear+Sigmoid layers with PyTorch default init and no normalisation or skip connections; the "
               "per-layer gradient table shows |dW| falling by roughly 1.5 orders of magnitude per layer from "
               "~1e-3 at the output to ~1e-10 at fc1, so the early layers never train and the loss sits at ln 10, "
               "while the same optimiser trains the 3-layer version.",
    }


RUN_FUNCS = [run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12]


def main():
    t0 = time.time()
    seed_all(0)
    if os.path.exists(RUNS):
        shutil.rmtree(RUNS)
    os.makedirs(RUNS)
    only = sys.argv[1:]
    for f in RUN_FUNCS:
        if only and f.__name__ not in only:
            continue
        t = time.time()
        seed_all(0)
        f()
        print(f"{f.__name__}: {time.time() - t:.1f}s", flush=True)
    with open(os.path.join(HERE, "truth.json"), "w") as fh:
        json.dump(dict(sorted(TRUTH.items())), fh, indent=2)
    shutil.rmtree(WORK, ignore_errors=True)
    print(f"total {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
