"""run01: sensor-state classifier, June data refresh."""
import warnings
from common import *

RUN = "run01"
FEATS = [("temp_c", 41.0, 6.5), ("humidity_pct", 48.0, 11.0), ("pressure_hpa", 1011.0, 7.5),
         ("vib_rms_x", 2.42, 0.31), ("vib_rms_y", 2.17, 0.29), ("vib_rms_z", 1.55, 0.21),
         ("current_a", 12.4, 2.2), ("voltage_v", 398.0, 4.1), ("rpm", 1480.0, 35.0),
         ("acoustic_db", 71.0, 5.5), ("oil_temp_c", 58.0, 7.0), ("load_pct", 63.0, 14.0)]
CLASSES = ["normal", "bearing_wear", "misalignment", "overheat"]


def make_data():
    rng = np.random.default_rng(101)
    T = Teacher(rng, 12, 4, hidden=8)
    shards = {}
    for name, n in [("site_a_2024-04", 11000), ("site_b_2024-05", 10000), ("site_c_2024-06", 9000)]:
        z, y = T.sample(rng, n)
        raw = np.stack([m + s * z[:, i] for i, (_, m, s) in enumerate(FEATS)], 1)
        shards[name] = [raw, y]
    # site C sensors occasionally drop a humidity reading; the export writes it as an empty field
    raw_c = shards["site_c_2024-06"][0]
    drop = rng.choice(len(raw_c), 2, replace=False)
    raw_c[drop, 1] = np.nan
    zv, yv = T.sample(rng, 3000)
    rawv = np.stack([m + s * zv[:, i] for i, (_, m, s) in enumerate(FEATS)], 1)
    return shards, (rawv, yv)


def train(X, Y, stats, lr, clip=None, anomaly=False, max_steps=470, seed=7, clock=None, log=None,
          log_every=10):
    seed_all(seed)
    mean, std = stats
    Xn = torch.tensor(((X - mean) / std).astype(np.float32))
    Yt = torch.tensor(Y)
    model = mlp(12, 4, 64)
    opt = torch.optim.Adam(model.parameters(), lr, foreach=True)
    lf = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(seed)
    step, first_nan, hist, err = 0, None, [], None
    run_loss = []
    torch.autograd.set_detect_anomaly(anomaly)
    try:
        for b in batches(len(Xn), 64, g):
            step += 1
            loss = lf(model(Xn[b]), Yt[b])
            opt.zero_grad()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                loss.backward()
            if clip:
                gn = float(torch.nn.utils.clip_grad_norm_(model.parameters(), clip))
            else:
                gn = grad_norm(model)
            opt.step()
            lv = loss.item()
            run_loss.append(lv)
            if first_nan is None and math.isnan(lv):
                first_nan = step
            if step % log_every == 0 or (first_nan == step):
                avg = float(np.mean(run_loss[-log_every:]))
                hist.append((step, lv, avg, gn))
                if log is not None:
                    log.append(f"[{clock.now()}] INFO  trainer: epoch 1 step {step:4d}/469 "
                               f"loss={lv:.4f} loss_avg{log_every}={avg:.4f} grad_norm={gn:.3f} lr={lr:.1e}")
                    if first_nan == step:
                        log.append(f"[{clock.now()}] WARNING trainer: non-finite loss at step {step} (nan); "
                                   f"continuing (nan_policy=warn)")
            if step >= max_steps:
                break
    except RuntimeError as e:
        err = str(e)
    torch.autograd.set_detect_anomaly(False)
    return dict(first_nan=first_nan, hist=hist, err=err, step=step, model=model)


def profile_text(shards):
    allx = np.concatenate([s[0] for s in shards.values()])
    lines = ["$ python -m featurestore.profile --table sensor_windows --snapshot 2024-06-10 --describe",
             f"rows: {len(allx)}   shards: {', '.join(shards)}",
             "",
             f"{'':14s}{'count':>10s}{'mean':>12s}{'std':>11s}{'min':>11s}{'25%':>11s}{'50%':>11s}{'75%':>11s}{'max':>11s}"]
    for i, (name, _, _) in enumerate(FEATS):
        c = allx[:, i]
        q = np.nanpercentile(c, [25, 50, 75])
        lines.append(f"{name:14s}{np.sum(~np.isnan(c)):10.1f}{np.nanmean(c):12.4f}{np.nanstd(c, ddof=1):11.4f}"
                     f"{np.nanmin(c):11.4f}{q[0]:11.4f}{q[1]:11.4f}{q[2]:11.4f}{np.nanmax(c):11.4f}")
    return "\n".join(lines)


def build():
    shards, (Xv, Yv) = make_data()
    X = np.concatenate([s[0] for s in shards.values()])
    Y = np.concatenate([s[1] for s in shards.values()])
    # normalisation stats shipped with the feature store (nan-aware)
    stats = (np.nanmean(X, 0), np.nanstd(X, 0))

    # previous month's snapshot (sites A+B only) trains fine
    Xab = np.concatenate([shards["site_a_2024-04"][0], shards["site_b_2024-05"][0]])
    Yab = np.concatenate([shards["site_a_2024-04"][1], shards["site_b_2024-05"][1]])
    may = train(Xab, Yab, (np.nanmean(Xab, 0), np.nanstd(Xab, 0)), 2e-3, max_steps=328, log_every=41)

    clock = Clock("2024-06-11 02:14:07", scale=40)
    log = []
    a1 = train(X, Y, stats, 2e-3, clock=clock, log=log, max_steps=10**9)
    mean, std = stats
    vl, va = evaluate(a1["model"], torch.tensor(((Xv - mean) / std).astype(np.float32)), torch.tensor(Yv))
    tail = [f"[{clock.now()}] INFO  trainer: epoch 1 done train_loss=nan",
            f"[{clock.now()}] INFO  eval: epoch 1 val_loss={f4(vl)} val_acc={va:.4f}",
            f"[{clock.now()}] ERROR retrain-health: val_loss is not finite after epoch 1; aborting job (exit 3)"]
    a2 = train(X, Y, stats, 1e-3, max_steps=a1['first_nan'] + 5)
    a3 = train(X, Y, stats, 1e-3, clip=1.0, max_steps=a1['first_nan'] + 5)
    a4 = train(X, Y, stats, 2e-3, anomaly=True, max_steps=10**9)
    assert a1["first_nan"] and a2["first_nan"] == a1["first_nan"] and a3["first_nan"] == a1["first_nan"]
    fn = a1["first_nan"]

    head = [
        f"[{clock.origin:%Y-%m-%d %H:%M:%S},000] INFO  launcher: job sensor-state-retrain-20240611 (attempt 1) on pool cpu-batch-16",
        f"[{clock.origin:%Y-%m-%d %H:%M:%S},004] INFO  config: model=mlp(12-64-64-4) optimizer=adam lr=2.0e-03 batch_size=64 epochs=25 seed=7",
        f"[{clock.origin:%Y-%m-%d %H:%M:%S},011] INFO  data: snapshot=2024-06-10 shards=3 rows_train={len(X)} rows_val={len(Xv)}",
        f"[{clock.origin:%Y-%m-%d %H:%M:%S},012] INFO  data: normalisation stats loaded from featurestore (sensor_windows@2024-06-10)",
        f"[{clock.origin:%Y-%m-%d %H:%M:%S},013] INFO  trainer: starting epoch 1/25 (469 steps)",
    ]
    write(RUN, "attachments/sensor-state-retrain-20240611_attempt1.log", "\n".join(head + log + tail))
    t_nan = next(l for l in log if "non-finite" in l)[12:20]
    t_abort = tail[-1][12:20]

    rows = [(s, f4(lv), f4(av), f"{gn:.3f}") for (s, lv, av, gn) in a1["hist"] if s <= fn + 30]
    table = md_table(["step", "loss", "loss (10-step avg)", "grad_norm"], rows)
    prev = [(s, f4(av)) for (s, lv, av, gn) in may["hist"]]

    cfg = """model:
  arch: mlp
  hidden: [64, 64]
  num_classes: 4
data:
  table: sensor_windows
  snapshot: 2024-06-10        # was 2024-05-12
  shards: [site_a_2024-04, site_b_2024-05, site_c_2024-06]   # site_c added this month
  features: [temp_c, humidity_pct, pressure_hpa, vib_rms_x, vib_rms_y, vib_rms_z,
             current_a, voltage_v, rpm, acoustic_db, oil_temp_c, load_pct]
  normalize: featurestore    # z-score with stats stored next to the snapshot
train:
  optimizer: adam
  lr: 2.0e-3
  batch_size: 64
  epochs: 25
  seed: 7
  nan_policy: warn
"""
    write(RUN, "attachments/retrain_config.yaml", cfg)
    write(RUN, "attachments/featurestore_profile_2024-06-10.txt", profile_text(shards))

    doc = f"""# INC-2417 — sensor-state classifier: monthly retrain produces NaN loss

| Field | Value |
|---|---|
| Status | **Open** — mitigated (serving the May model) |
| Severity | SEV-3 (no customer impact, model refresh blocked) |
| Owner | ML Platform / Predictive Maintenance pod |
| Detected | 2024-06-11 {t_abort[:5]} UTC by the retrain-health check (picked up 06:40) |
| Root cause | **TBD** — current suspicion: learning rate too high now that the training set grew by ~40 % |

## Summary

The monthly retrain of the sensor-state classifier (4 classes: {", ".join(CLASSES)}) started producing a NaN
training loss on the first run against the 2024-06-10 snapshot. The loss is normal for the first few hundred steps
and then becomes `nan` and never recovers; all weights are NaN at the end of epoch 1, so the health check rejected
the model. The May retrain (snapshot 2024-05-12, sites A and B only) trained without problems. Production keeps
serving the May model.

## Impact

* The June model refresh is blocked; the site C machines (onboarded this month) are scored by a model that has
  never seen them.
* ~3 engineer-hours spent on reruns.

## Timeline (UTC)

| Time | Event |
|---|---|
| 2024-06-11 02:14:07 | Scheduled retrain starts on `cpu-batch-16` with snapshot 2024-06-10 (3 shards, {len(X):,} rows). |
| 2024-06-11 {t_nan} | Loss becomes `nan` at step {fn} of epoch 1; trainer keeps going (`nan_policy: warn`). |
| 2024-06-11 {t_abort} | Retrain-health check after epoch 1 aborts the job (`val_loss=nan`); alert goes to #pm-alerts. |
| 2024-06-11 06:40 | On-call picks up the alert. |
| 2024-06-11 09:05 | On-call reruns with lr 1e-3 — NaN again. |
| 2024-06-11 10:30 | Rerun with lr 1e-3 and gradient clipping at 1.0 — NaN again. |
| 2024-06-11 11:15 | Rerun with `torch.autograd.set_detect_anomaly(True)` — error points into the loss (see below). |
| 2024-06-11 12:00 | Decision: keep serving May model, write this page, revisit lr/warm-up. |

## Graphs

Training loss around the divergence, attempt 1 (lr 2e-3). Values copied from the trainer log.

{table}

For comparison, the May retrain (same code and config, snapshot 2024-05-12, {len(Xab):,} rows), epoch 1,
10-step average loss every 41 steps:

{md_table(["step", "loss (avg)"], prev)}

## What we tried

| # | Change | Result |
|---|---|---|
| 1 | Original config, lr 2e-3 | first `nan` at step {a1['first_nan']} |
| 2 | lr 1e-3 | first `nan` at step {a2['first_nan']} |
| 3 | lr 1e-3 + `clip_grad_norm_(…, 1.0)` | first `nan` at step {a3['first_nan']} |
| 4 | lr 2e-3 + anomaly detection | stopped at step {a4['step']}: `RuntimeError: {a4['err']}` |

Notes from the on-call:

* Gradient norm looks unremarkable right up to the bad step (see table) — no slow blow-up, which is odd for an lr
  problem, but the anomaly detector points at the log-softmax so we think the logits overflow at some point.
* We have not yet tried a warm-up; that is the next experiment.
* The data passed the featurestore profile (attached), no obvious outliers in min/max.

## Suspected root cause

Learning rate / optimizer instability on the larger dataset (unconfirmed). Possibly logits overflow in the
cross-entropy (anomaly detection points at `LogSoftmaxBackward0`).

## Action items

- [ ] Try linear warm-up (500 steps) and lr 5e-4 — @m.okafor
- [ ] Switch `nan_policy` from `warn` to `raise` so the job fails fast — @platform-oncall
- [ ] Add a per-class loss breakdown to the trainer log — @j.lindqvist
- [ ] Decide whether to retrain without site C if the above does not help — @pm-lead

## Attachments

* `attachments/sensor-state-retrain-20240611_attempt1.log` — trainer log of attempt 1 (epoch 1)
* `attachments/retrain_config.yaml`
* `attachments/featurestore_profile_2024-06-10.txt` — describe() of the training snapshot
"""
    write(RUN, "INC-2417-postmortem.md", doc)
    return {"truth": "nan_in_data",
            "symptom": "Since the June data refresh our sensor classifier retrain goes NaN a couple of hundred steps into epoch 1 — we think the learning rate is too high for the bigger dataset.",
            "how": f"Two rows of the new site_c shard have an empty (NaN) humidity_pct reading that passes through the z-score normalisation; loss is finite with a flat grad-norm and turns NaN at exactly step {fn} (the first batch holding such a row) regardless of lr or clipping; the profile shows humidity_pct count {len(X)-2} of {len(X)} rows."}
