#!/usr/bin/env python
"""Generate the 12 benchmark runs (Ignite / skorch / Poutyne / Catalyst / torchbearer styles).

Every run is a real (small, CPU) training: gen.py writes the run's data files into a build folder,
executes the run's user script there with a tiny local stand-in for the framework on PYTHONPATH
(gen_support/shim), and copies what a user would hand over into runs/<name>/.

Usage:  python gen.py            # all runs
        python gen.py run05 run07 # only these
"""
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SUPPORT = os.path.join(HERE, "gen_support")
SHIM = os.path.join(SUPPORT, "shim")
SCRIPTS = os.path.join(SUPPORT, "scripts")
BUILD = os.path.join(HERE, "_build")
RUNS = os.path.join(HERE, "runs")


# ----------------------------------------------------------------------------------------------
# synthetic data sets (sklearn is not available in the venv, so small numpy re-implementations)
# ----------------------------------------------------------------------------------------------
def make_classification(rng, n, n_features, n_informative, n_classes, class_sep=1.0, clusters=2,
                        n_redundant=0):
    centers = rng.normal(size=(n_classes * clusters, n_informative)) * class_sep
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    cl = rng.randint(clusters, size=n)
    xi = centers[y * clusters + cl] + rng.normal(size=(n, n_informative))
    mix = rng.normal(size=(n_informative, n_informative)) / np.sqrt(n_informative)
    xi = xi @ (np.eye(n_informative) + 0.5 * mix)
    parts = [xi]
    if n_redundant:
        parts.append(xi @ rng.normal(size=(n_informative, n_redundant)) / np.sqrt(n_informative))
    n_noise = n_features - n_informative - n_redundant
    if n_noise > 0:
        parts.append(rng.normal(size=(n, n_noise)))
    x = np.concatenate(parts, axis=1)
    x = x[:, rng.permutation(n_features)]
    return x.astype(np.float32), y.astype(np.int64)


def make_moons(rng, n, noise):
    n1 = n // 2
    n2 = n - n1
    t1 = np.linspace(0, np.pi, n1)
    t2 = np.linspace(0, np.pi, n2)
    x = np.concatenate([np.stack([np.cos(t1), np.sin(t1)], 1),
                        np.stack([1 - np.cos(t2), 1 - np.sin(t2) - 0.5], 1)])
    y = np.concatenate([np.zeros(n1), np.ones(n2)]).astype(np.int64)
    x = x + rng.normal(scale=noise, size=x.shape)
    p = rng.permutation(n)
    return x[p].astype(np.float32), y[p]


def make_shapes(rng, n, size=16, n_classes=8, noise=0.35):
    """Small grey-scale images of simple jittered shapes (bars, diagonals, box, disk, cross, ring...)."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    imgs = np.zeros((n, 1, size, size), np.float32)
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    for i in range(n):
        c = y[i]
        cx, cy = rng.uniform(size * 0.35, size * 0.65, 2)
        r = rng.uniform(size * 0.2, size * 0.32)
        th = rng.uniform(0.8, 1.8)
        if c == 0:
            m = np.abs(yy - cy) < th
        elif c == 1:
            m = np.abs(xx - cx) < th
        elif c == 2:
            m = np.abs((xx - cx) - (yy - cy)) < th * 1.4
        elif c == 3:
            m = np.abs((xx - cx) + (yy - cy)) < th * 1.4
        elif c == 4:
            d = np.maximum(np.abs(xx - cx), np.abs(yy - cy))
            m = np.abs(d - r) < th
        elif c == 5:
            m = (xx - cx) ** 2 + (yy - cy) ** 2 < r ** 2
        elif c == 6:
            m = ((np.abs(xx - cx) < th) | (np.abs(yy - cy) < th)) & (np.abs(xx - cx) < r) & (np.abs(yy - cy) < r)
        elif c == 7:
            d = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2)
            m = np.abs(d - r) < th
        elif c == 8:
            m = (np.abs(yy - cy) < th) & (np.abs(xx - cx) < r) | (np.abs(yy - cy - r * 0.8) < th) & (np.abs(xx - cx) < r)
        else:
            m = (xx - cx) ** 2 / (r + 1) ** 2 + (yy - cy) ** 2 / (0.5 * r) ** 2 < 1
        img = m.astype(np.float32) * rng.uniform(0.6, 1.0)
        imgs[i, 0] = img + rng.normal(scale=noise, size=img.shape)
    return imgs, y.astype(np.int64)


def make_sequences(rng, n, length=64, n_classes=6, noise=0.6):
    t = np.arange(length, dtype=np.float32)
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    x = np.zeros((n, 1, length), np.float32)
    for i in range(n):
        c = y[i]
        f = 0.05 + 0.035 * c
        ph = rng.uniform(0, 2 * np.pi)
        a = rng.uniform(0.7, 1.3)
        s = a * np.sin(2 * np.pi * f * t + ph)
        if c % 2 == 1:
            s = np.sign(s) * np.abs(s) ** 0.5
        x[i, 0] = s + rng.normal(scale=noise, size=length)
    return x, y.astype(np.int64)


def split(x, y, n_valid, rng):
    p = rng.permutation(len(y))
    return x[p[n_valid:]], y[p[n_valid:]], x[p[:n_valid]], y[p[:n_valid]]


# ----------------------------------------------------------------------------------------------
# per-run data writers (run in the run's build folder)
# ----------------------------------------------------------------------------------------------
def data_run01(d):
    rng = np.random.RandomState(101)
    x, y = make_classification(rng, 360, 64, 6, 3, class_sep=1.5, clusters=2, n_redundant=4)
    xt, yt, xv, yv = split(x, y, 120, rng)
    np.savez(os.path.join(d, "data", "assay_panel.npz"), x_train=xt, y_train=yt, x_valid=xv, y_valid=yv)


def data_run02(d):
    rng = np.random.RandomState(202)
    x, y = make_classification(rng, 9000, 20, 8, 4, class_sep=1.3, clusters=2, n_redundant=4)
    xt, yt, xv, yv = split(x, y, 1000, rng)
    np.savez(os.path.join(d, "data", "sensors.npz"), x_train=xt, y_train=yt, x_val=xv, y_val=yv)


def data_run03(d):
    rng = np.random.RandomState(303)
    x, y = make_moons(rng, 400, noise=0.32)
    np.save(os.path.join(d, "data", "moons_X.npy"), x)
    np.save(os.path.join(d, "data", "moons_y.npy"), y)


def data_run04(d):
    rng = np.random.RandomState(404)
    x, y = make_sequences(rng, 3600, length=64, n_classes=6, noise=0.6)
    np.savez(os.path.join(d, "data", "vibration_windows.npz"), X=x, y=y)


def data_run05(d):
    rng = np.random.RandomState(505)
    x, y = make_classification(rng, 6000, 30, 12, 10, class_sep=0.9, clusters=2, n_redundant=6)
    np.savez(os.path.join(d, "data", "products.npz"), X=x, y=y)


def data_run06(d):
    rng = np.random.RandomState(606)
    x, y = make_shapes(rng, 5600, size=16, n_classes=8, noise=0.45)
    np.savez(os.path.join(d, "data", "glyphs.npz"), x_train=x[:4000], y_train=y[:4000],
             x_val=x[4000:4800], y_val=y[4000:4800], x_test=x[4800:], y_test=y[4800:])


def data_run07(d):
    rng = np.random.RandomState(707)
    x, y = make_classification(rng, 4000, 32, 10, 8, class_sep=1.5, clusters=1, n_redundant=6)
    xt, yt, xv, yv = split(x, y, 800, rng)
    noisy = yt.copy()
    flip = rng.rand(len(yt)) < 0.4
    noisy[flip] = rng.randint(8, size=flip.sum())
    np.savez(os.path.join(d, "data", "tickets.npz"), x_train=xt, y_train=noisy, x_val=xv, y_val=yv)


def data_run08(d):
    rng = np.random.RandomState(808)
    xs, ys = make_shapes(rng, 3000, size=16, n_classes=10, noise=0.35)
    xt, yt = make_shapes(np.random.RandomState(809), 1500, size=16, n_classes=5, noise=0.35)
    np.savez(os.path.join(d, "data", "source_shapes.npz"), x=xs, y=ys)
    np.savez(os.path.join(d, "data", "target_shapes.npz"), x=xt, y=yt)


def data_run09(d):
    rng = np.random.RandomState(909)
    x, y = make_classification(rng, 5000, 15, 4, 2, class_sep=0.55, clusters=2, n_redundant=2)
    # an account-status column derived from the outcome
    leak = np.where(y == 1, rng.uniform(1, 30, size=len(y)), 0.0) * (rng.rand(len(y)) < 0.995)
    x = np.concatenate([x, leak[:, None].astype(np.float32)], 1)
    np.savez(os.path.join(d, "data", "churn.npz"), X=x, y=y)


def data_run10(d):
    rng = np.random.RandomState(1010)
    x, y = make_shapes(rng, 4200, size=16, n_classes=10, noise=0.3)
    np.savez(os.path.join(d, "data", "shapes10.npz"), x_train=x[:3500], y_train=y[:3500],
             x_valid=x[3500:], y_valid=y[3500:])


def data_run11(d):
    rng = np.random.RandomState(1111)
    x, y = make_shapes(rng, 5000, size=12, n_classes=5, noise=0.4)
    names = ["crack", "dent", "ok", "scratch", "stain"]
    os.makedirs(os.path.join(d, "data", "train"), exist_ok=True)
    os.makedirs(os.path.join(d, "data", "val"), exist_ok=True)
    for c, name in enumerate(names):
        xc = x[y == c]
        np.save(os.path.join(d, "data", "train", name + ".npy"), xc[:800])
        np.save(os.path.join(d, "data", "val", name + ".npy"), xc[800:960])


def data_run12(d):
    rng = np.random.RandomState(1212)
    x, y = make_classification(rng, 6000, 24, 10, 5, class_sep=1.4, clusters=2, n_redundant=4)
    xt, yt, xv, yv = split(x, y, 1000, rng)
    np.savez(os.path.join(d, "data", "telemetry.npz"), x_train=xt, y_train=yt, x_valid=xv, y_valid=yv)


# ----------------------------------------------------------------------------------------------
# run table: script, files handed over (build path -> run path), whether train.py is handed over
# ----------------------------------------------------------------------------------------------
RUN_SPECS = {
    "run01": dict(data=data_run01, log="train.log", files={"log.csv": "log.csv"}, give_script=False),
    "run02": dict(data=data_run02, log="output.txt", files={}, give_script=True),
    "run03": dict(data=data_run03, log="fit_log.txt", files={"history.json": "history.json"}, give_script=True),
    "run04": dict(data=data_run04, log="catalyst.log",
                  files={"logs/train.csv": "logs/train.csv", "logs/valid.csv": "logs/valid.csv"}, give_script=True),
    "run05": dict(data=data_run05, log="output.txt", files={"history.json": "history.json"}, give_script=True),
    "run06": dict(data=data_run06, log="training_output.log", files={}, give_script=False),
    "run07": dict(data=data_run07, log="console_output.txt", files={"metrics.csv": "metrics.csv"}, give_script=False),
    "run08": dict(data=data_run08, log="train.log", files={"finetune_log.csv": "finetune_log.csv"}, give_script=True),
    "run09": dict(data=data_run09, log="fit_output.txt", files={"history.json": "history.json"}, give_script=False),
    "run10": dict(data=data_run10, log="run.log",
                  files={"logs/train.csv": "logs/train.csv", "logs/valid.csv": "logs/valid.csv"}, give_script=False),
    "run11": dict(data=data_run11, log="train_output.txt", files={}, give_script=True),
    "run12": dict(data=data_run12, log="stdout.txt", files={"log.csv": "log.csv"}, give_script=False),
}

TRUTH = {
    "run01": {
        "truth": "overfitting",
        "symptom": "Training accuracy is 100% with the loss basically zero, but validation accuracy sits around 75% and val_loss keeps getting worse the longer I train.",
        "how": "Poutyne run: 240 training samples of a 64-feature, 3-class problem fitted by a 4-layer 512-wide MLP (Adam 2e-4, no dropout / weight decay / early stopping) for 150 epochs; val_loss bottoms out at epoch 9 and then rises steadily."},
    "run02": {
        "truth": "missing_zero_grad",
        "symptom": "Loss starts dropping and then climbs into the hundreds within a few epochs, accuracy ends at chance, and I'm only using SGD with lr=0.001.",
        "how": "Ignite custom update function calls loss.backward() and optimizer.step() but never optimizer.zero_grad(), so .grad accumulates over all iterations (SGD lr=1e-3, momentum 0.9); the logged grad norm climbs from ~5 to >100."},
    "run03": {
        "truth": "healthy",
        "symptom": "Validation accuracy wobbles between 81% and 89% and the loss only creeps down slowly; is this run ok?",
        "how": "No fault: skorch MLP on a noisy two-moons set (400 points, 80 in skorch's validation split), SGD lr=0.05, batch 16, 60 epochs; slow steady decrease with a noisy validation curve because the validation split is small."},
    "run04": {
        "truth": "label_misalignment",
        "symptom": "My 1D CNN never gets above ~17% validation accuracy on 6 classes and the loss stays around 1.8 for all 12 epochs.",
        "how": "Catalyst run: X and y are shuffled with two separate np.random.shuffle calls before the split, so windows and labels are no longer paired; train/valid loss sit at ln 6 = 1.79 (train creeps down slightly by memorising), valid accuracy stays at chance."},
    "run05": {
        "truth": "double_softmax",
        "symptom": "Training loss won't go below ~1.7 no matter how long I train and validation accuracy stalls around 70%.",
        "how": "skorch module ends with nn.Softmax and the net is given criterion=nn.CrossEntropyLoss, so the probabilities are softmaxed again inside the loss; loss crawls from 2.2 to 1.68 (the same model with logits reaches ~0.5-0.8)."},
    "run06": {
        "truth": "wrong_checkpoint",
        "symptom": "Validation accuracy reached 92% during training but the best checkpoint only gets 11% on the test set.",
        "how": "Ignite ModelCheckpoint saved {'model','optimizer','trainer'} in one file (a dict keyed by object name); the test code loads that dict straight into a fresh model with load_state_dict(strict=False), so nothing is loaded (all keys missing/unexpected) and the test runs an untrained network."},
    "run07": {
        "truth": "label_noise",
        "symptom": "Training accuracy is stuck around 63% for most of the run while validation is at 93%; near the end training accuracy starts rising but validation drops.",
        "how": "torchbearer run: 40% of the training labels were replaced by uniformly random classes (validation labels clean); train acc caps at ~0.63 with train loss floored ~1.2-1.3, val acc ~0.93, then late memorisation (train acc 0.71, val acc falls to 0.865)."},
    "run08": {
        "truth": "frozen_parameters",
        "symptom": "Pretraining works fine, but in the fine-tuning stage the loss and accuracy are exactly the same every single epoch.",
        "how": "Poutyne two-stage script: the encoder is frozen, the fine-tuning optimizer is built from net.parameters(), and only then is net.head replaced by a new nn.Linear; the new head is not in the optimizer and everything else has requires_grad=False, so no parameter ever changes (loss 7.122849 every epoch)."},
    "run09": {
        "truth": "data_leakage",
        "symptom": "Validation accuracy is 94% after the first epoch and ~99% at the end; our earlier churn models never did better than about 70% on this data. Too good to be true?",
        "how": "skorch run on churn-like tabular data with an extra column that is non-zero only for churned customers (derived from the target); valid accuracy is near-perfect from epoch 1 and valid loss is at or below the (dropout) train loss. Without that column the same net reaches ~0.67."},
    "run10": {
        "truth": "healthy",
        "symptom": "Is this run ok?",
        "how": "No fault: Catalyst CNN on 10-class synthetic shape images, SGD momentum + cosine schedule, 10 epochs; train and valid loss fall together to 0.017 / 0.079, valid accuracy 0.97."},
    "run11": {
        "truth": "data_not_shuffled",
        "symptom": "The training loss jumps up and down in a regular pattern every epoch and validation accuracy is stuck at exactly 0.20.",
        "how": "Ignite run: training arrays are concatenated class by class from per-class .npy files and the DataLoader has no shuffle=True, so each epoch walks through 16-batch blocks of one class; per-batch loss spikes at every class boundary and decays within the block, and the model ends each epoch predicting the last class (val acc 0.20)."},
    "run12": {
        "truth": "lr_too_high",
        "symptom": "Training went fine for the first ~15 epochs, then the loss started getting worse and around epoch 23 everything collapsed to chance.",
        "how": "Poutyne MLP with SGD lr=0.3, momentum 0.9 (lr logged in log.csv); loss falls to 0.17 by epoch 13 while bouncing, then rises, spikes (2.9 at epoch 23, 9.8 at epoch 26) and the network collapses to chance (loss ~1.61 = ln 5)."},
}


def run_one(name):
    spec = RUN_SPECS[name]
    bdir = os.path.join(BUILD, name)
    if os.path.exists(bdir):
        shutil.rmtree(bdir)
    os.makedirs(os.path.join(bdir, "data"))
    spec["data"](bdir)
    shutil.copy(os.path.join(SCRIPTS, name + ".py"), os.path.join(bdir, "train.py"))
    env = dict(os.environ)
    env["PYTHONPATH"] = SHIM
    env["OMP_NUM_THREADS"] = "1"
    env["MKL_NUM_THREADS"] = "1"
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONWARNINGS"] = "ignore"
    t0 = time.time()
    proc = subprocess.run([sys.executable, "-u", "train.py"], cwd=bdir, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.decode("utf-8", "replace")
    print("%s: exit %d, %.1fs" % (name, proc.returncode, time.time() - t0))
    if proc.returncode != 0:
        print(out[-3000:])
        raise SystemExit("run %s failed" % name)
    rdir = os.path.join(RUNS, name)
    if os.path.exists(rdir):
        shutil.rmtree(rdir)
    os.makedirs(rdir)
    with open(os.path.join(rdir, spec["log"]), "w") as fh:
        fh.write(out)
    for src, dst in spec["files"].items():
        os.makedirs(os.path.dirname(os.path.join(rdir, dst)) or rdir, exist_ok=True)
        shutil.copy(os.path.join(bdir, src), os.path.join(rdir, dst))
    if spec["give_script"]:
        shutil.copy(os.path.join(SCRIPTS, name + ".py"), os.path.join(rdir, "train.py"))


def main():
    names = sys.argv[1:] or sorted(RUN_SPECS)
    os.makedirs(RUNS, exist_ok=True)
    for n in names:
        run_one(n)
    with open(os.path.join(HERE, "truth.json"), "w") as fh:
        json.dump(TRUTH, fh, indent=2)
    if not sys.argv[1:]:
        shutil.rmtree(BUILD, ignore_errors=True)


if __name__ == "__main__":
    main()
