"""run07 .. run12"""
import os
import numpy as np
import torch
import torch.nn as nn
from .common import (make_blobs, make_teacher, split, run_script, fake_module, clean_tb, chat_md, chat_txt,
                     chat_json, write, fence, StopRun)


# =====================================================================================  run07
RUN07_TRAIN = '''import os
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from features import load_class_dir

DATA = "data"
CLASSES = sorted(os.listdir(os.path.join(DATA, "train")))


def build(split):
    xs, ys = [], []
    for label, cls in enumerate(CLASSES):
        feats = load_class_dir(os.path.join(DATA, split, cls))   # (n, 64) FFT band energies
        xs.append(feats)
        ys.append(np.full(len(feats), label, dtype=np.int64))
    return TensorDataset(torch.from_numpy(np.concatenate(xs)), torch.from_numpy(np.concatenate(ys)))


train_ds, val_ds = build("train"), build("val")
train_loader = DataLoader(train_ds, batch_size=50)
val_loader = DataLoader(val_ds, batch_size=250)
print(f"classes: {CLASSES}")
print(f"train: {len(train_ds)}  val: {len(val_ds)}  steps/epoch: {len(train_loader)}")

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, len(CLASSES)))
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
crit = nn.CrossEntropyLoss()

step = 0
for epoch in range(1, 9):
    model.train()
    for x, y in train_loader:
        loss = crit(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 2 == 0:
            print(f"ep {epoch} it {step:4d}  loss {loss.item():.4f}")
    model.eval()
    correct, vloss = 0, 0.0
    with torch.no_grad():
        for x, y in val_loader:
            out = model(x)
            vloss += crit(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
    print(f"=== epoch {epoch}  val_loss {vloss / len(val_ds):.4f}  val_acc {correct / len(val_ds):.4f}")
'''


def run07(out, tmp):
    classes = ["ball", "cage", "healthy", "inner_race", "outer_race"]
    X, y = make_blobs(4000, 64, 5, seed=707, clusters_per_class=3, spread=2.0, center_scale=0.8)
    Xtr, ytr, Xva, yva = split(X, y, 1000, seed=7)
    store = {}
    for split_name, XX, yy in (("train", Xtr, ytr), ("val", Xva, yva)):
        for k, c in enumerate(classes):
            os.makedirs(f"{tmp}/data/{split_name}/{c}", exist_ok=True)
            store[os.path.join("data", split_name, c)] = XX[yy == k]
    mods = {"features": fake_module("features", load_class_dir=lambda p: store[p])}
    stdout, tb, _ = run_script(RUN07_TRAIN, "/home/akaur/vibration/train.py", mods, cwd=tmp)
    assert tb is None, tb
    write(f"{out}/train.py", RUN07_TRAIN)
    write(f"{out}/train_output.txt", "$ python train.py 2>&1 | tee train_output.txt\n" + stdout)
    lines = stdout.splitlines()
    ep_lines = [l for l in lines if l.startswith("===")]
    chunk = "\n".join(lines[2:2 + 36])
    turns = [
        ("user", f"""My bearing-fault classifier (5 classes, FFT features) won't converge. The loss jumps up and down like crazy and validation accuracy is awful. Beginning of the log:

{fence(chunk)}

and the per-epoch validation:

{fence(chr(10).join(ep_lines))}

Full log and train.py attached. What's going on?"""),
        ("assistant", """The loss pattern you're showing - dropping close to zero and then spiking back above 2 - is a classic sign of **training instability from a learning rate that is too high** for Adam on this problem. Each spike is the optimizer overshooting a sharp region of the loss landscape and being thrown out of it.

Recommended changes:

1. **Lower the learning rate** to `3e-4` (or even `1e-4`).
2. Add **gradient clipping**: `torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)` before `opt.step()`.
3. Add a **learning-rate scheduler**, e.g. `ReduceLROnPlateau` on val loss.
4. Consider **BatchNorm** after the linear layers - FFT band energies can have very different scales, and normalisation makes the optimisation much smoother.

With these, the spikes should disappear and val accuracy should climb steadily."""),
        ("user", """Ok I'll try lower LR + clipping. But is it weird that it's so regular? It spikes roughly every 12 iterations."""),
        ("assistant", """Not necessarily - regular oscillations are common with adaptive optimizers: Adam's moment estimates have an effective memory of roughly `1/(1-beta1)` = 10 steps, so when the LR is too high you get a quasi-periodic cycle of overshoot and correction with a period on that order. Lowering the LR (or raising `beta2` to 0.9999) should damp it. If it persists, try SGD with momentum, which tends to be less prone to these cycles."""),
    ]
    write(f"{out}/chat_export.md", chat_md("Bearing fault classifier loss spikes", turns))
    return {"truth": "data_not_shuffled",
            "symptom": "My classifier won't converge - the loss jumps up and down like crazy (spikes every ~12 iterations) and val accuracy is awful.",
            "how": "The training set is concatenated class by class and the DataLoader has no shuffle=True, so every epoch walks through 5 single-class blocks of 12 batches; the loss falls inside each block (to ~0 in epoch 1) and jumps at every class boundary, an epoch-aligned saw-tooth, and val_acc stays low (0.43 after 8 epochs)."}


# =====================================================================================  run08
RUN08_TRAIN = '''import argparse
import math
import os
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import get_datasets

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--resume", default=None)
args = p.parse_args()

torch.manual_seed(0)
train_ds, val_ds = get_datasets()
train_loader = DataLoader(train_ds, batch_size=128, shuffle=True, drop_last=True)
val_loader = DataLoader(val_ds, batch_size=512)

model = nn.Sequential(nn.Linear(32, 128), nn.GELU(), nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 12))
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
total_steps = args.epochs * len(train_loader)
warmup = 200


def lr_lambda(s):
    if s < warmup:
        return s / warmup
    return 0.5 * (1 + math.cos(math.pi * (s - warmup) / (total_steps - warmup)))


sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
crit = nn.CrossEntropyLoss()

start_epoch = 1
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    start_epoch = ckpt["epoch"] + 1
    print(f"resumed from {args.resume} (epoch {ckpt['epoch']})")

os.makedirs("checkpoints", exist_ok=True)
step = (start_epoch - 1) * len(train_loader)
running, n_run = 0.0, 0
for epoch in range(start_epoch, args.epochs + 1):
    model.train()
    for x, y in train_loader:
        loss = crit(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        step += 1
        running += loss.item()
        n_run += 1
        if step % 20 == 0:
            print(f"epoch {epoch:3d} step {step:6d} loss {running / n_run:.4f} lr {sched.get_last_lr()[0]:.3e}")
            running, n_run = 0.0, 0
    model.eval()
    correct = 0
    vloss = 0.0
    with torch.no_grad():
        for x, y in val_loader:
            out = model(x)
            vloss += crit(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
    print(f"epoch {epoch:3d} | val_loss {vloss / len(val_ds):.4f} | val_acc {correct / len(val_ds):.4f}")
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch}, "checkpoints/last.pt")
'''


def run08(out, tmp):
    X, y = make_blobs(14000, 32, 12, seed=808, clusters_per_class=3, spread=1.1, center_scale=0.9)
    Xtr, ytr, Xva, yva = split(X, y, 2000, seed=8)

    class DS(torch.utils.data.Dataset):
        def __init__(self, X, y, kill_after=None):
            self.X, self.y = torch.tensor(X), torch.tensor(y)
            self.calls, self.kill_after = 0, kill_after

        def __len__(self):
            return len(self.y)

        def __getitem__(self, i):
            self.calls += 1
            if self.kill_after is not None and self.calls > self.kill_after:
                raise StopRun("preempted")
            return self.X[i], self.y[i]

    spe = len(ytr) // 128
    kill = (24 * spe + 17) * 128         # job preempted in the middle of epoch 25
    mods1 = {"data": fake_module("data", get_datasets=lambda: (DS(Xtr, ytr, kill), DS(Xva, yva)))}
    mods2 = {"data": fake_module("data", get_datasets=lambda: (DS(Xtr, ytr), DS(Xva, yva)))}
    s1, tb1, e1 = run_script(RUN08_TRAIN, "/scratch/pmoreau/sku_cls/train.py", mods1, argv=["--epochs", "30"], cwd=tmp)
    assert tb1 is None and isinstance(e1, StopRun), tb1
    s2, tb2, e2 = run_script(RUN08_TRAIN, "/scratch/pmoreau/sku_cls/train.py", mods2,
                             argv=["--epochs", "30", "--resume", "checkpoints/last.pt"], cwd=tmp)
    assert tb2 is None and e2 is None, tb2
    log = ("==> slurm-48213.out <==\n"
           "+ srun python train.py --epochs 30\n" + s1 +
           "slurmstepd: error: *** JOB 48213 ON gpu-node07 CANCELLED AT 2024-05-02T03:14:09 DUE TO PREEMPTION ***\n"
           "\n==> slurm-48391.out <==\n"
           "+ srun python train.py --epochs 30 --resume checkpoints/last.pt\n" + s2)
    write(f"{out}/train_log.txt", log)
    l1, l2 = s1.splitlines(), s2.splitlines()
    val1 = [l for l in l1 if "val_acc" in l]
    excerpt = "\n".join(l1[-8:] + ["--- job preempted, requeued ---"] + l2[:19])
    val2 = [l for l in l2 if "val_acc" in l]
    code_excerpt = RUN08_TRAIN[RUN08_TRAIN.index("start_epoch = 1"):RUN08_TRAIN.index("    model.train()")]
    turns = [
        ("user", f"""My job got preempted during epoch 25 of 30 and I resumed it from the last checkpoint. Right after the resume the loss went back up (about 2-3x) for a few epochs, and the final val acc ({val2[-1].split('val_acc ')[1]}) is not what I expected given where it was before the preemption. Around the resume:

{fence(excerpt)}

This is my resume logic:

{fence(code_excerpt, 'python')}

Could the checkpoint have been corrupted when the job was killed? Full log attached."""),
        ("assistant", """It's possible. When a job is killed while `torch.save` is writing, you can end up with a **partially written checkpoint**. `torch.load` often still succeeds on a truncated file if the tensors it needs happen to be complete, but some weights may be garbage - which would explain a model that suddenly performs worse and has to re-learn.

To make this robust:

1. **Write atomically**: save to `last.pt.tmp` and then `os.replace("last.pt.tmp", "last.pt")`. The rename is atomic on POSIX filesystems, so you never load a half-written file.
2. **Keep the last two checkpoints** and verify them (e.g. store a checksum or run a quick validation pass after loading).
3. Another factor: after a resume the **data order differs** from the original run, because the RNG state isn't restored. That alone can cause some fluctuation in the loss for a while.

Your resume logic itself looks correct - you restore the weights and the epoch counter."""),
        ("user", """The preemption was in the middle of epoch 25 and the checkpoint is written at the end of each epoch, so last.pt (epoch 24) was finished well before the kill. So the file should be fine?"""),
        ("assistant", """If last.pt was fully written before the kill, the checkpoint itself is fine. Then the jump is most likely due to the **changed data order**: after the restart, the model sees batches in a different sequence, and with a relatively high learning rate this can temporarily push it away from the minimum it was in. It should recover within a few epochs, which is consistent with what you see.

To make resumes fully reproducible, also save and restore `torch.get_rng_state()` and the sampler's generator state, and consider lowering the peak LR slightly."""),
    ]
    write(f"{out}/chat_export.md", chat_md("Loss jumps after resuming from checkpoint", turns))
    return {"truth": "resume_mismatch",
            "symptom": "After my job was preempted and resumed from the last checkpoint, the loss went back up for a few epochs and the final val acc is below where it was before - could the checkpoint have been corrupted?",
            "how": "The resume code restores only the model weights and epoch; the AdamW state (saved in the checkpoint) is not loaded and the LambdaLR warm-up/cosine schedule restarts from step 0, so the logged lr re-warms from ~0 to the 2e-3 peak (it was ~2e-4 before the preemption) and the running loss jumps to 2-3x its pre-resume level at epoch 25."}


# =====================================================================================  run09
class DefectNet(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.net = nn.Sequential(
            nn.Flatten(),
            nn.Linear(64, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(256, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(128, num_classes))

    def forward(self, x):
        return self.net(x)


RUN09_PREDICT = '''import csv
import torch

from model import DefectNet
from io_utils import load_images

model = DefectNet(num_classes=4)
state = torch.load("runs/defect_v3/best.pt", map_location="cpu")
model.load_state_dict(state)

paths, images = load_images("holdout/")          # float tensor (N, 1, 8, 8), same normalisation as training
labels = {r["file"]: int(r["label"]) for r in csv.DictReader(open("holdout/labels.csv"))}

preds = []
with torch.no_grad():
    for i in range(0, len(images), 16):
        logits = model(images[i:i + 16])
        preds += logits.argmax(1).tolist()

correct = sum(int(p == labels[f]) for f, p in zip(paths, preds))
print(f"holdout accuracy: {correct / len(paths):.4f} ({correct}/{len(paths)})")
for f, p in list(zip(paths, preds))[:6]:
    print(f"  {f} -> class {p}")
'''


def run09(out, tmp):
    X, y = make_blobs(3600, 64, 4, seed=909, clusters_per_class=3, spread=2.0, center_scale=0.6)
    Xtr, ytr, Xva, yva = split(X, y, 600, seed=9)
    torch.manual_seed(9)
    model = DefectNet(4)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
    crit = nn.CrossEntropyLoss()
    Xt, yt = torch.tensor(Xtr).view(-1, 1, 8, 8), torch.tensor(ytr)
    Xv, yv = torch.tensor(Xva).view(-1, 1, 8, 8), torch.tensor(yva)
    log = ["Epoch  Train Loss  Train Acc  Val Loss  Val Acc", "-----  ----------  ---------  --------  -------"]
    best, best_state = -1, None
    g = torch.Generator().manual_seed(9)
    for ep in range(1, 26):
        model.train()
        perm = torch.randperm(len(yt), generator=g)
        tl, tc = 0.0, 0
        for i in range(0, len(yt), 64):
            b = perm[i:i + 64]
            if len(b) < 2:
                continue
            o = model(Xt[b]); loss = crit(o, yt[b])
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(b); tc += (o.argmax(1) == yt[b]).sum().item()
        model.eval()
        with torch.no_grad():
            vo = model(Xv); vl = crit(vo, yv).item(); va = (vo.argmax(1) == yv).float().mean().item()
        mark = ""
        if va > best:
            best, best_state, mark = va, {k: v.clone() for k, v in model.state_dict().items()}, "  * saved best.pt"
        log.append(f"{ep:5d}  {tl / len(yt):10.4f}  {tc / len(yt):9.4f}  {vl:8.4f}  {va:7.4f}{mark}")
    write(f"{out}/train_log.txt", "\n".join(log) + f"\nbest val acc: {best:.4f}\n")
    os.makedirs(f"{tmp}/runs/defect_v3", exist_ok=True)
    os.makedirs(f"{tmp}/holdout", exist_ok=True)
    torch.save(best_state, f"{tmp}/runs/defect_v3/best.pt")
    paths = [f"holdout/img_{i:04d}.png" for i in range(len(yva))]
    with open(f"{tmp}/holdout/labels.csv", "w") as f:
        f.write("file,label\n" + "".join(f"{p},{l}\n" for p, l in zip(paths, yva)))
    mods = {"model": fake_module("model", DefectNet=DefectNet),
            "io_utils": fake_module("io_utils", load_images=lambda d: (paths, Xv.clone()))}
    outs = []
    for seed in (41730, 9215):                   # two separate invocations of the script
        torch.manual_seed(seed)
        s, tb, _ = run_script(RUN09_PREDICT, "/home/ebrown/defects/predict.py", mods, cwd=tmp)
        assert tb is None, tb
        outs.append(s)
    write(f"{out}/predict.py", RUN09_PREDICT)
    turns = [
        ("user", f"""I trained a small defect classifier (4 classes, 8x8 patches). Training log says best val acc {best:.4f}. The holdout/ folder is literally the same 600 patches as the val set. But predict.py gives me a lower number AND a different result every time I run it:

{fence("$ python predict.py" + chr(10) + outs[0] + "$ python predict.py" + chr(10) + outs[1])}

Is torch nondeterministic on CPU? How do I make it deterministic?"""),
        ("assistant", """Yes, PyTorch is not guaranteed to be bit-for-bit deterministic, even on CPU: multithreaded reductions (e.g. in matrix multiplications via MKL/OpenMP) can sum in different orders, giving tiny floating-point differences that occasionally flip an argmax.

To make it deterministic:

```python
import torch, random, numpy as np
torch.manual_seed(0); random.seed(0); np.random.seed(0)
torch.use_deterministic_algorithms(True)
torch.set_num_threads(1)
```

As for the lower accuracy: the val accuracy during training is computed on the **best epoch by definition**, so it is an optimistic estimate (you selected the checkpoint *because* it scored highest on exactly that set). A few points lower on re-evaluation is expected."""),
        ("user", """But it's the same set, same checkpoint - shouldn't it give exactly the best val acc? And the gap is more than a few rounding flips. predict.py attached."""),
        ("assistant", """Fair point - if it's literally the same data and checkpoint, selection bias doesn't explain it. The most likely remaining explanation is a **preprocessing difference**: `load_images` probably reads the PNGs from disk (uint8, possibly re-encoded), while during training you used the in-memory arrays. Even small differences in normalisation or interpolation can shift predictions for borderline samples. Compare `images.mean()` / `images.std()` in predict.py against your training tensors, and make sure the channel order and scaling are identical."""),
    ]
    write(f"{out}/chat_export.md", chat_md("Different predictions every run", turns))
    return {"truth": "eval_mode_forgotten",
            "symptom": "predict.py gives a lower accuracy than the val acc from training on the same images, and a different result every time I run it - is torch nondeterministic on CPU?",
            "how": "predict.py never calls model.eval(), so the two Dropout(0.5) layers stay active and BatchNorm normalises each batch of 16 with its own statistics; accuracy drops below the logged best val acc and changes from run to run."}


# =====================================================================================  run10
class SegHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(48, 192), nn.ReLU(), nn.Linear(192, 96), nn.ReLU())
        self.classifier = nn.Linear(96, 10)

    def forward(self, x):
        return self.classifier(self.backbone(x))


RUN10_EVAL = '''import torch
from nets import SegHead
from loaders import test_loader

model = SegHead()
ckpt = torch.load("ckpt/best.pth", map_location="cpu")
msg = model.load_state_dict(ckpt["state_dict"], strict=False)
print(msg)
print(f"loaded ckpt/best.pth (epoch {ckpt['epoch']}, val_acc {ckpt['val_acc']:.4f})")
model.eval()
correct = total = 0
with torch.no_grad():
    for x, y in test_loader():
        correct += (model(x).argmax(1) == y).sum().item()
        total += len(y)
print(f"test accuracy: {correct / total:.4f} on {total} samples")
'''


def run10(out, tmp):
    X, y = make_blobs(6000, 48, 10, seed=1010, clusters_per_class=2, spread=1.3, center_scale=0.7)
    Xtr, ytr, Xrest, yrest = split(X, y, 2000, seed=10)
    Xva, yva, Xte, yte = Xrest[:1000], yrest[:1000], Xrest[1000:], yrest[1000:]
    torch.manual_seed(10)
    net = nn.DataParallel(SegHead())
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    crit = nn.CrossEntropyLoss()
    Xt, yt = torch.tensor(Xtr), torch.tensor(ytr)
    lines, best = [], -1
    g = torch.Generator().manual_seed(10)
    for ep in range(1, 16):
        net.train()
        perm = torch.randperm(len(yt), generator=g)
        tl = 0.0
        for i in range(0, len(yt), 128):
            b = perm[i:i + 128]
            loss = crit(net(Xt[b]), yt[b])
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(b)
        net.eval()
        with torch.no_grad():
            va = (net(torch.tensor(Xva)).argmax(1).numpy() == yva).mean()
        msg = ""
        if va > best:
            best = va
            os.makedirs(f"{tmp}/ckpt", exist_ok=True)
            torch.save({"state_dict": net.state_dict(), "epoch": ep, "val_acc": float(va)}, f"{tmp}/ckpt/best.pth")
            msg = " -> saved ckpt/best.pth"
        lines.append(f"Epoch [{ep:2d}/15] train_loss: {tl / len(yt):.4f}  val_acc: {va:.4f}{msg}")

    def test_loader():
        for i in range(0, len(yte), 250):
            yield torch.tensor(Xte[i:i + 250]), torch.tensor(yte[i:i + 250])

    mods = {"nets": fake_module("nets", SegHead=SegHead), "loaders": fake_module("loaders", test_loader=test_loader)}
    s, tb, _ = run_script(RUN10_EVAL, "/home/okim/proj/eval.py", mods, cwd=tmp)
    assert tb is None, tb
    turns = [
        ("user", f"""training went fine, last epochs:
```
{chr(10).join(lines[-4:])}
```
but when I run eval.py on the test split:
```
$ python eval.py
{s.rstrip()}
```
test is like random guessing (10 classes). train/val/test come from the same pool, split randomly. what could make test so different from val??"""),
        ("assistant", """If val is high and test is at chance, the test split is almost certainly **not aligned with how the model was trained**. The most common causes:

1. **Label mapping mismatch**: the test loader may build its class-to-index mapping differently (e.g. sorting class names in a different order, or a different set of classes present), so label 3 in test isn't label 3 in training.
2. **Normalisation**: check that the test loader applies the same mean/std normalisation as the training loader.
3. **Shuffled labels**: if test features and labels are loaded from separate files, make sure they are in the same order.

Quick check: compute the confusion matrix on test. If it has a strong permutation structure (high values off the diagonal in a consistent pattern), it's a label-mapping problem."""),
        ("user", """checked, same loader code for val and test, same class list and normalisation. confusion matrix is not a permutation, it's just mush"""),
        ("assistant", """Then the next thing I'd check is whether the test split is actually from the same distribution - e.g. collected on a different day or sensor, or containing corrupted samples. Plot a histogram of a few input features for val vs test. If they overlap well, try evaluating the **val split with eval.py** too: if val also drops to chance there, the problem is in eval.py's data path rather than the data itself."""),
    ]
    write(f"{out}/chat_export.json", chat_json("val fine, test at chance", turns))
    return {"truth": "wrong_checkpoint",
            "symptom": "Training went fine (val ~0.9) but eval.py on the test split is like random guessing - what could make test so different from val?",
            "how": "The checkpoint was saved from an nn.DataParallel wrapper (keys prefixed 'module.') and eval.py loads it with strict=False, so nothing is loaded; the printed _IncompatibleKeys lists every parameter as missing/unexpected and the randomly initialised model scores at chance."}


# =====================================================================================  run11
def run11(out, tmp):
    X, y = make_blobs(5000, 30, 6, seed=1111, clusters_per_class=3, spread=1.5, center_scale=0.8)
    Xtr, ytr, Xva, yva = split(X, y, 1000, seed=11)
    torch.manual_seed(11)
    model = nn.Sequential(nn.Linear(30, 256), nn.ReLU(), nn.Dropout(0.4), nn.Linear(256, 256), nn.ReLU(),
                          nn.Dropout(0.4), nn.Linear(256, 6))
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    crit = nn.CrossEntropyLoss()
    Xt, yt = torch.tensor(Xtr), torch.tensor(ytr)
    lines = []
    g = torch.Generator().manual_seed(11)
    for ep in range(1, 21):
        model.train()
        perm = torch.randperm(len(yt), generator=g)
        tl, tc = 0.0, 0
        for i in range(0, len(yt), 64):
            b = perm[i:i + 64]
            o = model(Xt[b]); loss = crit(o, yt[b])
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(b); tc += (o.argmax(1) == yt[b]).sum().item()
        model.eval()
        with torch.no_grad():
            vo = model(torch.tensor(Xva)); vl = crit(vo, torch.tensor(yva)).item()
            va = (vo.argmax(1).numpy() == yva).mean()
        lines.append(f"epoch {ep:2d}: train_loss={tl / len(yt):.4f} train_acc={tc / len(yt):.4f} val_loss={vl:.4f} val_acc={va:.4f}")
    overlap = len(set(map(bytes, Xtr)) & set(map(bytes, Xva)))
    turns = [
        ("user", f"""Quick question. Val loss is lower than train loss for the entire run and val acc is a bit higher than train acc too:

```
{chr(10).join(lines)}
```

Isn't that impossible unless validation data leaked into training? Split is a random 80/20 of 5000 rows, MLP with dropout 0.4."""),
        ("assistant", """Good catch - validation performance consistently **better** than training is a red flag. In most cases this means **data leakage**: some validation samples (or near-duplicates) are also in the training set, so the model has effectively seen them.

Check:
1. **Exact duplicates** between train and val (hash each row).
2. **Near-duplicates**: rows from the same entity (same user/session/device) ending up in both splits. Use a **group split** (`GroupShuffleSplit`) keyed on the entity ID.
3. Any **preprocessing fitted on the full data** before splitting (scalers, imputers, target encoders) leaks val statistics into training.

Until you've ruled this out, I wouldn't trust the val numbers."""),
        ("user", f"""I hashed the rows: {overlap} exact duplicates between train and val. There's no entity column, each row is an independent measurement, and there's no scaler in the pipeline. So should I trust the numbers or not?"""),
        ("assistant", """Zero exact duplicates is reassuring, but near-duplicates can still leak information, and independent measurements of the same physical sample could be highly correlated. To be safe, I'd recommend collecting a **fresh test set** from a different time period and evaluating on it before trusting these numbers."""),
    ]
    write(f"{out}/chat_export.json", chat_json("Val loss lower than train loss", turns, create_time=1719300000.0))
    return {"truth": "healthy",
            "symptom": "Val loss is lower than train loss for the entire run and val acc a bit higher - isn't that impossible unless validation data leaked into training?",
            "how": "Nothing planted: a clean random 80/20 split (0 duplicate rows) of an MLP with Dropout(0.4); train metrics are measured with dropout active and averaged over the epoch, so val loss sits slightly below train loss while both improve steadily to a realistic, not near-perfect, accuracy."}


# =====================================================================================  run12
def run12(out, tmp):
    X, y = make_teacher(26000, 12, 8, seed=1212, tau=0.3)
    Xtr, ytr, Xva, yva = split(X, y, 2000, seed=12)
    torch.manual_seed(12)
    model = nn.Sequential(nn.Linear(12, 48), nn.ReLU(), nn.Linear(48, 48), nn.ReLU(), nn.Linear(48, 8))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[30, 45], gamma=0.1)
    crit = nn.CrossEntropyLoss()
    Xt, yt = torch.tensor(Xtr), torch.tensor(ytr)
    g = torch.Generator().manual_seed(12)
    cfg = ("experiment: grade8_mlp\nmodel: {hidden: [48, 48]}\noptim: {name: sgd, lr: 0.05, momentum: 0.9, weight_decay: 1.0e-3}\n"
           "schedule: {name: multistep, milestones: [30, 45], gamma: 0.1}\nbatch_size: 200\nepochs: 60\nseed: 12\n")
    log = ["2024-07-03 14:02:11 | INFO | config:", *["    " + l for l in cfg.strip().splitlines()],
           f"2024-07-03 14:02:11 | INFO | train samples: {len(yt)} | val samples: {len(yva)}"]
    per_ep = []
    t = 12
    for ep in range(1, 61):
        model.train()
        perm = torch.randperm(len(yt), generator=g)
        tl, tc = 0.0, 0
        for j, i in enumerate(range(0, len(yt), 200)):
            b = perm[i:i + 200]
            o = model(Xt[b]); loss = crit(o, yt[b])
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(b); tc += (o.argmax(1) == yt[b]).sum().item()
            if j % 30 == 0:
                t += 1
                log.append(f"2024-07-03 14:{2 + t // 60:02d}:{t % 60:02d} | DEBUG | ep {ep} batch {j:3d}/120 loss {loss.item():.4f}")
        lr_used = opt.param_groups[0]["lr"]
        sched.step()
        model.eval()
        with torch.no_grad():
            vo = model(torch.tensor(Xva)); vl = crit(vo, torch.tensor(yva)).item()
            va = (vo.argmax(1).numpy() == yva).mean()
        line = f"epoch {ep:2d}/60 | lr {lr_used:.4f} | train_loss {tl / len(yt):.4f} | train_acc {tc / len(yt):.4f} | val_loss {vl:.4f} | val_acc {va:.4f}"
        per_ep.append(line)
        log.append(f"2024-07-03 14:{2 + t // 60:02d}:{t % 60:02d} | INFO | " + line)
    write(f"{out}/train_log.txt", "\n".join(log) + "\n")
    write(f"{out}/config.yaml", cfg)
    show = "\n".join(per_ep[26:34] + ["..."] + per_ep[42:48])
    turns = [
        ("user", f"""hey, is something wrong with my training? the loss was pretty much flat for ~20 epochs and then suddenly dropped at epoch 31, and again (smaller) at 46. did the data loader change something mid-run?

{show}

log + config attached"""),
        ("assistant", """Sudden drops in loss at specific epochs can have a few causes, and it's worth checking that nothing changed in your data pipeline:

1. **Data loader caching**: some loaders switch from reading disk to a cached in-memory copy after N epochs; if the cached version is preprocessed differently, the loss distribution changes.
2. **Curriculum / sampling changes**: check whether your sampler or augmentation pipeline has epoch-dependent behaviour.
3. **Grokking**: small models sometimes show delayed generalisation after a long plateau.

If none of those apply, the drops may simply reflect the model escaping a saddle point, which is a normal part of non-convex optimisation."""),
    ]
    write(f"{out}/chat_export.txt", chat_txt(turns, header="=== Chat export (2 messages) ==="))
    return {"truth": "healthy",
            "symptom": "Is something wrong with my training? The loss was flat for ~20 epochs and then suddenly dropped at epoch 31 and again at 46 - did the data loader change something mid-run?",
            "how": "Nothing planted: MultiStepLR with milestones [30, 45] (as in config.yaml) cuts lr 0.05 -> 0.005 -> 0.0005; the logged lr column shows the drops exactly where the loss steps down, which is the expected effect of the schedule."}
