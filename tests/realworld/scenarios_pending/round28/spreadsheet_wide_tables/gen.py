#!/usr/bin/env python3
"""Generate 12 spreadsheet-style debugging scenario runs by really training tiny torch models on CPU.

Usage: .venv/bin/python gen.py      (writes runs/run01..run12 and truth.json next to this file)
Seeded and deterministic (up to measured wall-clock timings that appear in a few logs).
"""
import json
import math
import os
import shutil
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

from common import (MLP, train, evaluate, make_teacher, sample_task, f1_scores, pct, comma, num, sci,  # noqa: E402
                    write_table, write_text)
import templates as TPL  # noqa: E402

torch.set_num_threads(1)
RUNS = os.path.join(HERE, "runs")
TRUTH = {}
T_START = time.time()


def rdir(name):
    return os.path.join(RUNS, name)


def log(msg):
    print(f"[{time.time() - T_START:6.1f}s] {msg}", flush=True)


def wide_block_rows(metric_runs, n_ep, fmt, ep_label="ep{}", merged=True, lead=("metric", "run")):
    """metric_runs: list of (metric_name, [(run_name, hist), ...]). One block of rows per metric;
    the metric name only on the first row of its block (merged cell exported as blanks)."""
    rows = [list(lead) + [ep_label.format(e) for e in range(1, n_ep + 1)]]
    for metric, runs in metric_runs:
        for j, (rname, hist) in enumerate(runs):
            vals = {h["ep"]: h[metric] for h in hist}
            cells = [fmt(metric, vals[e]) if e in vals else "" for e in range(1, n_ep + 1)]
            rows.append([metric if (j == 0 or not merged) else "", rname] + cells)
        rows.append([])
    return rows[:-1]


def kaiming_init(model):
    for m in model.modules():
        if isinstance(m, nn.Linear):
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            nn.init.zeros_(m.bias)
    return model


# =============================================================================================== run01
def run01():
    """lr_schedule_bug: MultiStepLR (milestones in epochs) stepped once per optimizer step in the new loop."""
    T = make_teacher(16, 6, 11, hidden=8)
    Xtr, ytr = sample_task(T, 2000, 111, temp=0.2)
    Xva, yva = sample_task(T, 800, 112, temp=0.2)
    base = dict(seed=0, epochs=30, bs=64, opt="sgd", lr=0.05, momentum=0.9, wd=5e-4, sched="multistep",
                milestones=[15, 25], K=6, hidden=64)
    rows_cfg = [
        ("mlp-base-01", "2024-04-02", "e1f03a2", dict(base), "old loop (train_old.py)"),
        ("mlp-base-02", "2024-04-02", "e1f03a2", dict(base, lr=0.1), "old loop, lr x2"),
        ("mlp-v2-01", "2024-04-09", "7b9c411", dict(base, sched_per_batch=True), "new train.py (accum support), accum=1"),
    ]
    res = []
    for name, date, commit, cfg, note in rows_cfg:
        t0 = time.time()
        r = train(cfg, Xtr, ytr, Xva, yva)
        res.append((name, date, commit, cfg, note, r["hist"], time.time() - t0))
    d = rdir("run01")
    hdr = ["run", "date", "commit", "model", "hidden", "optimizer", "lr", "momentum", "weight_decay", "batch",
           "epochs", "schedule", "best_val_acc", "final_train_loss", "final_val_loss", "final_val_acc", "notes"]
    rows = [hdr]
    for name, date, commit, cfg, note, h, wall in res:
        best = max(x["val_acc"] for x in h)
        rows.append([name, date, commit, "MLP 2x", cfg["hidden"], "SGD", cfg["lr"], cfg["momentum"], cfg["wd"],
                     cfg["bs"], cfg["epochs"], "multistep 15/25 x0.1", pct(best), num(h[-1]["train_loss"]),
                     num(h[-1]["val_loss"]), pct(h[-1]["val_acc"]), note])
    write_table(os.path.join(d, "experiments.csv"), rows)
    runs = [(x[0], x[5]) for x in res]
    fmt = lambda m, v: (f"{v:.2e}" if m == "lr" else (pct(v) if "acc" in m else num(v)))
    write_table(os.path.join(d, "curves_wide.tsv"),
                wide_block_rows([("train_loss", runs), ("val_loss", runs), ("val_acc", runs), ("lr", runs)],
                                30, fmt), sep="\t")
    write_text(os.path.join(d, "train.py"), TPL.RUN01_TRAIN.format(
        hidden=64, lr=0.05, momentum=0.9, wd=5e-4, bs=64, epochs=30, milestones=[15, 25]))
    hv2 = res[2][5]
    hb = res[0][5]
    note = (f"Quick question before I merge the new training loop.\n\n"
            f"I rewrote train.py so it supports gradient accumulation (I need it for the bigger model next week). "
            f"With --accum-steps 1 it should be identical to the old loop, but mlp-v2-01 is nowhere near "
            f"mlp-base-01: train loss {hv2[-1]['train_loss']:.3f} vs {hb[-1]['train_loss']:.3f} after 30 epochs, "
            f"val acc {pct(hv2[-1]['val_acc'])} vs {pct(hb[-1]['val_acc'])}. Same data, same seed, same lr.\n\n"
            f"What did I break? Sheet export + the new train.py attached.\n")
    write_text(os.path.join(d, "note.md"), note)
    TRUTH["run01"] = dict(
        truth="lr_schedule_bug",
        symptom="After I rewrote the loop to support gradient accumulation (accum=1), mlp-v2-01 learns far "
                "slower than the old baseline with the same data, seed and lr. What did I break?",
        how="The new train.py calls MultiStepLR(milestones=[15,25]).step() after every optimizer step instead "
            f"of every epoch, so both decays fire inside epoch 1 (lr row: {hv2[0]['lr']:.0e} from ep1 vs 0.05 for "
            "the baseline) and the run crawls like an lr_too_low run.")
    log("run01 done")


# =============================================================================================== run02
def run02():
    """optimizer_misconfigured: refactored build_optimizer reads cfg['mom'] while the yaml says momentum: 0.9."""
    T = make_teacher(20, 4, 12, hidden=8)
    Xtr, ytr = sample_task(T, 2000, 121, temp=0.2)
    Xva, yva = sample_task(T, 800, 122, temp=0.2)
    base = dict(epochs=25, bs=64, opt="sgd", lr=0.02, momentum=0.9, wd=5e-4, sched="cosine", K=4, hidden=64)
    res = []
    for ver, commit, date in [("v0.3", "41d0e9c", "2024-02-12"), ("v0.4", "a83f2b7", "2024-02-19")]:
        for seed in (0, 1):
            if ver == "v0.3":
                cfg = dict(base, seed=seed)
                r = train(cfg, Xtr, ytr, Xva, yva)
            else:
                cfg = dict(base, seed=seed, momentum=0.0)   # what the code actually builds
                torch.manual_seed(seed)
                model = kaiming_init(MLP(20, 4, hidden=64, depth=2))
                r = train(cfg, Xtr, ytr, Xva, yva, model=model)
            res.append((f"sgd-{ver}-s{seed}", ver, commit, date, seed, r["hist"]))
    d = rdir("run02")
    # German-locale Excel export: ';' separator, comma decimals
    hdr = ["Lauf", "Datum", "Version", "Commit", "Seed", "Optimizer", "LR", "Momentum", "Weight decay", "Batch",
           "Epochen", "Init", "Train-Loss (final)", "Val-Loss (final)", "Val-Acc (final)", "Bemerkung"]
    rows = [hdr]
    for name, ver, commit, date, seed, h in res:
        rows.append([name, date, ver if seed == 0 else "", commit if seed == 0 else "", seed, "sgd", comma(0.02, 2),
                     comma(0.9, 1), comma(5e-4, 4), 64, 25, "default" if ver == "v0.3" else "kaiming_normal",
                     comma(h[-1]["train_loss"]), comma(h[-1]["val_loss"]), comma(100 * h[-1]["val_acc"], 1) + " %",
                     "" if ver == "v0.3" else ("config refactor + kaiming init" if seed == 0 else "")])
    write_table(os.path.join(d, "experiments.csv"), rows, sep=";", bom=True, crlf=True)
    # curves: transposed (epoch per row, run per column), one sheet per metric, stacked
    crow = []
    for metric, title in [("train_loss", "Train-Loss"), ("val_loss", "Val-Loss"), ("val_acc", "Val-Acc")]:
        crow.append([title] + [""] * len(res))
        crow.append(["Epoche"] + [x[0] for x in res])
        for e in range(25):
            crow.append([e + 1] + [comma(x[5][e][metric]) if metric != "val_acc" else
                                   comma(100 * x[5][e][metric], 1) for x in res])
        crow.append([])
    write_table(os.path.join(d, "kurven.csv"), crow, sep=";", crlf=True)
    write_text(os.path.join(d, "configs", "sgd_base.yaml"),
               TPL.RUN02_CONFIG.format(hidden=64, lr=0.02, momentum=0.9, wd=0.0005, epochs=25, bs=64))
    write_text(os.path.join(d, "train.py"), TPL.RUN02_TRAIN.format())
    new, old = res[2][5], res[0][5]
    write_text(os.path.join(d, "note.md"),
               "Since the config refactor (v0.4) our SGD runs converge clearly slower than the v0.3 runs, "
               "although configs/sgd_base.yaml is byte-identical. At epoch 10 train loss is "
               f"{comma(new[9]['train_loss'], 3)} vs {comma(old[9]['train_loss'], 3)}. The only modelling change in "
               "that PR was the kaiming_normal init. What else could make the same config train slower?\n")
    TRUTH["run02"] = dict(
        truth="optimizer_misconfigured",
        symptom="Since the v0.4 config refactor our SGD runs converge clearly slower than v0.3 with a "
                "byte-identical config. What could make the same config train slower?",
        how="build_optimizer() reads cfg.get('mom', 0.0) while the yaml key is 'momentum: 0.9', so v0.4 trains "
            "plain SGD without momentum (effective step ~10x smaller): same lr/config, much slower loss decrease.")
    log("run02 done")


# =============================================================================================== run03
def run03():
    """label_noise: v2 dataset = auto-tagged labels, 35% of them wrong; val is the gold set."""
    T = make_teacher(16, 6, 13, hidden=8)
    Xv1, yv1 = sample_task(T, 2000, 131, temp=0.2)
    Xv2, yv2_true = sample_task(T, 4000, 132, temp=0.2)
    g = np.random.default_rng(133)
    flip = g.random(len(yv2_true)) < 0.35
    yv2 = yv2_true.copy()
    yv2[flip] = (yv2_true[flip] + g.integers(1, 6, flip.sum())) % 6     # wrong label, never the true one
    Xva, yva = sample_task(T, 800, 134, temp=0.2)
    base = dict(seed=0, epochs=25, bs=64, opt="adam", lr=1e-3, K=6)
    specs = [("v1-h64", "v1", 64, Xv1, yv1), ("v1-h128", "v1", 128, Xv1, yv1),
             ("v2-h64", "v2", 64, Xv2, yv2), ("v2-h256", "v2", 256, Xv2, yv2)]
    res = []
    for name, ds, hid, X, y in specs:
        r = train(dict(base, hidden=hid), X, y, Xva, yva)
        res.append((name, ds, hid, len(X), r["hist"]))
    d = rdir("run03")
    eps = [1, 2, 3, 5, 8, 10, 15, 20, 25]
    hdr = ["Run", "Dataset", "n_train", "hidden", "params"] + \
          [f"train_loss_e{e}" for e in eps] + [f"train_acc_e{e}" for e in eps] + \
          [f"val_acc_e{e}" for e in eps] + ["best val acc", "Notes"]
    rows = [["Sheet: label-sweep (exported from Google Sheets)"], hdr]
    notes = {"v1": "v1 = hand-labelled export (Feb)", "v2": "v2 = 4k export (Apr), labels from CRM tagging rules"}
    for i, (name, ds, hid, n, h) in enumerate(res):
        params = sum(p.numel() for p in MLP(16, 6, hidden=hid).parameters())
        by = {x["ep"]: x for x in h}
        first = i == 0 or res[i - 1][1] != ds
        rows.append([name, ds if first else "", f"{n:,}" if first else "", hid, f"{params:,}"] +
                    [num(by[e]["train_loss"], 3) for e in eps] + [pct(by[e]["train_acc"]) for e in eps] +
                    [pct(by[e]["val_acc"]) for e in eps] + [pct(max(x["val_acc"] for x in h)),
                                                             notes[ds] if first else ""])
    write_table(os.path.join(d, "experiments.csv"), rows, bom=True, pad_to=len(hdr) + 3, crlf=True)
    v2 = res[3][4]
    write_text(os.path.join(d, "note.md"),
               "# v2 data made everything worse?\n\n"
               "We doubled the training set (v1 -> v2) and every model got worse on the same gold val set. "
               f"Train accuracy of the v2 runs sits at {pct(res[2][4][9]['train_acc'], 0)}-{pct(v2[9]['train_acc'], 0)} "
               "at epoch 10 (v1: mid-80s) and going from 64 to 256 hidden units barely moves it. Do I need a deeper "
               "network now that there is twice as much "
               "data? Export of the sweep sheet attached.\n")
    TRUTH["run03"] = dict(
        truth="label_noise",
        symptom="We doubled the training set (v1 -> v2) and every model got worse; train accuracy sits around "
                "60% even at 256 hidden units. Do I need a deeper network for the bigger data?",
        how="35% of the v2 training labels were replaced by a wrong class (val is clean): v2 train accuracy "
            "plateaus far below 100% with a train-loss floor ~1.2 while the clean v1 runs reach >90%, and v2 val "
            "accuracy is capped below v1 despite 2x data.")
    log("run03 done")


# =============================================================================================== run04
def run04():
    """data_leakage: fs3 adds 'last_queue' (queue at ticket close) = resolving team for ~97% of tickets."""
    T = make_teacher(12, 6, 14, hidden=8)
    Xtr, ytr = sample_task(T, 2400, 141, temp=0.25)
    Xva, yva = sample_task(T, 800, 142, temp=0.25)
    g = np.random.default_rng(143)

    def last_queue(y):
        q = y.copy()
        m = g.random(len(y)) < 0.03
        q[m] = g.integers(0, 6, m.sum())
        return np.eye(6, dtype=np.float32)[q]

    Ltr, Lva = last_queue(ytr), last_queue(yva)
    fs = {"fs1": (Xtr[:, :10], Xva[:, :10]), "fs2": (Xtr, Xva),
          "fs3": (np.c_[Xtr, Ltr], np.c_[Xva, Lva])}
    base = dict(seed=0, epochs=12, bs=32, opt="adam", lr=2e-3, K=6, hidden=64, dropout=0.3)
    res = []
    for name in ["fs1", "fs2", "fs3"]:
        a, b = fs[name]
        r = train(base, a, ytr, b, yva)
        res.append((name, a.shape[1], r["hist"]))
    d = rdir("run04")
    hdr = ["run_id", "created", "feature_set", "n_features", "model", "lr", "bs", "dropout", "epochs",
           "train_acc", "val_acc", "val_loss", "notes"]
    rows = [hdr]
    created = {"fs1": "2024-10-28 14:02", "fs2": "2024-10-30 09:47", "fs3": "2024-11-04 16:31"}
    notes = {"fs1": "numeric baseline", "fs2": "+kb_hits, n_reassign_reqs",
             "fs3": "fs2 + ticket metadata cols from new export (last_queue)"}
    for name, nf, h in res:
        rows.append([f"route-{name}", created[name], name, nf, "mlp 64x2", "0.002", 32, 0.3, 12,
                     pct(h[-1]["train_acc"], 2), pct(h[-1]["val_acc"], 2), num(h[-1]["val_loss"]), notes[name]])
    write_table(os.path.join(d, "experiments.csv"), rows)
    runs = [(f"route-{x[0]}", x[2]) for x in res]
    fmt = lambda m, v: pct(v, 1) if "acc" in m else num(v)
    write_table(os.path.join(d, "curves_wide.tsv"),
                wide_block_rows([("train_loss", runs), ("val_loss", runs), ("train_acc", runs),
                                 ("val_acc", runs)], 12, fmt, ep_label="ep{}"), sep="\t")
    write_text(os.path.join(d, "train.py"), TPL.RUN04_TRAIN.format(lr=0.002, epochs=12, bs=32, dropout=0.3,
                                                                 hidden=64))
    h3, h2 = res[2][2], res[1][2]
    write_text(os.path.join(d, "note.md"),
               f"fs3 is our best routing model by a mile: {pct(h3[-1]['val_acc'])} val accuracy vs "
               f"{pct(h2[-1]['val_acc'])} for fs2, and already {pct(h3[0]['val_acc'])} after the first epoch. "
               "I want to put route-fs3 into the quarterly model review on Friday - anything in the sheet that "
               "looks off before I do?\n")
    TRUTH["run04"] = dict(
        truth="data_leakage",
        symptom=f"fs3 is our best routing model by far ({pct(h3[-1]['val_acc'], 0)} val vs "
                f"{pct(h2[-1]['val_acc'], 0)} for fs2); I want to present it on Friday - anything that looks off?",
        how="fs3 adds the one-hot 'last_queue' column from the closed-ticket export, which equals the target "
            "team for ~97% of tickets; val accuracy jumps to ~98% by epoch 2, above train accuracy, while fs1/fs2 "
            "sit around 80%.")
    log("run04 done")


# =============================================================================================== run05
def run05():
    """data_not_shuffled: IterableDataset over class-partitioned parquet files, no shuffling."""
    T = make_teacher(16, 6, 15, hidden=8)
    Xtr, ytr = sample_task(T, 2048, 151, temp=0.2)
    Xva, yva = sample_task(T, 800, 152, temp=0.2)
    base = dict(seed=0, epochs=20, bs=64, opt="adam", lr=2e-3, K=6, hidden=64)
    r_old = train(base, Xtr, ytr, Xva, yva, log_every=1)
    order = np.argsort(ytr, kind="stable")
    r_new = train(dict(base, shuffle=False), Xtr[order], ytr[order], Xva, yva, log_every=1)
    d = rdir("run05")
    hdr = ["run", "date", "loader", "lr", "bs", "epochs", "final_train_loss", "val_loss", "val_acc", "best_val_acc",
           "notes"]
    rows = [hdr]
    for name, date, loader, r, note in [
            ("evt-mlp-07", "2024-06-03", "TensorDataset (npz)", r_old, "last run on the npz snapshot"),
            ("evt-mlp-08", "2024-06-11", "ParquetRows (stream)", r_new, "first run on streamed parquet export")]:
        h = r["hist"]
        rows.append([name, date, loader, "2e-3", 64, 20, num(h[-1]["train_loss"]), num(h[-1]["val_loss"]),
                     pct(h[-1]["val_acc"]), pct(max(x["val_acc"] for x in h)), note])
    write_table(os.path.join(d, "experiments.csv"), rows)
    # per-step loss, wide: one row per (run, epoch), columns = step within epoch
    spe = math.ceil(len(Xtr) / 64)
    crow = [["run", "epoch"] + [f"s{i}" for i in range(1, spe + 1)] + ["epoch_mean", "val_acc"]]
    for name, r in [("evt-mlp-07", r_old), ("evt-mlp-08", r_new)]:
        for e in range(1, 21):
            st = [s for s in r["steps"] if s["ep"] == e]
            crow.append([name if e == 1 else "", e] + [num(s["loss"], 3) for s in st] +
                        [num(r["hist"][e - 1]["train_loss"], 4), pct(r["hist"][e - 1]["val_acc"])])
        crow.append([])
    write_table(os.path.join(d, "step_loss_wide.tsv"), crow[:-1], sep="\t")
    write_text(os.path.join(d, "train_stream.py"), TPL.RUN05_TRAIN.format(d=16, bs=64, hidden=64, K=6, lr="2e-3",
                                                                         epochs=20))
    hn, ho = r_new["hist"], r_old["hist"]
    write_text(os.path.join(d, "note.md"),
               "Switched from the npz snapshot to streaming the parquet export (train_stream.py). Since then the "
               "per-step training loss looks like a comb - it drops, then shoots up again several times per epoch - "
               f"and the run is behind the old one the whole way (val acc {pct(hn[4]['val_acc'])} vs "
               f"{pct(ho[4]['val_acc'])} at epoch 5, final train loss {hn[-1]['train_loss']:.3f} vs "
               f"{ho[-1]['train_loss']:.3f}). Same model, same lr. What's going on? Step losses per epoch in "
               "the tsv.\n")
    TRUTH["run05"] = dict(
        truth="data_not_shuffled",
        symptom="Since switching to the streaming parquet loader the step loss looks like a comb and the run is "
                "behind the old one the whole way, with the same model and lr. What's going on?",
        how="ParquetRows yields the sorted hive partitions event_type=0..5 in order and the DataLoader cannot "
            "shuffle an IterableDataset, so every epoch walks the classes in blocks: step loss jumps at each class "
            "boundary with the same pattern every epoch, and val accuracy lags the shuffled npz run.")
    log("run05 done")


# =============================================================================================== run06
FEAT06 = ["temp_c", "humidity_pct", "pressure_hpa", "vib_rms", "vib_peak", "current_a", "voltage_v", "rpm",
          "flow_lpm", "noise_db"]


def run06():
    """nan_in_data: the May export has 3 empty humidity cells -> NaN rows in the training matrix."""
    T = make_teacher(10, 5, 16, hidden=8)
    Xa, ya = sample_task(T, 2000, 161, temp=0.2)        # March export
    Xb, yb = sample_task(T, 2000, 162, temp=0.2)        # May export
    Xva, yva = sample_task(T, 600, 163, temp=0.2)
    # three rows with an empty humidity cell; placed so that the first one is met mid-epoch 1 (seed-0 order)
    order0 = torch.randperm(len(Xb), generator=torch.Generator().manual_seed(0 + 1)).numpy()
    bad = np.sort(order0[[64 * 17 + 21, 64 * 24 + 50, 64 * 29 + 7]])
    Xb = Xb.copy()
    Xb[bad, 1] = np.nan
    base = dict(epochs=15, bs=64, opt="adam", lr=1e-3, K=5, hidden=64)
    specs = [("c1", "2024-03", dict(base, seed=0), Xa, ya), ("c2", "2024-03", dict(base, seed=1), Xa, ya),
             ("c3", "2024-03", dict(base, seed=0, hidden=128), Xa, ya),
             ("c4", "2024-05", dict(base, seed=0, hidden=128), Xb, yb),
             ("c4b", "2024-05", dict(base, seed=0, hidden=128, lr=3e-4), Xb, yb)]
    res = {}
    for name, exp, cfg, X, y in specs:
        r = train(cfg, X, y, Xva, yva, log_every=1, stop_on_nan_epochs=2)
        res[name] = (exp, cfg, r)
    d = rdir("run06")
    hdr = ["run", "data_export", "hidden", "lr", "bs", "epochs_done", "status", "train_loss", "val_loss",
           "val_acc", "comment"]
    rows = [hdr]
    comments = {"c3": "wider model", "c4": "wider + May export", "c4b": "same as c4, lower lr"}
    for name, (exp, cfg, r) in res.items():
        h = r["hist"]
        fin = math.isfinite(h[-1]["train_loss"])
        rows.append([name, exp, cfg["hidden"], cfg["lr"], 64, len(h), "finished" if fin else "killed",
                     num(h[-1]["train_loss"]), num(h[-1]["val_loss"]), pct(h[-1]["val_acc"]),
                     comments.get(name, "")])
    write_table(os.path.join(d, "experiments.csv"), rows)
    # first-epoch step log, wide (one row per run and quantity)
    spe = math.ceil(2000 / 64)
    crow = [["run", "quantity"] + [f"step{i}" for i in range(1, spe + 1)]]
    for name in ["c3", "c4", "c4b"]:
        st = [s for s in res[name][2]["steps"] if s["ep"] == 1]
        crow.append([name, "loss"] + [num(s["loss"], 4) for s in st])
        crow.append(["", "grad_norm"] + [num(s["gn"], 3) for s in st])
    write_table(os.path.join(d, "epoch1_steps_wide.tsv"), crow, sep="\t")
    # data profile sheet for both exports (as fed to the model)
    prow = [["export", "column", "dtype", "count", "mean", "std", "min", "max"]]
    for exp, X in [("2024-03", Xa), ("2024-05", Xb)]:
        for j, c in enumerate(FEAT06):
            col = X[:, j].astype(np.float64)
            prow.append([exp if j == 0 else "", c, "float32", int(np.sum(~np.isnan(col))), num(np.nanmean(col), 4),
                         num(np.nanstd(col, ddof=1), 4), num(np.nanmin(col), 3), num(np.nanmax(col), 3)])
    write_table(os.path.join(d, "data_profile.csv"), prow)
    c4 = res["c4"][2]["steps"]
    first_nan = next(s["gstep"] for s in c4 if not math.isfinite(s["loss"]))
    prev = [s for s in c4 if s["gstep"] == first_nan - 1][0]
    write_text(os.path.join(d, "note.md"),
               "c4 (hidden 128 on the May export) goes NaN inside the first epoch - loss is "
               f"{prev['loss']:.3f} at step {first_nan - 1} and nan from step {first_nan} on. I dropped lr from 1e-3 "
               "to 3e-4 (c4b) and it still blows up. c3 is the same width on the March export and is fine. Is the "
               "wider model exploding? Should I add gradient clipping?\n")
    TRUTH["run06"] = dict(
        truth="nan_in_data",
        symptom="c4 goes NaN inside the first epoch and still does at lr 3e-4; is the wider model exploding, "
                "should I add gradient clipping?",
        how=f"Three rows of the May export have an empty humidity_pct cell (profile count 1997/2000). The loss is "
            f"finite with a normal grad norm up to step {first_nan - 1} and NaN from step {first_nan} (the batch "
            "holding the first bad row), at the same step for both learning rates.")
    log("run06 done")


# =============================================================================================== run07
def run07():
    """eval_mode_forgotten: evaluate.py never calls model.eval() (BatchNorm + Dropout 0.5)."""
    T = make_teacher(16, 6, 17, hidden=8)
    Xtr, ytr = sample_task(T, 2400, 171, temp=0.2)
    Xva, yva = sample_task(T, 800, 172, temp=0.2)
    cfg = dict(seed=0, epochs=25, bs=64, opt="adam", lr=1e-3, K=6, hidden=128, bn=True, dropout=0.5)
    best = {"acc": -1}

    def after_epoch(ep, model, rec, vp):
        if rec["val_acc"] > best["acc"]:
            best.update(acc=rec["val_acc"], ep=ep, state={k: v.clone() for k, v in model.state_dict().items()})

    r = train(cfg, Xtr, ytr, Xva, yva, hooks={"after_epoch": after_epoch})
    h = r["hist"]
    Xv, yv = torch.as_tensor(Xva), torch.as_tensor(yva)
    evals = []
    for k, (date, bs) in enumerate([("2024-07-15 10:12", 32), ("2024-07-15 10:14", 32), ("2024-07-15 10:20", 16),
                                    ("2024-07-16 09:03", 64), ("2024-07-16 09:05", 256)]):
        m = MLP(16, 6, hidden=128, bn=True, dropout=0.5)
        m.load_state_dict(best["state"])          # fresh load, like the script
        torch.manual_seed(700 + k)                 # each invocation draws fresh dropout masks
        _, acc, _ = evaluate(m, Xv, yv, bs=bs, train_mode=True)
        evals.append((date, bs, acc))
    d = rdir("run07")
    rows = [["run", "date", "model", "hidden", "dropout", "bn", "lr", "epochs", "best_epoch", "best_val_acc",
             "final_train_acc", "final_val_acc", "notes"],
            ["cls-bn-03", "2024-07-14", "mlp+bn", 128, 0.5, "yes", "1e-3", 25, best["ep"], pct(best["acc"]),
             pct(h[-1]["train_acc"]), pct(h[-1]["val_acc"]), "best.pt saved on val_acc"]]
    write_table(os.path.join(d, "experiments.csv"), rows)
    crow = [["metric"] + [f"e{e}" for e in range(1, 26)]]
    for m in ["train_loss", "train_acc", "val_loss", "val_acc"]:
        crow.append([m] + [pct(x[m]) if "acc" in m else num(x[m]) for x in h])
    write_table(os.path.join(d, "curves_wide.csv"), crow)
    erow = [["when", "checkpoint", "split", "batch_size", "n", "accuracy", "who", "comment"]]
    for i, (date, bs, acc) in enumerate(evals):
        erow.append([date, "runs/cls-bn-03/best.pt", "val", bs, len(yva), pct(acc, 2), "mk" if i < 3 else "jr",
                     ["first try", "rerun, same cmd", "smaller bs", "", "bs 256"][i]])
    write_table(os.path.join(d, "eval_log.csv"), erow)
    write_text(os.path.join(d, "evaluate.py"), TPL.RUN07_EVAL.format(run="cls-bn-03"))
    write_text(os.path.join(d, "model.py"), TPL.RUN07_MODEL.format(hidden=128, dropout=0.5))
    write_text(os.path.join(d, "train_excerpt.py"), TPL.RUN07_TRAIN.format())
    accs = [a for _, _, a in evals]
    write_text(os.path.join(d, "note.md"),
               f"Training logged {pct(best['acc'])} val accuracy for cls-bn-03 (best.pt, epoch {best['ep']}), but "
               f"evaluate.py on the same val split gives between {pct(min(accs))} and {pct(max(accs))}. "
               "I'm fairly sure evaluate.py is picking up an older best.pt from a previous run in that folder. "
               "How do I verify which checkpoint it loads?\n")
    TRUTH["run07"] = dict(
        truth="eval_mode_forgotten",
        symptom=f"Training logged {pct(best['acc'], 0)} val accuracy for best.pt but evaluate.py on the same "
                f"split gives {pct(min(accs), 0)}-{pct(max(accs), 0)}; I'm fairly sure evaluate.py picks up an older "
                "best.pt.",
        how="evaluate.py wraps inference in no_grad but never calls model.eval(), so Dropout(0.5) and BatchNorm "
            "batch statistics stay active: the same checkpoint scores well below the training-time val accuracy "
            "and differently on every rerun/batch size (eval_log.csv).")
    log("run07 done")


# =============================================================================================== run08
def run08():
    """metric_changed: refactor replaced sklearn micro-F1 with a hand-written macro-F1."""
    prior = [0.6, 0.18, 0.1, 0.06, 0.04, 0.02]
    T = make_teacher(16, 6, 18, hidden=8)
    X, y = sample_task(T, 3200, 181, temp=0.2, prior=prior)
    rng = np.random.RandomState(1234)
    idx = rng.permutation(len(X))
    nva = int(len(X) * 0.25)
    va, tr = idx[:nva], idx[nva:]
    Xtr, ytr, Xva, yva = X[tr], y[tr], X[va], y[va]
    cfg0 = dict(epochs=15, bs=64, opt="adam", lr=1e-3, K=6, hidden=64)
    res = []
    for phase, commit, date in [("pre", "3c41e07", "2024-08-20"), ("post", "9d2a6b1", "2024-08-27")]:
        for seed in (0, 1):
            f1s = []

            def after_epoch(ep, model, rec, vp, f1s=f1s, phase=phase):
                micro, macro, _ = f1_scores(yva, vp.numpy(), 6)
                f1s.append(micro if phase == "pre" else macro)

            r = train(dict(cfg0, seed=seed), Xtr, ytr, Xva, yva, hooks={"after_epoch": after_epoch})
            res.append((f"intent-{phase}-s{seed}", phase, commit, date, seed, r["hist"], f1s))
    d = rdir("run08")
    rows = [["run", "date", "commit", "seed", "epochs", "lr", "bs", "val_loss", "val_acc", "val_f1", "notes"]]
    for name, phase, commit, date, seed, h, f1s in res:
        rows.append([name, date, commit, seed, 15, "1e-3", 64, num(h[-1]["val_loss"]), num(h[-1]["val_acc"]),
                     num(f1s[-1]), "" if phase == "pre" else ("after refactor PR #212" if seed == 0 else "")])
    write_table(os.path.join(d, "experiments.csv"), rows)
    crow = [["run", "metric"] + [f"ep{e}" for e in range(1, 16)]]
    for name, phase, commit, date, seed, h, f1s in res:
        crow.append([name, "val_loss"] + [num(x["val_loss"]) for x in h])
        crow.append(["", "val_acc"] + [num(x["val_acc"]) for x in h])
        crow.append(["", "val_f1"] + [num(v) for v in f1s])
    write_table(os.path.join(d, "curves_wide.csv"), crow)
    write_text(os.path.join(d, "refactor_pr212.diff"), TPL.RUN08_DIFF.format(epochs=15, bs=64))
    write_text(os.path.join(d, "note.md"),
               f"After merging the refactor PR (#212) our val F1 went from {res[0][6][-1]:.3f} to "
               f"{res[2][6][-1]:.3f} on the same seeds. The PR was supposed to be a pure refactor. Where does the "
               "drop come from? Diff and the tracking sheet attached.\n")
    TRUTH["run08"] = dict(
        truth="metric_changed",
        symptom=f"After merging the refactor PR our val F1 dropped from {res[0][6][-1]:.2f} to "
                f"{res[2][6][-1]:.2f} on the same seeds, although it was supposed to be a pure refactor. Where does "
                "the drop come from?",
        how="The PR replaced sklearn f1_score(average='micro') with a hand-written per-class F1 averaged over "
            "classes (macro) on an imbalanced 6-class set; val_loss and val_acc are identical before and after "
            "for each seed, only val_f1 moved.")
    log("run08 done")


# =============================================================================================== run09
def run09():
    """resume_mismatch: after preemption only model weights are restored; optimizer + cosine schedule restart."""
    T = make_teacher(16, 6, 19, hidden=8)
    Xtr, ytr = sample_task(T, 2048, 191, temp=0.2)
    Xva, yva = sample_task(T, 800, 192, temp=0.2)
    cfg = dict(seed=0, epochs=30, bs=64, opt="sgd", lr=0.1, momentum=0.9, wd=5e-4, sched="cosine", K=6, hidden=64)
    t0 = time.time()
    full = train(cfg, Xtr, ytr, Xva, yva, log_every=8)
    t_full = time.time() - t0
    part = train(cfg, Xtr, ytr, Xva, yva, epoch_range=(1, 18), log_every=8)
    m2 = MLP(16, 6, hidden=64)
    m2.load_state_dict(part["model"].state_dict())
    t0 = time.time()
    res = train(cfg, Xtr, ytr, Xva, yva, model=m2, epoch_range=(19, 30), log_every=8)
    t_res = time.time() - t0
    hb = part["hist"] + res["hist"]
    ha = full["hist"]
    d = rdir("run09")
    # transposed sheet: one row per epoch, column groups per run
    hdr = ["epoch", "cos30-a train_loss", "cos30-a val_loss", "cos30-a val_acc", "cos30-a lr", "",
           "cos30-b train_loss", "cos30-b val_loss", "cos30-b val_acc", "cos30-b lr", "cos30-b job"]
    rows = [hdr]
    for e in range(30):
        a, b = ha[e], hb[e]
        rows.append([e + 1, num(a["train_loss"]), num(a["val_loss"]), pct(a["val_acc"]), sci(a["lr"], 3), "",
                     num(b["train_loss"]), num(b["val_loss"]), pct(b["val_acc"]), sci(b["lr"], 3),
                     "48213" if e == 0 else ("48377" if e == 18 else "")])
    write_table(os.path.join(d, "curves_by_epoch.csv"), rows)
    write_table(os.path.join(d, "experiments.csv"), [
        ["run", "submitted", "config", "epochs", "lr", "sched", "status", "final_train_loss", "final_val_acc",
         "notes"],
        ["cos30-a", "2024-09-02", "sgd_cos30.yaml", 30, 0.1, "cosine", "done", num(ha[-1]["train_loss"]),
         pct(ha[-1]["val_acc"]), ""],
        ["cos30-b", "2024-09-03", "sgd_cos30.yaml", 30, 0.1, "cosine", "done (resumed)", num(hb[-1]["train_loss"]),
         pct(hb[-1]["val_acc"]), "preempted after ep18, resumed with --resume last.pt"]])
    # slurm log of both jobs (formatting imitates the tools; numbers from the run)
    L = []
    spe = 32
    per_step = t_full / (30 * spe)

    def job_lines(steps, hist, first_ep):
        out = []
        for h in hist:
            for s in [s for s in steps if s["ep"] == h["ep"]]:
                out.append(f"[ep {h['ep']:02d} | step {s['gstep']:5d}] loss {s['loss']:.4f}  lr {s['lr']:.4e}  "
                           f"gnorm {s['gn']:.3f}")
            out.append(f"==> epoch {h['ep']:02d} done: train_loss {h['train_loss']:.4f} val_loss {h['val_loss']:.4f} "
                       f"val_acc {h['val_acc']:.4f} ({per_step * spe:.2f}s)")
            out.append(f"    saved checkpoints/cos30-b/last.pt (epoch {h['ep']})")
        return out

    L += ["==== slurm-48213.out ====", "+ python train.py --config configs/sgd_cos30.yaml --run cos30-b",
          "config: optimizer=sgd lr=0.1 momentum=0.9 weight_decay=0.0005 sched=cosine T_max=30 epochs=30 bs=64",
          f"train samples: {len(Xtr)}  val samples: {len(Xva)}  steps/epoch: {spe}"]
    L += job_lines(part["steps"], part["hist"], 0)
    L += ["slurmstepd: error: *** JOB 48213 ON node-c07 CANCELLED AT 2024-09-03T02:41:17 DUE TO PREEMPTION ***",
          "", "==== slurm-48377.out ====",
          "+ python train.py --config configs/sgd_cos30.yaml --run cos30-b --resume checkpoints/cos30-b/last.pt",
          "config: optimizer=sgd lr=0.1 momentum=0.9 weight_decay=0.0005 sched=cosine T_max=30 epochs=30 bs=64",
          f"train samples: {len(Xtr)}  val samples: {len(Xva)}  steps/epoch: {spe}",
          "resuming from checkpoints/cos30-b/last.pt",
          f"  loaded model_state_dict ({len(m2.state_dict())} tensors), start_epoch=19"]
    L += job_lines(res["steps"], res["hist"], 19)
    L += ["training finished: 30 epochs", ""]
    write_text(os.path.join(d, "slurm_cos30-b.log"), "\n".join(L))
    write_text(os.path.join(d, "note.md"),
               "cos30-b (same config as cos30-a) got preempted after epoch 18 and I resumed it from last.pt. Right "
               f"after the restart the loss jumped ({hb[17]['train_loss']:.3f} -> {hb[20]['train_loss']:.3f} by epoch "
               f"21) and it finished worse than cos30-a ({pct(hb[-1]['val_acc'])} vs {pct(ha[-1]['val_acc'])}). "
               "Is that normal after a preemption, or did I lose something?\n")
    TRUTH["run09"] = dict(
        truth="resume_mismatch",
        symptom="cos30-b was preempted after epoch 18 and resumed from last.pt; the loss jumped right after the "
                "restart and it finished worse than cos30-a. Is that normal after a preemption?",
        how="The resume restores only model_state_dict; SGD momentum and the cosine scheduler start fresh, so lr "
            "jumps from ~0.035 back to 0.1 at epoch 19 (lr column / log) and train loss rises for several epochs; "
            "the run never anneals to lr 0 and ends above cos30-a's loss.")
    log("run09 done")


# =============================================================================================== run10
def run10():
    """zero_variance_statistic: BatchNorm1d on a final batch of 1 sample (n_train = 63*64 + 1)."""
    T = make_teacher(16, 4, 20, hidden=8)
    Xall, yall = sample_task(T, 4033, 201, temp=0.2)
    Xva, yva = sample_task(T, 600, 202, temp=0.2)
    cfg = dict(seed=0, epochs=8, bs=64, opt="adam", lr=1e-3, K=4, hidden=128, bn=True)
    res = []
    for name, n in [("bn-mlp-a", 3072), ("bn-mlp-b", 3500)]:
        r = train(cfg, Xall[:n], yall[:n], Xva, yva)
        res.append((name, n, r["hist"]))
    steps = []
    t0 = time.time()
    tb_text = None
    try:
        train(dict(cfg, epochs=1), Xall, yall, Xva, yva, log_every=10,
              hooks={"after_step": lambda gs, ep, lv, gn: steps.append((gs, lv, time.time() - t0))})
    except ValueError:
        et, ev, tb = sys.exc_info()
        frames = [f for f in traceback.extract_tb(tb) if "site-packages" in f.filename]
        for f in frames:
            f.filename = "/home/mk/miniforge3/envs/tab/lib/python3.11/site-packages" + \
                f.filename.split("site-packages")[1]
        user = ('Traceback (most recent call last):\n'
                '  File "/home/mk/tabcls/train.py", line 142, in <module>\n    main()\n'
                '  File "/home/mk/tabcls/train.py", line 98, in main\n    logits = model(xb)\n'
                '             ^^^^^^^^^\n')
        tb_text = user + "".join(traceback.format_list(frames)) + f"{et.__name__}: {ev}\n"
    assert tb_text is not None
    d = rdir("run10")
    rows = [["run", "n_train", "hidden", "bn", "bs", "epochs", "val_acc", "status"]]
    for name, n, h in res:
        rows.append([name, n, 128, "yes", 64, 8, pct(h[-1]["val_acc"]), "ok"])
    rows.append(["bn-mlp-c", len(Xall), 128, "yes", 64, 8, "", "crashed ep1"])
    write_table(os.path.join(d, "experiments.csv"), rows)
    n_steps = len(steps)
    total = math.ceil(len(Xall) / 64)
    el = steps[-1][2]
    lines = [f"epoch 1 step {gs:3d}/{total} loss {lv:.4f}" for gs, lv, _ in steps if gs % 10 == 0]
    bar = (f"epoch 1:  98%|█████████▊| {n_steps}/{total} [00:0{int(el)}<00:00, {n_steps / el:.1f}it/s, "
           f"loss={steps[-1][1]:.3f}]")
    write_text(os.path.join(d, "note.md"),
               "bn-mlp-c (same as bn-mlp-b, just with the March rows added, 4033 rows now) dies at the very end of "
               "epoch 1. I assume one of the new rows has a broken feature vector - how do I find which one?\n\n"
               "```\n" + "\n".join(lines) + "\n" + bar + "\n" + tb_text + "```\n")
    TRUTH["run10"] = dict(
        truth="zero_variance_statistic",
        symptom="bn-mlp-c crashes at the very end of epoch 1 with a ValueError about channels; I assume one of the "
                "newly added rows has a broken feature vector.",
        how="4033 = 63*64 + 1 training rows, so the last batch of the epoch holds one sample and BatchNorm1d in "
            "train mode cannot compute a batch variance ('Expected more than 1 value per channel when training, "
            "got input size [1, 128]'); fix with drop_last=True or a guard.")
    log("run10 done")


# =============================================================================================== run11
def run11():
    """healthy: val loss below train loss because of dropout + input-noise augmentation in train mode."""
    T = make_teacher(16, 6, 21, hidden=8)
    Xtr, ytr = sample_task(T, 2000, 211, temp=0.2)
    Xva, yva = sample_task(T, 800, 212, temp=0.2)
    base = dict(seed=0, epochs=30, bs=64, opt="adam", lr=1e-3, K=6, hidden=64)
    specs = [("s-plain", 0.0, 0.0), ("s-drop", 0.3, 0.0), ("s-drop-noise", 0.3, 0.3)]
    res = []
    for name, dp, ns in specs:
        r = train(dict(base, dropout=dp), Xtr, ytr, Xva, yva, input_noise=ns)
        res.append((name, dp, ns, r["hist"]))
    d = rdir("run11")
    rows = [["run", "date", "dropout", "noise_std", "lr", "epochs", "train_loss", "val_loss", "train_acc",
             "val_acc", "notes"]]
    for name, dp, ns, h in res:
        rows.append([name, "2024-05-21", comma(dp, 1), comma(ns, 1), "0,001", 30, comma(h[-1]["train_loss"]),
                     comma(h[-1]["val_loss"]), pct(h[-1]["train_acc"]), pct(h[-1]["val_acc"]),
                     {"s-plain": "reference", "s-drop": "", "s-drop-noise": "candidate"}[name]])
    write_table(os.path.join(d, "experiments.csv"), rows, sep=";")
    runs = [(x[0], x[3]) for x in res]
    fmt = lambda m, v: pct(v) if "acc" in m else comma(v)
    write_table(os.path.join(d, "curves_wide.csv"),
                wide_block_rows([("train_loss", runs), ("val_loss", runs), ("train_acc", runs), ("val_acc", runs)],
                                30, fmt, ep_label="E{}"), sep=";")
    write_text(os.path.join(d, "train.py"), TPL.RUN11_TRAIN.format(dropout=0.3, noise=0.3, epochs=30, lr=1e-3,
                                                                 bs=64, hidden=64))
    write_text(os.path.join(d, "note.md"),
               "In the runs with dropout + noise augmentation (s-drop-noise) the validation loss is below the "
               "training loss in every single epoch, and val accuracy is above train accuracy. Isn't that "
               "impossible unless val data is leaking into training? Should I trust s-drop-noise?\n")
    TRUTH["run11"] = dict(
        truth="healthy",
        symptom="With dropout + noise augmentation the validation loss is below the training loss in every epoch; "
                "is val data leaking into training?",
        how="Nothing planted: train loss/acc are measured in train mode with Dropout(0.3) and input noise, val in "
            "eval mode on clean inputs, so val beats train by a steady margin; val accuracy rises gradually from "
            f"{pct(res[2][3][0]['val_acc'], 0)} to {pct(res[2][3][-1]['val_acc'], 0)}, close to the plain run (no "
            "near-perfect start, nothing shared between the splits).")
    log("run11 done")


# =============================================================================================== run12
def run12():
    """healthy: lr x seed sweep with cosine schedule; curves flatten as lr anneals to 0."""
    T = make_teacher(16, 8, 22, hidden=10)
    Xtr, ytr = sample_task(T, 3000, 221, temp=0.2)
    Xva, yva = sample_task(T, 800, 222, temp=0.2)
    res = []
    for lr in (3e-4, 1e-3, 3e-3):
        for seed in ((0, 1, 2) if lr == 1e-3 else (0, 1)):
            cfg = dict(seed=seed, epochs=30, bs=64, opt="adamw", lr=lr, wd=0.05, sched="cosine", K=8, hidden=64,
                       dropout=0.1)
            t0 = time.time()
            r = train(cfg, Xtr, ytr, Xva, yva)
            res.append((f"sw-lr{lr:g}-s{seed}", lr, seed, r["hist"], time.time() - t0))
    d = rdir("run12")
    rows = [["run", "group", "lr", "seed", "wd", "sched", "dropout", "epochs", "best_val_acc", "best_ep",
             "final_train_loss", "final_val_loss", "final_val_acc", "notes"]]
    prev = None
    for name, lr, seed, h, wall in res:
        b = max(h, key=lambda x: x["val_acc"])
        rows.append([name, f"lr={lr:g}" if lr != prev else "", lr, seed, 0.05, "cosine", 0.1, 30,
                     pct(b["val_acc"]), b["ep"], num(h[-1]["train_loss"]), num(h[-1]["val_loss"]),
                     pct(h[-1]["val_acc"]), "default lr" if (lr == 1e-3 and seed == 0) else ""])
        prev = lr
    write_table(os.path.join(d, "experiments.csv"), rows)
    # long transposed export: one row per (run, epoch)
    lrows = [["run", "epoch", "lr", "train_loss", "train_acc", "val_loss", "val_acc", "grad_norm"]]
    for name, lr, seed, h, wall in res:
        for x in h:
            lrows.append([name, x["ep"], sci(x["lr"], 3), num(x["train_loss"]), pct(x["train_acc"]),
                          num(x["val_loss"]), pct(x["val_acc"]), num(x["grad_norm"], 3)])
    write_table(os.path.join(d, "sweep_long.csv"), lrows)
    # wide val-acc block
    runs = [(x[0], x[3]) for x in res]
    write_table(os.path.join(d, "val_acc_wide.tsv"),
                wide_block_rows([("val_acc", runs), ("train_loss", runs)], 30,
                                lambda m, v: pct(v) if "acc" in m else num(v, 3)), sep="\t")
    write_text(os.path.join(d, "note.md"),
               "lr sweep done (AdamW wd 0.05, cosine to 0 over 30 epochs, 7 runs). In every run val accuracy "
               "hardly moves after epoch ~20 and the train loss curve goes nearly flat at the end, even for "
               "lr=3e-3. Is that expected or is something broken with the schedule? Should I just train for 60 "
               "epochs?\n")
    TRUTH["run12"] = dict(
        truth="healthy",
        symptom="In every run of my lr sweep val accuracy stops improving around epoch 20 and the loss goes flat; "
                "is something broken or should I just train for 60 epochs?",
        how="Nothing planted: a normal AdamW + cosine sweep; the flattening coincides with the lr annealing to 0 "
            "(lr column), val loss keeps decreasing (no overfitting), seeds agree within ~1-2 points.")
    log("run12 done")


def main():
    if os.path.isdir(RUNS):
        shutil.rmtree(RUNS)
    os.makedirs(RUNS)
    for fn in [run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12]:
        fn()
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(dict(sorted(TRUTH.items())), f, indent=2, ensure_ascii=False)
    log(f"all done, wall {time.time() - T_START:.1f}s")


if __name__ == "__main__":
    main()
