"""run02: weekly retrain, flat loss tail (no fault)."""
from common import *

RUN = "run02"

TRAIN_PY = '''"""Weekly retrain of the merchant-category classifier (tabular embeddings -> 10 categories)."""
import argparse, json, math, time
import numpy as np
import torch
import torch.nn as nn
import yaml

from mcc.data import load_split          # returns float32 features [N, 16], int64 labels [N]
from mcc.logging import get_logger

log = get_logger("train")


def build_model(cfg):
    h = cfg["model"]["hidden"]
    return nn.Sequential(
        nn.Linear(16, h), nn.ReLU(),
        nn.Linear(h, h), nn.ReLU(),
        nn.Linear(h, 10),
    )


def lr_lambda_factory(warmup_steps, total_steps):
    def f(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        progress = (step - warmup_steps) / max(1, total_steps - warmup_steps)
        return 0.5 * (1.0 + math.cos(math.pi * progress))
    return f


@torch.no_grad()
def evaluate(model, X, Y):
    model.eval()
    out = model(X)
    loss = nn.functional.cross_entropy(out, Y).item()
    acc = (out.argmax(1) == Y).float().mean().item()
    model.train()
    return loss, acc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/weekly.yaml")
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["seed"])

    Xtr, Ytr = load_split("train", cfg["data"]["snapshot"])
    Xva, Yva = load_split("val", cfg["data"]["snapshot"])
    model = build_model(cfg)

    bs, epochs = cfg["train"]["batch_size"], cfg["train"]["epochs"]
    steps_per_epoch = math.ceil(len(Xtr) / bs)
    total = epochs * steps_per_epoch
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["train"]["lr"],
                            weight_decay=cfg["train"]["weight_decay"])
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lr_lambda_factory(cfg["train"]["warmup_epochs"] * steps_per_epoch, total))
    loss_fn = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(cfg["seed"])

    for epoch in range(1, epochs + 1):
        perm = torch.randperm(len(Xtr), generator=g)
        losses, gnorms = [], []
        for i in range(0, len(Xtr), bs):
            idx = perm[i:i + bs]
            loss = loss_fn(model(Xtr[idx]), Ytr[idx])
            opt.zero_grad()
            loss.backward()
            gnorms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item())
            opt.step()
            sched.step()
            losses.append(loss.item())
        vl, va = evaluate(model, Xva, Yva)
        log.info(f"epoch {epoch:2d}/{epochs} train_loss={np.mean(losses):.4f} val_loss={vl:.4f} "
                 f"val_acc={va:.4f} grad_norm={np.mean(gnorms):.3f} lr={sched.get_last_lr()[0]:.2e}")

    torch.save(model.state_dict(), cfg["out"])
    json.dump({"val_loss": vl, "val_acc": va}, open(cfg["out"] + ".metrics.json", "w"))


if __name__ == "__main__":
    main()
'''

CFG = """seed: {seed}
data:
  snapshot: {snap}
model:
  hidden: 128
train:
  batch_size: 256
  epochs: 30
  lr: 3.0e-3
  weight_decay: 0.05
  warmup_epochs: 1
out: /mnt/models/mcc/{snap}/model.pt
"""


def run(X, Y, Xv, Yv, seed, clock=None):
    torch.manual_seed(seed)
    model = mlp(16, 10, 128)
    bs, E = 256, 30
    spe = math.ceil(len(X) / bs)
    total, warm = E * spe, spe
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05, foreach=True)
    f = lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + math.cos(math.pi * (s - warm) / max(1, total - warm)))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, f)
    lf = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(seed)
    rows, lines = [], []
    for ep in range(1, E + 1):
        perm = torch.randperm(len(X), generator=g)
        losses, gns = [], []
        for i in range(0, len(X), bs):
            idx = perm[i:i + bs]
            loss = lf(model(X[idx]), Y[idx])
            opt.zero_grad()
            loss.backward()
            gns.append(torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item())
            opt.step()
            sched.step()
            losses.append(loss.item())
        vl, va = evaluate(model, Xv, Yv)
        r = (ep, float(np.mean(losses)), vl, va, float(np.mean(gns)), sched.get_last_lr()[0])
        rows.append(r)
        if clock:
            lines.append(f"{clock.now()} INFO train: epoch {ep:2d}/{E} train_loss={r[1]:.4f} val_loss={vl:.4f} "
                         f"val_acc={va:.4f} grad_norm={r[4]:.3f} lr={r[5]:.2e}")
    return rows, lines


def build():
    rng = np.random.default_rng(202)
    T = Teacher(rng, 16, 10, hidden=8)
    Xq, Yq = T.sample(rng, 12000)       # last quarter's snapshot
    Xqv, Yqv = T.sample(rng, 3000)
    X, Y = T.sample(rng, 12000)         # this week's snapshot
    Xv, Yv = T.sample(rng, 3000)
    tt = lambda *a: [torch.tensor(v) for v in a]
    base_rows, _ = run(*tt(Xq, Yq, Xqv, Yqv), seed=11)
    clock = Clock("2024-06-08 03:00:12", scale=100)
    head = [f"{clock.now()} INFO launcher: job mcc-weekly-2024-W23 started, config=configs/weekly.yaml",
            f"{clock.now()} INFO data: snapshot=2024-06-07 train={len(X)} val={len(Xv)} features=16 classes=10",
            f"{clock.now()} INFO train: steps_per_epoch={math.ceil(len(X)/256)} total_steps={30*math.ceil(len(X)/256)} warmup_steps={math.ceil(len(X)/256)}"]
    rows, lines = run(*tt(X, Y, Xv, Yv), seed=11, clock=clock)
    t_end = clock.now("%H:%M:%S")[:8]
    tail = [f"{clock.now()} INFO train: saved /mnt/models/mcc/2024-06-07/model.pt",
            f"{clock.now()} INFO launcher: job mcc-weekly-2024-W23 finished (exit 0)"]
    write(RUN, "attachments/mcc-weekly-2024-W23.log", "\n".join(head + lines + tail))
    write(RUN, "attachments/train.py", TRAIN_PY)
    write(RUN, "attachments/weekly.yaml", CFG.format(seed=11, snap="2024-06-07"))

    tab = md_table(["epoch", "train_loss", "val_loss", "val_acc", "lr (end of epoch)"],
                   [(r[0], f"{r[1]:.4f}", f"{r[2]:.4f}", f"{r[3]:.4f}", f"{r[5]:.2e}") for r in rows if r[0] >= 16])
    d_last = rows[-1][1] - rows[21][1]
    d5 = rows[24][1] - rows[-1][1]
    assert d5 < 0.005
    b = base_rows[-1]
    doc = f"""# Review: weekly MCC retrain 2024-W23 — "loss stops moving" alert

**Page type:** Incident review (draft) · **Space:** Payments-ML / Runbooks & Postmortems
**Status:** Investigating · **Author:** d.achterberg · **Reviewers:** payments-ml on-call

| | |
|---|---|
| Job | `mcc-weekly-2024-W23` (merchant-category classifier, 10 classes) |
| Alert | `train_loss_stalled` — fired 2024-06-08 {t_end} UTC |
| Customer impact | None (model not promoted yet; promotion paused pending this review) |
| Root cause | TBD. Suspicion: LR scheduler misbehaving in the last third of the run, or the job stalled |

## Summary

The new `train_loss_stalled` alert (added in May, fires when train loss improves by < 0.005 over the last 5
epochs) fired on this week's retrain (epoch 25 → 30 improvement: {d5:.4f}). Looking at the curve, the training loss is essentially flat for the last
~8 of 30 epochs (epoch 22 → 30 change: {d_last:+.4f}). Promotion of the model was paused until we understand
whether the run is healthy. Nobody has looked at this model's curves closely before; the alert is new.

## Impact

Promotion of the W23 model is on hold; W22 model keeps serving.

## Timeline (UTC)

| Time | Event |
|---|---|
| 2024-06-08 03:00:12 | Job starts (config unchanged since March, new weekly snapshot 2024-06-07). |
| 2024-06-08 {t_end} | Job finishes, exit 0. `train_loss_stalled` fires at the end-of-run check. |
| 2024-06-08 08:20 | On-call pauses promotion and opens this page. |
| 2024-06-10 10:00 | Compared with the Q1 reference run (same config): similar numbers, see below. |

## Graphs

Loss and accuracy per epoch, second half of the run (full log attached):

{tab}

Reference run from Q1 (same `train.py`, same config, snapshot 2024-03-01) ended at
train_loss={b[1]:.4f}, val_loss={b[2]:.4f}, val_acc={b[3]:.4f}.

## What we tried / looked at

* Checked that the job did not hang: all 30 epochs logged, exit code 0, checkpoint written.
* Looked at the scheduler code (`lr_lambda_factory` in `train.py`, attached). It is stepped once per batch and
  the totals are computed in steps, which we believe is right, but the lr in the log goes all the way to 0 at the
  end, which some of us find suspicious.
* Did not rerun yet.

## Open questions

1. Is a flat loss in the last ~25 % of training expected here, or did training effectively stop early?
2. Should the alert threshold change, or is there something to fix in the schedule?

## Action items

- [ ] Decide whether the W23 model can be promoted — @payments-ml-lead
- [ ] Tune or scope `train_loss_stalled` — @d.achterberg

## Attachments

* `attachments/mcc-weekly-2024-W23.log`
* `attachments/train.py`
* `attachments/weekly.yaml`
"""
    write(RUN, "REVIEW-mcc-weekly-2024-W23.md", doc)
    return {"truth": "healthy",
            "symptom": "The loss on our weekly retrain goes completely flat for the last ~8 epochs and tripped our new stall alert — did the job stall or is the LR schedule broken?",
            "how": f"No fault: correct AdamW + 1-epoch warm-up + per-step cosine decay to 0 over 30 epochs; the loss flattens as the lr anneals while val loss keeps improving slightly and ends at val_acc {rows[-1][3]:.3f}, in line with the Q1 reference run ({b[3]:.3f})."}
