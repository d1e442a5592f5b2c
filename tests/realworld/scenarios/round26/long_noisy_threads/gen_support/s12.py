"""run12: eval refactor swapped weighted F1 (sklearn) for torchmetrics' default macro F1; same checkpoint, same preds."""
import random, datetime as dt
from common import *
from thread import GHIssue, code, details, when
import noise

DIFF = '''diff --git a/src/doclayout/eval.py b/src/doclayout/eval.py
index 3e1a9c2..b77f0d4 100644
--- a/src/doclayout/eval.py
+++ b/src/doclayout/eval.py
@@ -1,13 +1,16 @@
-import logging
+from loguru import logger
 
 import torch
-from sklearn.metrics import accuracy_score, f1_score
+from torchmetrics.classification import MulticlassAccuracy, MulticlassF1Score
 from torch.utils.data import DataLoader
 
-from .data import RegionDataset
+from .data import RegionDataset, collate_regions
 from .model import build_model
+from .utils import resolve_ckpt
 
-log = logging.getLogger(__name__)
+CLASSES = ["text", "title", "table", "figure", "footnote"]
 
 
 @torch.no_grad()
@@ -15,31 +18,36 @@ def evaluate(cfg):
-    ds = RegionDataset(cfg.data.val_manifest, transform=None)
-    dl = DataLoader(ds, batch_size=cfg.eval.batch_size, shuffle=False, num_workers=4)
+    ds = RegionDataset(cfg.data.val_manifest, transform=None)
+    dl = DataLoader(ds, batch_size=cfg.eval.batch_size, shuffle=False,
+                    num_workers=cfg.eval.num_workers, collate_fn=collate_regions, pin_memory=True)
     model = build_model(cfg.model)
-    state = torch.load(cfg.eval.ckpt, map_location="cpu")
+    state = torch.load(resolve_ckpt(cfg.eval.ckpt), map_location="cpu")
     model.load_state_dict(state["model"])
     model.eval().to(cfg.device)
 
-    preds, targets = [], []
+    acc = MulticlassAccuracy(num_classes=len(CLASSES), average="micro").to(cfg.device)
+    f1 = MulticlassF1Score(num_classes=len(CLASSES)).to(cfg.device)
+    n = 0
     for batch in dl:
-        logits = model(batch["features"].to(cfg.device))
-        preds.append(logits.argmax(-1).cpu())
-        targets.append(batch["label"])
-    preds, targets = torch.cat(preds).numpy(), torch.cat(targets).numpy()
-    acc = accuracy_score(targets, preds)
-    f1 = f1_score(targets, preds, average="weighted")
-    log.info(f"eval on {len(targets)} regions | acc {acc:.4f} | f1 {f1:.4f}")
-    return {"acc": acc, "f1": f1}
+        x, y = batch["features"].to(cfg.device), batch["label"].to(cfg.device)
+        p = model(x).argmax(-1)
+        acc.update(p, y); f1.update(p, y)
+        n += len(y)
+    res = {"acc": acc.compute().item(), "f1": f1.compute().item()}
+    logger.info(f"eval on {n} regions | acc {res['acc']:.4f} | f1 {res['f1']:.4f}")
+    return res
'''


def f1_per_class(y, p, k):
    out = []
    for c in range(k):
        tp = ((p == c) & (y == c)).sum(); fp = ((p == c) & (y != c)).sum(); fn = ((p != c) & (y == c)).sum()
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        out.append((2 * prec * rec / (prec + rec) if prec + rec else 0.0, prec, rec, int((y == c).sum())))
    return out


def sample(centers, probs, n, seed, sigma):
    r = np.random.default_rng(seed)
    k, b, d = centers.shape
    y = r.choice(k, n, p=probs)
    X = centers[y, r.integers(0, b, n)] + r.standard_normal((n, d)) * sigma
    return torch.tensor(X.astype(np.float32)), torch.tensor(y.astype(np.int64))


def train_eval(centers, probs, sigma, n_tr, n_va, seed, epochs=10):
    X, y = sample(centers, probs, n_tr, seed, sigma); Xv, yv = sample(centers, probs, n_va, seed + 1, sigma)
    torch.manual_seed(seed)
    m = mlp(X.shape[1], 96, len(probs), depth=2)
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(seed)
    for ep in range(epochs):
        for xb, yb in batches(X, y, 128, True, g):
            opt.zero_grad(); F.cross_entropy(m(xb), yb).backward(); opt.step()
    m.eval()
    with torch.no_grad():
        p = m(Xv).argmax(1).numpy()
    yv = yv.numpy()
    pc = f1_per_class(yv, p, len(probs))
    acc = (p == yv).mean()
    weighted = sum(f * s for f, _, _, s in pc) / len(yv)
    macro = np.mean([f for f, _, _, _ in pc])
    return acc, weighted, macro, pc, len(yv)


def build(out):
    r = random.Random(1212)
    rc = np.random.default_rng(171)
    centers = rc.standard_normal((5, 3, 20)) * 0.7
    probs = [0.62, 0.17, 0.11, 0.06, 0.04]
    acc, wf1, mf1, pc, n = train_eval(centers, probs, 1.5, 9000, 3000, 5)
    # +1 poster: 4 classes, different data
    c2 = np.random.default_rng(181).standard_normal((4, 2, 12)) * 0.8
    acc2, w2, m2, _, _ = train_eval(c2, [0.7, 0.2, 0.07, 0.03], 1.4, 5000, 1500, 9, epochs=8)
    classes = ["text", "title", "table", "figure", "footnote"]

    def eval_log(ver, f1, ts, logger_style, ts2=None):
        head = f"$ python -m doclayout.eval --config configs/eval.yaml eval.ckpt=runs/2024-05-30_r50/best.pt   # doclayout {ver}"
        if logger_style == "logging":
            return "\n".join([head, f"{ts} INFO doclayout.eval: loaded runs/2024-05-30_r50/best.pt (epoch 10)",
                              f"{ts2} INFO doclayout.eval: eval on {n} regions | acc {acc:.4f} | f1 {f1:.4f}"])
        return "\n".join([head, f"{ts} | INFO     | doclayout.utils:resolve_ckpt:41 - resolved runs/2024-05-30_r50/best.pt",
                          f"{ts2} | INFO     | doclayout.eval:evaluate:38 - eval on {n} regions | acc {acc:.4f} | f1 {f1:.4f}"])
    L8 = eval_log("0.8.2", wf1, "2024-06-11 10:02:44,118", "logging", "2024-06-11 10:02:51,604")
    L9 = eval_log("0.9.0", mf1, "2024-06-12 16:40:09.532", "loguru", "2024-06-12 16:40:15.087")
    write(f"{out}/eval_v0.8.2.log", L8)
    write(f"{out}/eval_v0.9.0.log", L9)
    write(f"{out}/eval_py.diff", DIFF)
    per = "\n".join(f"{classes[i]:<9} support {s:5d}  precision {pr:.4f}  recall {rc_:.4f}  f1 {f:.4f}" for i, (f, pr, rc_, s) in enumerate(pc))

    base = dt.datetime(2024, 6, 12, 17, 30)
    iss = GHIssue("papertrail-ml/doclayout", 233, f"F1 drops from {wf1:.2f} to {mf1:.2f} after upgrading to 0.9.0 with the same checkpoint",
                  "ybenali", base, labels=["bug", "regression"])
    iss.comment("ybenali", base, f"""After upgrading from 0.8.2 to 0.9.0 the evaluation of the **same checkpoint** on the **same val manifest** gives a much lower F1:

{code(L8 + chr(10) + chr(10) + L9)}

The 0.9.0 changelog mentions "new data pipeline (collate_regions, pinned memory)" and "checkpoint path resolution", so I suspect the new loader is feeding the model something different, or the checkpoint isn't fully loaded anymore. Both logs attached.

📎 eval_v0.8.2.log 📎 eval_v0.9.0.log""")
    iss.comment("mgoretti", when(base, hours=1), f"+1, our own fine-tune (4 classes) also lost a lot after the upgrade: "
                f"{w2:.3f} → {m2:.3f}. Rolled back to 0.8.2 for now.")
    iss.comment("p-ivanova", when(base, hours=3), "`resolve_ckpt` is new in 0.9 and I think it falls back to `last.pt` if the path "
                "has no `epoch` key... could be loading the wrong checkpoint. Can you print the epoch it loads?")
    iss.comment("ybenali", when(base, hours=4), "It resolves to the same file (`best.pt`, epoch 10), same sha256 as the one 0.8.2 loads.")
    iss.comment("hk-chen", when(base, hours=6), "The new collate pads feature vectors to the max length in the batch. If your regions "
                "have variable-size features that would change the inputs. Do you use `max_regions`?")
    iss.comment("ybenali", when(base, hours=7), "Our features are fixed-size (20-d per region), so padding shouldn't do anything. "
                "Also I don't understand why only F1 would change then.")
    iss.comment("d-amsel", when(base, days=1), "Could the val split have changed? 0.9 switched `RegionDataset` to read the manifest "
                "with pyarrow, and the ordering/filters might differ.", role="Contributor")
    iss.comment("ybenali", when(base, days=1, hours=2), f"""Same number of regions in both ({n}). I also dumped per-class numbers with the new version:

{code(per)}

`footnote` and `figure` are weak, but they were weak before too I think.""")
    iss.comment("mgoretti", when(base, days=1, hours=4), "env where we see it:\n\n" + details("pip freeze", code(noise.pip_freeze(r, extra=[("torchmetrics", "1.4.0"), ("loguru", "0.7.2")]))))
    iss.comment("d-amsel", when(base, days=1, hours=6), "Can you post the diff of `eval.py` between the two tags? I'm on mobile.", role="Contributor")
    iss.comment("ybenali", when(base, days=1, hours=7), "Here (`git diff v0.8.2 v0.9.0 -- src/doclayout/eval.py`), attached as "
                "`eval_py.diff`. Mostly the loader and logging changes as far as I can tell.\n\n📎 eval_py.diff")
    iss.comment("hk-chen", when(base, days=2), "pin_memory=True with num_workers from the config... if num_workers=0 and pinned "
                "memory there was a bug in torch 2.3 that returned stale batches. Try `eval.num_workers=4`.")
    iss.comment("ybenali", when(base, days=2, hours=3), f"`eval.num_workers=4`: identical output (acc {acc:.4f}, f1 {mf1:.4f}).\n\n" +
                details("collect_env", code(noise.collect_env(r))))
    write(f"{out}/thread.md", iss.render())
    return {"truth": "metric_changed",
            "symptom": f"Evaluating the same checkpoint on the same val set, F1 drops from {wf1:.2f} to {mf1:.2f} after upgrading "
                       "to 0.9.0; I suspect the new data loader or the checkpoint loading.",
            "how": f"The eval refactor replaced sklearn f1_score(average='weighted') with torchmetrics MulticlassF1Score, "
                   f"whose default average is macro; on this imbalanced 5-class set (62% 'text') the identical predictions "
                   f"give weighted {wf1:.3f} vs macro {mf1:.3f}, while accuracy ({acc:.4f}) and n ({n}) are unchanged."}
