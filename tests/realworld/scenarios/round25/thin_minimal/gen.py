#!/usr/bin/env python3
"""Generate 12 thin ML-debugging scenario runs (runs/run01..run12) + truth.json.
Every number written into runs/ comes from the training done here. Seeded; CPU only."""
import os, sys, json, time, math, shutil, warnings, traceback
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))
from common import teacher_data, mlp, evaluate, write  # noqa: E402

torch.set_num_threads(1)
RUNS = os.path.join(HERE, "runs")
TRUTH = {}


def seed_all(s):
    torch.manual_seed(s)
    np.random.seed(s)


def T(a):
    return torch.from_numpy(a)


# ---------------------------------------------------------------- run01
def run01():
    """lr_schedule_bug: StepLR(step_size=10) meant as epochs, stepped every batch."""
    seed_all(101)
    X, y = teacher_data(6000, 20, 5, seed=11, noise=0.05)
    Xtr, ytr, Xva, yva = T(X[:4800]), T(y[:4800]), T(X[4800:]), T(y[4800:])
    model = mlp(20, 128, 5)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    g = torch.Generator().manual_seed(1)
    lines = []
    for ep in range(20):
        perm = torch.randperm(4800, generator=g)
        tot = 0.0
        for i in range(0, 4800, 64):
            idx = perm[i:i + 64]
            loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            sched.step()
            tot += loss.item()
        vl, va = evaluate(model, Xva, yva)
        lines.append(f"epoch {ep+1:2d} | train_loss {tot/75:.4f} | val_loss {vl:.4f} | val_acc {va:.3f} | lr {opt.param_groups[0]['lr']:.2e}")
    show = lines[:4] + ["..."] + lines[-2:]
    post = f"""**#help-pytorch** — today at 14:12

hey all, small MLP (20 feats -> 128 -> 128 -> 5 classes, 4.8k train rows) plateaus after 2-3 epochs and never moves again, doesn't matter if i run 10 or 20 epochs. is the net just too small for this data? should i go wider/deeper?

```
{chr(10).join(show)}
```

```python
{SNIP01}
```
"""
    write(RUNS, "run01", "post.md", post)
    TRUTH["run01"] = dict(
        truth="lr_schedule_bug",
        symptom="Small MLP plateaus after 2-3 epochs no matter how many epochs I run; is the net too small for the data?",
        how=f"StepLR(step_size=10, gamma=0.5) intended per epoch is stepped inside the batch loop (75 batches/epoch), so lr halves every 10 batches and is {float(lines[2].split('lr ')[1]):.1e} by epoch 3; loss freezes at {lines[-1].split('train_loss ')[1][:6]} while the printed lr collapses.")


SNIP01 = """opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
for epoch in range(args.epochs):
    for x, y in train_loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        sched.step()"""


# ---------------------------------------------------------------- run02
def run02():
    """healthy: val loss below train loss because train loss is measured with dropout on."""
    seed_all(202)
    X, y = teacher_data(20000, 16, 4, seed=22, noise=0.3)
    Xtr, ytr, Xva, yva = T(X[:16000]), T(y[:16000]), T(X[16000:]), T(y[16000:])
    model = mlp(16, 256, 4, dropout=0.3)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(2)
    nb = 16000 // 128
    bar = []
    hist = []
    for ep in range(10):
        t = time.time()
        perm = torch.randperm(16000, generator=g)
        tot = 0.0
        for i in range(0, 16000, 128):
            idx = perm[i:i + 128]
            loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            tot += loss.item()
        el = time.time() - t
        vl, va = evaluate(model, Xva, yva)
        tl, ta = evaluate(model, Xtr, ytr)
        hist.append((tot / nb, vl, va, tl, ta))
        bar.append(f"Epoch {ep}: 100%|██████████| {nb}/{nb} [00:{int(el):02d}<00:00, {nb/el:.2f}it/s, v_num=3, "
                   f"train_loss_step={loss.item():.3f}, val_loss={vl:.3f}, val_acc={va:.3f}, train_loss_epoch={tot/nb:.3f}]")
    post = f"""**[D] Validation loss lower than training loss for the whole run — leakage between my splits?**

posted in r/MachineLearning

Tabular classification, 4 classes, 16k train / 4k val. Split is `train_test_split(df, test_size=0.2, random_state=42)` on row ids, no duplicates that I know of. Model is a 3-layer MLP (256 hidden, `dropout=0.3`), Adam 1e-3, batch 128, logged with Lightning. Every single epoch val_loss < train_loss_epoch. Everything I read says that means the val set leaks into train. Is my split broken or is this ok?

```
{chr(10).join(bar[:3] + bar[-2:])}
```
"""
    write(RUNS, "run02", "post.md", post)
    TRUTH["run02"] = dict(
        truth="healthy",
        symptom="Validation loss is lower than training loss every epoch; does that mean my train/val split leaks?",
        how=f"No fault: disjoint split; train_loss_epoch is a running mean in train mode with dropout 0.3, val is measured in eval mode. "
            f"Both fall together (val acc {hist[-1][2]:.3f}, train acc in eval mode {hist[-1][4]:.3f}), nothing near-perfect early.")
    return hist


# ---------------------------------------------------------------- run03
def run03():
    """label_out_of_range: 11 label values in the data, num_classes: 10 in the config."""
    seed_all(303)
    X, y = teacher_data(20000, 16, 10, seed=33, noise=0.2)
    rng = np.random.default_rng(22)
    rare = rng.choice(20000, 4, replace=False)  # a handful of rows carry label 10
    y = y.copy(); y[rare] = 10
    Xt, yt = T(X), T(y)
    num_classes = 10
    model = mlp(16, 128, num_classes)
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(3)
    logs, exc, step = [], None, 0
    try:
        for ep in range(5):
            perm = torch.randperm(20000, generator=g)
            for i in range(0, 20000, 32):
                idx = perm[i:i + 32]
                logits = model(Xt[idx])
                loss = criterion(logits, yt[idx])
                opt.zero_grad(); loss.backward(); opt.step()
                step += 1
                if step % 25 == 0:
                    logs.append(f"ep {ep} step {step:5d}/{20000//32*5} loss {loss.item():.4f}")
    except IndexError as e:
        exc = e
        tb = traceback.extract_tb(e.__traceback__)
    assert exc is not None
    frames = []
    for fs in tb:
        if "site-packages/torch" in fs.filename:
            frames.append(fs)
    user_frame = (f'  File "/home/dkov/code/vib-cls/train.py", line 74, in <module>\n'
                  f'    loss = criterion(logits, y)\n'
                  f'           ^^^^^^^^^^^^^^^^^^^^\n')
    body = "".join(traceback.format_list(frames))
    body = body.replace(os.path.dirname(os.path.dirname(torch.__file__)), "/home/dkov/miniconda3/envs/vib/lib/python3.11/site-packages")
    tb_text = "Traceback (most recent call last):\n" + user_frame + body + f"IndexError: {exc}"
    post = f"""dkov — Yesterday at 23:47
anyone seen this?? runs fine for a while then dies, different step every time i change the seed. `num_classes: 10` in my yaml, labels come straight from the csv. is the dataloader corrupting batches or something

```
{chr(10).join(logs[-2:])}
{tb_text}
```
"""
    write(RUNS, "run03", "post.md", post)
    TRUTH["run03"] = dict(
        truth="label_out_of_range",
        symptom="Training runs fine for a while then crashes in the loss at a random step; is the dataloader corrupting batches?",
        how=f"4 of 20000 rows carry label 10 while the model/config has num_classes 10; the first batch holding one (step {step+1}) raises 'IndexError: Target 10 is out of bounds.' inside cross_entropy.")


# ---------------------------------------------------------------- run04
def run04():
    """data_not_shuffled: dataset concatenated class by class, DataLoader without shuffle."""
    seed_all(404)
    X, y = teacher_data(6000, 20, 5, seed=44, noise=0.05)
    Xtr, ytr, Xva, yva = X[:5000], y[:5000], T(X[5000:]), T(y[5000:])
    order = np.argsort(ytr, kind="stable")
    Xs, ys = T(Xtr[order]), T(ytr[order])
    counts = np.bincount(ytr, minlength=5)
    model = mlp(20, 128, 5)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    bs, nb = 50, 100
    base = time.mktime((2024, 3, 11, 10, 41, 52, 0, 0, -1))
    t0 = time.time()
    out = [f"[2024-03-11 10:41:52] train samples: 5000  val samples: 1000  batch_size: {bs}  iters/epoch: {nb}"]
    vals = []
    for ep in range(6):
        run = 0.0
        for it in range(nb):
            xb, yb = Xs[it * bs:(it + 1) * bs], ys[it * bs:(it + 1) * bs]
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad(); loss.backward(); opt.step()
            run += loss.item()
            if (it + 1) % 5 == 0:
                ts = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(base + 1 + 7.3 * (time.time() - t0)))
                out.append(f"[{ts}] ep {ep+1} it {it+1:3d}/{nb} loss {run/5:.4f}")
                run = 0.0
        vl, va = evaluate(model, Xva, yva)
        vals.append(va)
        ts = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(base + 1 + 7.3 * (time.time() - t0)))
        out.append(f"[{ts}] ep {ep+1} done  val_loss {vl:.4f}  val_acc {va:.4f}")
    write(RUNS, "run04", "log.txt", "\n".join(out))
    post = f"""**Slack — #ml-team**

**Priya N.** 11:02 AM
can someone sanity check this? loss goes down and then shoots back up every 20 iters like clockwork, val acc is stuck at {vals[-1]:.2f} every epoch. full log attached (log.txt). i think lr 0.05 w/ momentum is too aggressive for this one? features are precomputed, one .pt per class

```python
X = torch.cat([torch.load(f"feats/{{c}}.pt") for c in classes])
y = torch.cat([torch.full((len(torch.load(f"feats/{{c}}.pt")),), i) for i, c in enumerate(classes)])
train_dl = DataLoader(TensorDataset(X, y), batch_size=50, num_workers=2)
```
"""
    write(RUNS, "run04", "post.md", post)
    TRUTH["run04"] = dict(
        truth="data_not_shuffled",
        symptom="Loss drops then shoots back up every 20 iterations and val acc is stuck; is lr 0.05 with momentum too aggressive?",
        how=f"Training tensor is concatenated class by class ({counts.tolist()} rows) and the DataLoader has no shuffle, so each epoch walks class blocks of ~20 batches; loss spikes at every class boundary and val acc stays at {vals[-1]:.3f} (the model predicts whichever class it saw last).")


# ---------------------------------------------------------------- run05
def run05():
    """metric_changed: accuracy refactored into mean per-class recall; same checkpoint."""
    seed_all(505)
    priors = [0.62, 0.2, 0.1, 0.05, 0.03]
    X, y = teacher_data(15000, 16, 5, seed=55, noise=0.6, priors=priors)
    Xtr, ytr, Xva, yva = T(X[:12000]), T(y[:12000]), T(X[12000:]), T(y[12000:])
    model = mlp(16, 128, 5)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(5)
    for ep in range(6):
        perm = torch.randperm(12000, generator=g)
        for i in range(0, 12000, 128):
            idx = perm[i:i + 128]
            loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
            opt.zero_grad(); loss.backward(); opt.step()
    model.eval()
    with torch.no_grad():
        logits = model(Xva)
        vloss = F.cross_entropy(logits, yva).item()
        pred = logits.argmax(1)
        old = (pred == yva).float().mean().item()
        new = torch.stack([(pred[yva == c] == c).float().mean() for c in range(5)]).mean().item()
    post = f"""### eval accuracy dropped from {old:.3f} to {new:.3f} after moving eval into `metrics.py` (#412)

Same checkpoint (`ckpt/epoch6.pt`), same val split, only change is the eval refactor from #409. Model loading broken somehow? Logs before/after:

```
[main@3f1c2a9] eval_loss={vloss:.4f} eval_acc={old:.4f}
[main@b72e0d4] eval_loss={vloss:.4f} eval_acc={new:.4f}
```

```diff
-    acc = (pred == y).float().mean()
+    acc = torch.stack([(pred[y == c] == c).float().mean()
+                       for c in range(num_classes)]).mean()
```
"""
    write(RUNS, "run05", "issue.md", post)
    TRUTH["run05"] = dict(
        truth="metric_changed",
        symptom=f"Eval accuracy dropped from {old:.3f} to {new:.3f} after the eval refactor with the same checkpoint; is model loading broken?",
        how=f"The refactor replaced overall accuracy with mean per-class recall on an imbalanced val set (priors {priors}); the model is unchanged (identical eval_loss {vloss:.4f}), only the metric differs.")


# ---------------------------------------------------------------- run06
def run06():
    """nan_in_data: one empty cell in the csv -> NaN at the same batch for any lr."""
    seed_all(606)
    X, y = teacher_data(12000, 12, 3, seed=66, noise=0.3)
    g0 = torch.Generator().manual_seed(0)
    perm0 = torch.randperm(12000, generator=g0)
    bad_step = 137  # 1-indexed step whose batch contains the empty cell
    bad_row = int(perm0[(bad_step - 1) * 64 + 9])
    X = X.copy(); X[bad_row, 7] = np.nan
    Xt, yt = T(X), T(y)
    res = {}
    for lr in (1e-3, 1e-4):
        torch.manual_seed(0)
        model = mlp(12, 64, 3)
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        g = torch.Generator().manual_seed(0)
        perm = torch.randperm(12000, generator=g)
        lines = []
        for s in range(1, bad_step + 3):
            idx = perm[(s - 1) * 64:s * 64]
            loss = F.cross_entropy(model(Xt[idx]), yt[idx])
            opt.zero_grad(); loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            lines.append(f"step {s:4d} | loss {loss.item():.4f} | grad_norm {gn.item():.3f}")
        res[lr] = lines
    a, b = res[1e-3], res[1e-4]
    post = f"""**[D] Loss goes NaN at the exact same step no matter the learning rate**

r/MachineLearning · posted by u/tabular_toby

Small MLP on a 12-feature csv (12k rows, 3 classes), Adam, batch 64, `clip_grad_norm_(model.parameters(), 1.0)`. Loss is fine and then NaN at step {bad_step}. Dropped lr 10x, still NaN at step {bad_step}. Grad clipping is on so it can't be exploding gradients?? What else blows up like that?

lr=1e-3:
```
{chr(10).join(a[bad_step-3:bad_step+1])}
```
lr=1e-4:
```
{chr(10).join(b[bad_step-3:bad_step+1])}
```
"""
    write(RUNS, "run06", "post.md", post)
    TRUTH["run06"] = dict(
        truth="nan_in_data",
        symptom=f"Loss goes NaN at exactly step {bad_step} regardless of learning rate, even with grad clipping; what blows up like that?",
        how=f"Row {bad_row} of the csv has an empty cell (NaN in feature 7); with the seeded shuffle it lands in batch {bad_step}, so the loss is finite with flat grad norms up to step {bad_step-1} and NaN from step {bad_step} at both lrs.")


# ---------------------------------------------------------------- helpers for full scripts
def exec_script(src, argv, cwd, stop_after=None):
    """Run a user-facing script text for real; capture its printed lines.
    stop_after: raise (simulated preemption) once this many lines were printed."""
    lines = []

    class Preempted(Exception):
        pass

    def _print(*a, **k):
        lines.append(" ".join(str(x) for x in a))
        if stop_after is not None and len(lines) >= stop_after:
            raise Preempted()

    old_argv, old_cwd = sys.argv, os.getcwd()
    sys.argv = ["train.py"] + list(argv)
    os.chdir(cwd)
    try:
        exec(compile(src, "train.py", "exec"), {"__name__": "__main__", "print": _print})
    except Preempted:
        pass
    finally:
        sys.argv = old_argv
        os.chdir(old_cwd)
    return lines


def data_dir(name, splits):
    d = os.path.join(HERE, "gen_support", "_tmp", name)
    os.makedirs(os.path.join(d, "data"), exist_ok=True)
    for k, (x, yy) in splits.items():
        np.savez(os.path.join(d, "data", f"{k}.npz"), x=x, y=yy)
    return d


# ---------------------------------------------------------------- run07
TRAIN07 = '''import argparse
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--hidden", type=int, default=256)
p.add_argument("--epochs", type=int, default=10)
p.add_argument("--lr", type=float, default=1e-3)
args = p.parse_args()

torch.manual_seed(0)
torch.set_num_threads(1)
tr, va = np.load("data/train.npz"), np.load("data/val.npz")
train_dl = DataLoader(TensorDataset(torch.tensor(tr["x"]), torch.tensor(tr["y"])),
                      batch_size=128, shuffle=True)
Xva, yva = torch.tensor(va["x"]), torch.tensor(va["y"])

model = nn.Sequential(
    nn.Linear(32, args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, 10),
    nn.Softmax(dim=1),
)
criterion = nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters(), lr=args.lr)

for epoch in range(args.epochs):
    model.train()
    total = 0.0
    for x, y in train_dl:
        loss = criterion(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(x)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        val_loss = criterion(out, yva).item()
        val_acc = (out.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch+1}/{args.epochs}  train_loss {total/len(train_dl.dataset):.4f}  "
          f"val_loss {val_loss:.4f}  val_acc {val_acc:.4f}")

torch.save(model.state_dict(), f"mlp_h{args.hidden}.pt")
'''


def run07():
    """double_softmax: nn.Softmax at the end of the model + CrossEntropyLoss."""
    X, y = teacher_data(12000, 32, 10, seed=77, noise=0.1)
    d = data_dir("run07", {"train": (X[:10000], y[:10000]), "val": (X[10000:], y[10000:])})
    l256 = exec_script(TRAIN07, [], d)
    l512 = exec_script(TRAIN07, ["--hidden", "512", "--epochs", "6"], d)
    post = f"""**Loss stuck around {float(l256[-1].split('train_loss ')[1][:6]):.2f} even though accuracy keeps going up?**

PyTorch Forums › vision-and-other › posted by mhr_ee

Hi, 10-class problem, 32 input features, 10k train. Loss drops in the first epoch and then sits at ~{float(l256[-1].split('train_loss ')[1][:6]):.2f} forever, even though val acc is still climbing. I figured the model is too small so I doubled the hidden size to 512, it's the same. Full script is attached (train.py). Do I need a deeper network?

```
$ python train.py
{chr(10).join(l256[:2] + l256[-2:])}
$ python train.py --hidden 512 --epochs 6
{chr(10).join(l512[-2:])}
```
"""
    write(RUNS, "run07", "post.md", post)
    write(RUNS, "run07", "train.py", TRAIN07)
    TRUTH["run07"] = dict(
        truth="double_softmax",
        symptom=f"Loss sits at ~{float(l256[-1].split('train_loss ')[1][:6]):.2f} while accuracy still climbs; doubling the hidden size did not help, do I need a deeper network?",
        how="The model ends in nn.Softmax(dim=1) and its output goes into nn.CrossEntropyLoss, which applies log_softmax again; "
            f"the loss cannot go below ln(1+9/e)=1.46 for 10 classes, so it floors at {l256[-1].split('train_loss ')[1][:6]} while val acc reaches {l256[-1].split('val_acc ')[1]}.")


# ---------------------------------------------------------------- run08
def run08():
    """eval_mode_forgotten: predict.py never calls model.eval() (BatchNorm + Dropout 0.5)."""
    seed_all(808)
    X, y = teacher_data(14000, 24, 6, seed=88, noise=0.1)
    Xtr, ytr = T(X[:10000]), T(y[:10000])
    Xva, yva = T(X[10000:12000]), T(y[10000:12000])
    Xte, yte = T(X[12000:]), T(y[12000:])
    model = mlp(24, 256, 6, bn=True, dropout=0.5)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(8)
    best = 0.0
    for ep in range(8):
        perm = torch.randperm(10000, generator=g)
        for i in range(0, 10000, 128):
            idx = perm[i:i + 128]
            loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
            opt.zero_grad(); loss.backward(); opt.step()
        vl, va = evaluate(model, Xva, yva)  # eval() inside, like the training script
        if va > best:
            best, best_ep = va, ep + 1
            state = {k: v.clone() for k, v in model.state_dict().items()}
    # predict.py: fresh process, loads best.pt, forgets model.eval()
    accs, preds = [], []
    for run in range(2):
        torch.manual_seed(1000 + run)
        m = mlp(24, 256, 6, bn=True, dropout=0.5)
        m.load_state_dict(state)
        ps = []
        with torch.no_grad():
            for i in range(0, 2000, 64):
                ps.append(m(Xte[i:i + 64]).argmax(1))
        p = torch.cat(ps)
        preds.append(p)
        accs.append((p == yte).float().mean().item())
    flip = (preds[0] != preds[1]).float().mean().item()
    post = f"""**Slack — #proj-vibration**

**Marco B.** 4:37 PM
predict.py is giving me garbage compared to training. best.pt was saved at epoch {best_ep} with val_acc {best:.4f}, on the held-out test csv I get {accs[0]:.4f}, ran it again and got {accs[1]:.4f}, and {flip*100:.1f}% of the predicted labels changed between the two runs 🤔 same file, same checkpoint. is torch.save not saving the best weights or am I loading the wrong file?

```python
model = Net(in_dim=24, hidden=256, n_cls=6)   # Linear/BatchNorm1d/ReLU/Dropout(0.5) x2
model.load_state_dict(torch.load("ckpt/best.pt"))
preds = []
with torch.no_grad():
    for x, _ in test_loader:                   # batch_size=64
        preds.append(model(x).argmax(1))
```
"""
    write(RUNS, "run08", "post.md", post)
    TRUTH["run08"] = dict(
        truth="eval_mode_forgotten",
        symptom="predict.py gives lower accuracy than validation and different predictions on every run with the same checkpoint; is the checkpoint saved or loaded wrong?",
        how=f"The inference loop loads the right weights but never calls model.eval(): Dropout(0.5) stays active and BatchNorm uses batch statistics, so test acc is {accs[0]:.3f}/{accs[1]:.3f} vs val {best:.3f} and {flip*100:.1f}% of labels change between two runs.")


# ---------------------------------------------------------------- run09
TRAIN09 = '''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
EPOCHS, BS = 12, 128

tr, va = np.load("data/train.npz"), np.load("data/val.npz")
Xtr, ytr = torch.tensor(tr["x"]), torch.tensor(tr["y"])
Xva, yva = torch.tensor(va["x"]), torch.tensor(va["y"])
mu, sd = Xtr.mean(0), Xtr.std(0)
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd

model = nn.Sequential(nn.Linear(Xtr.shape[1], 256), nn.ReLU(),
                      nn.Linear(256, 256), nn.ReLU(),
                      nn.Linear(256, 6))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS)

for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(Xtr))
    total = 0.0
    for i in range(0, len(Xtr), BS):
        idx = perm[i:i + BS]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(idx)
    sched.step()
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        acc = (out.argmax(1) == yva).float().mean().item()
    print(f"[{epoch+1:02d}/{EPOCHS}] loss={total/len(Xtr):.4f} val_loss={vl:.4f} "
          f"val_acc={acc:.4f} lr={sched.get_last_lr()[0]:.6f}")

torch.save(model.state_dict(), "final.pt")
'''


def run09():
    """healthy: cosine schedule stepped per epoch ends at lr 0 as designed."""
    X, y = teacher_data(15000, 12, 6, seed=99, noise=0.05, hidden=8)
    X = X * np.linspace(0.5, 4.0, 12, dtype=np.float32) + np.linspace(-2, 3, 12, dtype=np.float32)
    d = data_dir("run09", {"train": (X[:12000], y[:12000]), "val": (X[12000:], y[12000:])})
    lines = exec_script(TRAIN09, [], d)
    post = f"""**Discord — #beginners**

**nils_k** — 09:05
quick one, is this fine? script is attached. results look good to me but the last line prints `lr=0.000000`, so the last epoch trained with no learning rate at all?? did I mess up the scheduler / waste an epoch

```
$ python train.py
{chr(10).join(lines[:3] + ["..."] + lines[-3:])}
```
"""
    write(RUNS, "run09", "post.md", post)
    write(RUNS, "run09", "train.py", TRAIN09)
    TRUTH["run09"] = dict(
        truth="healthy",
        symptom="Results look good but the last epoch prints lr=0.000000; did I break the scheduler or waste an epoch?",
        how="No fault: CosineAnnealingLR(T_max=EPOCHS) stepped once per epoch and printed after sched.step(), so the value shown is the lr for the next epoch and reaches 0 only after the last one; "
            f"loss and val loss fall smoothly to {lines[-1].split('val_acc=')[1][:6]} val acc.")


# ---------------------------------------------------------------- run10
def run10():
    """zero_variance_statistic: per-batch standardisation, last batch has one sample -> std NaN."""
    seed_all(1010)
    n = 64 * 78 + 1
    X, y = teacher_data(n, 24, 6, seed=1010, noise=0.1)
    X = X * 3.0 + 1.5
    Xt, yt = T(X), T(y)
    model = mlp(24, 128, 6)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(10)
    nb = math.ceil(n / 64)
    log = [f"loaded {n} rows from data/vibration_train.parquet (24 features), batch_size=64, shuffle=True"]
    caught = None
    for ep in range(2):
        perm = torch.randperm(n, generator=g)
        tot, k = 0.0, 0
        for b in range(nb):
            idx = perm[b * 64:(b + 1) * 64]
            x, yy = Xt[idx], yt[idx]
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                x = (x - x.mean(0)) / x.std(0)
            if w and caught is None:
                caught = str(w[0].message)
                log.append(f"/home/ana/sensors/train.py:52: UserWarning: {caught}\n  x = (x - x.mean(0)) / x.std(0)")
            loss = F.cross_entropy(model(x), yy)
            opt.zero_grad(); loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            tot += loss.item(); k += 1
            if (b + 1) % 20 == 0 or b + 1 == nb:
                log.append(f"epoch {ep+1} [{b+1:3d}/{nb}] loss {loss.item():.4f} grad_norm {gn.item():.3f}")
        log.append(f"epoch {ep+1} finished, mean loss {tot/k:.4f}")
    body = "\n".join([log[0], "..."] + log[3:])
    post = f"""### Loss becomes NaN at the end of the first epoch, every time

Happens on every run at the very end of epoch 1, and stays NaN afterwards. Grad clipping (max_norm=5) is on. Exploding gradients somewhere in the MLP? Log:

```
{body}
```
"""
    write(RUNS, "run10", "issue.md", post)
    TRUTH["run10"] = dict(
        truth="zero_variance_statistic",
        symptom="Loss becomes NaN at the very end of epoch 1 on every run despite grad clipping; exploding gradients?",
        how=f"Each batch is standardised with x.std(0); 4993 rows at batch 64 leave a last batch of one sample, whose std is NaN ('std(): degrees of freedom is <= 0' warning), so the last step of epoch 1 and everything after is NaN.")


# ---------------------------------------------------------------- run11
def run11():
    """optimizer_misconfigured: Adam eps=1.0 (ported from a TF recipe) with a sane lr."""
    seed_all(1111)
    X, y = teacher_data(6000, 20, 5, seed=111, noise=0.05)
    Xtr, ytr, Xva, yva = T(X[:5000]), T(y[:5000]), T(X[5000:]), T(y[5000:])
    out = {}
    for name in ("adam", "sgd"):
        torch.manual_seed(11)
        model = mlp(20, 128, 5)
        if name == "adam":
            opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1.0)
        else:
            opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        g = torch.Generator().manual_seed(12)
        accs = []
        for ep in range(5):
            perm = torch.randperm(5000, generator=g)
            for i in range(0, 5000, 64):
                idx = perm[i:i + 64]
                loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
                opt.zero_grad(); loss.backward(); opt.step()
            vl, va = evaluate(model, Xva, yva)
            accs.append((vl, va))
        out[name] = accs
    a, s = out["adam"], out["sgd"]
    post = f"""**Slack — #training-infra**

**Jonas W.** 2:18 PM
is Adam just bad on this dataset? same MLP, 5 epochs each. SGD (lr 0.05, mom 0.9): val_acc {' → '.join(f'{v[1]:.3f}' for v in s)}. Adam: val_acc {' → '.join(f'{v[1]:.3f}' for v in a)}, val_loss still {a[-1][0]:.3f} at the end. thinking of bumping Adam lr to 1e-2? optimizer block is from the config we ported over from the old TF repo:

```yaml
optimizer: {{name: adam, lr: 1.0e-3, beta1: 0.9, beta2: 0.999, epsilon: 1.0, weight_decay: 0.0}}
```
"""
    write(RUNS, "run11", "post.md", post)
    TRUTH["run11"] = dict(
        truth="optimizer_misconfigured",
        symptom="Adam learns far slower than SGD on the same MLP; is Adam bad for this data, should I raise its lr to 1e-2?",
        how=f"Adam runs with eps=1.0 (ported TF setting) and lr 1e-3, so updates are ~lr*grad instead of ~lr; val acc crawls {a[0][1]:.3f}→{a[-1][1]:.3f} while SGD reaches {s[-1][1]:.3f}. The lr is sane; the epsilon is wrong.")


# ---------------------------------------------------------------- run12
TRAIN12 = '''import argparse
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--total-steps", type=int, default=1800)
p.add_argument("--warmup", type=int, default=150)
p.add_argument("--lr", type=float, default=3e-3)
p.add_argument("--resume", default="")
args = p.parse_args()

torch.manual_seed(0)
torch.set_num_threads(1)
device = "cuda" if torch.cuda.is_available() else "cpu"
tr, va = np.load("data/train.npz"), np.load("data/val.npz")
dl = DataLoader(TensorDataset(torch.tensor(tr["x"]), torch.tensor(tr["y"])), batch_size=128, shuffle=True, drop_last=True)
Xva, yva = torch.tensor(va["x"]).to(device), torch.tensor(va["y"]).to(device)

model = nn.Sequential(nn.Linear(40, 256), nn.GELU(), nn.Linear(256, 256), nn.GELU(), nn.Linear(256, 10)).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)

def lr_lambda(s):
    if s < args.warmup:
        return (s + 1) / args.warmup
    return 0.5 * (1 + math.cos(math.pi * (s - args.warmup) / (args.total_steps - args.warmup)))

sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)

step = 0
if args.resume:
    ckpt = torch.load(args.resume, map_location=device)
    model.load_state_dict(ckpt["model"])
    step = ckpt["step"]
    print(f"resumed from {args.resume} at step {step}")

while step < args.total_steps:
    for x, y in dl:
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        step += 1
        if step % 25 == 0:
            print(f"step {step:5d} | loss {loss.item():.4f} | lr {sched.get_last_lr()[0]:.3e}")
        if step % 100 == 0:
            model.eval()
            with torch.no_grad():
                out = model(Xva)
                print(f"step {step:5d} | val_loss {F.cross_entropy(out, yva).item():.4f} | "
                      f"val_acc {(out.argmax(1) == yva).float().mean().item():.4f}")
            model.train()
        if step % 250 == 0:
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                        "scheduler": sched.state_dict(), "step": step}, f"ckpt/step{step}.pt")
        if step >= args.total_steps:
            break
'''


def run12():
    """resume_mismatch: resume restores weights + step only; fresh AdamW state and warm-up restarts."""
    X, y = teacher_data(24000, 40, 10, seed=1212, noise=0.1)
    d = data_dir("run12", {"train": (X[:20000], y[:20000]), "val": (X[20000:], y[20000:])})
    os.makedirs(os.path.join(d, "ckpt"), exist_ok=True)
    # first job: preempted after the line for step 1325 (ckpt at step 1250 on disk)
    first = exec_script(TRAIN12, [], d, stop_after=None)
    # the uninterrupted job above is the reference; the real preempted job is the same run cut short
    cut = next(i for i, l in enumerate(first) if l.startswith("step  1325 | loss"))
    part1 = first[:cut + 1]
    second = exec_script(TRAIN12, ["--resume", "ckpt/step1250.pt"], d)
    hdr1 = ["+ srun python train.py",
            "[2024-05-01 22:03:41] job 4417731 on gpu-node17, 1 x A10"]
    pre = ["slurmstepd: error: *** STEP 4417731.0 ON gpu-node17 CANCELLED AT 2024-05-02T03:14:09 DUE TO PREEMPTION ***",
           "",
           "+ srun python train.py --resume ckpt/step1250.pt",
           "[2024-05-02 05:40:12] job 4418390 on gpu-node09, 1 x A10"]
    write(RUNS, "run12", "log.txt", "\n".join(hdr1 + part1 + pre + second))
    write(RUNS, "run12", "train.py", TRAIN12)

    def val_at(lines, s):
        l = next(l for l in lines if l.startswith(f"step {s:5d} | val_loss"))
        return float(l.split("val_loss ")[1][:6]), float(l.split("val_acc ")[1])

    v1200 = val_at(part1, 1200)
    v1400r = val_at(second, 1400)
    vend = val_at(second, 1800)
    vref = val_at(first, 1800)
    post = f"""### Loss jumps after resuming from checkpoint — corrupted checkpoint?

Job got preempted at step ~1325 and I resumed from `ckpt/step1250.pt`. Before preemption val_loss was {v1200[0]:.4f} at step 1200; after the resume it climbs to {v1400r[0]:.4f} by step 1400 and the run ends at {vend[0]:.4f} / acc {vend[1]:.4f}, worse than an earlier run of the same config that was never interrupted ({vref[0]:.4f} / {vref[1]:.4f}). Could `torch.save` be writing a partial file when the job is killed? Script and full log attached.
"""
    write(RUNS, "run12", "issue.md", post)
    TRUTH["run12"] = dict(
        truth="resume_mismatch",
        symptom="Loss jumps after resuming a preempted job from a checkpoint and the run ends worse than an uninterrupted one; is the checkpoint corrupted?",
        how=f"On --resume the script loads only the model weights and step; AdamW moments are fresh and the LambdaLR restarts at 0, so the logged lr restarts its warm-up (5.2e-4 at step 1275, 3.0e-3 at step 1400) instead of continuing the cosine from 7.5e-4; the data order also restarts from a fresh epoch; val loss goes {v1200[0]:.4f} (step 1200)→{v1400r[0]:.4f} (step 1400) and ends {vend[0]:.4f} vs {vref[0]:.4f} uninterrupted.")



ALL = [run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12]


if __name__ == "__main__":
    t0 = time.time()
    only = sys.argv[1:]
    if not only and os.path.isdir(RUNS):
        shutil.rmtree(RUNS)
    for fn in ALL:
        if only and fn.__name__ not in only:
            continue
        t = time.time()
        fn()
        print(f"{fn.__name__}: {time.time()-t:.1f}s", flush=True)
    shutil.rmtree(os.path.join(HERE, "gen_support", "_tmp"), ignore_errors=True)
    if not only:
        with open(os.path.join(HERE, "truth.json"), "w") as f:
            json.dump(dict(sorted(TRUTH.items())), f, indent=2)
    else:
        print(json.dumps(TRUTH, indent=2))
    print(f"total {time.time()-t0:.1f}s")
