"""run12: weld-defect classifier validated great, poor in production."""
from common import *

RUN = "run12"
CLASSES = ["ok", "porosity", "undercut", "crack"]

PREP_PY = '''# weldqa/prep_dataset.py — builds train/val parquet files from the labelled recordings
import numpy as np
import pandas as pd

from weldqa.signal import load_recording, window_features   # 32 spectral/current features per window

VIEWS_PER_RECORDING = 5          # 5 overlapping windows per weld seam recording
rng = np.random.default_rng(42)


def build(recordings: pd.DataFrame, out_dir: str, val_frac: float = 0.2):
    rows = []
    for rec in recordings.itertuples():
        sig = load_recording(rec.path)
        for k in range(VIEWS_PER_RECORDING):
            feats = window_features(sig, offset_ms=40 * k)
            rows.append({"recording_id": rec.recording_id, "label": rec.label, **feats})
    df = pd.DataFrame(rows)
    idx = rng.permutation(len(df))
    n_val = int(len(df) * val_frac)
    df.iloc[idx[n_val:]].to_parquet(f"{out_dir}/train.parquet")
    df.iloc[idx[:n_val]].to_parquet(f"{out_dir}/val.parquet")
'''


def views(T, rng, n_rec):
    z, y = T.sample(rng, n_rec)
    Z = np.repeat(z, 5, 0) + rng.normal(0, 0.08, (n_rec * 5, z.shape[1])).astype(np.float32)
    return Z.astype(np.float32), np.repeat(y, 5), np.repeat(np.arange(n_rec), 5)


def psi(a, b, bins=10):
    qs = np.quantile(a, np.linspace(0, 1, bins + 1))
    qs[0], qs[-1] = -np.inf, np.inf
    pa = np.histogram(a, qs)[0] / len(a) + 1e-6
    pb = np.histogram(b, qs)[0] / len(b) + 1e-6
    return float(np.sum((pa - pb) * np.log(pa / pb)))


def build():
    rng = np.random.default_rng(1212)
    T = Teacher(rng, 32, 4, hidden=16)
    Z, y, rec = views(T, rng, 1200)
    idx = np.random.default_rng(42).permutation(len(y))
    nv = int(len(y) * 0.2)
    tr, va = idx[nv:], idx[:nv]
    Zm, ym, _ = views(T, rng, 300)       # March recordings never exported to the training dump
    Zp, yp, _ = views(T, rng, 500)       # production weeks 1-3, labels confirmed by inspectors
    shared = len(set(rec[tr]) & set(rec[va]))
    X, Y = torch.tensor(Z[tr]), torch.tensor(y[tr])
    Xv, Yv = torch.tensor(Z[va]), torch.tensor(y[va])

    torch.manual_seed(12)
    model = mlp(32, 4, 256)
    opt = torch.optim.Adam(model.parameters(), 1e-3, foreach=True)
    lf = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(12)
    clock = Clock("2024-04-11 15:40:22", scale=100)
    lines, rows = [f"{clock.now()} [weldqa] train={len(tr)} val={len(va)} features=32 classes={len(CLASSES)} model=mlp(256x2)"], []
    for ep in range(1, 21):
        for b in batches(len(X), 128, g):
            loss = lf(model(X[b]), Y[b])
            opt.zero_grad(); loss.backward(); opt.step()
        tl, ta = evaluate(model, X, Y)
        vl, vacc = evaluate(model, Xv, Yv)
        rows.append((ep, tl, ta, vl, vacc))
        lines.append(f"{clock.now()} [weldqa] epoch {ep:02d}/20 train_loss={tl:.4f} train_acc={ta:.4f} val_loss={vl:.4f} val_acc={vacc:.4f}")
    _, acc_m = evaluate(model, torch.tensor(Zm), torch.tensor(ym))
    _, acc_p = evaluate(model, torch.tensor(Zp), torch.tensor(yp))
    psis = [psi(Z[tr][:, j], Zp[:, j]) for j in range(32)]

    write(RUN, "attachments/train_weldqa_2024-04-11.log", "\n".join(lines))
    write(RUN, "attachments/prep_dataset.py", PREP_PY)

    drift = md_table(["feature", "PSI train → prod wk1-3"],
                     [(f"f{j:02d}", f"{p:.4f}") for j, p in sorted(enumerate(psis), key=lambda t: -t[1])[:5]])
    tab = md_table(["epoch", "train_acc", "val_acc", "train_loss", "val_loss"],
                   [(r[0], f"{r[2]:.4f}", f"{r[4]:.4f}", f"{r[1]:.4f}", f"{r[3]:.4f}") for r in rows if r[0] in (1, 2, 3, 5, 10, 15, 20)])
    doc = f"""# Launch retro / postmortem: weld-seam defect classifier underperforms after go-live

**Space:** Manufacturing Analytics › Postmortems   **Status:** Draft v2   **Authors:** H. Lindgren, P. Sato
**Root cause:** TBD. Working hypothesis: data drift on line 3 after go-live (new wire batch).

## Summary
The weld-seam defect classifier (4 classes: {", ".join(CLASSES)}) passed offline validation with
**{rows[-1][4]*100:.1f} % val accuracy** and went live on lines 1–3 on 2024-04-15. Inspectors confirmed the labels of
{len(yp)} production windows from the first three weeks: the model got **{acc_p*100:.1f} %** of them right. The
go-live criterion was 95 %.

## Impact
* False "ok" calls on defective seams during weeks 1–3; all parts re-inspected manually (≈ 2 FTE-weeks).
* Model switched to "advisory only" on 2024-05-07.

## Timeline
| Date | Event |
|---|---|
| 2024-04-11 | Dataset built with `prep_dataset.py` ({len(y) // 5} labelled recordings, 5 windows each); model trained (log attached). |
| 2024-04-12 | Offline sign-off: val_acc {rows[-1][4]:.4f}. |
| 2024-04-15 | Go-live on lines 1–3. |
| 2024-05-06 | Inspector-confirmed sample from weeks 1–3: accuracy {acc_p:.4f}. |
| 2024-05-07 | Switched to advisory mode; this page started. |
| 2024-05-09 | Scored {len(ym)} windows from March recordings that missed the training export: {acc_m:.4f}. |

## Graphs
Training log (full log attached):

{tab}

Drift check, population stability index of the input features, training set vs. production weeks 1–3 (top 5):

{drift}

## What we tried
1. PSI drift check above — nothing above 0.1, which surprised us; we expected line 3 to stand out.
2. Scored the March recordings that were recorded before go-live but missed the training export (same lines, same
   period as the training data): {acc_m*100:.1f} %. Not explained yet.
3. Rechecked label mapping between the inspection system and training labels — identical.

## Open hypotheses
* Drift that PSI does not catch (interaction between features) after the wire-batch change.
* Inspectors label differently from the original annotation team.

## Action items
- [ ] Per-line breakdown of production accuracy — @p.sato
- [ ] Collect 2 weeks of post-launch data for a retrain — @h.lindgren
- [ ] Review go-live criteria for future models — @manufacturing-analytics-lead

## Attachments
`attachments/train_weldqa_2024-04-11.log`, `attachments/prep_dataset.py`
"""
    write(RUN, "retro-weldqa-go-live.md", doc)
    return {"truth": "data_leakage",
            "symptom": f"Our weld-defect model validated at {rows[-1][4]*100:.0f}% accuracy but on the production line it's only getting about {acc_p*100:.0f}% right.",
            "how": f"prep_dataset.py cuts 5 overlapping windows per recording and splits the windows (not the recordings) at random, so {shared} of {len(set(rec))} recordings have windows on both sides; val accuracy tracks train accuracy (~{rows[-1][4]:.3f}) while new recordings score {acc_p:.3f} (production) and {acc_m:.3f} (unseen March recordings) with no feature drift (PSI < 0.1)."}
