"""Two Vertex AI jobs (before/after a refactor) + the refactor diff. The new data.py takes the last 20 %
of a time-sorted table as the test set instead of a seeded random permutation; the data drift over time
makes the (same) model score much lower."""
import datetime as dt

import numpy as np
import torch
import torch.nn as nn

from .common import Clock, GcpSink, r, seed_all, write

HP = dict(epochs=10, lr=1e-3, batch_size=64, hidden=128, seed=1337, test_frac=0.2)


def make_data():
    g = np.random.RandomState(7)
    n, d, k = 6000, 16, 4
    t = np.sort(g.rand(n))
    u = g.randn(d)
    u /= np.linalg.norm(u)
    W0, W1 = g.randn(d, k), g.randn(d, k)
    z = g.randn(n, d)
    X = (z + 2.5 * t[:, None] * u[None, :]).astype(np.float32)
    logits = np.einsum("nd,ndk->nk", z, (1 - t)[:, None, None] * W0[None] + t[:, None, None] * W1[None])
    y = (logits + 0.3 * g.randn(n, k)).argmax(1)
    return X, y


def train_eval(Xtr, ytr, Xte, yte, log):
    torch.manual_seed(HP["seed"])
    model = nn.Sequential(nn.Linear(16, HP["hidden"]), nn.ReLU(), nn.Linear(HP["hidden"], HP["hidden"]), nn.ReLU(),
                          nn.Linear(HP["hidden"], 4))
    opt = torch.optim.Adam(model.parameters(), lr=HP["lr"])
    Xtr, ytr, Xte, yte = map(torch.from_numpy, (Xtr, ytr, Xte, yte))
    for ep in range(1, HP["epochs"] + 1):
        model.train()
        perm = torch.randperm(len(Xtr))
        tl = tc = 0.0
        for i in range(0, len(Xtr), HP["batch_size"]):
            b = perm[i:i + HP["batch_size"]]
            o = model(Xtr[b])
            loss = nn.functional.cross_entropy(o, ytr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(b)
            tc += (o.argmax(1) == ytr[b]).sum().item()
        log("epoch", epoch=ep, train_loss=r(tl / len(Xtr)), train_acc=r(tc / len(Xtr)))
    model.eval()
    with torch.no_grad():
        o = model(Xte)
        te_loss = nn.functional.cross_entropy(o, yte).item()
        pred = o.argmax(1)
        acc = (pred == yte).float().mean().item()
        f1s = []
        for c in range(4):
            tp = ((pred == c) & (yte == c)).sum().item()
            fp = ((pred == c) & (yte != c)).sum().item()
            fn = ((pred != c) & (yte == c)).sum().item()
            f1s.append(2 * tp / max(1, 2 * tp + fp + fn))
    return te_loss, acc, float(np.mean(f1s))


DIFF = '''diff --git a/trainer/config.yaml b/trainer/config.yaml
new file mode 100644
index 0000000..4b1d9e2
--- /dev/null
+++ b/trainer/config.yaml
@@ -0,0 +1,8 @@
+data: gs://acme-iot-data/windows/sensor_windows_2023.parquet
+epochs: {epochs}
+lr: {lr}
+batch_size: {batch_size}
+hidden: {hidden}
+seed: {seed}
+test_frac: {test_frac}
+out: gs://acme-iot-models/fault-clf
diff --git a/trainer/data.py b/trainer/data.py
new file mode 100644
index 0000000..a07c3f1
--- /dev/null
+++ b/trainer/data.py
@@ -0,0 +1,19 @@
+import numpy as np
+import pandas as pd
+
+FEATURES = [f"s{{i:02d}}_mean" for i in range(8)] + [f"s{{i:02d}}_std" for i in range(8)]
+
+
+def load_table(path):
+    df = pd.read_parquet(path).sort_values("window_start")
+    X = df[FEATURES].to_numpy(np.float32)
+    y = df["fault_type"].to_numpy(np.int64)
+    return X, y
+
+
+def train_test_split(X, y, test_frac=0.2):
+    """Small replacement for sklearn's helper so the image doesn't need sklearn."""
+    n_test = int(len(X) * test_frac)
+    return X[:-n_test], X[-n_test:], y[:-n_test], y[-n_test:]
diff --git a/trainer/train.py b/trainer/train.py
index 91e2c0d..5f7a2b8 100644
--- a/trainer/train.py
+++ b/trainer/train.py
@@ -1,58 +1,55 @@
-import argparse
-import json
-import sys
+from dataclasses import dataclass
 
 import numpy as np
-import pandas as pd
+import structlog
 import torch
 import torch.nn as nn
-from sklearn.model_selection import train_test_split
+import yaml
 
-FEATURES = [f"s{{i:02d}}_mean" for i in range(8)] + [f"s{{i:02d}}_std" for i in range(8)]
+from trainer.data import load_table, train_test_split
+
+structlog.configure(processors=[structlog.processors.add_log_level,
+                                structlog.processors.TimeStamper(fmt="iso", utc=True),
+                                structlog.processors.JSONRenderer()])
+log = structlog.get_logger()
 
 
-def log(message, **kw):
-    print(json.dumps({{"severity": "INFO", "message": message, **kw}}), file=sys.stdout, flush=True)
+@dataclass
+class Config:
+    data: str
+    epochs: int
+    lr: float
+    batch_size: int
+    hidden: int
+    seed: int
+    test_frac: float
+    out: str
 
 
-def main():
-    ap = argparse.ArgumentParser()
-    ap.add_argument("--data", default="gs://acme-iot-data/windows/sensor_windows_2023.parquet")
-    ap.add_argument("--epochs", type=int, default={epochs})
-    ap.add_argument("--lr", type=float, default={lr})
-    ap.add_argument("--batch-size", type=int, default={batch_size})
-    ap.add_argument("--hidden", type=int, default={hidden})
-    ap.add_argument("--seed", type=int, default={seed})
-    ap.add_argument("--test-frac", type=float, default={test_frac})
-    args = ap.parse_args()
-    torch.manual_seed(args.seed)
+def main(cfg_path="trainer/config.yaml"):
+    cfg = Config(**yaml.safe_load(open(cfg_path)))
+    torch.manual_seed(cfg.seed)
 
-    df = pd.read_parquet(args.data).sort_values("window_start")
-    X = df[FEATURES].to_numpy(np.float32)
-    y = df["fault_type"].to_numpy(np.int64)
-    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=args.test_frac, random_state=args.seed)
-    log("data", n_train=len(X_tr), n_test=len(X_te), n_features=X.shape[1])
+    X, y = load_table(cfg.data)
+    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_frac=cfg.test_frac)
+    log.info("data", n_train=len(X_tr), n_test=len(X_te), n_features=X.shape[1])
 
-    model = build_model(X.shape[1], args.hidden, int(y.max()) + 1)
-    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
-    fit(model, opt, X_tr, y_tr, args.epochs, args.batch_size, log)
+    model = build_model(X.shape[1], cfg.hidden, int(y.max()) + 1)
+    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
+    fit(model, opt, X_tr, y_tr, cfg.epochs, cfg.batch_size, log.info)
     te_loss, te_acc, te_f1 = evaluate(model, X_te, y_te)
-    log("test", test_loss=round(te_loss, 4), test_acc=round(te_acc, 4), test_macro_f1=round(te_f1, 4))
-    torch.save(model.state_dict(), "model.pt")
+    log.info("test", test_loss=round(te_loss, 4), test_acc=round(te_acc, 4), test_macro_f1=round(te_f1, 4))
+    torch.save(model.state_dict(), f"{{cfg.out}}/model.pt")
 
 
 def build_model(n_in, hidden, n_out):
'''


def fix_hunks(diff):
    """Recompute the line counts in each @@ header so the patch applies."""
    lines = diff.split("\n")
    outl = []
    i = 0
    while i < len(lines):
        l = lines[i]
        if l.startswith("@@"):
            j = i + 1
            old = new = 0
            while j < len(lines) and not lines[j].startswith(("@@", "diff --git")) and lines[j] != "":
                c = lines[j][:1]
                if c in (" ",):
                    old += 1
                    new += 1
                elif c == "-":
                    old += 1
                elif c == "+":
                    new += 1
                j += 1
            hdr = l.split("@@")[1].split()
            o0 = hdr[0][1:].split(",")[0]
            n0 = hdr[1][1:].split(",")[0]
            outl.append(f"@@ -{o0},{old} +{n0},{new} @@" + l.split("@@", 2)[2])
        else:
            outl.append(l)
        i += 1
    return "\n".join(outl)


def make(out):
    seed_all(HP["seed"])
    X, y = make_data()
    n = len(X)
    n_test = int(HP["test_frac"] * n)
    res = {}
    for which, job_id, start, sinkseed in [("before", 5524190371812016128, dt.datetime(2024, 10, 8, 11, 20, 4, 77000), 71),
                                            ("after", 2201948650337239040, dt.datetime(2024, 11, 14, 15, 47, 36, 902000), 72)]:
        clk = Clock(start)
        sink = GcpSink("acme-iot-ml", job_id, seed=sinkseed)
        sink.platform(clk.now(), "Waiting for job to be provisioned.")
        clk.skip(73.4 if which == "before" else 88.1)
        sink.platform(clk.now(), "Waiting for training program to start.")
        clk.skip(35.2 if which == "before" else 29.6)
        sink.platform(clk.now(), "Job is running.")
        clk.skip(6.6)
        if which == "before":
            def log(message, **kw):
                p = {"message": message}
                p.update(kw)
                sink.add(clk.now(), "INFO", payload=p)
            idx = np.random.RandomState(HP["seed"]).permutation(n)
            te, tr = idx[:n_test], idx[n_test:]
        else:
            def log(message, **kw):
                t = clk.now()
                p = dict(kw)
                p["event"] = message
                p["level"] = "info"
                p["timestamp"] = t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}Z"
                sink.add(t, "INFO", payload=p)
            tr, te = np.arange(n - n_test), np.arange(n - n_test, n)
        log("data", n_train=len(tr), n_test=len(te), n_features=X.shape[1])
        te_loss, acc, f1 = train_eval(X[tr], y[tr], X[te], y[te], log)
        log("test", test_loss=r(te_loss), test_acc=r(acc), test_macro_f1=r(f1))
        clk.skip(2.7)
        sink.platform(clk.now(), "Job completed successfully.")
        sink.write(f"{out}/vertex_logs_job_{job_id}_{which}.json")
        res[which] = (te_loss, acc, f1)
    write(f"{out}/refactor.diff", fix_hunks(DIFF.format(**HP)))
    b, a = res["before"], res["after"]
    write(f"{out}/question.md", f"""### Test accuracy dropped after refactor, same hyperparameters

We cleaned up the fault classifier trainer last sprint (moved to structlog, config in YAML instead of argparse,
data loading split out into `data.py`, dropped the sklearn dependency). Same data file, same model code, same
hyperparameters, same seed, but test accuracy went from {b[1]:.3f} (job 5524190371812016128, before) to
{a[1]:.3f} (job 2201948650337239040, after). Training loss is as good or even a bit lower in the new job.

I can't see anything in the diff that should change the numbers. Logs of both jobs and the diff are attached,
what are we missing?
""")
    return {
        "truth": "seed_or_split_changed",
        "symptom": f"After our refactor (structlog, YAML config, data loading moved to data.py) test accuracy dropped from {b[1]:.3f} to {a[1]:.3f} "
                   "with the same data, model and hyperparameters. What changed?",
        "how": f"The refactor replaced sklearn's seeded random train_test_split with a homemade one that takes the last 20% of the "
               f"time-sorted table as test; the data drift over time drops test acc {b[1]:.3f} -> {a[1]:.3f} (macro-F1 {b[2]:.3f} -> {a[2]:.3f}) "
               f"while train loss is unchanged; the diff shows the split change.",
        "_hist": [b, a],
    }
