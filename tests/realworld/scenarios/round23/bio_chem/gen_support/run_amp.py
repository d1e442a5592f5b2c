"""run07: antimicrobial-peptide classifier retrained after a refactor; the refactor also swapped the function behind
the reported "auc" from ROC AUC to average precision (PR AUC) - on 8 % positives the number drops a lot."""
import datetime
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from common import seed_all, write, rand_protein, auroc, auprc, mcc, AA

DIFF = '''diff --git a/src/ampnet/data.py b/src/ampnet/data.py
index 5c1e0a2..d94b7f1 100644
--- a/src/ampnet/data.py
+++ b/src/ampnet/data.py
@@ -1,38 +1,52 @@
 import csv
 import itertools

 import numpy as np
 import torch
+from torch.utils.data import DataLoader, TensorDataset

 AA = "ACDEFGHIKLMNPQRSTVWY"
 DIPEP = ["".join(p) for p in itertools.product(AA, repeat=2)]
 DIPEP_IDX = {d: i for i, d in enumerate(DIPEP)}


 def featurize(seq):
     comp = np.array([seq.count(a) for a in AA], dtype=np.float32) / len(seq)
     di = np.zeros(len(DIPEP), dtype=np.float32)
     for i in range(len(seq) - 1):
         di[DIPEP_IDX[seq[i:i + 2]]] += 1
     di /= max(len(seq) - 1, 1)
     return np.concatenate([comp, di * 20])


-def load_split(path):
-    """returns dict split -> (X, y) tensors"""
-    rows = list(csv.DictReader(open(path)))
-    out = {}
-    for split in ("train", "test"):
-        sel = [r for r in rows if r["split"] == split]
-        X = np.stack([featurize(r["sequence"]) for r in sel])
-        y = np.array([int(r["is_amp"]) for r in sel], dtype=np.float32)
-        out[split] = (torch.from_numpy(X), torch.from_numpy(y))
-    return out
+class PeptideTable:
+    """Reads the curated peptide table once and serves per-split datasets / loaders."""
+
+    def __init__(self, path, seq_col="sequence", label_col="is_amp", split_col="split"):
+        self.rows = list(csv.DictReader(open(path)))
+        self.seq_col, self.label_col, self.split_col = seq_col, label_col, split_col
+        self._cache = {}
+
+    def tensors(self, split):
+        if split not in self._cache:
+            sel = [r for r in self.rows if r[self.split_col] == split]
+            X = np.stack([featurize(r[self.seq_col]) for r in sel])
+            y = np.array([int(r[self.label_col]) for r in sel], dtype=np.float32)
+            self._cache[split] = (torch.from_numpy(X), torch.from_numpy(y))
+        return self._cache[split]
+
+    def dataset(self, split):
+        return TensorDataset(*self.tensors(split))
+
+    def loader(self, split, batch_size=64, shuffle=False):
+        return DataLoader(self.dataset(split), batch_size=batch_size, shuffle=shuffle)
+
+    def positive_rate(self, split):
+        return float(self.tensors(split)[1].mean())
diff --git a/src/ampnet/metrics.py b/src/ampnet/metrics.py
index 8a01b3e..2f6c9d0 100644
--- a/src/ampnet/metrics.py
+++ b/src/ampnet/metrics.py
@@ -1,13 +1,24 @@
 import numpy as np
-from sklearn.metrics import roc_auc_score, accuracy_score, matthews_corrcoef, f1_score
+from sklearn import metrics as skm
+
+# score-based metrics take probabilities, label-based ones take thresholded predictions
+SCORE_METRICS = {
+    "auc": skm.average_precision_score,
+}
+LABEL_METRICS = {
+    "acc": skm.accuracy_score,
+    "mcc": skm.matthews_corrcoef,
+    "f1": skm.f1_score,
+}


 def binary_metrics(y_true, y_prob, threshold=0.5):
-    y_pred = (y_prob >= threshold).astype(int)
-    return {
-        "auc": roc_auc_score(y_true, y_prob),
-        "acc": accuracy_score(y_true, y_pred),
-        "mcc": matthews_corrcoef(y_true, y_pred),
-        "f1": f1_score(y_true, y_pred),
-    }
+    y_prob = np.asarray(y_prob)
+    y_pred = (y_prob >= threshold).astype(int)
+    out = {name: float(fn(y_true, y_prob)) for name, fn in SCORE_METRICS.items()}
+    out.update({name: float(fn(y_true, y_pred)) for name, fn in LABEL_METRICS.items()})
+    return out
diff --git a/src/ampnet/train.py b/src/ampnet/train.py
index 71be2c4..0e3a5f8 100644
--- a/src/ampnet/train.py
+++ b/src/ampnet/train.py
@@ -12,29 +12,26 @@ from .model import AmpMLP
 log = logging.getLogger("ampnet.train")


 def run(cfg):
     torch.manual_seed(cfg["seed"])
-    data = load_split(cfg["data"])
-    Xtr, ytr = data["train"]
-    Xte, yte = data["test"]
-    log.info("loaded %d peptides (train %d / test %d); positives %.1f%%",
-             len(ytr) + len(yte), len(ytr), len(yte), 100 * float(torch.cat([ytr, yte]).mean()))
-    model = AmpMLP(Xtr.shape[1], cfg["hidden"], cfg["dropout"])
+    table = PeptideTable(cfg["data"])
+    train_dl = table.loader("train", cfg["batch_size"], shuffle=True)
+    Xte, yte = table.tensors("test")
+    log.info("loaded %d peptides (train %d / test %d); positives %.1f%%", len(table.rows),
+             len(train_dl.dataset), len(yte), 100 * table.positive_rate("train"))
+    model = AmpMLP(Xte.shape[1], cfg["hidden"], cfg["dropout"])
     opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
     for epoch in range(1, cfg["epochs"] + 1):
         model.train()
-        perm = torch.randperm(len(ytr))
         tot = 0.0
-        for i in range(0, len(ytr), cfg["batch_size"]):
-            idx = perm[i:i + cfg["batch_size"]]
+        for xb, yb in train_dl:
             opt.zero_grad()
-            loss = F.binary_cross_entropy_with_logits(model(Xtr[idx]), ytr[idx])
+            loss = F.binary_cross_entropy_with_logits(model(xb), yb)
             loss.backward()
             opt.step()
-            tot += loss.item() * len(idx)
-        log.info("epoch %d/%d train_loss %.4f", epoch, cfg["epochs"], tot / len(ytr))
+            tot += loss.item() * len(yb)
+        log.info("epoch %d/%d train_loss %.4f", epoch, cfg["epochs"], tot / len(train_dl.dataset))
     model.eval()
     with torch.no_grad():
         prob = torch.sigmoid(model(Xte)).numpy()
'''


def _featurize(seq):
    idx = {a: i for i, a in enumerate(AA)}
    comp = np.array([seq.count(a) for a in AA], dtype=np.float32) / len(seq)
    di = np.zeros(400, dtype=np.float32)
    for i in range(len(seq) - 1):
        di[idx[seq[i]] * 20 + idx[seq[i + 1]]] += 1
    di /= max(len(seq) - 1, 1)
    return np.concatenate([comp, di * 20])


def _amp(rng):
    L = int(rng.integers(12, 40))
    s = []
    for i in range(L):
        if (i % 7) in (0, 3, 4):
            s.append(rng.choice(list("KKRRKHG")))
        else:
            s.append(rng.choice(list("LLIVFWAGKS")))
    s = list(rand_protein(rng, L)) if rng.random() < 0.3 else s
    for _ in range(int(rng.integers(2, 9))):  # natural variation
        s[int(rng.integers(L))] = rng.choice(list(AA))
    return "".join(s)


def _nonamp(rng):
    L = int(rng.integers(12, 40))
    if rng.random() < 0.3:  # cationic non-AMP decoys (signal peptides, NLS-rich fragments)
        f = np.array([5, 1, 2, 3, 3, 6, 2, 4, 14, 9, 2, 3, 5, 3, 13, 6, 4, 5, 1, 2], dtype=float)
        return rand_protein(rng, L, f / f.sum())
    return rand_protein(rng, L)


def _train(X, y, tr, te, version, clock, seed=13):
    lines = []

    def log(name, msg):
        t = clock.now()
        lines.append(f"{t:%Y-%m-%d %H:%M:%S},{t.microsecond // 1000:03d} INFO {name}: {msg}")
    log("ampnet.cli", f"ampnet {version} | config configs/amp_mlp.yaml | seed {seed}")
    torch.manual_seed(seed)
    Xtr, ytr = torch.tensor(X[tr]), torch.tensor(y[tr])
    Xte, yte = torch.tensor(X[te]), y[te]
    if version.startswith("0.3"):
        log("ampnet.train", f"loaded {len(y)} peptides (train {len(tr)} / test {len(te)}); positives "
                            f"{100 * y.mean():.1f}%")
    else:
        log("ampnet.train", f"loaded {len(y)} peptides (train {len(tr)} / test {len(te)}); positives "
                            f"{100 * y[tr].mean():.1f}%")
    model = nn.Sequential(nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
    E, BS = 20, 64
    dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=BS, shuffle=True)
    for ep in range(1, E + 1):
        model.train()
        tot = 0.0
        if version.startswith("0.3"):
            perm = torch.randperm(len(ytr))
            batches = ((Xtr[perm[i:i + BS]], ytr[perm[i:i + BS]]) for i in range(0, len(ytr), BS))
        else:
            batches = iter(dl)
        for xb, yb in batches:
            opt.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(xb).squeeze(-1), yb)
            loss.backward()
            opt.step()
            tot += loss.item() * len(yb)
        log("ampnet.train", f"epoch {ep}/{E} train_loss {tot / len(ytr):.4f}")
    model.eval()
    with torch.no_grad():
        prob = torch.sigmoid(model(Xte).squeeze(-1)).numpy()
    pred = (prob >= 0.5).astype(int)
    tp = int(((pred == 1) & (yte == 1)).sum())
    fp = int(((pred == 1) & (yte == 0)).sum())
    fn = int(((pred == 0) & (yte == 1)).sum())
    score = auroc(yte, prob) if version.startswith("0.3") else auprc(yte, prob)
    res = {"auc": score, "acc": float((pred == yte).mean()), "mcc": mcc(yte, pred),
           "f1": 2 * tp / max(1, 2 * tp + fp + fn)}
    log("ampnet.eval", "test: " + " ".join(f"{k}={v:.4f}" for k, v in res.items()))
    log("ampnet.cli", f"saved checkpoints/amp_mlp_v{version}.pt and results/test_metrics_v{version}.json")
    return lines, res, {"roc": auroc(yte, prob), "ap": auprc(yte, prob)}


class _Clock:
    def __init__(self, start):
        self.t = datetime.datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
        self.last = time.perf_counter()

    def now(self):
        p = time.perf_counter()
        self.t += datetime.timedelta(seconds=(p - self.last) + 0.0007)
        self.last = p
        return self.t


def run(outdir):
    seed_all(7)
    rng = np.random.default_rng(707)
    N = 5000
    y = (rng.random(N) < 0.08).astype(np.float32)
    seqs = [_amp(rng) if v else _nonamp(rng) for v in y]
    X = np.stack([_featurize(s) for s in seqs]).astype(np.float32)
    split = np.where(rng.random(N) < 0.8, "train", "test")
    tr, te = np.where(split == "train")[0], np.where(split == "test")[0]
    t0 = time.perf_counter()
    l3, r3, raw3 = _train(X, y, tr, te, "0.3.2", _Clock("2024-04-18 16:42:10"))
    l4, r4, raw4 = _train(X, y, tr, te, "0.4.0", _Clock("2024-05-06 09:15:44"))
    el = time.perf_counter() - t0
    d = f"{outdir}/runs/run07"
    write(f"{d}/logs/train_v0.3.2.log", "\n".join(l3) + "\n")
    write(f"{d}/logs/train_v0.4.0.log", "\n".join(l4) + "\n")
    write(f"{d}/git_diff_v0.3.2_v0.4.0.patch", DIFF)
    post = f"""**AMP classifier: test AUC dropped from {r3['auc']:.2f} to {r4['auc']:.2f} after refactoring the data loading**

Tags: machine learning, peptides, pytorch

Our antimicrobial peptide classifier (AA + dipeptide composition -> small MLP) gave test AUC {r3['auc']:.3f} with
v0.3.2. I refactored the data loading into a `PeptideTable` class with a torch DataLoader (v0.4.0), retrained with
the same config, seed and the same fixed train/test split column, and now the test AUC is {r4['auc']:.3f}.

I think the new DataLoader somehow mixes up peptides and labels, but I can't find where. Both training logs and
the git diff between the two tags are attached. Any idea?
"""
    write(f"{d}/post.md", post)
    return {
        "truth": "metric_changed",
        "symptom": (f"After refactoring our data loading, test AUC of the AMP classifier dropped from {r3['auc']:.2f} to "
                    f"{r4['auc']:.2f} on the same split; I suspect the new DataLoader mixes up peptides and labels."),
        "how": ("The refactor's metrics.py maps the reported 'auc' to average_precision_score instead of roc_auc_score; "
                f"with 8% positives the retrained model scores ROC AUC {raw4['roc']:.3f} / AP {raw4['ap']:.3f}, and acc/MCC/F1 "
                "and the loss curve are essentially unchanged between versions."),
        "_stats": {"time": el, "r3": r3, "r4": r4, "raw3": raw3, "raw4": raw4},
    }
