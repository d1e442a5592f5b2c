"""Runs 01-06."""
import math
import os
import shutil
import time
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import Clock, accuracy, mlp, run_script, seed_all, user_paths, write
from .data import gmm_classes, multilabel

HERE = os.path.dirname(os.path.abspath(__file__))


def script(name):
    with open(os.path.join(HERE, "scripts", name)) as f:
        return f.read()


# ----------------------------------------------------------------------------------------------
# run01: SGD momentum left at 0 (argparse default) while the official config uses 0.9
# ----------------------------------------------------------------------------------------------
def _train_sgd_cosine(model, xtr, ytr, xte, yte, lr, momentum, wd, epochs, bs, seed, on_epoch=None):
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, weight_decay=wd)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    recs = []
    for ep in range(epochs):
        model.train()
        t0 = time.time()
        perm = torch.randperm(len(xtr), generator=g)
        tot, correct = 0.0, 0
        lr_now = opt.param_groups[0]["lr"]
        for i in range(0, len(xtr), bs):
            idx = perm[i:i + bs]
            out = model(xtr[idx])
            loss = F.cross_entropy(out, ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
            correct += (out.argmax(1) == ytr[idx]).sum().item()
        sched.step()
        model.eval()
        with torch.no_grad():
            o = model(xte)
            tl = F.cross_entropy(o, yte).item()
            ta = 100.0 * (o.argmax(1) == yte).float().mean().item()
        r = dict(epoch=ep + 1, lr=lr_now, train_loss=tot / len(xtr), train_acc=100.0 * correct / len(xtr),
                 test_loss=tl, test_acc=ta, secs=time.time() - t0)
        recs.append(r)
        if on_epoch:
            on_epoch(r)
    return recs


def run01(ctx):
    out = ctx.run_dir("run01")
    xtr, ytr = gmm_classes(4000, sep=0.8, world_seed=3, seed=1)
    xte, yte = gmm_classes(2000, sep=0.8, world_seed=3, seed=2)
    xtr, ytr, xte, yte = map(torch.from_numpy, (xtr, ytr, xte, yte))

    def train(momentum, epochs, log=None):
        seed_all(0)
        m = mlp(32, 256, 10, depth=2)
        return _train_sgd_cosine(m, xtr, ytr, xte, yte, 0.02, momentum, 5e-4, epochs, 128, 0, log)

    ref = train(0.9, 30)  # the authors' configuration -> "paper" number and Figure 3 curve
    clock = Clock()
    lines = []
    args = ("Namespace(arch='mlp', batch_size=128, data='blobs32', data_dir='data/blobs32', depth=2, epochs=30, "
            "eval_every=1, lr=0.02, momentum=0.0, nesterov=False, out='runs/mlp256_sgd', sched='cosine', seed=0, "
            "warmup_epochs=0, weight_decay=0.0005, width=256, workers=4)")

    def log(r):
        lines.append(f"{clock.stamp()} | epoch {r['epoch']:03d}/30 | lr {r['lr']:.5f} | "
                     f"train_loss {r['train_loss']:.4f} | train_acc {r['train_acc']:.2f} | "
                     f"test_loss {r['test_loss']:.4f} | test_acc {r['test_acc']:.2f} | {r['secs']:.1f}s")

    head = [f"{clock.stamp()} | args: {args}",
            f"{clock.stamp()} | model: MLP(32-256-256-10)  params: {sum(p.numel() for p in mlp(32, 256, 10).parameters())}",
            f"{clock.stamp()} | train: {len(xtr)}  test: {len(xte)}  classes: 10"]
    mine = train(0.0, 30, log)
    mine60 = train(0.0, 60, None)

    paper = ref[-1]["test_acc"]
    m30, m60 = mine[-1]["test_acc"], mine60[-1]["test_acc"]
    best30 = max(r["test_acc"] for r in mine)
    write(f"{out}/train_log.txt", "\n".join(head + lines))
    write(f"{out}/args.txt", args + "\n\n# second run: identical except epochs=60, out='runs/mlp256_sgd_ep60'")
    write(f"{out}/official_config.yaml", """# configs/blobs32/mlp256_sgd.yaml  (from the authors' repository, main branch)
model:
  name: mlp
  width: 256
  depth: 2
  dropout: 0.0
data:
  name: blobs32
  batch_size: 128
  num_workers: 8
optim:
  name: sgd
  lr: 0.02
  momentum: 0.9
  nesterov: false
  weight_decay: 5.0e-4
schedule:
  name: cosine
  epochs: 30
  warmup_epochs: 0
seed: 0
""")
    gap = paper - m30
    r5 = ref[4]["train_loss"]
    write(f"{out}/report.md", f"""# [Re] Tuned SGD Baselines for Synthetic Tabular Benchmarks

*ML Reproducibility Challenge submission — draft v2*

## Reproducibility summary

**Scope of reproducibility.** The paper's central claim (Table 2) is that a plain two-hidden-layer MLP
(width 256) trained with "properly tuned SGD" reaches {paper:.1f}% test accuracy on the Blobs-32 benchmark
in 30 epochs, on par with the much larger models it compares against.

**Methodology.** The official code depends on the authors' internal training framework, which is not public,
so we re-implemented the training loop in plain PyTorch with an argparse front-end and
ported the model definition verbatim. We took the hyper-parameters from the paper's Appendix B
(SGD, lr 0.02, batch 128, weight decay 5e-4, cosine schedule, 30 epochs, no warm-up). All runs use seed 0
on CPU. Our full argument dump is in `args.txt`; the authors' YAML for this experiment is copied in
`official_config.yaml` for reference.

**Results.** We could not reproduce the headline number.

| Model | Epochs | Test acc. (paper, Table 2) | Test acc. (ours) |
|---|---|---|---|
| MLP-256 | 30 | {paper:.1f} | {m30:.1f} (best epoch: {best30:.1f}) |
| MLP-256 | 60 | — | {m60:.1f} |

The gap is {gap:.1f} points. Our training loss decreases steadily but much more slowly than the curve in
the paper's Figure 3 (the paper's training loss is {r5:.2f} after 5 epochs; ours is {mine[4]['train_loss']:.2f}
after 5 epochs and {mine[-1]['train_loss']:.2f} after 30). Doubling the number of epochs closes only part
of the gap.

**What was easy.** The model definition is short and clearly described; the data generator script runs
out of the box.

**What was difficult.** The training framework is not released, so we had to guess details of the loop
(e.g. whether the test metric is taken at the last or best epoch — we report both).

**Communication with original authors.** We e-mailed the first author twice; no reply at the time of
writing.

## Discussion

Given that our hyper-parameters match Appendix B, our current hypothesis is that the reported number
depends on additional training tricks (longer schedule, EMA of weights, or some augmentation) that are not
described in the paper. The per-epoch log of our 30-epoch run is attached (`train_log.txt`).
""")
    symptom = (f"With the paper's hyper-parameters our re-implementation gets {m30:.1f}% instead of the "
               f"{paper:.1f}% in Table 2, and even 60 epochs only reach {m60:.1f}%; we think the authors used "
               f"training tricks that are not in the paper.")
    return dict(truth="optimizer_misconfigured", symptom=symptom,
                how=f"SGD momentum left at the argparse default 0.0 (args.txt) while the official config uses 0.9 "
                    f"with the same lr 0.02; training is uniformly slow (loss {mine[-1]['train_loss']:.2f} after 30 "
                    f"epochs vs {ref[-1]['train_loss']:.2f}) and ends {gap:.1f} points below the momentum-0.9 run.")


# ----------------------------------------------------------------------------------------------
# run02: MultiStepLR stepped once per batch instead of once per epoch
# ----------------------------------------------------------------------------------------------
def run02(ctx):
    out = ctx.run_dir("run02")
    w = ctx.work_dir("run02")
    d = os.path.join(w, "data", "blobs32")
    os.makedirs(d, exist_ok=True)
    xtr, ytr = gmm_classes(4000, sep=0.7, world_seed=11, seed=1)
    xte, yte = gmm_classes(2000, sep=0.7, world_seed=11, seed=2)
    for n, a in [("train_x", xtr), ("train_y", ytr), ("test_x", xte), ("test_y", yte)]:
        np.save(os.path.join(d, n + ".npy"), a)
    src = script("run02_train.py")
    ref = src.replace("            scheduler.step()\n", "").replace(
        "        test_loss, test_acc = evaluate(model, test_loader)\n",
        "        scheduler.step()\n        test_loss, test_acc = evaluate(model, test_loader)\n")
    assert ref != src
    with open(os.path.join(w, "train.py"), "w") as f:
        f.write(src)
    with open(os.path.join(w, "train_official.py"), "w") as f:
        f.write(ref)
    argv = ["--batch_size", "256", "--epochs", "30", "--milestones", "15", "25"]
    o_ref, e_ref, tb, _ = run_script("train_official.py", argv, w)
    assert tb is None, tb
    o, e, tb, _ = run_script("train.py", argv, w)
    assert tb is None, tb
    paper = float(o_ref.strip().splitlines()[-1].split("final test_acc")[1])
    mine = float(o.strip().splitlines()[-1].split("final test_acc")[1])
    ep_lines = [l for l in o.splitlines() if l.startswith("Epoch [")]
    write(f"{out}/train.py", src)
    write(f"{out}/train_log.txt", "$ python train.py --batch_size 256 --epochs 30 --milestones 15 25\n" + o)
    write(f"{out}/issue.md", f"""**Title:** Can't reproduce Table 2 (ResMLP on Blobs-32): {mine:.1f} vs {paper:.1f}

Hi, thanks for releasing the code!

I'm trying to reproduce the ResMLP row of Table 2 on Blobs-32. The repo's `main.py` needs apex and the
`Trainer` class from your internal package, so I wrote a minimal `train.py` that keeps your model definition
and the hyper-parameters from `configs/blobs32_resmlp.yaml` (lr 0.1, momentum 0.9, wd 5e-4, batch 256,
30 epochs, step decay x0.1 at epochs 15 and 25). Script and full log attached.

| | Test acc. (%) |
|---|---|
| Paper, Table 2 | {paper:.1f} |
| Mine (seed 0) | {mine:.1f} |

First and last epochs of my log:

```
{ep_lines[0]}
{ep_lines[1]}
{ep_lines[2]}
...
{ep_lines[-2]}
{ep_lines[-1]}
```

The training loss drops in the first epoch and then moves very slowly for the rest of the run. Is there
anything in the training recipe that isn't in the README or the config?

**Environment:** Python 3.11, torch 2.13.0 (CPU), numpy 2.x, Ubuntu 22.04.
""")
    symptom = (f"Following the README config I get {mine:.1f}% test accuracy instead of {paper:.1f}% from Table 2; "
               f"the loss drops in the first epoch and then barely moves. Is something missing from the README?")
    return dict(truth="lr_schedule_bug", symptom=symptom,
                how="MultiStepLR(milestones=[15,25]) is stepped inside the batch loop (16 batches/epoch), so the two "
                    "x0.1 decays happen after optimizer steps 15 and 25, in epochs 1 and 2; the log shows lr 0.01 after "
                    "epoch 1 and 0.001 from epoch 2 on, and a slow, under-trained run "
                    f"({mine:.1f} vs {paper:.1f} with per-epoch stepping).")


# ----------------------------------------------------------------------------------------------
# run03: ~36 % of the training labels wrong (labels rebuilt from raw single-annotator column)
# ----------------------------------------------------------------------------------------------
def run03(ctx):
    out = ctx.run_dir("run03")
    xtr, ytr = gmm_classes(8000, sep=0.8, world_seed=7, seed=1)
    xte, yte = gmm_classes(2000, sep=0.8, world_seed=7, seed=2)
    r = np.random.default_rng(0)
    noisy = ytr.copy()
    f = r.random(len(ytr)) < 0.4
    noisy[f] = r.integers(0, 10, f.sum())
    wrong = float((noisy != ytr).mean())
    X, Xt, Yt = map(torch.from_numpy, (xtr, xte, yte))

    def train(labels, log=None):
        seed_all(0)
        m = mlp(32, 96, 10, depth=2)
        return _train_sgd_cosine(m, X, torch.from_numpy(labels), Xt, Yt, 0.05, 0.9, 5e-4, 50, 128, 0, log)

    ref = train(ytr)
    clock = Clock()
    lines = ["[INFO] config: configs/sensorblobs_mlp.yaml",
             f"[INFO] train samples: {len(xtr)} | test samples: {len(xte)} | classes: 10",
             f"[INFO] model: MLP(32-96-96-10) | params: {sum(p.numel() for p in mlp(32, 96, 10).parameters())}"]

    def log(rr):
        lines.append(f"[{clock.stamp('%H:%M:%S')}] epoch {rr['epoch']:>2}/50  lr {rr['lr']:.4f}  "
                     f"train_loss {rr['train_loss']:.4f}  train_acc {rr['train_acc']:.2f}  "
                     f"test_loss {rr['test_loss']:.4f}  test_acc {rr['test_acc']:.2f}")

    mine = train(noisy, log)
    best = max(mine, key=lambda q: q["test_acc"])
    paper = ref[-1]["test_acc"]
    final = mine[-1]["test_acc"]
    ep20 = mine[19]
    lo, hi = min(r["train_acc"] for r in mine[2:20]), max(r["train_acc"] for r in mine[2:20])
    lines.append(f"[INFO] best test_acc {best['test_acc']:.2f} (epoch {best['epoch']}) | final {final:.2f}")
    write(f"{out}/train_log.txt", "\n".join(lines))
    write(f"{out}/config.yaml", """# configs/sensorblobs_mlp.yaml (copied from the official repo, paths changed)
data:
  root: /data/sensorblobs
  train_labels: /data/sensorblobs/labels_train.csv   # generated locally, see post
  test_labels: /data/sensorblobs/labels_test.csv
  num_classes: 10
model:
  type: mlp
  hidden: [96, 96]
  activation: relu
train:
  epochs: 50
  batch_size: 128
  optimizer: sgd
  lr: 0.05
  momentum: 0.9
  weight_decay: 5.0e-4
  scheduler: cosine
seed: 0
""")
    c = {k: mine[k - 1] for k in (1, 5, 10, 20, 30, 40, 50)}
    rows = "\n".join(f"| {k} | {c[k]['train_loss']:.3f} | {c[k]['train_acc']:.1f} | {c[k]['test_acc']:.1f} |" for k in c)
    write(f"{out}/post.md", f"""# Reproducing "Small MLPs Are All You Need for SensorBlobs" — a weekend that didn't go to plan

*Posted in: reproductions, ml-notes*

I've been working through reproducing small-scale papers on my home machine, and this one looked like an
easy win: a two-layer MLP, 50 epochs, SGD + cosine, and a headline number of **{paper:.1f}% test accuracy**
on SensorBlobs-10 (Table 2, "MLP-96" row).

## Setup

- Code: the authors' repo, unmodified training script; config in `config.yaml` (only paths changed).
- Data: the SensorBlobs features from the official release. The repo's download script also fetches
  `labels_train.csv` from a Google Drive folder that now requires access, so I generated the training label
  file myself from `raw_annotations.csv` that ships with the dataset (it has an `annotator_label` column for
  every item). The test labels come straight from the official `labels_test.csv`.
- Seed 0, CPU only. Full log in `train_log.txt`.

## Results

| | Test accuracy (%) |
|---|---|
| Paper (Table 2) | {paper:.1f} |
| Mine, best epoch ({best['epoch']}) | {best['test_acc']:.1f} |
| Mine, final epoch | {final:.1f} |

Selected epochs from my log:

| epoch | train loss | train acc (%) | test acc (%) |
|---|---|---|---|
{rows}

Two things puzzle me. First, the training accuracy hovers between {lo:.0f}% and {hi:.0f}% with the loss stuck
above {ep20['train_loss']:.1f} from epoch 3 to epoch 20 — for a paper that reports {paper:.0f}% *test* accuracy
that seems way too low. Second, after epoch ~20 the training accuracy suddenly starts climbing while the test
accuracy goes *down*.

So far I've double-checked the learning rate, the cosine schedule and the test label file. What is going
on here, and is something wrong with my setup?
""")
    symptom = (f"Test accuracy peaks at {best['test_acc']:.1f}% early and ends at {final:.1f}% vs {paper:.1f}% in the paper, "
               f"and training accuracy sits at {lo:.0f}-{hi:.0f}% for the first 20 epochs; is something wrong with my setup?")
    return dict(truth="label_noise", symptom=symptom,
                how=f"{100 * wrong:.0f}% of the training labels were replaced by random classes (labels rebuilt from a "
                    f"raw per-annotator column); train accuracy is capped near {ep20['train_acc']:.0f}% with loss "
                    f"floor ~{ep20['train_loss']:.1f} until late memorisation, test accuracy capped and then falling.")


# ----------------------------------------------------------------------------------------------
# run04: jittered copies made before the train/test split -> near-duplicates on both sides
# ----------------------------------------------------------------------------------------------
def run04(ctx):
    out = ctx.run_dir("run04")
    w = ctx.work_dir("run04")
    os.makedirs(os.path.join(w, "data", "raw"), exist_ok=True)
    x, y = gmm_classes(2500, sep=0.6, world_seed=21, seed=5)
    np.savez(os.path.join(w, "data", "raw", "sensors32.npz"), x=x, y=y)
    src = script("run04_prepare_splits.py")
    with open(os.path.join(w, "prepare_splits.py"), "w") as f:
        f.write(src)
    o, e, tb, _ = run_script("prepare_splits.py", [], w)
    assert tb is None, tb
    tr = np.load(os.path.join(w, "data", "processed", "train.npz"))
    te = np.load(os.path.join(w, "data", "processed", "test.npz"))

    # the paper's protocol: split the raw samples first, augment only the training part
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(x))
    n_test = int(0.2 * len(x))
    ti, si = perm[n_test:], perm[:n_test]
    xs = np.concatenate([x[ti] + 0.05 * rng.standard_normal(x[ti].shape).astype(np.float32) for _ in range(4)])
    ys = np.tile(y[ti], 4)

    def train(xa, ya, xb, yb, log=None):
        seed_all(0)
        m = mlp(32, 256, 10, depth=2)
        opt = torch.optim.Adam(m.parameters(), lr=1e-3)
        X, Y, Xt, Yt = map(torch.from_numpy, (xa, ya, xb, yb))
        g = torch.Generator().manual_seed(0)
        recs = []
        for ep in range(20):
            m.train()
            perm_ = torch.randperm(len(X), generator=g)
            tot, cor = 0.0, 0
            for i in range(0, len(X), 128):
                idx = perm_[i:i + 128]
                o_ = m(X[idx])
                loss = F.cross_entropy(o_, Y[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                tot += loss.item() * len(idx)
                cor += (o_.argmax(1) == Y[idx]).sum().item()
            m.eval()
            with torch.no_grad():
                ot = m(Xt)
                rr = dict(epoch=ep + 1, train_loss=tot / len(X), train_acc=100 * cor / len(X),
                          test_loss=F.cross_entropy(ot, Yt).item(),
                          test_acc=100 * (ot.argmax(1) == Yt).float().mean().item())
            recs.append(rr)
        return recs

    ref = train(xs, ys, x[si], y[si])
    mine = train(tr["x"], tr["y"], te["x"], te["y"])
    paper = ref[-1]["test_acc"]
    csv = ["epoch,train_loss,train_acc,test_loss,test_acc"] + [
        f"{r['epoch']},{r['train_loss']:.4f},{r['train_acc']:.2f},{r['test_loss']:.4f},{r['test_acc']:.2f}" for r in mine]
    write(f"{out}/metrics.csv", "\n".join(csv))
    write(f"{out}/prepare_splits.py", src)
    write(f"{out}/prepare_splits_output.txt", "$ python prepare_splits.py\n" + o)
    f1, f5, fl = mine[0], mine[4], mine[-1]
    write(f"{out}/post.md", f"""# We beat the paper by {fl['test_acc'] - paper:.0f} points. Now what?

*A short write-up from our reading group's reproduction project*

This term our reading group picked "Jitter Is All You Need: Cheap Augmentation for Sensor Classification"
and tried to reproduce its main table. The method is simple: expand every training example into 4 copies
with Gaussian jitter (σ = 0.05, Sec. 4.2) and train a 2-layer MLP (width 256) with Adam (lr 1e-3,
batch 128) for 20 epochs.

## What we did

We wrote our own data preparation (`prepare_splits.py`, attached together with its output) on top of the
raw `sensors32.npz` release, and a standard training loop. Everything else follows the paper's Appendix A.

## What we got

| | Test accuracy (%) |
|---|---|
| Paper, Table 2 (MLP + jitter x4) | {paper:.1f} |
| Ours (seed 0) | **{fl['test_acc']:.1f}** |

Per-epoch metrics are in `metrics.csv`. After the first epoch we are already at {f1['test_acc']:.1f}% test
accuracy, {f5['test_acc']:.1f}% after five epochs, and the test accuracy tracks the training accuracy closely
for the whole run (final train {fl['train_acc']:.1f}% / test {fl['test_acc']:.1f}%).

## Discussion

We're honestly not sure how to write this up. We'd welcome ideas before we submit the report — is there a
reason a faithful re-implementation would outperform the original by this much?
""")
    symptom = (f"Our re-implementation reaches {fl['test_acc']:.1f}% test accuracy against {paper:.1f}% in the paper, "
               f"and is above {f5['test_acc']:.0f}% after five epochs; how can a faithful re-implementation beat the paper by "
               f"this much?")
    return dict(truth="data_leakage", symptom=symptom,
                how="prepare_splits.py makes the 4 jittered copies (sigma 0.05) of every sample before the random "
                    "train/test split, so almost every test point has near-identical siblings in train; test accuracy "
                    f"tracks train accuracy ({fl['test_acc']:.1f} vs {paper:.1f} for a proper split).")


# ----------------------------------------------------------------------------------------------
# run05: hand-written focal BCE with log(sigmoid) / log(1 - sigmoid) -> 0 * -inf = NaN
# ----------------------------------------------------------------------------------------------
def run05(ctx):
    out = ctx.run_dir("run05")
    w = ctx.work_dir("run05")
    d = os.path.join(w, "data", "ml12")
    os.makedirs(d, exist_ok=True)
    xtr, ytr = multilabel(4000, world_seed=5, seed=1, sharp=2.0)
    xva, yva = multilabel(2000, world_seed=5, seed=2, sharp=2.0)
    for n, a in [("train_x", xtr), ("train_y", ytr), ("val_x", xva), ("val_y", yva)]:
        np.save(os.path.join(d, n + ".npy"), a)
    src = script("run05_train.py")
    ref = src.replace("torch.log(p)", "torch.log(p.clamp(min=1e-8))").replace(
        "torch.log(1 - p)", "torch.log((1 - p).clamp(min=1e-8))")
    assert ref != src
    with open(os.path.join(w, "train.py"), "w") as f:
        f.write(src)
    with open(os.path.join(w, "train_official.py"), "w") as f:
        f.write(ref)
    o_ref, _, tb, code = run_script("train_official.py", [], w)
    assert tb is None and code == 0, tb
    o, e, tb, code = run_script("train.py", [], w)
    assert tb is None and code == 1 and "Loss is nan" in o, o[-500:]
    maps_ref = [float(l.split("val mAP")[1]) for l in o_ref.splitlines() if "val mAP" in l]
    maps = [float(l.split("val mAP")[1]) for l in o.splitlines() if "val mAP" in l]
    paper = maps_ref[-1]
    lines = o.strip().splitlines()
    nan_ep = len(maps)
    gmax = max(float(l.split("grad_norm")[1].split()[0]) for l in lines if "grad_norm" in l)
    excerpt = lines[:3] + ["..."] + lines[-14:]
    write(f"{out}/train.py", src)
    write(f"{out}/issue.md", f"""**Title:** Loss becomes NaN around epoch {nan_ep} (fp32, no AMP) — cannot finish the 20-epoch schedule

### Describe the bug

I'm reproducing the multi-label results (Table 2, "AFL, γ+=0, γ−=4") on the ML-12 features. Since I don't
use your `timm`-based pipeline I re-implemented the loss from Eq. (4) in a small standalone script
(attached as `train.py`; model and hyper-parameters as in the paper: 2-layer MLP, Adam 1e-3, batch 64,
20 epochs, grad clipping at 10).

Training looks normal — loss going down, val mAP peaking at {max(maps):.1f} — and then the loss turns into NaN at
epoch {nan_ep} and the script stops. Re-running gives the NaN at the same step. I'm in full fp32, no autocast,
no GradScaler.

| | val mAP |
|---|---|
| Paper, Table 2 (20 epochs) | {paper:.2f} |
| Mine | NaN at epoch {nan_ep} (last val mAP before that: {maps[-1]:.2f}) |

### Log

```
$ python train.py
{chr(10).join(excerpt)}
```

The data summary at the top of the log says there are no NaN/inf in the inputs or labels, and the gradient
norm stays below {gmax:.1f} right up to the NaN, so it doesn't look like an explosion either.

### Expected behavior

Training finishes the 20 epochs and reaches the mAP in Table 2.

### Environment

- torch 2.13.0 (CPU build), Python 3.11, numpy 2.4
""")
    symptom = (f"Training goes to NaN around epoch {nan_ep} every time, in plain fp32 without AMP, so I can't finish "
               f"the 20-epoch schedule; what am I doing differently from the paper?")
    return dict(truth="numerical_instability", symptom=symptom,
                how="The re-implemented asymmetric focal loss uses torch.log(p) and torch.log(1 - p) on sigmoid "
                    "outputs without clamping; once a logit saturates (p == 1.0 in fp32) a term 0 * log(0) = NaN "
                    f"appears at epoch {nan_ep} with finite loss and grad-norm < {gmax:.1f} just before; data are NaN-free.")


# ----------------------------------------------------------------------------------------------
# run06: per-batch feature standardisation; the last batch of each epoch has 1 sample -> std NaN
# ----------------------------------------------------------------------------------------------
LAYERS_PY = '''import torch
import torch.nn as nn


class BatchStandardize(nn.Module):
    """Input standardisation with batch statistics (Sec. 3.1)."""

    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        mu = x.mean(dim=0, keepdim=True)
        sigma = x.std(dim=0, keepdim=True)
        return (x - mu) / (sigma + self.eps)


class Net(nn.Module):
    def __init__(self, d_in, width, n_classes):
        super().__init__()
        self.std = BatchStandardize()
        self.body = nn.Sequential(nn.Linear(d_in, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.head = nn.Linear(width, n_classes)

    def forward(self, x):
        return self.head(self.body(self.std(x)))
'''


def run06(ctx):
    out = ctx.run_dir("run06")
    w = ctx.work_dir("run06")
    pkg = os.path.join(w, "models")
    os.makedirs(pkg, exist_ok=True)
    with open(os.path.join(pkg, "__init__.py"), "w") as f:
        f.write("")
    with open(os.path.join(pkg, "layers.py"), "w") as f:
        f.write(LAYERS_PY)
    import importlib.util
    spec = importlib.util.spec_from_file_location("models_layers_run06", os.path.join(pkg, "layers.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    n_train = 64 * 156 + 1
    xtr, ytr = gmm_classes(n_train, sep=0.8, world_seed=13, seed=1)
    xva, yva = gmm_classes(2000, sep=0.8, world_seed=13, seed=2)
    xtr = xtr * 4.0 + 10.0   # raw sensor units
    xva = xva * 4.0 + 10.0
    X, Y, Xv, Yv = map(torch.from_numpy, (xtr, ytr, xva, yva))
    from torch.utils.data import DataLoader, TensorDataset

    def train(lr, epochs=2):
        seed_all(0)
        model = mod.Net(32, 128, 10)
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        loader = DataLoader(TensorDataset(X, Y), batch_size=64, shuffle=True)
        logs, err = [], __import__("io").StringIO()
        clock = Clock()
        nb = len(loader)
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            old = warnings.showwarning

            def show(message, category, filename, lineno, file=None, line=None):
                err.write(warnings.formatwarning(message, category, filename, lineno, line))
                logs.append(("WARN", warnings.formatwarning(message, category, filename, lineno, line).rstrip()))
            warnings.showwarning = show
            try:
                for ep in range(epochs):
                    model.train()
                    run_loss, k = 0.0, 0
                    for it, (xb, yb) in enumerate(loader, 1):
                        loss = F.cross_entropy(model(xb), yb)
                        opt.zero_grad()
                        loss.backward()
                        opt.step()
                        run_loss += loss.item()
                        k += 1
                        if it % 50 == 0 or it == nb:
                            logs.append(("LOG", f"{clock.stamp()} INFO epoch {ep + 1} iter {it:>3}/{nb} "
                                                f"loss {run_loss / k:.4f} (last {loss.item():.4f}) lr {lr:.0e}"))
                            run_loss, k = 0.0, 0
                    model.eval()
                    with torch.no_grad():
                        vo = model(Xv)
                        vl = F.cross_entropy(vo, Yv).item()
                        va = 100 * (vo.argmax(1) == Yv).float().mean().item()
                    logs.append(("LOG", f"{clock.stamp()} INFO epoch {ep + 1} done | val_loss {vl:.4f} | val_acc {va:.2f}"))
            finally:
                warnings.showwarning = old
        return logs

    logs = train(1e-3)
    logs_low = train(1e-4)
    wdir = w.rstrip("/")

    def fix(s):
        return user_paths(s, wdir, home="/home/mk/code/bstd-repro")
    L = [fix(t) for _, t in logs]
    nb = len(DataLoader(TensorDataset(X, Y), batch_size=64))
    # the thin post quotes the lines around the end of epoch 1
    ep1_end = [i for i, t in enumerate(L) if "epoch 1 done" in t][0]
    quoted = [t for t in L[ep1_end - 4:ep1_end + 3]]
    low_line = [fix(t) for k_, t in logs_low if k_ == "LOG" and "epoch 1 done" in t][0]
    write(f"{out}/post.md", f"""**[Reproduction] BatchStandardize MLP (Table 2): loss becomes NaN at the end of epoch 1**

Hi all, I'm reproducing the SensorNet baseline from the "BatchStandardize" paper (Table 2, MLP + BStd,
Adam 1e-3, batch 64, {n_train} training samples). Everything looks fine during the first epoch and then
the loss is NaN from the last iteration of epoch 1 on, and val accuracy drops to chance:

```
{chr(10).join(quoted)}
```

I lowered the learning rate 10x (1e-4) and got exactly the same thing at the same iteration
(`{low_line.split(' INFO ')[1]}`). The paper doesn't mention warm-up, but could it be that their recipe
needs one? Any pointers appreciated!
""")
    symptom = ("Loss is fine for the whole first epoch and becomes NaN right at its last iteration, even with a 10x "
               "smaller learning rate; does the paper's recipe need a warm-up it doesn't mention?")
    return dict(truth="zero_variance_statistic", symptom=symptom,
                how=f"The model standardises inputs with x.std(dim=0) over the batch; {n_train} = 156*64 + 1 samples "
                    f"with drop_last=False leaves a final batch of 1, std() warns 'degrees of freedom is <= 0' and "
                    f"returns NaN at iteration {nb}/{nb}, independent of the lr.")
