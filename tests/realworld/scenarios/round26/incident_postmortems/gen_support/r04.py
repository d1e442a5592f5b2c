"""run04: support-intent classifier, nightly eval F1 drop after an eval refactor."""
from common import *

RUN = "run04"
INTENTS = ["billing", "shipping_status", "returns", "account_access", "cancel_order", "warranty_claim"]
PROPS = np.array([0.52, 0.21, 0.12, 0.08, 0.045, 0.025])


def sample(T, rng, n):
    xs, ys = [], []
    need = (PROPS * n).round().astype(int)
    have = np.zeros(6, int)
    while (have < need).any():
        x, y = T.sample(rng, 4000)
        for c in range(6):
            sel = np.where(y == c)[0][: max(0, need[c] - have[c])]
            xs.append(x[sel]); ys.append(y[sel]); have[c] += len(sel)
    X, Y = np.concatenate(xs), np.concatenate(ys)
    p = rng.permutation(len(Y))
    return torch.tensor(X[p]), torch.tensor(Y[p])


def micro_f1(y, p):
    return float((y == p).mean())           # micro-averaged F1 == accuracy for single-label multiclass


def macro_f1(y, p, k=6):
    s = []
    for c in range(k):
        tp = np.sum((p == c) & (y == c)); fp = np.sum((p == c) & (y != c)); fn = np.sum((p != c) & (y == c))
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        s.append(2 * prec * rec / (prec + rec) if prec + rec else 0.0)
    return float(np.mean(s)), s


def train(X, Y, seed):
    torch.manual_seed(seed)
    model = mlp(24, 6, 64)
    opt = torch.optim.Adam(model.parameters(), 2e-3, foreach=True)
    lf = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(seed)
    for ep in range(8):
        for b in batches(len(X), 128, g):
            loss = lf(model(X[b]), Y[b])
            opt.zero_grad(); loss.backward(); opt.step()
    return model


@torch.no_grad()
def predict(model, X):
    model.eval()
    return model(X).argmax(1).numpy()


def build():
    rng = np.random.default_rng(404)
    T = Teacher(rng, 24, 6, hidden=10)
    Xte, Yte = sample(T, rng, 3000)           # frozen eval set (eval/intent_v4_test.jsonl)
    yte = Yte.numpy()
    nights = ["2024-05-11", "2024-05-12", "2024-05-13", "2024-05-14", "2024-05-15"]
    rows, models, snaps = [], {}, {}
    for i, night in enumerate(nights):
        X, Y = sample(T, rng, 6000)
        snaps[night] = (X, Y)
        m = train(X, Y, seed=100 + i)
        models[night] = m
        p = predict(m, Xte)
        f = micro_f1(yte, p) if i < 3 else macro_f1(yte, p)[0]
        rows.append((night, f"{f:.4f}", "a41d9e0" if i < 3 else "c07b2f5"))
    # retrain on the 05-13 snapshot with current main, and rescore the 05-13 model with current main
    X13, Y13 = snaps["2024-05-13"]
    m_re = train(X13, Y13, seed=7)
    f_re = macro_f1(yte, predict(m_re, Xte))[0]
    f_old_new = macro_f1(yte, predict(models["2024-05-13"], Xte))[0]

    log = [
        "[nightly-eval] 2024-05-15T04:12:09Z model=intent-clf@2024-05-15 eval_set=intent_v4_test (3000 ex)",
        "[nightly-eval] 2024-05-15T04:12:09Z commit=c07b2f5 evalkit==0.3.1",
        f"[nightly-eval] 2024-05-15T04:12:11Z f1={float(rows[4][1]):.4f}",
        f"[nightly-eval] 2024-05-15T04:12:11Z threshold f1>=0.85  -> FAIL",
        "[nightly-eval] 2024-05-15T04:12:11Z promotion skipped; keeping intent-clf@2024-05-13",
    ]
    diff = '''diff --git a/intent/eval.py b/intent/eval.py
index 3b1e2a4..9c07d11 100644
--- a/intent/eval.py
+++ b/intent/eval.py
@@ -1,14 +1,13 @@
 import json
 import numpy as np
-from sklearn.metrics import f1_score
+from evalkit.metrics import f1
+from evalkit.io import read_jsonl
 
 from intent.model import load_model
 from intent.features import featurize
 
 
 def run_eval(cfg, model_path):
     model = load_model(model_path)
-    rows = [json.loads(l) for l in open(cfg.eval_set)]
+    rows = read_jsonl(cfg.eval_set)
     X = featurize([r["text"] for r in rows])
     labels = np.array([cfg.label2id[r["intent"]] for r in rows])
     preds = model.predict(X)
-    score = f1_score(labels, preds, average="micro")
-    return {"f1": score, "n": len(rows)}
+    return {"f1": f1(labels, preds, num_classes=cfg.num_classes), "n": len(rows)}
'''
    evalkit = '''# evalkit/metrics.py  (evalkit 0.3.1, shared eval package, added as a dependency in c07b2f5)
import numpy as np


def f1(labels, preds, num_classes):
    """F1 score for single-label classification."""
    labels, preds = np.asarray(labels), np.asarray(preds)
    scores = []
    for c in range(num_classes):
        tp = np.sum((preds == c) & (labels == c))
        fp = np.sum((preds == c) & (labels != c))
        fn = np.sum((preds != c) & (labels == c))
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        scores.append(2 * p * r / (p + r) if p + r else 0.0)
    return float(np.mean(scores))
'''
    write(RUN, "attachments/nightly-eval-2024-05-15.txt", "\n".join(log))
    write(RUN, "attachments/PR-1187-eval.diff", diff)
    write(RUN, "attachments/evalkit_metrics.py", evalkit)

    doc = f"""# [Incident] intent-clf nightly F1 below threshold since 2024-05-14

**Created by** Priya N. · **Team** Support-AI · **Status** Open · **Root cause:** TBD (suspect 05-14 data snapshot)

## Summary
Nightly eval F1 of the support-intent classifier fell from ~{float(rows[2][1]):.2f} to ~{float(rows[3][1]):.2f} on 2024-05-14
and stayed there. Promotion is blocked. The 05-14 snapshot was the first one from the new annotation export, so
we suspect the data. PR #1187 (eval cleanup: move to shared `evalkit`, drop sklearn) also merged on 05-13.

## Nightly eval (dashboard values)
{md_table(["night", "f1", "commit"], rows)}

## Timeline
- 05-13 17:40 — PR #1187 merged.
- 05-14 04:12 — nightly eval FAIL (f1 {rows[3][1]}).
- 05-15 04:12 — FAIL again (f1 {rows[4][1]}), log excerpt attached.
- 05-15 10:30 — retrained on the **05-13** snapshot with current main: f1 {f_re:.4f}. Still low, so maybe not
  the data alone? Confusing.

## What we tried
- Retrain on 05-13 snapshot (above).
- Re-ran eval for the 05-13 model on current main: f1 {f_old_new:.4f}.
- Eval set file unchanged (same sha256 as April).

## Action items
- [ ] Diff the 05-13 and 05-14 annotation exports (label distribution) — @priya.n
- [ ] Check if featurize() changed in any dependency bump — @tom.w

Attachments: `nightly-eval-2024-05-15.txt`, `PR-1187-eval.diff`, `evalkit_metrics.py`
"""
    write(RUN, "INCIDENT-intent-clf-f1-drop.md", doc)
    return {"truth": "metric_changed",
            "symptom": f"Nightly eval F1 for our intent model dropped from about {float(rows[2][1]):.2f} to about {float(rows[3][1]):.2f} overnight and hasn't come back; we can't tell what changed.",
            "how": f"PR #1187 replaced sklearn f1_score(average='micro') with evalkit.f1, which averages per-class F1 (macro) over 6 imbalanced intents; the models are as good as before (the 05-13 model rescored with the new code gives {f_old_new:.3f} instead of {float(rows[2][1]):.3f})."}
