#!/usr/bin/env python
"""Generate TF2/Keras-style run folders by really training small torch models on CPU.

Usage: python gen.py [run01 run02 ...]   (no args: all runs)
Writes runs/<name>/... and truth.json next to this file.
"""
import os, sys, json, math, time, shutil, glob, difflib, warnings
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
warnings.filterwarnings("ignore", message="Converting a tensor with requires_grad")
HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")
TRUTH = {}


# ----------------------------------------------------------------------------- data
def make_classification(n, n_features, n_informative, n_classes, class_sep=1.0, flip_y=0.0, seed=0, cpc=2):
    rng = np.random.RandomState(seed)
    k = n_classes * cpc
    cent = rng.choice([-1.0, 1.0], size=(k, n_informative)) * class_sep
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    cl = y * cpc + rng.randint(cpc, size=n)
    A = rng.randn(k, n_informative, n_informative) * 0.35 + np.eye(n_informative)[None]
    Xi = cent[cl] + np.einsum("nij,nj->ni", A[cl], rng.randn(n, n_informative))
    nr = min(n_features - n_informative, n_informative // 2)
    Xr = Xi @ (rng.randn(n_informative, nr) * 0.5)
    Xn = rng.randn(n, n_features - n_informative - nr)
    X = np.concatenate([Xi, Xr, Xn], 1)[:, rng.permutation(n_features)]
    if flip_y > 0:
        m = rng.rand(n) < flip_y
        y[m] = rng.randint(n_classes, size=m.sum())
    return X.astype(np.float32), y.astype(np.int64)


def _draw_line(img, p0, p1):
    n = int(max(abs(p1[0] - p0[0]), abs(p1[1] - p0[1])) * 3) + 2
    for t in np.linspace(0, 1, n):
        r = p0[0] + (p1[0] - p0[0]) * t
        c = p0[1] + (p1[1] - p0[1]) * t
        ri, ci = int(round(r)), int(round(c))
        if 0 <= ri < img.shape[0] and 0 <= ci < img.shape[1]:
            img[ri, ci] = 1.0


def make_glyphs(n, n_classes=10, size=12, seed=0, proto_seed=100, noise=0.25, n_strokes=3):
    """Small synthetic 'digit-like' grayscale images, uint8 0..255, shape (n, size, size)."""
    rp = np.random.RandomState(proto_seed)
    protos = []
    for _ in range(n_classes):
        img = np.zeros((size, size), np.float32)
        for _ in range(n_strokes):
            p0 = rp.uniform(1.5, size - 2.5, 2)
            p1 = rp.uniform(1.5, size - 2.5, 2)
            _draw_line(img, p0, p1)
        k = np.array([0.25, 0.5, 0.25])
        img = np.apply_along_axis(lambda v: np.convolve(v, k, "same"), 0, img)
        img = np.apply_along_axis(lambda v: np.convolve(v, k, "same"), 1, img)
        protos.append(img / img.max())
    protos = np.stack(protos)
    rng = np.random.RandomState(seed)
    y = rng.randint(n_classes, size=n)
    X = np.empty((n, size, size), np.float32)
    for i in range(n):
        im = np.roll(protos[y[i]], rng.randint(-1, 2), 0)
        im = np.roll(im, rng.randint(-1, 2), 1)
        im = im * rng.uniform(0.7, 1.2) + rng.randn(size, size) * noise
        X[i] = im
    X = np.clip(X, 0, 1) * 255.0
    return X.round().astype(np.uint8), y.astype(np.int64)


# ----------------------------------------------------------------------------- keras-ish model bits
def dense(i, o, bias=0.0):
    l = nn.Linear(i, o)
    nn.init.xavier_uniform_(l.weight)
    nn.init.constant_(l.bias, bias)
    return l


def conv(i, o, k=3, pad=0):
    c = nn.Conv2d(i, o, k, padding=pad)
    nn.init.xavier_uniform_(c.weight)
    nn.init.zeros_(c.bias)
    return c


def keras_bn(c, two_d=True):
    bn = nn.BatchNorm2d(c, eps=1e-3, momentum=0.01) if two_d else nn.BatchNorm1d(c, eps=1e-3, momentum=0.01)
    return bn


def n_params(m):
    return sum(p.numel() for p in m.parameters())


def global_norm(params):
    s = 0.0
    for p in params:
        if p.grad is not None:
            s += float(p.grad.detach().double().pow(2).sum())
    return math.sqrt(s)


# ----------------------------------------------------------------------------- printing helpers
def fmt_bytes(nb, k3=True):
    if nb == 0:
        return "0.00 B" if k3 else "0.00 Byte"
    units = ["B", "KB", "MB", "GB"] if k3 else ["Byte", "KB", "MB", "GB"]
    i = 0
    v = float(nb)
    while v >= 1024 and i < 3:
        v /= 1024
        i += 1
    return f"{v:.2f} {units[i]}"


def summary_k3(name, rows, trainable=None):
    """rows: (layer name (type), output shape, params)."""
    w = (33, 24, 15)
    out = [f'Model: "{name}"']
    out.append("┏" + "┳".join("━" * x for x in w) + "┓")
    out.append("┃ " + "Layer (type)".ljust(w[0] - 2) + " ┃ " + "Output Shape".ljust(w[1] - 2) + " ┃ " + "Param #".rjust(w[2] - 2) + " ┃")
    out.append("┡" + "╇".join("━" * x for x in w) + "┩")
    for i, (a, b, c) in enumerate(rows):
        if len(a) > w[0] - 2 and " (" in a:
            a1, a2 = a.split(" (", 1)
            out.append("│ " + a1.ljust(w[0] - 2) + " │ " + b.ljust(w[1] - 2) + " │ " + f"{c:,}".rjust(w[2] - 2) + " │")
            out.append("│ " + ("(" + a2).ljust(w[0] - 2) + " │ " + "".ljust(w[1] - 2) + " │ " + "".rjust(w[2] - 2) + " │")
        else:
            out.append("│ " + a.ljust(w[0] - 2) + " │ " + b.ljust(w[1] - 2) + " │ " + f"{c:,}".rjust(w[2] - 2) + " │")
        if i < len(rows) - 1:
            out.append("├" + "┼".join("─" * x for x in w) + "┤")
    out.append("└" + "┴".join("─" * x for x in w) + "┘")
    tot = sum(r[2] for r in rows)
    tr = tot if trainable is None else trainable
    out.append(f" Total params: {tot:,} ({fmt_bytes(tot * 4)})")
    out.append(f" Trainable params: {tr:,} ({fmt_bytes(tr * 4)})")
    out.append(f" Non-trainable params: {tot - tr:,} ({fmt_bytes((tot - tr) * 4)})")
    return "\n".join(out) + "\n"


def summary_k2(name, rows, trainable=None):
    L = 65
    def row(a, b, c):
        a = str(a)
        chunks = [a[i:i + 26] for i in range(0, len(a), 26)] or [""]
        out = [((" " + chunks[0]).ljust(29) + str(b).ljust(26) + str(c)).ljust(L)]
        out += [(" " + ch).ljust(L) for ch in chunks[1:]]
        return "\n".join(out)
    out = [f'Model: "{name}"', "_" * L, row("Layer (type)", "Output Shape", "Param #"), "=" * L]
    for (a, b, c) in rows:
        out.append(row(a, b, c))
        out.append(" " * L)
    out[-1] = "=" * L
    tot = sum(r[2] for r in rows)
    tr = tot if trainable is None else trainable
    out.append(f"Total params: {tot} ({fmt_bytes(tot * 4, False)})")
    out.append(f"Trainable params: {tr} ({fmt_bytes(tr * 4, False)})")
    out.append(f"Non-trainable params: {tot - tr} ({fmt_bytes((tot - tr) * 4, False)})")
    out.append("_" * L)
    return "\n".join(out) + "\n"


def _k2_val(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return " nan" if math.isnan(v) else " inf"
    return " %.4f" % v if abs(v) > 1e-3 else " %.4e" % v


def k2_bar(cur, tgt, width=30):
    nd = int(np.log10(tgt)) + 1
    bar = ("%" + str(nd) + "d/%d [") % (cur, tgt)
    pw = int(width * cur / tgt)
    if pw > 0:
        bar += "=" * (pw - 1)
        bar += ">" if cur < tgt else "="
    bar += "." * (width - pw)
    return bar + "]"


def k2_tpu(t):
    if t >= 1 or t == 0:
        return " %.0fs/step" % t
    if t >= 1e-3:
        return " %.0fms/step" % (t * 1e3)
    return " %.0fus/step" % (t * 1e6)


def k2_eta(e):
    if e > 3600:
        return "%d:%02d:%02d" % (e // 3600, (e % 3600) // 60, e % 60)
    if e > 60:
        return "%d:%02d" % (e // 60, e % 60)
    return "%ds" % e


def k2_line(cur, tgt, elapsed, metrics, final):
    s = k2_bar(cur, tgt)
    if final:
        s += " - %.0fs" % elapsed + k2_tpu(elapsed / tgt)
    else:
        s += " - ETA: " + k2_eta(elapsed / cur * (tgt - cur))
    for k, v in metrics:
        s += f" - {k}:" + _k2_val(v)
    return s


def k3_val(v):
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return "%.4f" % v if abs(v) > 1e-3 else "%.4e" % v


def k3_line(tgt, elapsed, metrics, verbose=1):
    tpu = elapsed / tgt
    tpu_s = f"{tpu:.0f}s/step" if tpu >= 1 else (f"{tpu * 1e3:.0f}ms/step" if tpu >= 1e-3 else f"{tpu * 1e6:.0f}us/step")
    ms = "".join(f" - {k}: {k3_val(v)}" for k, v in metrics)
    if verbose == 2:
        return f"{tgt}/{tgt} - {int(elapsed)}s - {tpu_s}{ms}"
    return f"{tgt}/{tgt} " + "━" * 20 + f" {int(elapsed)}s {tpu_s}{ms}"


def tf_header(ts, tf215=True):
    a = f"{ts}.{317482:06d}: I tensorflow/core/util/port.cc:113] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`."
    b = f"{ts}.{402913:06d}: I tensorflow/core/platform/cpu_feature_guard.cc:{182 if tf215 else 210}] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.\nTo enable the following instructions: AVX2 AVX512F AVX512_VNNI FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags."
    return a + "\n" + b + "\n"


class TB:
    """tf.summary-like writer (uses torch SummaryWriter) with deterministic wall times and TF-style file names."""
    def __init__(self, logdir, t0, host, pid):
        self.logdir, self.t0, self.host, self.pid = logdir, t0, host, pid
        os.makedirs(logdir, exist_ok=True)
        self.w = SummaryWriter(logdir)
        self.clock = 0.0

    def scalar(self, tag, v, step, dt=None):
        self.w.add_scalar(tag, float(v), step, walltime=self.t0 + (self.clock if dt is None else dt))

    def hist(self, tag, v, step, dt=None):
        self.w.add_histogram(tag, np.asarray(v, dtype=np.float64), step, walltime=self.t0 + (self.clock if dt is None else dt))

    def close(self):
        self.w.close()
        for f in glob.glob(os.path.join(self.logdir, "events.out.tfevents.*")):
            os.rename(f, os.path.join(self.logdir, f"events.out.tfevents.{int(self.t0)}.{self.host}.{self.pid}.0.v2"))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def write_csv(path, header, rows):
    lines = [",".join(header)]
    for r in rows:
        lines.append(",".join(str(x) if isinstance(x, (int, np.integer)) else repr(float(x)) for x in r))
    write(path, "\n".join(lines) + "\n")


def run_dir(name):
    d = os.path.join(RUNS, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    return d


def batches(n, bs, rng=None):
    idx = rng.permutation(n) if rng is not None else np.arange(n)
    return [idx[i:i + bs] for i in range(0, n, bs)]


def evaluate(model, X, y, bs, loss_fn, acc_fn):
    tot_l, tot_a, cnt = 0.0, 0.0, 0
    with torch.no_grad():
        for i in range(0, len(X), bs):
            xb, yb = X[i:i + bs], y[i:i + bs]
            out = model(xb)
            tot_l += float(loss_fn(out, yb)) * len(xb)
            tot_a += float(acc_fn(out, yb)) * len(xb)
            cnt += len(xb)
    return tot_l / cnt, tot_a / cnt


def sacc(out, y):
    return (out.argmax(1) == y).float().mean()


# ============================================================================= run01: overfitting
def run01():
    name = "run01"
    d = run_dir(name)
    torch.manual_seed(101)
    X, y = make_classification(1200, 40, 8, 4, class_sep=1.6, flip_y=0.03, seed=11)
    mu, sd = X[:320].mean(0), X[:320].std(0)
    X = (X - mu) / sd
    Xt, yt = torch.tensor(X[:320]), torch.tensor(y[:320])
    Xv, yv = torch.tensor(X[320:]), torch.tensor(y[320:])
    cfg = {"experiment": "churn_segments_v3", "n_train": 320, "n_val": 880, "hidden_units": [512, 512, 256],
           "activation": "relu", "dropout": 0.0, "optimizer": "adam", "learning_rate": 3e-4,
           "batch_size": 32, "epochs": 200, "seed": 101}
    model = nn.Sequential(dense(40, 512), nn.ReLU(), dense(512, 512), nn.ReLU(), dense(512, 256), nn.ReLU(), dense(256, 4))
    opt = torch.optim.Adam(model.parameters(), lr=3e-4, eps=1e-7)
    rows = [("dense (Dense)", "(None, 512)", 40 * 512 + 512), ("dense_1 (Dense)", "(None, 512)", 512 * 512 + 512),
            ("dense_2 (Dense)", "(None, 256)", 512 * 256 + 256), ("dense_3 (Dense)", "(None, 4)", 256 * 4 + 4)]
    summ = summary_k3("sequential", rows)
    write(os.path.join(d, "model_summary.txt"), summ)
    write(os.path.join(d, "config.py"), "CONFIG = " + json.dumps(cfg, indent=4).replace("false", "False").replace("true", "True") + "\n")
    t0 = 1717400000.0
    tbt = TB(os.path.join(d, "logs", "train"), t0, "ws-0417", 22841)
    tbv = TB(os.path.join(d, "logs", "validation"), t0, "ws-0417", 22841)
    rng = np.random.RandomState(101)
    log = []
    hist = []
    clock = 0.0
    for ep in range(200):
        ts = time.time()
        model.train()
        sl, sa, n = 0.0, 0.0, 0
        for idx in batches(320, 32, rng):
            out = model(Xt[idx])
            loss = F.cross_entropy(out, yt[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            sl += float(loss) * len(idx); sa += float(sacc(out, yt[idx])) * len(idx); n += len(idx)
        model.eval()
        vl, va = evaluate(model, Xv, yv, 32, F.cross_entropy, sacc)
        el = time.time() - ts + (0.9 if ep == 0 else 0.0)
        clock += el
        tl, ta = sl / n, sa / n
        hist.append((ep, ta, tl, va, vl))
        log.append(f"Epoch {ep + 1}/200")
        log.append(k3_line(10, el, [("accuracy", ta), ("loss", tl), ("val_accuracy", va), ("val_loss", vl)], verbose=2))
        tbt.clock = tbv.clock = clock
        tbt.scalar("epoch_loss", tl, ep); tbt.scalar("epoch_accuracy", ta, ep); tbt.scalar("epoch_learning_rate", 3e-4, ep)
        tbv.scalar("epoch_loss", vl, ep); tbv.scalar("epoch_accuracy", va, ep)
    tbt.close(); tbv.close()
    write_csv(os.path.join(d, "history.csv"), ["epoch", "accuracy", "loss", "val_accuracy", "val_loss"], hist)
    head = ("$ python fit_segments.py --config configs/v3.py\n"
            + f"Loaded {320} train / {880} val rows, 40 features, 4 classes\n" + summ)
    write(os.path.join(d, "fit_output.txt"), head + "\n".join(log) + "\nSaved model to artifacts/churn_segments_v3.keras\n")
    TRUTH[name] = {"truth": "overfitting",
                   "symptom": "val_loss is best somewhere early on and then climbs for the rest of the 200 epochs while the training loss looks perfect - is something broken in my pipeline?",
                   "how": "320 training rows (40 features, 8 informative, 3% flipped labels) vs a 512-512-256 ReLU MLP with no dropout/regularisation/early stopping, Adam 1e-3 for 200 epochs."}



# ============================================================================= run02: healthy, noisy/slow (GRU, small batch SGD)
class GRUClf(nn.Module):
    def __init__(self, c, h, k):
        super().__init__()
        self.gru = nn.GRU(c, h, batch_first=True)
        self.out = dense(h, k)

    def forward(self, x):
        _, hN = self.gru(x)
        return self.out(hN[-1])


def make_sequences(n, T=30, C=4, k=3, seed=0, amp=0.6, hits=8):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, T, C).astype(np.float32)
    y = rng.randint(k, size=n)
    for i in range(n):
        t = rng.choice(T, hits, replace=False)
        X[i, t, y[i]] += amp
    return X, y.astype(np.int64)


def run02():
    name = "run02"
    d = run_dir(name)
    torch.manual_seed(202)
    X, y = make_sequences(2000, seed=22, amp=1.2)
    Xt, yt, Xv, yv = torch.tensor(X[:1600]), torch.tensor(y[:1600]), torch.tensor(X[1600:]), torch.tensor(y[1600:])
    cfg = {"run_name": "vib-events-gru", "seq_len": 30, "n_channels": 4, "n_classes": 3, "gru_units": 32,
           "optimizer": "SGD", "learning_rate": 0.03, "momentum": 0.0, "batch_size": 16, "epochs": 40,
           "log_every": 25, "seed": 202}
    model = GRUClf(4, 32, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.03)
    rows = [("gru (GRU)", "(None, 32)", 3 * (4 * 32 + 32 * 32 + 2 * 32)), ("dense (Dense)", "(None, 3)", 32 * 3 + 3)]
    summ = summary_k3("vib_events_gru", rows)
    t0 = 1718011200.0
    tb = TB(os.path.join(d, "tb"), t0, "gpu-box-2", 3177)
    rng = np.random.RandomState(202)
    lines = ["CONFIG = " + repr(cfg), summ.rstrip("\n")]
    step = 0
    clock = 0.0
    for ep in range(40):
        ts = time.time()
        sl, sa, n = 0.0, 0.0, 0
        model.train()
        for bi, idx in enumerate(batches(1600, 16, rng)):
            out = model(Xt[idx])
            loss = F.cross_entropy(out, yt[idx])
            opt.zero_grad(); loss.backward()
            gn = global_norm(model.parameters())
            opt.step()
            step += 1
            sl += loss.item() * len(idx); sa += float(sacc(out, yt[idx])) * len(idx); n += len(idx)
            tb.clock = clock + (time.time() - ts)
            tb.scalar("train/loss", loss.item(), step); tb.scalar("train/grad_norm", gn, step)
            if (bi + 1) % 25 == 0:
                lines.append(f"Epoch {ep + 1} Step {bi + 1}: loss={sl / n:.3f}, acc={sa / n:.2f}")
        model.eval()
        vl, va = evaluate(model, Xv, yv, 64, F.cross_entropy, sacc)
        el = time.time() - ts
        clock += el
        tb.clock = clock
        tb.scalar("train/epoch_loss", sl / n, step); tb.scalar("train/epoch_acc", sa / n, step)
        tb.scalar("val/loss", vl, step); tb.scalar("val/acc", va, step); tb.scalar("train/learning_rate", 0.03, step)
        lines.append(f"Epoch {ep + 1} finished in {el:.1f}s - loss={sl / n:.4f} acc={sa / n:.4f} val_loss={vl:.4f} val_acc={va:.4f}")
    tb.close()
    write(os.path.join(d, "train_log.txt"), "\n".join(lines) + "\nSaved weights to ckpt/vib_events_gru.weights.h5\n")
    TRUTH[name] = {"truth": "healthy",
                   "symptom": "The loss curve in TensorBoard is super jumpy and it takes ages to get anywhere - is this run ok or is something off?",
                   "how": "No fault: GRU(32) on noisy synthetic 3-class sequences, plain SGD lr 0.03 with batch 16 (noisy per-step loss, slow but steady improvement)."}



# ============================================================================= run03: double softmax (eager GradientTape loop)
RUN03_TRAIN_PY = """import time
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

CFG = {
    "data": "data/glyphs12.npz",
    "batch_size": 64,
    "epochs": 30,
    "learning_rate": 1e-3,
    "hidden": (128, 64),
    "log_every": 15,
    "seed": 7,
}

keras.utils.set_random_seed(CFG["seed"])

data = np.load(CFG["data"])
x_train = data["x_train"].reshape(-1, 144).astype("float32") / 255.0
y_train = data["y_train"].astype("int64")
x_val = data["x_val"].reshape(-1, 144).astype("float32") / 255.0
y_val = data["y_val"].astype("int64")
print(f"train: {x_train.shape}, val: {x_val.shape}, classes: {len(np.unique(y_train))}")

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shuffle(len(x_train), seed=CFG["seed"]).batch(CFG["batch_size"]))
val_ds = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(256)


class GlyphNet(keras.Model):
    def __init__(self, num_classes=10, hidden=(128, 64)):
        super().__init__()
        self.hidden = [layers.Dense(h, activation="relu") for h in hidden]
        self.classifier = layers.Dense(num_classes)

    def call(self, x, training=False):
        for layer in self.hidden:
            x = layer(x)
        return tf.nn.softmax(self.classifier(x))


model = GlyphNet(hidden=CFG["hidden"])
model.build((None, 144))
model.summary()

loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = keras.optimizers.Adam(learning_rate=CFG["learning_rate"])

train_loss = keras.metrics.Mean(name="loss")
train_acc = keras.metrics.SparseCategoricalAccuracy(name="acc")
val_loss = keras.metrics.Mean(name="val_loss")
val_acc = keras.metrics.SparseCategoricalAccuracy(name="val_acc")

writer = tf.summary.create_file_writer("logs/glyphnet")


def train_step(x, y):
    with tf.GradientTape() as tape:
        preds = model(x, training=True)
        loss = loss_fn(y, preds)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    train_loss.update_state(loss)
    train_acc.update_state(y, preds)
    return loss


def val_step(x, y):
    preds = model(x, training=False)
    val_loss.update_state(loss_fn(y, preds))
    val_acc.update_state(y, preds)


for epoch in range(CFG["epochs"]):
    t0 = time.time()
    for m in (train_loss, train_acc, val_loss, val_acc):
        m.reset_state()
    for step, (x, y) in enumerate(train_ds, start=1):
        train_step(x, y)
        if step % CFG["log_every"] == 0:
            print(f"Epoch {epoch + 1} Step {step}: loss={train_loss.result():.3f}, acc={train_acc.result():.2f}")
    for x, y in val_ds:
        val_step(x, y)
    print(f"Epoch {epoch + 1}/{CFG['epochs']} - {time.time() - t0:.1f}s - loss: {train_loss.result():.4f} - "
          f"acc: {train_acc.result():.4f} - val_loss: {val_loss.result():.4f} - val_acc: {val_acc.result():.4f}")
    with writer.as_default():
        tf.summary.scalar("loss", train_loss.result(), step=epoch)
        tf.summary.scalar("acc", train_acc.result(), step=epoch)
        tf.summary.scalar("val_loss", val_loss.result(), step=epoch)
        tf.summary.scalar("val_acc", val_acc.result(), step=epoch)

model.save_weights("checkpoints/glyphnet.weights.h5")
"""


def run03():
    name = "run03"
    d = run_dir(name)
    torch.manual_seed(7)
    X, y = make_glyphs(3600, seed=31, proto_seed=100)
    X = X.reshape(-1, 144).astype(np.float32) / 255.0
    Xt, yt, Xv, yv = torch.tensor(X[:3000]), torch.tensor(y[:3000]), torch.tensor(X[3000:]), torch.tensor(y[3000:])

    class GlyphNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.h = nn.Sequential(dense(144, 128), nn.ReLU(), dense(128, 64), nn.ReLU())
            self.classifier = dense(64, 10)

        def forward(self, x):
            return torch.softmax(self.classifier(self.h(x)), dim=-1)

    model = GlyphNet()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = lambda preds, yb: F.cross_entropy(preds, yb)  # preds are treated as logits, as from_logits=True does
    rows = [("dense (Dense)", "multiple", 144 * 128 + 128), ("dense_1 (Dense)", "multiple", 128 * 64 + 64),
            ("dense_2 (Dense)", "multiple", 64 * 10 + 10)]
    lines = [tf_header("2024-02-19 09:41:07"), "train: (3000, 144), val: (600, 144), classes: 10",
             summary_k2("glyph_net", rows).rstrip("\n")]
    tb = TB(os.path.join(d, "logs", "glyphnet"), 1708335667.0, "ana-thinkpad", 48811)
    rng = np.random.RandomState(7)
    clock = 0.0
    for ep in range(30):
        ts = time.time()
        sl, sa, n = 0.0, 0.0, 0
        for bi, idx in enumerate(batches(3000, 64, rng)):
            preds = model(Xt[idx])
            loss = loss_fn(preds, yt[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            sl += loss.item() * len(idx); sa += float(sacc(preds, yt[idx])) * len(idx); n += len(idx)
            if (bi + 1) % 15 == 0:
                lines.append(f"Epoch {ep + 1} Step {bi + 1}: loss={sl / n:.3f}, acc={sa / n:.2f}")
        vl, va = evaluate(model, Xv, yv, 256, loss_fn, sacc)
        el = time.time() - ts + (1.9 if ep == 0 else 0.0)
        clock += el
        tb.clock = clock
        lines.append(f"Epoch {ep + 1}/30 - {el:.1f}s - loss: {sl / n:.4f} - acc: {sa / n:.4f} - val_loss: {vl:.4f} - val_acc: {va:.4f}")
        tb.scalar("loss", sl / n, ep); tb.scalar("acc", sa / n, ep); tb.scalar("val_loss", vl, ep); tb.scalar("val_acc", va, ep)
    tb.close()
    write(os.path.join(d, "train.log"), "\n".join(lines) + "\n")
    write(os.path.join(d, "train.py"), RUN03_TRAIN_PY)
    TRUTH[name] = {"truth": "double_softmax",
                   "symptom": "The loss never gets much below ~1.5, even when train accuracy is at 99% - on this simple 10-class glyph set I expected it near zero. What am I doing wrong?",
                   "how": "Subclassed model returns tf.nn.softmax(...) from call() in an eager (no tf.function) GradientTape loop while the loss is SparseCategoricalCrossentropy(from_logits=True); in torch the softmax output is fed to cross_entropy as logits."}



# ============================================================================= run04: NaN in the input CSV
SENSOR_COLS = [("temp_c", 61.0, 7.5), ("pressure_kpa", 412.0, 38.0), ("vibration_rms", 0.84, 0.21), ("rpm", 1480.0, 95.0),
               ("current_a", 12.6, 2.2), ("voltage_v", 398.0, 6.1), ("humidity_pct", 41.0, 9.0), ("oil_temp_c", 73.0, 5.5),
               ("torque_nm", 215.0, 31.0), ("flow_lpm", 18.4, 3.3), ("acoustic_db", 78.0, 4.2), ("runtime_h", 5210.0, 1900.0)]


def run04():
    import pandas as pd
    name = "run04"
    d = run_dir(name)
    torch.manual_seed(404)
    Xs, y = make_classification(3000, 12, 6, 2, class_sep=0.9, flip_y=0.02, seed=44)
    raw = np.stack([Xs[:, j] * sdv + mu for j, (_, mu, sdv) in enumerate(SENSOR_COLS)], 1)
    rng = np.random.RandomState(404)
    n_tr, bs = 2400, 64
    perm1 = rng.permutation(n_tr)          # epoch-1 order used by the training loop below
    rng = np.random.RandomState(404)
    bad_rows = [int(perm1[22 * bs + 5]), int(perm1[30 * bs + 17]), int(perm1[34 * bs + 40]), 2715]
    bad_cols = [7, 2, 10, 7]
    cols = [c for c, _, _ in SENSOR_COLS]
    df = pd.DataFrame(np.round(raw, 3), columns=cols)
    df.insert(0, "unit_id", [f"U{1000 + i // 12:04d}" for i in range(3000)])
    df["failure"] = y
    for r, c in zip(bad_rows, bad_cols):
        df.loc[r, cols[c]] = np.nan
    os.makedirs(os.path.join(d, "data"), exist_ok=True)
    df.to_csv(os.path.join(d, "data", "sensor_readings.csv"), index=False, float_format="%.3f")
    # ---- what the user's script does: read csv, standardise with pandas stats, no dropna
    df = pd.read_csv(os.path.join(d, "data", "sensor_readings.csv"))
    feats = df[cols]
    tr, va = feats.iloc[:n_tr], feats.iloc[n_tr:]
    mu, sd = tr.mean(), tr.std()
    Xt = torch.tensor(((tr - mu) / sd).values, dtype=torch.float32)
    Xv = torch.tensor(((va - mu) / sd).values, dtype=torch.float32)
    yt = torch.tensor(df["failure"].values[:n_tr], dtype=torch.float32)
    yv = torch.tensor(df["failure"].values[n_tr:], dtype=torch.float32)
    model = nn.Sequential(dense(12, 64), nn.ReLU(), dense(64, 32), nn.ReLU(), dense(32, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    bce = lambda o, t: F.binary_cross_entropy_with_logits(o.squeeze(1), t)
    bacc = lambda o, t: ((torch.sigmoid(o.squeeze(1)) > 0.5).float() == t).float().mean()
    cfg = {"csv": "data/sensor_readings.csv", "target": "failure", "val_fraction": 0.2, "batch_size": 64,
           "epochs": 5, "lr": 1e-3, "layers": [64, 32], "print_every": 5}
    rows = [("dense (Dense)", "(None, 64)", 12 * 64 + 64), ("dense_1 (Dense)", "(None, 32)", 64 * 32 + 32),
            ("dense_2 (Dense)", "(None, 1)", 33)]
    lines = [f"config: {cfg}", f"Loaded data/sensor_readings.csv: {df.shape[0]} rows x {df.shape[1]} columns",
             f"train rows: {n_tr}  val rows: {3000 - n_tr}", summary_k3("failure_mlp", rows).rstrip("\n")]
    tb = TB(os.path.join(d, "tensorboard", "run-2024-06-21"), 1718960400.0, "pred-maint-01", 9120)
    step = 0
    clock = 0.0
    steps_per_epoch = math.ceil(n_tr / bs)
    for ep in range(5):
        ts = time.time()
        order = perm1 if ep == 0 else rng.permutation(n_tr)
        if ep == 0:
            rng.permutation(n_tr)
        sl, sa, n = 0.0, 0.0, 0
        for bi in range(steps_per_epoch):
            idx = order[bi * bs:(bi + 1) * bs]
            out = model(Xt[idx])
            loss = bce(out, yt[idx])
            opt.zero_grad(); loss.backward()
            gn = global_norm(model.parameters())
            opt.step()
            step += 1
            sl += loss.item() * len(idx); sa += float(bacc(out, yt[idx])) * len(idx); n += len(idx)
            tb.clock = clock + time.time() - ts
            tb.scalar("train/loss", loss.item(), step); tb.scalar("train/grad_global_norm", gn, step)
            if (bi + 1) % 5 == 0:
                lines.append(f"[epoch {ep + 1}][step {bi + 1}/{steps_per_epoch}] loss={sl / n:.4f} bin_acc={sa / n:.4f}")
        with torch.no_grad():
            vo = model(Xv)
            vl, vacc = bce(vo, yv).item(), float(bacc(vo, yv))
        el = time.time() - ts
        clock += el
        tb.clock = clock
        tb.scalar("epoch/train_loss", sl / n, ep + 1); tb.scalar("epoch/val_loss", vl, ep + 1)
        tb.scalar("epoch/train_bin_acc", sa / n, ep + 1); tb.scalar("epoch/val_bin_acc", vacc, ep + 1)
        lines.append(f"== epoch {ep + 1} done ({el:.1f}s): train_loss={sl / n:.4f} train_bin_acc={sa / n:.4f} val_loss={vl:.4f} val_bin_acc={vacc:.4f}")
    tb.close()
    write(os.path.join(d, "output.txt"), "\n".join(lines) + "\n")
    TRUTH[name] = {"truth": "nan_in_data",
                   "symptom": "Loss turns into nan partway through the first epoch and stays nan for the rest of training; I didn't touch the learning rate and the same script worked on last month's export.",
                   "how": f"4 empty cells in data/sensor_readings.csv (rows {bad_rows}); the script standardises with pandas mean/std (which skip NaN) and never drops/fills them, so the first batch holding such a row (epoch 1 step 23) gives a NaN loss that poisons the weights."}



# ============================================================================= run05: everything frozen (head added to a frozen base)
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = conv(1, 16)      # 12 -> 10
        self.c2 = conv(16, 32)     # 5 -> 3

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        return F.relu(self.c2(x))


def run05():
    name = "run05"
    d = run_dir(name)
    torch.manual_seed(55)
    # "pretrained" encoder: trained on a different glyph family first
    Xa, ya = make_glyphs(1500, seed=51, proto_seed=500)
    Xa = torch.tensor(Xa[:, None].astype(np.float32) / 255.0); ya = torch.tensor(ya)
    enc = Encoder()
    pre_head = dense(32, 10)
    opt = torch.optim.Adam(list(enc.parameters()) + list(pre_head.parameters()), lr=2e-3)
    rng = np.random.RandomState(55)
    for ep in range(4):
        for idx in batches(1500, 32, rng):
            loss = F.cross_entropy(pre_head(enc(Xa[idx]).mean((2, 3))), ya[idx])
            opt.zero_grad(); loss.backward(); opt.step()
    # target task; head appended to the (frozen) base
    X, y = make_glyphs(2000, seed=52, proto_seed=600)
    X = X[:, None].astype(np.float32) / 255.0
    Xt, yt, Xv, yv = torch.tensor(X[:1600]), torch.tensor(y[:1600]), torch.tensor(X[1600:]), torch.tensor(y[1600:])
    head = nn.Sequential(dense(32, 64), nn.ReLU(), dense(64, 10))
    model = lambda x: head(enc(x).mean((2, 3)))
    for p in list(enc.parameters()) + list(head.parameters()):
        p.requires_grad_(False)
    params = [p for p in list(enc.parameters()) + list(head.parameters()) if p.requires_grad]
    opt = torch.optim.Adam(params, lr=1e-3, eps=1e-7) if params else None
    rows = [("conv2d (Conv2D)", "(None, 10, 10, 16)", 160), ("max_pooling2d (MaxPooling2D)", "(None, 5, 5, 16)", 0),
            ("conv2d_1 (Conv2D)", "(None, 3, 3, 32)", 4640), ("global_average_pooling2d", "(None, 32)", 0),
            ("dense (Dense)", "(None, 64)", 2112), ("dense_1 (Dense)", "(None, 10)", 650)]
    rows[3] = ("global_average_pooling2d (GlobalAveragePooling2D)", "(None, 32)", 0)
    summ = summary_k3("glyph_encoder", rows, trainable=0)
    cfg = {"base_weights": "weights/glyph_encoder_pretrained.keras", "num_classes": 10, "img_size": 12,
           "batch_size": 32, "epochs": 20, "learning_rate": 1e-3, "fine_tune": False}
    lines = [f"cfg = {cfg}", "Loading base model from weights/glyph_encoder_pretrained.keras", summ.rstrip("\n")]
    t0 = 1719300000.0
    tbt = TB(os.path.join(d, "logs", "train"), t0, "lab-pc-3", 15502)
    tbv = TB(os.path.join(d, "logs", "validation"), t0, "lab-pc-3", 15502)
    hist = []
    clock = 0.0
    for ep in range(20):
        ts = time.time()
        sl, sa, n = 0.0, 0.0, 0
        for idx in batches(1600, 32, rng):
            out = model(Xt[idx])
            loss = F.cross_entropy(out, yt[idx])
            if opt is not None:
                opt.zero_grad(); loss.backward(); opt.step()
            sl += loss.item() * len(idx); sa += float(sacc(out, yt[idx])) * len(idx); n += len(idx)
        vl, va = evaluate(model, Xv, yv, 32, F.cross_entropy, sacc)
        el = time.time() - ts + (1.4 if ep == 0 else 0.0)
        clock += el
        lines.append(f"Epoch {ep + 1}/20")
        if ep == 0:
            lines.append("/home/mk/venvs/tf/lib/python3.11/site-packages/keras/src/backend/tensorflow/trainer.py:80: UserWarning: The model does not have any trainable weights.")
            lines.append('  warnings.warn("The model does not have any trainable weights.")')
        lines.append(k3_line(50, el, [("accuracy", sa / n), ("loss", sl / n), ("val_accuracy", va), ("val_loss", vl)]))
        hist.append((ep, sa / n, sl / n, va, vl))
        tbt.clock = tbv.clock = clock
        tbt.scalar("epoch_loss", sl / n, ep); tbt.scalar("epoch_accuracy", sa / n, ep); tbt.scalar("epoch_learning_rate", 1e-3, ep)
        tbv.scalar("epoch_loss", vl, ep); tbv.scalar("epoch_accuracy", va, ep)
    tbt.close(); tbv.close()
    write_csv(os.path.join(d, "training_log.csv"), ["epoch", "accuracy", "loss", "val_accuracy", "val_loss"], hist)
    write(os.path.join(d, "finetune_stdout.txt"), "\n".join(lines) + "\n")
    TRUTH[name] = {"truth": "frozen_parameters",
                   "symptom": "Fine-tuning on my new glyph set does nothing: loss sits at ~2.89 every epoch and val_accuracy prints the exact same number each time.",
                   "how": "Pretrained Sequential base loaded, base.trainable=False set, then the new head (GAP + Dense 64 + Dense 10) was .add()-ed to that same frozen Sequential, so Trainable params: 0; in torch every parameter has requires_grad=False and no optimizer step happens."}



# ============================================================================= run06: learning rate too high (Adam 8e-2)
class TabNet6(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.logits = dense(20, 128), dense(128, 128), dense(128, 5)
        self.aux_head = dense(128, 1)   # defined but never used in forward

    def forward(self, x):
        return self.logits(F.relu(self.fc2(F.relu(self.fc1(x)))))


def run06():
    name = "run06"
    d = run_dir(name)
    torch.manual_seed(606)
    X, y = make_classification(4000, 20, 10, 5, class_sep=1.2, seed=6)
    mu, sd = X[:3200].mean(0), X[:3200].std(0)
    X = (X - mu) / sd
    Xt, yt, Xv, yv = torch.tensor(X[:3200]), torch.tensor(y[:3200]), torch.tensor(X[3200:]), torch.tensor(y[3200:])
    cfg = {"name": "segments-5cls", "features": 20, "classes": 5, "units": [128, 128], "optimizer": "adam",
           "lr": 8e-2, "lr_schedule": "constant", "batch_size": 32, "epochs": 15, "log_every_steps": 20,
           "summary_dir": "tb/segments-5cls", "seed": 606}
    write(os.path.join(d, "config.py"), "# experiment config\nconfig = " + json.dumps(cfg, indent=4) + "\n")
    model = TabNet6()
    opt = torch.optim.Adam(model.parameters(), lr=8e-2, eps=1e-7)
    lines = [tf_header("2024-04-02 16:12:55"), f"Using config: {cfg}"]
    tb = TB(os.path.join(d, "tb", "segments-5cls"), 1712067175.0, "dsk-ml-07", 30114)
    rng = np.random.RandomState(606)
    step = 0
    clock = 0.0
    for ep in range(15):
        ts = time.time()
        sl, sa, n = 0.0, 0.0, 0
        for bi, idx in enumerate(batches(3200, 32, rng)):
            out = model(Xt[idx])
            loss = F.cross_entropy(out, yt[idx])
            opt.zero_grad(); loss.backward()
            gn = global_norm(model.parameters())
            opt.step()
            step += 1
            if step == 1:
                lines.append("WARNING:tensorflow:Gradients do not exist for variables ['aux_head/kernel:0', 'aux_head/bias:0'] when minimizing the loss. If you're using `model.compile()`, did you forget to provide a `loss` argument?")
            sl += loss.item() * len(idx); sa += float(sacc(out, yt[idx])) * len(idx); n += len(idx)
            tb.clock = clock + time.time() - ts
            tb.scalar("train/loss", loss.item(), step); tb.scalar("train/grad_norm", gn, step)
            tb.scalar("train/learning_rate", 8e-2, step)
            if (bi + 1) % 20 == 0:
                lines.append(f"Epoch {ep + 1} Step {bi + 1}: loss={sl / n:.3f}, acc={sa / n:.2f}")
        vl, va = evaluate(model, Xv, yv, 256, F.cross_entropy, sacc)
        el = time.time() - ts + (2.3 if ep == 0 else 0.0)
        clock += el
        tb.clock = clock
        tb.scalar("train/epoch_accuracy", sa / n, step); tb.scalar("val/loss", vl, step); tb.scalar("val/accuracy", va, step)
        lines.append(f"Epoch {ep + 1} done in {el:.1f}s: train_loss={sl / n:.4f} train_acc={sa / n:.4f} | val_loss={vl:.4f} val_acc={va:.4f}")
    tb.close()
    write(os.path.join(d, "stdout.log"), "\n".join(lines) + "\n")
    TRUTH[name] = {"truth": "lr_too_high",
                   "symptom": "Loss goes down nicely for the first couple of epochs and then starts going back up and bouncing around; val accuracy is worse at the end than after epoch 3.",
                   "how": "Adam with a constant learning rate of 8e-2 (config lr: 8e-2) on a 20-128-128-5 ReLU MLP; an unused aux_head layer produces a benign 'Gradients do not exist' warning."}



# ============================================================================= run07: training=True at evaluation
RUN07_TRAIN_PY = """import time
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

params = dict(
    data="data/stamps_12px.npz",
    batch_size=64,
    val_batch_size=32,
    epochs=25,
    lr=2e-3,
    dropout=0.5,
    seed=1234,
)
tf.keras.utils.set_random_seed(params["seed"])

d = np.load(params["data"])
x_train = d["x_train"][..., None].astype("float32") / 255.0
y_train = d["y_train"]
x_val = d["x_val"][..., None].astype("float32") / 255.0
y_val = d["y_val"]

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shuffle(4096, seed=params["seed"])
            .batch(params["batch_size"]))
val_ds = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(params["val_batch_size"])


def build_model(num_classes=10, dropout=0.5):
    inputs = keras.Input(shape=(12, 12, 1))
    x = layers.Conv2D(16, 3, padding="same", use_bias=False)(inputs)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    x = layers.MaxPooling2D()(x)
    x = layers.Conv2D(32, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    x = layers.MaxPooling2D()(x)
    x = layers.Flatten()(x)
    x = layers.Dropout(dropout)(x)
    x = layers.Dense(128, activation="relu")(x)
    x = layers.Dropout(dropout)(x)
    outputs = layers.Dense(num_classes)(x)
    return keras.Model(inputs, outputs, name="stamp_cnn")


model = build_model(dropout=params["dropout"])
model.summary()

loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = keras.optimizers.Adam(params["lr"])
train_loss = keras.metrics.Mean()
train_acc = keras.metrics.SparseCategoricalAccuracy()
val_loss = keras.metrics.Mean()
val_acc = keras.metrics.SparseCategoricalAccuracy()
writer = tf.summary.create_file_writer("logs/stamp_cnn")


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    train_loss.update_state(loss)
    train_acc.update_state(y, logits)


@tf.function
def eval_step(x, y):
    logits = model(x, training=True)
    val_loss.update_state(loss_fn(y, logits))
    val_acc.update_state(y, logits)


for epoch in range(params["epochs"]):
    start = time.time()
    for m in (train_loss, train_acc, val_loss, val_acc):
        m.reset_state()
    for step, (x, y) in enumerate(train_ds, 1):
        train_step(x, y)
        if step % 10 == 0:
            print(f"Epoch {epoch + 1} Step {step}: loss={train_loss.result():.3f}, acc={train_acc.result():.2f}")
    for x, y in val_ds:
        eval_step(x, y)
    print(f"Epoch {epoch + 1}: train_loss={train_loss.result():.4f} train_acc={train_acc.result():.4f} "
          f"val_loss={val_loss.result():.4f} val_acc={val_acc.result():.4f} ({time.time() - start:.1f}s)")
    with writer.as_default(step=epoch):
        tf.summary.scalar("train/loss", train_loss.result())
        tf.summary.scalar("train/acc", train_acc.result())
        tf.summary.scalar("val/loss", val_loss.result())
        tf.summary.scalar("val/acc", val_acc.result())

model.compile(loss=loss_fn, metrics=["accuracy"])
print("model.evaluate on the validation set:")
model.evaluate(x_val, y_val, batch_size=params["val_batch_size"])
model.save("stamp_cnn.keras")
"""


class StampCNN(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1, bias=False); nn.init.xavier_uniform_(self.c1.weight)
        self.b1 = keras_bn(16)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1, bias=False); nn.init.xavier_uniform_(self.c2.weight)
        self.b2 = keras_bn(32)
        self.d1 = nn.Dropout(p); self.fc = dense(288, 128); self.d2 = nn.Dropout(p); self.out = dense(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.b1(self.c1(x))), 2)
        x = F.max_pool2d(F.relu(self.b2(self.c2(x))), 2).permute(0, 2, 3, 1).flatten(1)
        return self.out(self.d2(F.relu(self.fc(self.d1(x)))))


def run07():
    name = "run07"
    d = run_dir(name)
    torch.manual_seed(1234)
    X, y = make_glyphs(2500, seed=71, proto_seed=700, noise=0.3)
    X = X[:, None].astype(np.float32) / 255.0
    Xt, yt, Xv, yv = torch.tensor(X[:2000]), torch.tensor(y[:2000]), torch.tensor(X[2000:]), torch.tensor(y[2000:])
    model = StampCNN()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3, eps=1e-7)
    rows = [("input_1 (InputLayer)", "[(None, 12, 12, 1)]", 0), ("conv2d (Conv2D)", "(None, 12, 12, 16)", 144),
            ("batch_normalization (BatchNormalization)", "(None, 12, 12, 16)", 64), ("re_lu (ReLU)", "(None, 12, 12, 16)", 0),
            ("max_pooling2d (MaxPooling2D)", "(None, 6, 6, 16)", 0), ("conv2d_1 (Conv2D)", "(None, 6, 6, 32)", 4608),
            ("batch_normalization_1 (BatchNormalization)", "(None, 6, 6, 32)", 128), ("re_lu_1 (ReLU)", "(None, 6, 6, 32)", 0),
            ("max_pooling2d_1 (MaxPooling2D)", "(None, 3, 3, 32)", 0), ("flatten (Flatten)", "(None, 288)", 0),
            ("dropout (Dropout)", "(None, 288)", 0), ("dense (Dense)", "(None, 128)", 36992),
            ("dropout_1 (Dropout)", "(None, 128)", 0), ("dense_1 (Dense)", "(None, 10)", 1290)]
    summ = summary_k2("stamp_cnn", rows, trainable=sum(r[2] for r in rows) - 96)
    lines = [tf_header("2024-05-27 21:03:44"), summ.rstrip("\n")]
    tb = TB(os.path.join(d, "logs", "stamp_cnn"), 1716843824.0, "colab-vm", 1021)
    rng = np.random.RandomState(1234)
    clock = 0.0
    for ep in range(25):
        ts = time.time()
        sl, sa, n = 0.0, 0.0, 0
        model.train()
        for bi, idx in enumerate(batches(2000, 64, rng)):
            out = model(Xt[idx])
            loss = F.cross_entropy(out, yt[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            sl += loss.item() * len(idx); sa += float(sacc(out, yt[idx])) * len(idx); n += len(idx)
            if (bi + 1) % 10 == 0:
                lines.append(f"Epoch {ep + 1} Step {bi + 1}: loss={sl / n:.3f}, acc={sa / n:.2f}")
        model.train()   # eval_step calls the model with training=True
        vl, va = evaluate(model, Xv, yv, 32, F.cross_entropy, sacc)
        el = time.time() - ts + (3.1 if ep == 0 else 0.0)
        clock += el
        tb.clock = clock
        lines.append(f"Epoch {ep + 1}: train_loss={sl / n:.4f} train_acc={sa / n:.4f} val_loss={vl:.4f} val_acc={va:.4f} ({el:.1f}s)")
        tb.scalar("train/loss", sl / n, ep); tb.scalar("train/acc", sa / n, ep); tb.scalar("val/loss", vl, ep); tb.scalar("val/acc", va, ep)
    tb.close()
    model.eval()
    ts = time.time()
    with torch.no_grad():
        o1 = model(Xv[:32])
        l1, a1 = F.cross_entropy(o1, yv[:32]).item(), float(sacc(o1, yv[:32]))
    vl, va = evaluate(model, Xv, yv, 32, F.cross_entropy, sacc)
    el = time.time() - ts + 0.4
    lines.append("model.evaluate on the validation set:")
    lines.append(k2_line(1, 16, 0.41, [("loss", l1), ("accuracy", a1)], final=False))
    lines.append(k2_line(16, 16, el, [("loss", vl), ("accuracy", va)], final=True))
    write(os.path.join(d, "train_output.log"), "\n".join(lines) + "\n")
    write(os.path.join(d, "train.py"), RUN07_TRAIN_PY)
    TRUTH[name] = {"truth": "eval_mode_forgotten",
                   "symptom": "val_acc in my training loop jumps around from epoch to epoch and tops out in the mid 0.8s, but model.evaluate on the very same validation set right after training reports ~0.96 - which number is right?",
                   "how": "eval_step calls model(x, training=True): Dropout(0.5) x2 stays active and BatchNorm uses (and updates) the statistics of 32-sample validation batches; in torch the validation pass runs with model.train() under no_grad. The final model.evaluate (inference mode) is computed with model.eval()."}



# ============================================================================= run08: healthy, converges well (Keras 3 fit)
RUN08_TRAIN_PY = """import numpy as np
import keras
from keras import layers

config = {
    "data": "data/glyphs_v2.npz",
    "num_classes": 10,
    "batch_size": 32,
    "epochs": 20,
    "learning_rate": 1e-3,
    "seed": 88,
}
keras.utils.set_random_seed(config["seed"])

d = np.load(config["data"])
x_train = d["x_train"][..., None].astype("float32") / 255.0
x_val = d["x_val"][..., None].astype("float32") / 255.0
y_train, y_val = d["y_train"], d["y_val"]
print("x_train:", x_train.shape, "x_val:", x_val.shape)

model = keras.Sequential(
    [
        keras.Input(shape=(12, 12, 1)),
        layers.Conv2D(16, 3, activation="relu", padding="same"),
        layers.MaxPooling2D(),
        layers.Conv2D(32, 3, activation="relu", padding="same"),
        layers.MaxPooling2D(),
        layers.Flatten(),
        layers.Dense(64, activation="relu"),
        layers.Dense(config["num_classes"], activation="softmax"),
    ],
    name="glyph_cnn",
)
model.summary()

model.compile(
    optimizer=keras.optimizers.Adam(config["learning_rate"]),
    loss="sparse_categorical_crossentropy",
    metrics=["accuracy"],
)

callbacks = [
    keras.callbacks.CSVLogger("training_log.csv"),
    keras.callbacks.TensorBoard(log_dir="logs"),
]
model.fit(
    x_train,
    y_train,
    batch_size=config["batch_size"],
    epochs=config["epochs"],
    validation_data=(x_val, y_val),
    callbacks=callbacks,
)
model.save("glyph_cnn.keras")
"""


class GlyphCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.c2 = conv(1, 16, pad=1), conv(16, 32, pad=1)
        self.fc, self.out = dense(288, 64), dense(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2).permute(0, 2, 3, 1).flatten(1)
        return self.out(F.relu(self.fc(x)))


def run08():
    name = "run08"
    d = run_dir(name)
    torch.manual_seed(88)
    X, y = make_glyphs(3000, seed=81, proto_seed=800, noise=0.3)
    X = X[:, None].astype(np.float32) / 255.0
    Xt, yt, Xv, yv = torch.tensor(X[:2400]), torch.tensor(y[:2400]), torch.tensor(X[2400:]), torch.tensor(y[2400:])
    model = GlyphCNN()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    rows = [("conv2d (Conv2D)", "(None, 12, 12, 16)", 160), ("max_pooling2d (MaxPooling2D)", "(None, 6, 6, 16)", 0),
            ("conv2d_1 (Conv2D)", "(None, 6, 6, 32)", 4640), ("max_pooling2d_1 (MaxPooling2D)", "(None, 3, 3, 32)", 0),
            ("flatten (Flatten)", "(None, 288)", 0), ("dense (Dense)", "(None, 64)", 18496), ("dense_1 (Dense)", "(None, 10)", 650)]
    lines = ["x_train: (2400, 12, 12, 1) x_val: (600, 12, 12, 1)", summary_k3("glyph_cnn", rows).rstrip("\n")]
    t0 = 1720100000.0
    tbt = TB(os.path.join(d, "logs", "train"), t0, "mbp-lena.local", 60412)
    tbv = TB(os.path.join(d, "logs", "validation"), t0, "mbp-lena.local", 60412)
    rng = np.random.RandomState(88)
    hist = []
    clock = 0.0
    for ep in range(20):
        ts = time.time()
        sl, sa, n = 0.0, 0.0, 0
        for idx in batches(2400, 32, rng):
            out = model(Xt[idx])
            loss = F.cross_entropy(out, yt[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            sl += loss.item() * len(idx); sa += float(sacc(out, yt[idx])) * len(idx); n += len(idx)
        vl, va = evaluate(model, Xv, yv, 32, F.cross_entropy, sacc)
        el = time.time() - ts + (1.6 if ep == 0 else 0.0)
        clock += el
        lines.append(f"Epoch {ep + 1}/20")
        lines.append(k3_line(75, el, [("accuracy", sa / n), ("loss", sl / n), ("val_accuracy", va), ("val_loss", vl)]))
        hist.append((ep, sa / n, sl / n, va, vl))
        tbt.clock = tbv.clock = clock
        tbt.scalar("epoch_loss", sl / n, ep); tbt.scalar("epoch_accuracy", sa / n, ep); tbt.scalar("epoch_learning_rate", 1e-3, ep)
        tbv.scalar("epoch_loss", vl, ep); tbv.scalar("epoch_accuracy", va, ep)
    tbt.close(); tbv.close()
    write_csv(os.path.join(d, "training_log.csv"), ["epoch", "accuracy", "loss", "val_accuracy", "val_loss"], hist)
    write(os.path.join(d, "fit_stdout.txt"), "\n".join(lines) + "\n")
    write(os.path.join(d, "train.py"), RUN08_TRAIN_PY)
    TRUTH[name] = {"truth": "healthy",
                   "symptom": "Is this run ok? I'd like a second pair of eyes before I hand the model over.",
                   "how": "No fault: small Conv-Pool-Conv-Pool-Dense CNN on 12x12 synthetic glyphs scaled to [0,1], Adam 1e-3, batch 32, 20 epochs."}



# ============================================================================= run09: sparse labels 1..K
RUN09_TRAIN_PY = """import numpy as np
import pandas as pd
import tensorflow as tf
from tensorflow import keras

SETTINGS = {
    "csv": "data/landcover_pixels.csv",
    "feature_cols": ["b2", "b3", "b4", "b5", "b6", "b7", "b8", "b8a", "b11", "b12", "ndvi", "ndwi"],
    "label_col": "class_id",
    "batch_size": 128,
    "epochs": 40,
    "lr": 3e-4,
    "seed": 0,
}
tf.keras.utils.set_random_seed(SETTINGS["seed"])

df = pd.read_csv(SETTINGS["csv"])
print(df[SETTINGS["label_col"]].value_counts().sort_index())

X = df[SETTINGS["feature_cols"]].to_numpy("float32")
y = df[SETTINGS["label_col"]].to_numpy("int64")
num_classes = df[SETTINGS["label_col"]].nunique()
print("num_classes =", num_classes)

rng = np.random.default_rng(SETTINGS["seed"])
idx = rng.permutation(len(X))
split = int(0.8 * len(X))
tr, va = idx[:split], idx[split:]

norm = keras.layers.Normalization()
norm.adapt(X[tr])

model = keras.Sequential([
    keras.Input(shape=(X.shape[1],)),
    norm,
    keras.layers.Dense(128, activation="relu"),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.Dense(num_classes, activation="softmax"),
], name="landcover_mlp")
model.summary()

model.compile(optimizer=keras.optimizers.Adam(SETTINGS["lr"]),
              loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])

history = model.fit(
    X[tr], y[tr],
    validation_data=(X[va], y[va]),
    batch_size=SETTINGS["batch_size"],
    epochs=SETTINGS["epochs"],
    callbacks=[keras.callbacks.CSVLogger("history.csv")],
)
model.save("landcover_mlp.keras")
"""


def run09():
    name = "run09"
    d = run_dir(name)
    torch.manual_seed(9)
    X, y0 = make_classification(5200, 12, 8, 7, class_sep=1.0, seed=99)
    y = y0 + 1                                   # class ids as exported: 1..7
    K = len(np.unique(y))
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(X))
    tr = idx[:int(0.8 * len(X))]
    mu, sd = X[tr].mean(0), X[tr].std(0)
    model = nn.Sequential(dense(12, 128), nn.ReLU(), dense(128, 64), nn.ReLU(), dense(64, K))
    order = np.random.RandomState(9).permutation(len(tr))
    b = tr[order[:128]]
    xb = torch.tensor((X[b] - mu) / sd)
    yb = torch.tensor(y[b])
    err = None
    try:
        F.cross_entropy(model(xb), yb).backward()
    except (IndexError, RuntimeError) as e:
        err = str(e)
    assert err is not None, "expected the loss to fail on out-of-range labels"
    bad = int(yb.max())
    counts = np.bincount(y)[1:]
    vc = "class_id\n" + "\n".join(f"{c + 1}    {counts[c]}" for c in range(K)) + "\nName: count, dtype: int64"
    rows = [("normalization (Normalization)", "(None, 12)", 25), ("dense (Dense)", "(None, 128)", 12 * 128 + 128),
            ("dense_1 (Dense)", "(None, 64)", 128 * 64 + 64), ("dense_2 (Dense)", "(None, 7)", 64 * 7 + 7)]
    summ = summary_k2("landcover_mlp", rows, trainable=sum(r[2] for r in rows) - 25)
    fit_line = RUN09_TRAIN_PY.split("\n").index("history = model.fit(") + 1
    site = "/home/priya/.venvs/tf215/lib/python3.11/site-packages"
    frames = [("keras/src/utils/traceback_utils.py", 65, "error_handler"), ("keras/src/engine/training.py", 1807, "fit"),
              ("keras/src/engine/training.py", 1401, "train_function"), ("keras/src/engine/training.py", 1384, "step_function"),
              ("keras/src/engine/training.py", 1373, "run_step"), ("keras/src/engine/training.py", 1151, "train_step"),
              ("keras/src/engine/training.py", 1209, "compute_loss"), ("keras/src/engine/compile_utils.py", 277, "__call__"),
              ("keras/src/losses.py", 143, "__call__"), ("keras/src/losses.py", 270, "call"),
              ("keras/src/losses.py", 2454, "sparse_categorical_crossentropy"),
              ("keras/src/backend.py", 5775, "sparse_categorical_crossentropy")]
    node = "sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits"
    tb = ["Traceback (most recent call last):",
          f'  File "/home/priya/landcover/train.py", line {fit_line}, in <module>',
          "    history = model.fit(",
          "              ^^^^^^^^^^",
          f'  File "{site}/keras/src/utils/traceback_utils.py", line 70, in error_handler',
          "    raise e.with_traceback(filtered_tb) from None",
          f'  File "{site}/tensorflow/python/eager/execute.py", line 53, in quick_execute',
          "    tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,",
          "              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
          "tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error:",
          "",
          f"Detected at node {node} defined at (most recent call last):",
          f'  File "/home/priya/landcover/train.py", line {fit_line}, in <module>',
          ""]
    for f, ln, fn in frames:
        tb += [f'  File "{site}/{f}", line {ln}, in {fn}', ""]
    tb.append(f"Received a label value of {bad} which is outside the valid range of [0, {K}).  Label values: "
              + " ".join(str(int(v)) for v in yb))
    tb.append(f"\t [[{{{{node {node}}}}}]] [Op:__inference_train_function_1187]")
    lines = [tf_header("2024-03-28 10:44:19"), vc, f"num_classes = {K}", summ.rstrip("\n"), "Epoch 1/40"] + tb
    write(os.path.join(d, "console.txt"), "\n".join(lines) + "\n")
    write(os.path.join(d, "train.py"), RUN09_TRAIN_PY)
    TRUTH[name] = {"truth": "label_out_of_range",
                   "symptom": "Training dies on the very first batch with an InvalidArgumentError from the loss; the CSV loads fine and the model builds fine.",
                   "how": f"class_id column in the CSV is 1..7, num_classes = nunique() = 7, Dense(7) + sparse_categorical_crossentropy; the real torch loss on the first batch raised: {err!r}."}



# ============================================================================= run10: data read class by class, never shuffled
def run10():
    name = "run10"
    d = run_dir(name)
    torch.manual_seed(1010)
    X, y = make_classification(3600, 16, 8, 3, class_sep=1.0, seed=10)
    mu, sd = X.mean(0), X.std(0)
    X = (X - mu) / sd
    tr_idx, va_idx = np.arange(3000), np.arange(3000, 3600)
    classes = ["belt_ok", "belt_worn", "bearing_fault"]
    order = np.concatenate([tr_idx[y[tr_idx] == c] for c in range(3)])      # files concatenated class by class
    Xt, yt = torch.tensor(X[order]), torch.tensor(y[order])
    Xv, yv = torch.tensor(X[va_idx]), torch.tensor(y[va_idx])
    counts = [int((y[tr_idx] == c).sum()) for c in range(3)]
    cfg = {"data_root": "data/conveyor_features", "classes": classes, "batch_size": 50, "epochs": 12,
           "optimizer": "adam", "learning_rate": 3e-3, "hidden": [64, 64], "print_every": 10}
    model = nn.Sequential(dense(16, 64), nn.ReLU(), dense(64, 64), nn.ReLU(), dense(64, 3))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, eps=1e-7)
    lines = [f"CFG: {cfg}"]
    for c, nm in enumerate(classes):
        lines.append(f"loaded {counts[c]} windows from data/conveyor_features/train/{nm}/")
    lines.append(f"train set: {sum(counts)} windows, val set: {len(va_idx)} windows")
    tb = TB(os.path.join(d, "tb_logs"), 1721200000.0, "edge-trainer", 777)
    step = 0
    clock = 0.0
    for ep in range(12):
        ts = time.time()
        sa, n = 0.0, 0
        for bi, idx in enumerate(batches(3000, 50)):                    # no shuffling
            out = model(Xt[idx])
            loss = F.cross_entropy(out, yt[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            step += 1
            sa += float(sacc(out, yt[idx])) * len(idx); n += len(idx)
            tb.clock = clock + time.time() - ts
            tb.scalar("batch/loss", loss.item(), step); tb.scalar("batch/accuracy", float(sacc(out, yt[idx])), step)
            if (bi + 1) % 10 == 0:
                lines.append(f"Epoch {ep + 1} Step {bi + 1}: loss={loss.item():.3f}, acc={sa / n:.2f}")
        vl, va = evaluate(model, Xv, yv, 50, F.cross_entropy, sacc)
        el = time.time() - ts
        clock += el
        tb.clock = clock
        tb.scalar("epoch/val_loss", vl, ep + 1); tb.scalar("epoch/val_accuracy", va, ep + 1); tb.scalar("epoch/train_accuracy", sa / n, ep + 1)
        lines.append(f"Epoch {ep + 1}: train_acc={sa / n:.4f} val_loss={vl:.4f} val_acc={va:.4f} [{el:.1f}s]")
    tb.close()
    write(os.path.join(d, "training_output.txt"), "\n".join(lines) + "\n")
    TRUTH[name] = {"truth": "data_not_shuffled",
                   "symptom": "The per-batch loss in TensorBoard draws the same saw-tooth every epoch (drops, jumps back up, drops again) and train accuracy keeps lagging behind val accuracy - is my input pipeline ok?",
                   "how": "Training windows loaded folder by folder (class 0, then 1, then 2) and batched in that order with no shuffle (tf.data without .shuffle); Adam 3e-3 chases each class block in turn, so the model ends each epoch biased to the last class."}



# ============================================================================= run11: accuracy metric no longer matches the label format
RUN11_BEFORE = """import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

HP = {
    "data": "data/signs_v4.npz",
    "num_classes": 10,
    "batch_size": 32,
    "epochs": 15,
    "lr": 1e-3,
    "seed": 2024,
}
keras.utils.set_random_seed(HP["seed"])

d = np.load(HP["data"])
x_train = d["x_train"].reshape(len(d["x_train"]), -1).astype("float32") / 255.0
x_val = d["x_val"].reshape(len(d["x_val"]), -1).astype("float32") / 255.0
y_train = keras.utils.to_categorical(d["y_train"], HP["num_classes"])
y_val = keras.utils.to_categorical(d["y_val"], HP["num_classes"])

model = keras.Sequential([
    keras.Input(shape=(x_train.shape[1],)),
    layers.Dense(256, activation="relu"),
    layers.Dense(128, activation="relu"),
    layers.Dense(HP["num_classes"], activation="softmax"),
], name="sign_mlp")

model.compile(
    optimizer=keras.optimizers.Adam(HP["lr"]),
    loss="categorical_crossentropy",
    metrics=[keras.metrics.CategoricalAccuracy(name="accuracy")],
)

history = model.fit(
    x_train, y_train,
    validation_data=(x_val, y_val),
    batch_size=HP["batch_size"],
    epochs=HP["epochs"],
    callbacks=[keras.callbacks.CSVLogger("history.csv")],
)
model.save("sign_mlp.keras")
"""

RUN11_AFTER = """import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

HP = {
    "data": "data/signs_v4.npz",
    "num_classes": 10,
    "batch_size": 32,
    "epochs": 15,
    "lr": 1e-3,
    "seed": 2024,
}
keras.utils.set_random_seed(HP["seed"])


def load_split(d, split):
    x = d[f"x_{split}"].reshape(len(d[f"x_{split}"]), -1).astype("float32") / 255.0
    y = d[f"y_{split}"].astype("int64")
    return x, y


d = np.load(HP["data"])
x_train, y_train = load_split(d, "train")
x_val, y_val = load_split(d, "val")

model = keras.Sequential([
    keras.Input(shape=(x_train.shape[1],)),
    layers.Dense(256, activation="relu"),
    layers.Dense(128, activation="relu"),
    layers.Dense(HP["num_classes"], activation="softmax"),
], name="sign_mlp")

model.compile(
    optimizer=keras.optimizers.Adam(HP["lr"]),
    loss="sparse_categorical_crossentropy",
    metrics=[keras.metrics.CategoricalAccuracy(name="accuracy")],
)

history = model.fit(
    x_train, y_train,
    validation_data=(x_val, y_val),
    batch_size=HP["batch_size"],
    epochs=HP["epochs"],
    callbacks=[
        keras.callbacks.CSVLogger("history.csv"),
        keras.callbacks.ModelCheckpoint("ckpt/sign_mlp_best.keras", monitor="val_accuracy", save_best_only=True),
    ],
)
model.save("sign_mlp.keras")
"""


def _run11_train(Xt, yt, Xv, yv, metric):
    torch.manual_seed(2024)
    model = nn.Sequential(dense(144, 256), nn.ReLU(), dense(256, 128), nn.ReLU(), dense(128, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    rng = np.random.RandomState(2024)
    lines, hist = [], []
    nb = math.ceil(len(Xt) / 32)
    for ep in range(15):
        ts = time.time()
        sl, sa, n = 0.0, 0.0, 0
        lines.append(f"Epoch {ep + 1}/15")
        for bi, idx in enumerate(batches(len(Xt), 32, rng)):
            out = model(Xt[idx])
            loss = F.cross_entropy(out, yt[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            sl += loss.item() * len(idx); sa += float(metric(out, yt[idx])) * len(idx); n += len(idx)
            if bi + 1 in (1, nb // 3, 2 * nb // 3):
                lines.append(k2_line(bi + 1, nb, time.time() - ts + (0.8 if ep == 0 else 0.0), [("loss", sl / n), ("accuracy", sa / n)], final=False))
        vl, va = evaluate(model, Xv, yv, 32, F.cross_entropy, metric)
        el = time.time() - ts + (1.2 if ep == 0 else 0.0)
        lines.append(k2_line(nb, nb, el, [("loss", sl / n), ("accuracy", sa / n), ("val_loss", vl), ("val_accuracy", va)], final=True))
        hist.append((ep, sa / n, sl / n, va, vl))
    return lines, hist


def run11():
    name = "run11"
    d = run_dir(name)
    X, y = make_glyphs(2500, seed=111, proto_seed=1100, noise=0.3)
    X = X.reshape(-1, 144).astype(np.float32) / 255.0
    Xt, yt, Xv, yv = torch.tensor(X[:2000]), torch.tensor(y[:2000]), torch.tensor(X[2000:]), torch.tensor(y[2000:])
    # before: one-hot targets -> CategoricalAccuracy compares argmax(one_hot) with argmax(pred)
    before_metric = lambda out, yb: (out.argmax(1) == yb).float().mean()
    # after: int targets of shape (B,) are expanded to (B, 1) by Keras; argmax over that last axis is always 0
    after_metric = lambda out, yb: (out.argmax(1) == torch.argmax(yb[:, None], dim=-1)).float().mean()
    rows = [("dense (Dense)", "(None, 256)", 144 * 256 + 256), ("dense_1 (Dense)", "(None, 128)", 256 * 128 + 128),
            ("dense_2 (Dense)", "(None, 10)", 1290)]
    for sub, metric, ts_ in (("before_refactor", before_metric, "2024-07-08 11:02:51"), ("after_refactor", after_metric, "2024-07-15 15:37:09")):
        lines, hist = _run11_train(Xt, yt, Xv, yv, metric)
        write(os.path.join(d, sub, "fit_log.txt"), tf_header(ts_) + "\n".join(lines) + "\n")
        write_csv(os.path.join(d, sub, "history.csv"), ["epoch", "accuracy", "loss", "val_accuracy", "val_loss"], hist)
    diff = difflib.unified_diff(RUN11_BEFORE.splitlines(True), RUN11_AFTER.splitlines(True), "a/train.py", "b/train.py")
    write(os.path.join(d, "refactor.diff"),
          "commit 3f9c2e1b7d\nAuthor: Jonas <jonas@signs-team>\nDate:   Mon Jul 15 14:58:02 2024 +0200\n\n"
          "    data: keep integer labels, drop to_categorical; add best-checkpoint callback\n\n"
          "diff --git a/train.py b/train.py\nindex 8a1d0c4..b27e9f3 100644\n" + "".join(diff))
    write(os.path.join(d, "train.py"), RUN11_AFTER)
    write(os.path.join(d, "model_summary.txt"), summary_k2("sign_mlp", rows))
    TRUTH[name] = {"truth": "metric_changed",
                   "symptom": "After last week's label-pipeline refactor our val accuracy dropped from ~0.9 to ~0.1, yet val_loss is the same as before. Did the refactor break the data?",
                   "how": "Refactor switched targets from to_categorical one-hot to int labels (loss -> sparse_categorical_crossentropy) but kept metrics=[CategoricalAccuracy(name='accuracy')]; on (B,1) int targets argmax(y_true) is always 0, so 'accuracy' is really the share of predictions equal to class 0. Both runs were really trained with the same seed: identical losses, only the metric differs."}


# ============================================================================= run12: dead ReLUs (negative bias init)
RUN12_TRAIN_PY = """import time
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

HPARAMS = {
    "data": "data/telemetry_4cls.npz",
    "hidden_units": [256, 256, 256],
    "bias_init": -1.0,
    "learning_rate": 1e-3,
    "batch_size": 64,
    "epochs": 30,
    "log_dir": "logs/telemetry_mlp",
    "seed": 12,
}
tf.keras.utils.set_random_seed(HPARAMS["seed"])

data = np.load(HPARAMS["data"])
x_train, y_train = data["x_train"], data["y_train"]
x_val, y_val = data["x_val"], data["y_val"]
mean, std = x_train.mean(axis=0), x_train.std(axis=0)
x_train = (x_train - mean) / std
x_val = (x_val - mean) / std

inputs = keras.Input(shape=(x_train.shape[1],))
x = inputs
for units in HPARAMS["hidden_units"]:
    x = layers.Dense(units, activation="relu",
                     bias_initializer=keras.initializers.Constant(HPARAMS["bias_init"]))(x)
outputs = layers.Dense(4)(x)
model = keras.Model(inputs, outputs, name="telemetry_mlp")
model.summary()

hidden_names = [l.name for l in model.layers if isinstance(l, layers.Dense)][:-1]
probe = keras.Model(inputs, [model.get_layer(n).output for n in hidden_names])

loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = keras.optimizers.Adam(HPARAMS["learning_rate"])
acc = keras.metrics.SparseCategoricalAccuracy()
writer = tf.summary.create_file_writer(HPARAMS["log_dir"])

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shuffle(len(x_train), seed=HPARAMS["seed"]).batch(HPARAMS["batch_size"]))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    acc.update_state(y, logits)
    return loss, grads


global_step = 0
for epoch in range(HPARAMS["epochs"]):
    t0 = time.time()
    acc.reset_state()
    losses = []
    for step, (x, y) in enumerate(train_ds, 1):
        loss, grads = train_step(x, y)
        losses.append(float(loss))
        global_step += 1
        with writer.as_default(step=global_step):
            tf.summary.scalar("train/loss", loss)
            for v, g in zip(model.trainable_variables, grads):
                tf.summary.scalar(f"grad_norm/{v.name.split(':')[0]}", tf.norm(g))
        if step % 10 == 0:
            print(f"epoch {epoch + 1:02d} step {step:03d} | loss {np.mean(losses):.4f} | acc {acc.result():.3f}")
    val_logits = model(x_val, training=False)
    val_loss = float(loss_fn(y_val, val_logits))
    val_acc = float(np.mean(np.argmax(val_logits, axis=1) == y_val))
    acts = probe(x_val[:512])
    with writer.as_default(step=epoch):
        tf.summary.scalar("val/loss", val_loss)
        tf.summary.scalar("val/acc", val_acc)
        for n, a in zip(hidden_names, acts):
            tf.summary.histogram(f"activations/{n}", a)
        for v in model.trainable_variables:
            tf.summary.histogram(f"weights/{v.name.split(':')[0]}", v)
    print(f"epoch {epoch + 1:02d} done in {time.time() - t0:.1f}s | train_loss {np.mean(losses):.4f} "
          f"train_acc {acc.result():.3f} | val_loss {val_loss:.4f} val_acc {val_acc:.3f}")

model.save("telemetry_mlp.keras")
"""


def run12():
    name = "run12"
    d = run_dir(name)
    torch.manual_seed(12)
    X, y = make_classification(3000, 30, 12, 4, class_sep=1.0, seed=12)
    mu, sd = X[:2400].mean(0), X[:2400].std(0)
    X = (X - mu) / sd
    Xt, yt, Xv, yv = torch.tensor(X[:2400]), torch.tensor(y[:2400]), torch.tensor(X[2400:]), torch.tensor(y[2400:])
    hidden = [dense(30, 256, bias=-1.0), dense(256, 256, bias=-1.0), dense(256, 256, bias=-1.0)]
    out_l = dense(256, 4)
    layers_ = nn.ModuleList(hidden + [out_l])
    hnames = ["dense", "dense_1", "dense_2"]
    vnames = []
    for n_ in hnames + ["dense_3"]:
        vnames += [f"{n_}/kernel", f"{n_}/bias"]

    def fwd(x, keep=False):
        acts = []
        for l in hidden:
            x = F.relu(l(x))
            acts.append(x)
        o = out_l(x)
        return (o, acts) if keep else o

    opt = torch.optim.Adam(layers_.parameters(), lr=1e-3, eps=1e-7)
    rows = [("input_1 (InputLayer)", "[(None, 30)]", 0), ("dense (Dense)", "(None, 256)", 30 * 256 + 256),
            ("dense_1 (Dense)", "(None, 256)", 256 * 256 + 256), ("dense_2 (Dense)", "(None, 256)", 256 * 256 + 256),
            ("dense_3 (Dense)", "(None, 4)", 256 * 4 + 4)]
    lines = [tf_header("2024-08-19 08:15:40"), summary_k2("telemetry_mlp", rows).rstrip("\n")]
    tb = TB(os.path.join(d, "logs", "telemetry_mlp"), 1724048140.0, "ml-node-14", 41907)
    rng = np.random.RandomState(12)
    gstep = 0
    clock = 0.0
    for ep in range(30):
        ts = time.time()
        losses, sa, n = [], 0.0, 0
        for bi, idx in enumerate(batches(2400, 64, rng)):
            out = fwd(Xt[idx])
            loss = F.cross_entropy(out, yt[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            gstep += 1
            losses.append(loss.item()); sa += float(sacc(out, yt[idx])) * len(idx); n += len(idx)
            tb.clock = clock + time.time() - ts
            tb.scalar("train/loss", loss.item(), gstep)
            for vn, p in zip(vnames, [q for l in hidden + [out_l] for q in (l.weight, l.bias)]):
                tb.scalar(f"grad_norm/{vn}", float(p.grad.norm()), gstep)
            if (bi + 1) % 10 == 0:
                lines.append(f"epoch {ep + 1:02d} step {bi + 1:03d} | loss {np.mean(losses):.4f} | acc {sa / n:.3f}")
        with torch.no_grad():
            vo = fwd(Xv)
            vl, va = F.cross_entropy(vo, yv).item(), float(sacc(vo, yv))
            _, acts = fwd(Xv[:512], keep=True)
        el = time.time() - ts + (2.2 if ep == 0 else 0.0)
        clock += el
        tb.clock = clock
        tb.scalar("val/loss", vl, ep); tb.scalar("val/acc", va, ep)
        for hn, a in zip(hnames, acts):
            tb.hist(f"activations/{hn}", a.numpy().ravel(), ep)
        for vn, p in zip(vnames, [q for l in hidden + [out_l] for q in (l.weight, l.bias)]):
            tb.hist(f"weights/{vn}", p.detach().numpy().ravel(), ep)
        lines.append(f"epoch {ep + 1:02d} done in {el:.1f}s | train_loss {np.mean(losses):.4f} train_acc {sa / n:.3f} | val_loss {vl:.4f} val_acc {va:.3f}")
    tb.close()
    with torch.no_grad():
        _, acts = fwd(Xv, keep=True)
    dead = [float(((a > 0).sum(0) == 0).float().mean()) for a in acts]
    write(os.path.join(d, "train_stdout.txt"), "\n".join(lines) + "\n")
    write(os.path.join(d, "train.py"), RUN12_TRAIN_PY)
    TRUTH[name] = {"truth": "dead_relu",
                   "symptom": "Loss is stuck at 1.386 from the first epoch to the last and accuracy sits at ~25%; no errors, no NaNs.",
                   "how": f"All three hidden Dense(256, relu) layers use bias_initializer=Constant(-1.0) (glorot kernels, standardised inputs): share of units that never fire on the val set per hidden layer = {[round(x, 3) for x in dead]}; the layers after the first output exactly 0, so the gradients reaching them are exactly 0."}


if __name__ == "__main__":
    names = sys.argv[1:] or sorted(k for k in globals() if k.startswith("run") and k[3:].isdigit())
    tp = os.path.join(HERE, "truth.json")
    if os.path.exists(tp):
        TRUTH.update(json.load(open(tp)))
    for nm in names:
        t = time.time()
        globals()[nm]()
        print(f"{nm}: {time.time() - t:.1f}s", flush=True)
    json.dump(dict(sorted(TRUTH.items())), open(tp, "w"), indent=2)
