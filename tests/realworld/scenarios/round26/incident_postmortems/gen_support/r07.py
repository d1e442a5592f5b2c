"""run07: delivery-delay classifier NaN since the August data refresh."""
import warnings
from common import *

RUN = "run07"
FEATS = [("distance_km", 6.0, 3.0), ("n_items", 4.0, 2.0), ("hour", 14.0, 4.0), ("weekday", 3.0, 2.0),
         ("courier_load", 11.0, 4.0), ("rain_mm", 1.2, 1.5), ("restaurant_prep_min", 14.0, 5.0),
         ("traffic_index", 0.45, 0.2), ("order_value_eur", 31.0, 12.0), ("courier_tenure_days", 210.0, 120.0)]
CLASSES = ["on_time", "late", "very_late"]

TRAIN_PY = '''"""Train the delivery-delay classifier (on_time / late / very_late)."""
import argparse
import numpy as np
import pandas as pd
import torch
import torch.nn as nn

FEATURES = ["distance_km", "n_items", "hour", "weekday", "courier_load", "rain_mm",
            "restaurant_prep_min", "traffic_index", "order_value_eur", "courier_tenure_days"]


def load(path):
    df = pd.read_parquet(path)
    X = torch.tensor(df[FEATURES].values, dtype=torch.float32)
    y = torch.tensor(df["delay_class"].values, dtype=torch.long)
    return X, y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/delay_train.parquet")
    ap.add_argument("--val", default="data/delay_val.parquet")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--bs", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    args = ap.parse_args()
    torch.manual_seed(0)

    X, y = load(args.train)
    Xv, yv = load(args.val)
    model = nn.Sequential(nn.Linear(len(FEATURES), 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()

    for epoch in range(1, args.epochs + 1):
        perm = torch.randperm(len(X))
        losses = []
        for step, i in enumerate(range(0, len(X), args.bs), 1):
            idx = perm[i:i + args.bs]
            xb, yb = X[idx], y[idx]
            xb = (xb - xb.mean(0)) / xb.std(0)
            loss = loss_fn(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if step % 8 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
        with torch.no_grad():
            xv = (Xv - Xv.mean(0)) / Xv.std(0)
            out = model(xv)
            vl = loss_fn(out, yv).item()
            va = (out.argmax(1) == yv).float().mean().item()
        print(f"== epoch {epoch} train_loss {np.mean(losses):.4f} val_loss {vl:.4f} val_acc {va:.4f}", flush=True)

    torch.save(model.state_dict(), "delay_clf.pt")


if __name__ == "__main__":
    main()
'''


def to_raw(z):
    cols = []
    for i, (name, m, s) in enumerate(FEATS):
        v = m + s * z[:, i]
        if name in ("n_items", "hour", "weekday"):
            v = np.round(v)
        if name == "hour":
            v = np.clip(v, 0, 23)
        if name == "weekday":
            v = np.clip(v, 0, 6)
        if name in ("rain_mm", "distance_km", "traffic_index"):
            v = np.abs(v)
        if name == "n_items":
            v = np.maximum(v, 1)
        v = np.maximum(v, {"courier_tenure_days": 1.0, "order_value_eur": 4.5, "restaurant_prep_min": 2.0,
                           "courier_load": 1.0}.get(name, 0.0)) + 0.0
        cols.append(v)
    return np.stack(cols, 1).astype(np.float32)


def train(X, y, Xv, yv, epochs, lines, line_no, lr=1e-3):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
    opt = torch.optim.Adam(model.parameters(), lr=lr, foreach=True)
    lf = nn.CrossEntropyLoss()
    warned = False
    summ = []
    for epoch in range(1, epochs + 1):
        perm = torch.randperm(len(X))
        losses = []
        for step, i in enumerate(range(0, len(X), 64), 1):
            idx = perm[i:i + 64]
            xb, yb = X[idx], y[idx]
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                xb = (xb - xb.mean(0)) / xb.std(0)
            if w and not warned:
                warned = True
                m = w[0]
                lines.append(f"/srv/delay-model/train.py:{line_no}: {m.category.__name__}: {m.message}")
                lines.append("  xb = (xb - xb.mean(0)) / xb.std(0)")
            loss = lf(model(xb), yb)
            opt.zero_grad(); loss.backward(); opt.step()
            losses.append(loss.item())
            if step % 8 == 0:
                lines.append(f"epoch {epoch} step {step} loss {loss.item():.4f}")
        with torch.no_grad():
            xv = (Xv - Xv.mean(0)) / Xv.std(0)
            out = model(xv)
            vl = lf(out, yv).item()
            va = (out.argmax(1) == yv).float().mean().item()
        lines.append(f"== epoch {epoch} train_loss {np.mean(losses):.4f} val_loss {vl:.4f} val_acc {va:.4f}")
        summ.append((epoch, float(np.mean(losses)), vl, va, len(losses), losses[-2], losses[-1]))
    return summ


def build():
    rng = np.random.default_rng(707)
    T = Teacher(rng, 10, 3, hidden=6)
    z, y = T.sample(rng, 3904 + 129 + 800)
    Xall = to_raw(z)
    Xv, yv = torch.tensor(Xall[:800]), torch.tensor(y[:800])
    X_jul, y_jul = torch.tensor(Xall[800:800 + 3904]), torch.tensor(y[800:800 + 3904])
    X_aug, y_aug = torch.tensor(Xall[800:]), torch.tensor(y[800:])
    bw_line = next(i for i, l in enumerate(TRAIN_PY.splitlines(), 1) if "loss.backward()" in l)
    line_no = next(i for i, l in enumerate(TRAIN_PY.splitlines(), 1) if "xb.std(0)" in l)

    l_jul, l_aug, l_drop = [], [], []
    s_jul = train(X_jul, y_jul, Xv, yv, 10, l_jul, line_no)
    s_aug = train(X_aug, y_aug, Xv, yv, 4, l_aug, line_no)
    s_drop = train(X_jul, y_jul, Xv, yv, 3, l_drop, line_no)
    lr_lines = []
    s_lr = train(X_aug, y_aug, Xv, yv, 1, lr_lines, line_no, lr=1e-4)
    assert math.isnan(s_aug[0][1]) and not math.isnan(s_aug[0][5])

    hdr = ["$ python train.py --train data/delay_train_2024-08.parquet --val data/delay_val.parquet --epochs 10",
           ]
    write(RUN, "logs/train_2024-08-05.out", "\n".join(hdr + l_aug + ["^C", "Traceback (most recent call last):",
          f'  File "/srv/delay-model/train.py", line {bw_line}, in main', "    loss.backward()", "KeyboardInterrupt"]))
    write(RUN, "logs/train_2024-07-01.out", "\n".join(
        ["$ python train.py --train data/delay_train_2024-07.parquet --val data/delay_val.parquet --epochs 10"] + l_jul))
    write(RUN, "train.py", TRAIN_PY)

    # data checks the team ran
    aug = Xall[800:]
    chk = f""">>> df = pd.read_parquet("data/delay_train_2024-08.parquet")
>>> len(df), len(pd.read_parquet("data/delay_train_2024-07.parquet"))
({len(aug)}, 3904)
>>> df[FEATURES].isna().sum().sum(), np.isinf(df[FEATURES].values).sum()
({int(np.isnan(aug).sum())}, {int(np.isinf(aug).sum())})
>>> delta = df.iloc[3904:]          # rows added by the 2024-08 refresh
>>> delta[FEATURES].describe().loc[["min", "max"]].round(2)
{pd_like(aug[3904:])}
>>> df[FEATURES].describe().loc[["min", "max"]].round(2)
{pd_like(aug)}
>>> df.delay_class.value_counts().sort_index().tolist()
{np.bincount(y[800:], minlength=3).tolist()}
"""
    write(RUN, "notes/data_checks.txt", chk)

    rows = [(f"2024-07 ({len(X_jul)} rows)", e, f4(tl), f4(vl), f"{va:.4f}") for (e, tl, vl, va, *_r) in s_jul[:4]]
    rows += [(f"2024-08 ({len(X_aug)} rows)", e, f4(tl), f4(vl), f"{va:.4f}") for (e, tl, vl, va, *_r) in s_aug]
    rows += [(f"2024-08 minus delta ({len(X_jul)} rows)", e, f4(tl), f4(vl), f"{va:.4f}") for (e, tl, vl, va, *_r) in s_drop]
    a1 = s_aug[0]
    doc = f"""# Postmortem — delivery-delay model: NaN training loss after 2024-08 data refresh

Space: **Logistics DS › Incidents** | Status: 🟡 Open | Author: N. Brandt | Reviewed: —

## TL;DR
After the August refresh of the training table (+{len(X_aug) - len(X_jul)} rows), `train.py` produces `train_loss nan`
from the first epoch and the model is unusable. Dropping the newly added rows makes training work again, so we
believe some of the new records are corrupt, but we have not found which ones.

**Root cause:** TBD — working theory: corrupt record(s) in the August delta.

## Impact
Monthly model refresh for the delay classifier skipped; dispatch keeps using the July model (slightly stale
features for the new zones in the delta).

## Timeline
| Date | |
|---|---|
| 2024-08-05 09:10 | Monthly refresh run started with `delay_train_2024-08.parquet`. |
| 2024-08-05 09:11 | `train_loss nan` in epoch 1; run interrupted by N. Brandt after 4 epochs. |
| 2024-08-05 10:00 | Checked the new file for NaN / inf: none (see `notes/data_checks.txt`). |
| 2024-08-05 11:30 | Reran with lr 1e-4: epoch 1 train_loss {f4(s_lr[0][1])}. Not an lr problem. |
| 2024-08-05 14:00 | Trained on the August file minus the {len(X_aug) - len(X_jul)} delta rows: trains normally. |
| 2024-08-06 | Page written; data-eng asked to re-export the delta. |

## Graphs
Epoch summaries from the runs (`logs/`):

{md_table(["data", "epoch", "train_loss", "val_loss", "val_acc"], rows)}

Within epoch 1 of the August run the per-step losses printed every 8 steps look normal up to step
{a1[4] - 8}; the printed loss is `nan` at step {a1[4]}, the last
step of the epoch, and from epoch 2 on everything is NaN. Reruns fail the same way.

## What we tried
1. NaN/inf scan of the new file — clean.
2. min/max of the delta vs. the whole table — nothing out of range.
3. Lower learning rate (1e-4) — still NaN.
4. Remove the delta — works (table above).

## Action items
- [ ] Data-eng: re-export the August delta and diff it against the source system — @data-eng
- [ ] Add a NaN guard + batch dump to train.py — @n.brandt
- [ ] Add schema/range checks to the refresh pipeline — @data-eng

Attachments: `train.py`, `logs/train_2024-08-05.out`, `logs/train_2024-07-01.out`, `notes/data_checks.txt`
"""
    write(RUN, "postmortem-delay-model-nan.md", doc)
    return {"truth": "zero_variance_statistic",
            "symptom": "Since the latest data refresh our delay model's training loss is NaN from the first epoch on, even though we checked and the new data has no NaNs or infs.",
            "how": f"train.py standardises each batch with xb.std(0); the refreshed table has {len(X_aug)} rows = 63×64 + 1, so the last batch of every epoch holds a single row, std() of one element is NaN (torch warns 'std(): degrees of freedom is <= 0'), and the NaN poisons the weights; the July table ({len(X_jul)} = 61×64) and the table minus the delta divide evenly and train fine."}


def pd_like(a):
    names = [n for n, _, _ in FEATS]
    w = [max(len(n), 8) + 2 for n in names]
    head = "     " + "".join(f"{n:>{k}s}" for n, k in zip(names, w))
    mn = "min  " + "".join(f"{v:>{k}.2f}" for v, k in zip(a.min(0), w))
    mx = "max  " + "".join(f"{v:>{k}.2f}" for v, k in zip(a.max(0), w))
    return "\n".join([head, mn, mx])
