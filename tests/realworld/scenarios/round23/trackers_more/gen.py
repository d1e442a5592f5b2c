#!/usr/bin/env python3
"""Generate 12 tracker-style ML-debugging scenario runs (run01..run12) + truth.json.

Every number written into runs/ comes from a real (small, CPU) torch training
performed here.  Layout of the files imitates the local/exported files of
Comet (offline), Neptune (export and offline queue), ClearML (exported task),
Guild AI (run directories) and Aim (metric dataframe CSV).
"""
import json
import math
import os
import random
import shutil
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))
import trackers as T  # noqa: E402

torch.set_num_threads(1)
RUNS = os.path.join(HERE, "runs")
UC = os.path.join(HERE, "gen_support", "user_code")
TRUTH = {}
CHECKS = {}


def user_code(name):
    with open(os.path.join(UC, name)) as f:
        return f.read()


def rd(run):
    return os.path.join(RUNS, run)


def blobs(n, k, d, sep, seed, n_val=0):
    g = torch.Generator().manual_seed(seed)
    c = torch.randn(k, d, generator=g) * sep
    y = torch.randint(0, k, (n + n_val,), generator=g)
    x = c[y] + torch.randn(n + n_val, d, generator=g)
    return x[:n], y[:n], x[n:], y[n:]


def mix(n, k, d, sep, seed, n_val=0, m=3):
    """k classes, each a mixture of m Gaussian clusters (a non-linear but learnable boundary)."""
    g = torch.Generator().manual_seed(seed)
    c = torch.randn(k * m, d, generator=g) * sep
    comp = torch.randint(0, k * m, (n + n_val,), generator=g)
    y = comp % k
    x = c[comp] + torch.randn(n + n_val, d, generator=g)
    return x[:n], y[:n], x[n:], y[n:]


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        lg = model(x)
        loss = F.cross_entropy(lg, y).item()
        acc = (lg.argmax(1) == y).float().mean().item()
    model.train()
    return loss, acc


def mlp(d_in, hidden, d_out, depth=2, act=nn.ReLU, dropout=0.0):
    layers, d = [], d_in
    for _ in range(depth):
        layers += [nn.Linear(d, hidden), act()]
        if dropout:
            layers.append(nn.Dropout(dropout))
        d = hidden
    layers.append(nn.Linear(d, d_out))
    return nn.Sequential(*layers)


def r4(v, n=6):
    v = float(v)
    if not math.isfinite(v):
        return v
    return float("%.*g" % (n, v))


COMET_SYSTEM = {
    "command": ["train.py"], "env": None, "hostname": "dk-ws-02", "ip": "10.20.4.17", "machine": "x86_64",
    "os": "Linux-5.15.0-107-generic-x86_64-with-glibc2.35", "os_release": "5.15.0-107-generic",
    "os_type": "Linux", "pid": 48213, "processor": "x86_64",
    "python_exe": "/home/dmitri/miniconda3/envs/torch/bin/python",
    "python_version": "3.10.14", "python_version_verbose": "3.10.14 (main, May  6 2024, 19:42:50) [GCC 11.2.0]",
    "user": "dmitri"}


# ============================================================== run01
def run01():
    """Comet offline; StepLR stepped every batch (config says epochs)."""
    run = "run01"
    rng = random.Random(101)
    a = dict(epochs=20, batch_size=64, lr=0.1, momentum=0.9, weight_decay=5e-4, lr_step_size=10,
             lr_gamma=0.5, hidden=128, seed=7)
    xtr, ytr, xva, yva = mix(4800, 8, 40, 0.55, seed=1001, n_val=1200)
    torch.manual_seed(a["seed"])
    model = mlp(40, a["hidden"], 8)
    opt = torch.optim.SGD(model.parameters(), lr=a["lr"], momentum=a["momentum"], weight_decay=a["weight_decay"])
    sch = torch.optim.lr_scheduler.StepLR(opt, step_size=a["lr_step_size"], gamma=a["lr_gamma"])
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=a["batch_size"],
                                     shuffle=True, generator=torch.Generator().manual_seed(7))
    clk = T.Clock(1716283815.0, 1)
    start = clk.t
    metrics, outputs = [], []
    outputs.append((clk.tick(0.4), "COMET INFO: Using '/home/dmitri/.cometml-runs' path as offline directory. Pass "
                    "'offline_directory' parameter into constructor or set the 'COMET_OFFLINE_DIRECTORY' "
                    "environment variable to manually choose where to store offline experiment archives.", True))
    params = [(clk.tick(0.05), k, v) for k, v in a.items()]
    step, epoch_rows = 0, []
    for epoch in range(1, a["epochs"] + 1):
        tot, n = 0.0, 0
        for xb, yb in dl:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sch.step()
            step += 1
            tot += loss.item() * len(xb)
            n += len(xb)
            ts = clk.tick(0.011)
            if step % 25 == 0:
                metrics.append(dict(name="batch_loss", value=r4(loss.item(), 7), step=step, epoch=epoch, ts=ts))
        vl, va = evaluate(model, xva, yva)
        lr = opt.param_groups[0]["lr"]
        ts = clk.tick(0.2)
        for k, v in (("train_loss", tot / n), ("val_loss", vl), ("val_acc", va), ("lr", lr)):
            metrics.append(dict(name=k, value=r4(v, 7), step=step, epoch=epoch, ts=ts))
        outputs.append((ts, "epoch %02d | train_loss %.4f | val_loss %.4f | val_acc %.4f | lr %.3e"
                        % (epoch, tot / n, vl, va, lr), False))
        epoch_rows.append((epoch, tot / n, vl, va, lr))
    stop = clk.tick(1.0)
    key = T.hexid(rng)
    outputs.append((stop, "COMET INFO: ---------------------------------------------------------------------------------------", True))
    outputs.append((stop, "COMET INFO: Comet.ml OfflineExperiment Summary", True))
    outputs.append((stop, "COMET INFO: ---------------------------------------------------------------------------------------", True))
    outputs.append((stop, "COMET INFO:   Data:", True))
    outputs.append((stop, "COMET INFO:     display_summary_level : 1", True))
    outputs.append((stop, "COMET INFO:     name                  : mlp-h128-sgd", True))
    outputs.append((stop, "COMET INFO:     url                   : [OfflineExperiment will get URL after upload]", True))
    outputs.append((stop, "COMET INFO:   Metrics [count] (min, max):", True))
    bl = [m["value"] for m in metrics if m["name"] == "batch_loss"]
    vals = {k: [m["value"] for m in metrics if m["name"] == k] for k in ("train_loss", "val_loss", "val_acc", "lr")}
    outputs.append((stop, "COMET INFO:     batch_loss [%d]  : (%s, %s)" % (len(bl), r4(min(bl)), r4(max(bl))), True))
    for k, v in vals.items():
        outputs.append((stop, "COMET INFO:     %-11s [%d]  : (%s, %s)" % (k, len(v), r4(min(v)), r4(max(v))), True))
    outputs.append((stop, "COMET INFO:   Parameters:", True))
    for k, v in a.items():
        outputs.append((stop, "COMET INFO:     %-14s: %s" % (k, v), True))
    outputs.append((stop, "COMET INFO: ---------------------------------------------------------------------------------------", True))
    T.comet_offline(os.path.join(rd(run), "comet_offline", key), key=key, workspace="dmitri-k",
                    project="sensor-fault-clf", name="mlp-h128-sgd", start=start, stop=stop,
                    params=params, metrics=metrics, outputs=outputs, system=COMET_SYSTEM,
                    others={"Name": "mlp-h128-sgd"})
    T.write_text(os.path.join(rd(run), "train.py"), user_code("run01_train.py"))
    T.write_text(os.path.join(rd(run), "note.md"),
                 "Offline Comet archive (unzipped) + the training script. The MLP gets to ~%d%% val accuracy in "
                 "the first epoch and then basically never improves for the remaining 19 epochs. I'm guessing "
                 "128 hidden units is just too small for 40 features / 8 classes? Should I go wider/deeper?\n"
                 % round(100 * epoch_rows[0][3]))
    TRUTH[run] = dict(
        truth="lr_schedule_bug",
        symptom="Val accuracy stops improving after the first epoch and stays flat for the rest of the run; "
                "I think my 128-unit MLP is too small for this data.",
        how="StepLR(step_size=10, gamma=0.5) is meant per epoch but scheduler.step() is called after every "
            "batch (75/epoch), so the lr is %.1e after epoch 1 and %.1e after epoch 2; the logged lr metric "
            "and flat loss show training freezes." % (epoch_rows[0][4], epoch_rows[1][4]))
    CHECKS[run] = dict(epochs=[(e, round(tl, 4), round(vl, 4), round(va, 4), "%.1e" % lr)
                               for e, tl, vl, va, lr in epoch_rows[:4] + epoch_rows[-1:]])


# ============================================================== run02
def run02():
    """Guild; ReLU RNN without clipping, grad norm grows by orders of magnitude then NaN."""
    run = "run02"
    rng = random.Random(202)
    fl = dict(hidden=32, seq_len=100, horizon=15, batch_size=32, lr=0.001, momentum=0.9, steps=1000,
              eval_every=100, seed=3)

    class Regressor(nn.Module):
        def __init__(self, n_in, hidden):
            super().__init__()
            self.rnn = nn.RNN(n_in, hidden, nonlinearity="relu", batch_first=True)
            self.head = nn.Linear(hidden, 1)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.head(out[:, -1])

    torch.manual_seed(fl["seed"])
    model = Regressor(2, fl["hidden"])
    opt = torch.optim.SGD(model.parameters(), lr=fl["lr"], momentum=fl["momentum"])
    gv = torch.Generator().manual_seed(99)
    xv = torch.randn(256, fl["seq_len"], 2, generator=gv)
    yv = xv[:, -fl["horizon"]:, 0].sum(1, keepdim=True)
    clk = T.Clock(1717430400.0 + 9 * 3600 + 1234, 2)
    t_start = clk.t
    out = ["Resolving file:data/windows dependency\n"]
    loss_pts, gn_pts, val_pts = [], [], []
    crash = None
    for step in range(fl["steps"]):
        x = torch.randn(fl["batch_size"], fl["seq_len"], 2)
        y = x[:, -fl["horizon"]:, 0].sum(1, keepdim=True)
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        gn = torch.sqrt(sum(p.grad.pow(2).sum() for p in model.rnn.parameters())).item()
        opt.step()
        ts = clk.tick(0.034)
        loss_pts.append((ts, step, loss.item()))
        gn_pts.append((ts, step, gn))
        if step % 5 == 0:
            out.append("step: %d\nloss: %.4f\ngrad_norm: %.4f\n" % (step, loss.item(), gn))
        if step % fl["eval_every"] == 0:
            with torch.no_grad():
                vl = F.mse_loss(model(xv), yv).item()
            val_pts.append((ts, step, vl))
            out.append("val_loss: %.4f\n" % vl)
        if not math.isfinite(loss.item()):
            crash = (step, loss.item())
            break
    assert crash is not None, "run02: expected a non-finite loss"
    out.append(
        "Traceback (most recent call last):\n"
        "  File \"/home/mkhan/proj/rnn/train.py\", line 64, in <module>\n"
        "    raise FloatingPointError(f\"loss is {loss.item()} at step {step}\")\n"
        "FloatingPointError: loss is %s at step %d\n" % (crash[1], crash[0]))
    t_stop = clk.tick(0.5)
    run_id = T.hexid(rng)
    gdir = os.path.join(rd(run), "guild_runs", run_id)
    T.guild_run(gdir, run_id=run_id, opref="a1f3c9e07b5d4e0c", op_name="rnn:train", flags=fl,
                cmd=["/home/mkhan/.venvs/vib/bin/python", "-um", "guild.op_main", "train"] +
                    sum([["--%s" % k, str(v)] for k, v in fl.items()], []),
                started_us=int(t_start * 1e6), stopped_us=int(t_stop * 1e6), exit_status=1,
                output="".join(out), label="relu-rnn h32 T100",
                sourcecode={"train.py": user_code("run02_train.py"),
                            "guild.yml": "rnn:\n  operations:\n    train:\n      main: train\n      flags-import: all\n"
                                         "      output-scalars:\n        - step: 'step: (\\step)'\n"
                                         "        - '(\\key): (\\value)'\n      requires:\n        - file: data/windows\n"})
    short = run_id[:8]
    T.tb_csv(os.path.join(rd(run), "tensorboard_export", "run-%s-tag-loss.csv" % short), loss_pts)
    T.tb_csv(os.path.join(rd(run), "tensorboard_export", "run-%s-tag-grad_norm.csv" % short), gn_pts)
    T.tb_csv(os.path.join(rd(run), "tensorboard_export", "run-%s-tag-val_loss.csv" % short), val_pts)
    T.write_text(os.path.join(rd(run), "note.md"),
                 "`guild runs info` dir for the failed run plus the TensorBoard CSVs. The RNN trains for a few "
                 "hundred steps and then the run dies with `FloatingPointError: loss is nan`. What's going on?\n")
    g = [v for _, _, v in gn_pts]
    TRUTH[run] = dict(
        truth="exploding_gradients",
        symptom="My RNN regressor trains for a few hundred steps and then dies with 'FloatingPointError: loss "
                "is nan'. What's going on?",
        how="ReLU nn.RNN over 100 steps trained with SGD+momentum and no gradient clipping; the recurrent grad "
            "norm climbs from ~%.0f to %.0f and then %.1e before the loss hits %s at step %d (lr 1e-3 is "
            "modest, loss was not rising beforehand)." % (g[0], max(g[crash[0] - 25:crash[0] - 5]),
                                                        max(x for x in g if math.isfinite(x)), crash[1], crash[0]))
    CHECKS[run] = dict(crash=crash, gn_first=g[:3], gn_tail=[round(x, 2) for x in g[-12:]],
                       loss_first=round(loss_pts[0][2], 2), loss_before=[round(v, 2) for _, _, v in loss_pts[-15:-4]])


# ============================================================== run03
def run03():
    """Neptune export; small train set, big MLP -> classic overfitting."""
    run = "run03"
    xtr, ytr, xva, yva = blobs(240, 4, 30, 0.42, seed=3003, n_val=1000)
    torch.manual_seed(3)
    model = mlp(30, 256, 4)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=32, shuffle=True,
                                     generator=torch.Generator().manual_seed(3))
    clk = T.Clock(1718012345.0, 3)
    t0 = clk.t
    ser = {"train/loss": [], "train/acc": [], "val/loss": [], "val/acc": []}
    stdout = []
    rows = []
    for ep in range(80):
        for xb, yb in dl:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        tl, ta = evaluate(model, xtr, ytr)
        vl, va = evaluate(model, xva, yva)
        ts = clk.tick(0.9)
        for k, v in (("train/loss", tl), ("train/acc", ta), ("val/loss", vl), ("val/acc", va)):
            ser[k].append((ep, r4(v, 8), ts))
        stdout.append(("Epoch %d/80 - loss: %.4f - acc: %.4f - val_loss: %.4f - val_acc: %.4f"
                       % (ep + 1, tl, ta, vl, va), ts))
        rows.append((ep, tl, ta, vl, va))
    t1 = clk.tick(2)
    attrs = {
        "sys/id": "VIBCLS-87", "sys/name": "mlp256-small-labelled-set", "sys/owner": "a.novak",
        "sys/creation_time": T.iso(t0 - 3), "sys/modification_time": T.iso(t1), "sys/ping_time": T.iso(t1),
        "sys/running_time": round(t1 - t0, 3), "sys/state": "Inactive", "sys/failed": False,
        "sys/tags": ["pilot", "mlp"], "sys/hostname": "ws-anovak", "sys/size": 184320.0,
        "parameters/model/hidden": 256, "parameters/model/depth": 2, "parameters/model/dropout": 0.0,
        "parameters/optim/name": "Adam", "parameters/optim/lr": 0.001, "parameters/optim/weight_decay": 0.0,
        "parameters/data/train_size": 240, "parameters/data/val_size": 1000, "parameters/data/n_features": 30,
        "parameters/data/n_classes": 4, "parameters/batch_size": 32, "parameters/epochs": 80,
        "source_code/entrypoint": "train_mlp.py", "source_code/git/branch": "pilot-labels",
    }
    T.neptune_export(os.path.join(rd(run), "neptune_export", "VIBCLS-87"), attributes=attrs, series=ser,
                     string_series={"monitoring/7f3c2a1b/stdout": stdout})
    best = min(rows, key=lambda r: r[3])
    TRUTH[run] = dict(
        truth="overfitting",
        symptom="Validation accuracy is best early on and then slowly gets worse the longer I train, even "
                "though training accuracy hits 100%. Is my validation split broken?",
        how="A 2x256 MLP trained 80 epochs on only 240 labelled samples: train loss falls to %.1e (acc %.2f) "
            "while val loss bottoms at epoch %d (%.3f) and then climbs to %.3f." %
            (rows[-1][1], rows[-1][2], best[0] + 1, best[3], rows[-1][3]))
    CHECKS[run] = dict(best=(best[0] + 1, round(best[3], 3), round(best[4], 3)),
                       last=tuple(round(x, 4) for x in rows[-1]), e5=tuple(round(x, 4) for x in rows[4]))


# ============================================================== run04
def run04():
    """ClearML; 35 % of training labels replaced by random wrong labels."""
    run = "run04"
    rng = random.Random(404)
    xtr, ytr_clean, xva, yva = blobs(6000, 5, 32, 0.55, seed=4004, n_val=1500)
    g = torch.Generator().manual_seed(44)
    flip = torch.rand(6000, generator=g) < 0.35
    other = (ytr_clean + torch.randint(1, 5, (6000,), generator=g)) % 5
    ytr = torch.where(flip, other, ytr_clean)
    torch.manual_seed(4)
    model = mlp(32, 64, 5)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=128, shuffle=True,
                                     generator=torch.Generator().manual_seed(4))
    clk = T.Clock(1718880000.0 + 14 * 3600 + 602, 4)
    t0 = clk.t
    task_id = T.hexid(rng)
    console = []

    def con(line, ts):
        console.append("%s %s" % (T.hms(ts, frac=False), line))

    con("ClearML Task: created new task id=%s" % task_id, clk.tick(0.3))
    con("ClearML results page: https://app.clear.ml/projects/6b1e0f2d3c4a4b5e9d8f7a6b5c4d3e2f/experiments/%s/output/log" % task_id, clk.tick(0.2))
    con("loaded annotations: train=6000 val=1500 (label_source=crowd_batch_07, val_source=expert_review)", clk.tick(1.2))
    scal = {"loss": {"train": [], "val": []}, "accuracy": {"train": [], "val": []}, "train": {"batch_loss": []}}
    it, rows = 0, []
    for ep in range(25):
        tot, acc, n = 0.0, 0.0, 0
        for xb, yb in dl:
            lg = model(xb)
            loss = F.cross_entropy(lg, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(xb)
            acc += (lg.argmax(1) == yb).float().sum().item()
            n += len(xb)
            if it % 10 == 0:
                scal["train"]["batch_loss"].append((it, r4(loss.item(), 7)))
            it += 1
        vl, va = evaluate(model, xva, yva)
        ts = clk.tick(2.1)
        scal["loss"]["train"].append((ep, r4(tot / n, 7)))
        scal["loss"]["val"].append((ep, r4(vl, 7)))
        scal["accuracy"]["train"].append((ep, r4(acc / n, 7)))
        scal["accuracy"]["val"].append((ep, r4(va, 7)))
        con("epoch %2d/25  train_loss=%.4f  train_acc=%.4f  val_loss=%.4f  val_acc=%.4f"
            % (ep + 1, tot / n, acc / n, vl, va), ts)
        rows.append((ep + 1, tot / n, acc / n, vl, va))
    t1 = clk.tick(1.5)
    con("saved model to /data/models/defect-mlp/model_final.pt", t1)
    args = dict(epochs=25, batch_size=128, lr=0.001, hidden=64, depth=1, optimizer="adam", seed=4,
                train_csv="/data/annotations/defects_train_crowd_b07.csv",
                val_csv="/data/annotations/defects_val_expert.csv")
    export = {
        "id": task_id, "name": "defect-mlp h64 (crowd b07)", "type": "training", "status": "completed",
        "status_reason": "", "status_message": "", "comment": "Auto-generated at %s UTC by wenjie@dl-box-1" % T.hms(t0, frac=False),
        "project": {"name": "defects/tabular"}, "tags": ["crowd-b07"], "system_tags": [],
        "created": T.iso(t0), "started": T.iso(t0 + 1), "completed": T.iso(t1), "last_iteration": it - 1,
        "script": {"repository": "git@gitlab.internal:qa/defect-clf.git", "branch": "main",
                   "version_num": "9e2b71c0d4a85f3e6b1c2d7a0f9e8b4c3d2a1f0e", "entry_point": "train_tabular.py",
                   "working_dir": ".", "binary": "python3.10", "diff": "",
                   "requirements": {"pip": "clearml==1.16.2\nnumpy==1.26.4\npandas==2.2.2\ntorch==2.3.1\n"}},
        "hyperparams": {"Args": {k: T.clearml_hparam("Args", k, v, type(v).__name__) for k, v in args.items()}},
        "configuration": {}, "execution": {"queue": None, "artifacts": [], "parameters": {}, "model_desc": {}},
        "output": {"destination": None, "error": None, "result": None},
        "runtime": {"progress": "100"},
        "last_metrics": {
            "accuracy": {"train": {"value": r4(rows[-1][2]), "min_value": r4(min(r[2] for r in rows)),
                                   "max_value": r4(max(r[2] for r in rows))},
                         "val": {"value": r4(rows[-1][4]), "min_value": r4(min(r[4] for r in rows)),
                                 "max_value": r4(max(r[4] for r in rows))}}},
    }
    T.write_json(os.path.join(rd(run), "clearml_task_export.json"), export)
    T.clearml_scalars_json(os.path.join(rd(run), "reported_scalars.json"), scal)
    T.write_text(os.path.join(rd(run), "console_log.txt"), "\n".join(console) + "\n")
    TRUTH[run] = dict(
        truth="label_noise",
        symptom="Train accuracy won't go above ~%d%% no matter how long I train, but val accuracy is around "
                "%d%%, which is weird. Any idea?" % (round(100 * rows[-1][2]), round(100 * rows[-1][4])),
        how="35%% of the training labels were replaced by a random wrong class (val labels clean): train "
            "accuracy caps at %.2f with a train-loss floor of %.2f while clean val accuracy is %.2f." %
            (rows[-1][2], rows[-1][1], rows[-1][4]))
    CHECKS[run] = dict(last=tuple(round(x, 4) for x in rows[-1]), first=tuple(round(x, 4) for x in rows[0]))


# ============================================================== run05
def run05():
    """Aim CSV; healthy run, val loss below train loss because of dropout (benign question)."""
    run = "run05"
    xtr, ytr, xva, yva = blobs(8000, 5, 32, 0.5, seed=5005, n_val=1000)
    torch.manual_seed(5)
    model = mlp(32, 128, 5, dropout=0.5)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=64, shuffle=True,
                                     generator=torch.Generator().manual_seed(5))
    clk = T.Clock(1719300000.0, 5)
    series = {("loss", "train"): [], ("loss", "val"): [], ("acc", "train"): [], ("acc", "val"): []}
    rows = []
    step = 0
    for ep in range(12):
        tot, acc, n = 0.0, 0.0, 0
        for xb, yb in dl:
            lg = model(xb)
            loss = F.cross_entropy(lg, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(xb)
            acc += (lg.argmax(1) == yb).float().sum().item()
            n += len(xb)
            step += 1
        vl, va = evaluate(model, xva, yva)
        ts = clk.tick(1.4)
        series[("loss", "train")].append((step, r4(tot / n, 8), ep, ts))
        series[("loss", "val")].append((step, r4(vl, 8), ep, ts))
        series[("acc", "train")].append((step, r4(acc / n, 8), ep, ts))
        series[("acc", "val")].append((step, r4(va, 8), ep, ts))
        rows.append((ep + 1, tot / n, acc / n, vl, va))
    run_attrs = {"hparams.lr": 0.001, "hparams.batch_size": 64, "hparams.hidden": 128, "hparams.dropout": 0.5,
                 "hparams.epochs": 12, "hparams.optimizer": "adam", "experiment": "tabular-baseline"}
    rbm = [((name, {"subset": sub}), pts) for (name, sub), pts in series.items()]
    T.aim_dataframe_csv(os.path.join(rd(run), "aim_metrics_export.csv"), rbm, "3d9c2e71a0b84f55bc1e6a2d", run_attrs)
    lines = "\n".join("epoch %2d  loss %.4f  acc %.4f  val_loss %.4f  val_acc %.4f" % r
                      for r in [rows[0], rows[1], rows[3], rows[5], rows[8], rows[11]])
    T.write_text(os.path.join(rd(run), "note.md"),
                 "Exported the run from Aim (`Metric.dataframe(...)` for loss/acc, train+val) — CSV attached.\n\n"
                 "```\n%s\n```\n\nMy val loss is *lower* than my train loss for most of the run (they only cross around "
                 "epoch %d). Everything I read says that means train/val leakage. Do I have a leak, or is this ok?\n"
                 % (lines, next((r[0] for r in rows if r[3] >= r[1]), rows[-1][0])))
    TRUTH[run] = dict(
        truth="healthy",
        symptom="My val loss is lower than my train loss for most of the run - does that mean I have a leak "
                "between train and val, or is this ok?",
        how="Nothing planted: a 2x128 MLP with dropout 0.5; the train loss is the running mean in train mode "
            "(dropout on) so it sits above the eval-mode val loss until the two meet late in the run; val loss stays "
            "flat (no rise) and val accuracy is a plausible, stable %.2f, not near-perfect." % rows[-1][4])
    CHECKS[run] = dict(rows=[tuple(round(x, 4) for x in r) for r in (rows[0], rows[4], rows[-1])])


# ============================================================== run06
def run06():
    """Guild; class-sorted training data, DataLoader without shuffle."""
    run = "run06"
    rng = random.Random(606)
    fl = dict(data_dir="data/vib_features", epochs=6, batch_size=50, lr=0.05, momentum=0.9, hidden=64,
              log_every=4, seed=11)
    xtr, ytr, xva, yva = blobs(4000, 4, 20, 0.55, seed=6006, n_val=1000)
    o = torch.argsort(ytr, stable=True)
    xtr, ytr = xtr[o], ytr[o]
    ov = torch.argsort(yva, stable=True)
    xva, yva = xva[ov], yva[ov]
    torch.manual_seed(fl["seed"])
    mu, sd = xtr.mean(0), xtr.std(0)
    xtr, xva = (xtr - mu) / sd, (xva - mu) / sd
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=fl["batch_size"],
                                     drop_last=True)
    model = nn.Sequential(nn.Linear(20, fl["hidden"]), nn.ReLU(), nn.Linear(fl["hidden"], 4))
    opt = torch.optim.SGD(model.parameters(), lr=fl["lr"], momentum=fl["momentum"])
    clk = T.Clock(1719900000.0 + 7 * 3600, 6)
    t_start = clk.t
    out, loss_pts, ep_rows = [], [], []
    step = 0
    for epoch in range(1, fl["epochs"] + 1):
        for xb, yb in dl:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            ts = clk.tick(0.006)
            if step % fl["log_every"] == 0:
                out.append("step: %d\nloss: %.4f\n" % (step, loss.item()))
                loss_pts.append((ts, step, loss.item()))
            step += 1
        vl, va = evaluate(model, xva, yva)
        with torch.no_grad():
            pred_share = torch.bincount(model(xva).argmax(1), minlength=4).float() / len(yva)
        out.append("epoch: %d\nval_loss: %.4f\nval_acc: %.4f\n" % (epoch, vl, va))
        ep_rows.append((epoch, vl, va, [round(x, 3) for x in pred_share.tolist()]))
    t_stop = clk.tick(0.8)
    run_id = T.hexid(rng)
    T.guild_run(os.path.join(rd(run), "guild_runs", run_id), run_id=run_id, opref="5c0e7d21aa9f4b13",
                op_name="vib:train", flags=fl,
                cmd=["/home/mkhan/.venvs/vib/bin/python", "-um", "guild.op_main", "train"] +
                    sum([["--%s" % k, str(v)] for k, v in fl.items()], []),
                started_us=int(t_start * 1e6), stopped_us=int(t_stop * 1e6), exit_status=0,
                output="".join(out), label="mlp h64 sgd",
                sourcecode={"train.py": user_code("run06_train.py"),
                            "guild.yml": "vib:\n  operations:\n    train:\n      main: train\n      flags-import: all\n"
                                         "      requires:\n        - file: data/vib_features\n"})
    # guild compare --csv (last values of the output scalars)
    last_loss = loss_pts[-1][2]
    T.write_text(os.path.join(rd(run), "guild_compare.csv"),
                 "run,operation,started,time,status,label,batch_size,epochs,hidden,log_every,lr,momentum,seed,"
                 "step,loss,val_acc,val_loss\n%s,vib:train,%s,0:00:%02d,completed,mlp h64 sgd,50,6,64,4,0.05,0.9,11,"
                 "%d,%.4f,%.4f,%.4f\n" % (run_id[:8], T.hms(t_start, frac=False), int(t_stop - t_start),
                                          loss_pts[-1][1], last_loss, ep_rows[-1][2], ep_rows[-1][1]))
    accs = [r[2] for r in ep_rows]
    TRUTH[run] = dict(
        truth="data_not_shuffled",
        symptom="The loss jumps up and down in a regular pattern and val accuracy swings a lot from epoch to "
                "epoch; I think my learning rate is too high.",
        how="Training arrays are concatenated class by class and the DataLoader has no shuffle=True, so each "
            "epoch walks through 4 single-class blocks of 20 batches: the step loss is a saw-tooth with jumps at "
            "every class boundary and the model ends each epoch predicting the last class (val acc %.2f-%.2f)."
            % (min(accs), max(accs)))
    CHECKS[run] = dict(epochs=ep_rows, loss_epoch1=[round(v, 3) for _, _, v in loss_pts[:20]])


# ============================================================== run07
def run07():
    """Comet; fp16 autocast + GradScaler overflows (targets in tens of kW), bf16 run fine."""
    run = "run07"
    rng = random.Random(707)
    g = torch.Generator().manual_seed(7007)
    X = torch.randn(4096 + 1024, 16, generator=g)
    w = torch.randn(16, generator=g)
    Y = 40000 + 15000 * torch.tanh(X @ w / 3) + 3000 * torch.randn(4096 + 1024, generator=g)
    xtr, ytr, xva, yva = X[:4096], Y[:4096, None], X[4096:], Y[4096:, None]
    mu, sd = xtr.mean(0), xtr.std(0)
    xtr, xva = (xtr - mu) / sd, (xva - mu) / sd
    results = {}
    for prec, t0 in (("fp16", 1720512000.0 + 3600 * 10), ("bf16", 1720512000.0 + 3600 * 10 + 1500)):
        a = dict(precision=prec, steps=600, batch_size=128, lr=0.003, hidden=128, eval_every=100, seed=0)
        dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[prec]
        torch.manual_seed(0)
        model = mlp(16, 128, 1)
        opt = torch.optim.Adam(model.parameters(), lr=a["lr"])
        scaler = torch.amp.GradScaler("cpu", enabled=prec == "fp16")
        clk = T.Clock(t0, 70 + len(prec))
        start = clk.t
        metrics, outputs = [], []
        outputs.append((clk.tick(0.3), "COMET INFO: Using '/home/dmitri/.cometml-runs' path as offline directory. "
                        "Pass 'offline_directory' parameter into constructor or set the 'COMET_OFFLINE_DIRECTORY' "
                        "environment variable to manually choose where to store offline experiment archives.", True))
        outputs.append((clk.tick(2.1), "/home/dmitri/work/site-load-forecast/train.py:44: FutureWarning: "
                            "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                            "`torch.amp.GradScaler('cuda', args...)` instead.", True))
        outputs.append((clk.tick(0.01), "  scaler = torch.cuda.amp.GradScaler(enabled=args.precision == \"fp16\")", True))
        params = [(clk.tick(0.02), k, v) for k, v in a.items()]
        gen = torch.Generator().manual_seed(1)
        tt = 0.0
        hist = []
        for step in range(a["steps"]):
            idx = torch.randint(0, 4096, (128,), generator=gen)
            with torch.autocast("cpu", dtype=dtype):
                pred = model(xtr[idx])
                loss = F.mse_loss(pred.float(), ytr[idx])
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            ts = clk.tick(0.0042)
            tt += 0.0042
            sc = scaler.get_scale() if prec == "fp16" else 1.0
            hist.append((step, loss.item(), sc))
            if step % 10 == 0:
                metrics.append(dict(name="train_loss", value=r4(loss.item(), 7), step=step, ts=ts))
                metrics.append(dict(name="loss_scale", value=r4(sc, 7), step=step, ts=ts))
            if step % 100 == 0 or step == a["steps"] - 1:
                with torch.no_grad(), torch.autocast("cpu", dtype=dtype):
                    rmse = F.mse_loss(model(xva).float(), yva).sqrt().item()
                metrics.append(dict(name="val_rmse_kw", value=r4(rmse, 7), step=step, ts=ts))
                outputs.append((ts, "[%s] step %4d  loss %.4e  val_rmse %9.1f kW  scale %.3e  (%.1fs)"
                                % (prec, step, loss.item(), rmse, sc, ts - start), False))
        stop = clk.tick(0.8)
        key = T.hexid(rng)
        T.comet_offline(os.path.join(rd(run), "cometml-runs", key), key=key, workspace="dmitri-k",
                        project="site-load-forecast", name="mlp-" + prec, start=start, stop=stop, params=params,
                        metrics=metrics, outputs=outputs, system=COMET_SYSTEM, others={"Name": "mlp-" + prec})
        results[prec] = (key, hist)
    T.write_text(os.path.join(rd(run), "train.py"), user_code("run07_train.py"))
    h16 = results["fp16"][1]
    first_bad = next(s for s, l, _ in h16 if not math.isfinite(l))
    T.write_text(os.path.join(rd(run), "note.md"),
                 "Two offline experiments from the same script (unzipped): `%s` is `--precision fp16`, `%s` is "
                 "`--precision bf16`. I switched to AMP fp16 to speed things up, and after a few hundred steps the "
                 "loss turns into inf and then NaN and never recovers. The bf16 run with identical settings trains "
                 "fine. What is broken in the fp16 run?\n" % (results["fp16"][0][:8], results["bf16"][0][:8]))
    h16b = results["bf16"][1]
    TRUTH[run] = dict(
        truth="mixed_precision_overflow",
        symptom="After switching to AMP fp16 the loss turns into inf and then NaN after a few hundred steps and "
                "never recovers; the identical bf16 run trains fine. What is broken in the fp16 run?",
        how="fp16 autocast on a regression whose outputs are tens of thousands of kW: the GradScaler skips "
            "steps from the start (loss_scale 65536 -> %.2g by step 100 -> 0) and once predictions exceed the "
            "fp16 max 65504 the forward gives inf at step %d, then NaN; the bf16 run reaches loss %.3g."
            % (h16[100][2], first_bad, h16b[-1][1]))
    CHECKS[run] = dict(first_bad=first_bad, scale=[("%.3g" % h16[i][2]) for i in (0, 50, 100, 200, 300, 400, 599)],
                       fp16_loss=["%.3g" % h16[i][1] for i in (0, 100, 200, 300, 380, 599)],
                       bf16_loss=["%.3g" % h16b[i][1] for i in (0, 100, 300, 599)])


# ============================================================== run08
def run08():
    """Neptune offline queue; 10 sigmoid layers -> vanishing gradients, per-layer grad norms logged."""
    run = "run08"
    xtr, ytr, xva, yva = blobs(6000, 10, 64, 0.8, seed=8008, n_val=1000)
    torch.manual_seed(8)
    model = mlp(64, 128, 10, depth=10, act=nn.Sigmoid)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    lins = [m for m in model if isinstance(m, nn.Linear)]
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=100, shuffle=True,
                                     generator=torch.Generator().manual_seed(8))
    clk = T.Clock(1721040000.0 + 3600 * 16, 8)
    q = T.NeptuneQueue()
    t = clk.t
    q.assign("sys/name", "deep-mlp-sigmoid-10", t)
    q.add_strings("sys/tags", ["baseline", "deep-mlp"], t)
    for k, v in (("parameters/n_hidden_layers", 10), ("parameters/hidden_size", 128),
                 ("parameters/activation", "sigmoid"), ("parameters/init", "pytorch-default"),
                 ("parameters/optimizer", "SGD"), ("parameters/lr", 0.05), ("parameters/momentum", 0.9),
                 ("parameters/batch_size", 100), ("parameters/epochs", 15), ("parameters/n_classes", 10),
                 ("parameters/input_dim", 64)):
        q.assign(k, v, clk.tick(0.001))
    q.assign("source_code/entrypoint", "train_deep.py", clk.tick(0.01))
    mon = "monitoring/3b6f0d2e"
    q.assign(mon + "/hostname", "lab-gpu-07", clk.tick(0.01))
    step, rows, gsnap = 0, [], None
    for ep in range(15):
        tot, n = 0.0, 0
        for xb, yb in dl:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            ts = clk.tick(0.012)
            if step % 10 == 0:
                q.log_float("train/batch_loss", r4(loss.item(), 7), step, ts)
            if step % 20 == 0:
                for i, l in enumerate(lins):
                    q.log_float("grad_norm/fc%02d" % i, r4(l.weight.grad.norm().item(), 5), step, ts)
                gsnap = [l.weight.grad.norm().item() for l in lins]
            opt.step()
            tot += loss.item() * len(xb)
            n += len(xb)
            step += 1
        vl, va = evaluate(model, xva, yva)
        ts = clk.tick(0.4)
        q.log_float("train/loss", r4(tot / n, 7), ep, ts)
        q.log_float("val/loss", r4(vl, 7), ep, ts)
        q.log_float("val/acc", r4(va, 7), ep, ts)
        q.log_string(mon + "/stdout", "epoch %02d  loss=%.4f  val_loss=%.4f  val_acc=%.4f" % (ep + 1, tot / n, vl, va), ts)
        rows.append((ep + 1, tot / n, vl, va))
    q.assign("sys/state", "Inactive", clk.tick(1))
    q.write(os.path.join(rd(run), ".neptune", "offline", "run__2f5d7c1e-8a43-4b9e-b0c6-1d2e3f4a5b6c", "data-1.log"))
    T.write_text(os.path.join(rd(run), "note.md"),
                 "Neptune offline mode (couldn't sync from the cluster), so this is the raw `.neptune/offline` "
                 "folder. Training loss sits at ~%.2f for all 15 epochs and val accuracy is ~%d%%. What am I "
                 "missing?\n" % (rows[-1][1], round(100 * rows[-1][3])))
    TRUTH[run] = dict(
        truth="vanishing_gradients",
        symptom="Training loss sits at ~2.30 for all 15 epochs and val accuracy stays at ~10%. What am I missing?",
        how="A 10-hidden-layer sigmoid MLP (default init, no normalisation/residuals); the per-layer grad norms "
            "logged under grad_norm/fcNN fall from ~%.1e at the output layer to ~%.1e at the first layer, so "
            "the loss never leaves ln(10)." % (gsnap[-1], gsnap[0]))
    CHECKS[run] = dict(last=tuple(round(x, 4) for x in rows[-1]), grads=["%.1e" % x for x in gsnap])


# ============================================================== run09
def run09():
    """ClearML; hand-written BCE: log(sigmoid) / log(1 - sigmoid) -> NaN once sigmoid rounds to 1.0; crash."""
    run = "run09"
    rng = random.Random(909)
    a = dict(epochs=40, batch_size=128, lr=0.001, hidden=128, pos_weight=1.0, seed=0)
    xtr, ytr, xva, yva = mix(6000, 2, 32, 0.6, seed=9009, n_val=2000, m=4)
    ytr, yva = ytr.float(), yva.float()
    torch.manual_seed(a["seed"])
    model = mlp(32, a["hidden"], 1)
    opt = torch.optim.Adam(model.parameters(), lr=a["lr"])

    def weighted_bce(logits, target, pw):
        p = torch.sigmoid(logits)
        return (-(pw * target * torch.log(p) + (1 - target) * torch.log(1 - p))).mean()

    clk = T.Clock(1721800000.0 + 3600 * 20, 9)
    t0 = clk.t
    task_id = T.hexid(rng)
    console = []

    def con(line, ts):
        console.append("%s %s" % (T.hms(ts, frac=False), line))

    con("ClearML Task: created new task id=%s" % task_id, clk.tick(0.2))
    con("ClearML results page: https://app.clear.ml/projects/0c4d2e9a7f1b4c3d8e6a5b4c3d2e1f0a/experiments/%s/output/log" % task_id, clk.tick(0.2))
    con("train %s  val %s  pos_rate %.3f  finite(train_x)=%s  finite(val_x)=%s"
        % (tuple(xtr.shape), tuple(xva.shape), ytr.mean().item(), bool(torch.isfinite(xtr).all()),
           bool(torch.isfinite(xva).all())), clk.tick(1.0))
    scal = {"loss": {"train": [], "val": []}, "accuracy": {"train": [], "val": []}, "train": {"batch_loss": []}}
    it, rows, crash = 0, [], None
    gperm = torch.Generator().manual_seed(90)
    for ep in range(a["epochs"]):
        perm = torch.randperm(len(xtr), generator=gperm)
        rl, ra, nb = 0.0, 0.0, 0
        for b in range(0, len(xtr), a["batch_size"]):
            idx = perm[b:b + a["batch_size"]]
            lg = model(xtr[idx]).squeeze(1)
            loss = weighted_bce(lg, ytr[idx], a["pos_weight"])
            if not torch.isfinite(loss):
                crash = (ep, it, loss.item(), lg.max().item(), lg.min().item())
                break
            opt.zero_grad()
            loss.backward()
            opt.step()
            rl += loss.item()
            ra += ((lg > 0).float() == ytr[idx]).float().mean().item()
            nb += 1
            if it % 10 == 0:
                scal["train"]["batch_loss"].append((it, r4(loss.item(), 7)))
            it += 1
            clk.tick(0.018)
        if crash:
            break
        model.eval()
        with torch.no_grad():
            vlg = model(xva).squeeze(1)
            vl = weighted_bce(vlg, yva, a["pos_weight"]).item()
            va = ((vlg > 0).float() == yva).float().mean().item()
        model.train()
        ts = clk.tick(0.4)
        scal["loss"]["train"].append((ep, r4(rl / nb, 7)))
        scal["loss"]["val"].append((ep, r4(vl, 7)))
        scal["accuracy"]["train"].append((ep, r4(ra / nb, 7)))
        scal["accuracy"]["val"].append((ep, r4(va, 7)))
        con("epoch %3d  train_loss %.5f  train_acc %.4f  val_loss %.5f  val_acc %.4f" % (ep, rl / nb, ra / nb, vl, va), ts)
        rows.append((ep, rl / nb, ra / nb, vl, va))
    assert crash is not None, "run09: expected non-finite loss"
    ts = clk.tick(0.6)
    tb = ["Traceback (most recent call last):",
          "  File \"/home/wenjie/defect-emb/train_bce.py\", line 52, in <module>",
          "    raise FloatingPointError(f\"non-finite loss {loss.item()} at epoch {epoch} iteration {it}\")",
          "FloatingPointError: non-finite loss %s at epoch %d iteration %d" % (crash[2], crash[0], crash[1])]
    for line in tb:
        con(line, ts)
    T.clearml_scalars_csv(os.path.join(rd(run), "scalars"), scal)
    T.write_text(os.path.join(rd(run), "console_log.txt"), "\n".join(console) + "\n")
    export = {
        "id": task_id, "name": "mlp-bce-pw1", "type": "training", "status": "failed",
        "status_reason": "Script exited with error", "status_message": "",
        "comment": "Auto-generated at %s UTC by wenjie@dl-box-1" % T.hms(t0, frac=False),
        "project": {"name": "defects/embedding-clf"}, "tags": [], "system_tags": [],
        "created": T.iso(t0), "started": T.iso(t0 + 1), "completed": T.iso(ts), "last_iteration": it,
        "script": {"repository": "git@gitlab.internal:qa/defect-emb.git", "branch": "bce-weighting",
                   "version_num": "41c7a9e2f0b3d5c8e6a1b4f7d2c9e0a3b5f8d1c6", "entry_point": "train_bce.py",
                   "working_dir": ".", "binary": "python3.10", "diff": "",
                   "requirements": {"pip": "clearml==1.16.2\nnumpy==1.26.4\ntorch==2.3.1\n"}},
        "hyperparams": {"Args": {k: T.clearml_hparam("Args", k, v, type(v).__name__) for k, v in a.items()}},
        "configuration": {}, "execution": {"queue": None, "artifacts": [], "parameters": {}, "model_desc": {}},
        "output": {"destination": None, "error": "FloatingPointError: non-finite loss %s at epoch %d iteration %d"
                   % (crash[2], crash[0], crash[1]), "result": None},
        "runtime": {"progress": "%d" % int(100 * crash[0] / a["epochs"])},
    }
    T.write_json(os.path.join(rd(run), "clearml_task_export.json"), export)
    T.write_text(os.path.join(rd(run), "train_bce.py"), user_code("run09_train.py"))
    TRUTH[run] = dict(
        truth="numerical_instability",
        symptom="Training crashes with a non-finite loss in epoch %d after running fine; I checked and there are "
                "no NaNs in my features. Could a corrupted sample still be getting in?" % crash[0],
        how="The BCE is hand-written as -(y*log(sigmoid(z)) + (1-y)*log(1-sigmoid(z))) instead of "
            "BCEWithLogitsLoss: once a logit reaches %.1f, sigmoid rounds to exactly 1.0 in fp32, log(0) = -inf and "
            "0*-inf = NaN at epoch %d iteration %d; train loss was a healthy %.3f and val acc %.3f just before."
            % (crash[3], crash[0], crash[1], rows[-1][1], rows[-1][4]))
    CHECKS[run] = dict(crash=crash, rows=[tuple(round(x, 4) for x in r) for r in rows])


# ============================================================== run10
def run10():
    """Aim CSV, thin; SGD lr far too high: loss falls, then rises/oscillates with grad-norm spikes."""
    run = "run10"
    xtr, ytr, xva, yva = mix(5000, 6, 24, 0.6, seed=1010, n_val=1000)
    torch.manual_seed(10)
    model = mlp(24, 256, 6)
    opt = torch.optim.SGD(model.parameters(), lr=1.3, momentum=0.9)
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=256, shuffle=True,
                                     generator=torch.Generator().manual_seed(10))
    clk = T.Clock(1722500000.0, 10)
    loss_pts, gn_pts, va_pts = [], [], []
    step = 0
    for ep in range(10):
        for xb, yb in dl:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
            opt.step()
            ts = clk.tick(0.03)
            if step % 5 == 0:
                loss_pts.append((step, r4(loss.item(), 7), ep, ts))
                gn_pts.append((step, r4(gn, 6), ep, ts))
            step += 1
        vl, va = evaluate(model, xva, yva)
        va_pts.append((step, r4(va, 6), ep, clk.tick(0.3)))
    lv = [v for _, v, _, _ in loss_pts]
    gv = [v for _, v, _, _ in gn_pts]
    low = min(range(12), key=lambda i: lv[i])
    sel = sorted({0, 1, 4, low, 16, 25, 29, 36, len(lv) - 1})
    lines = "\n".join("%4d  %.4f  %.3f" % (loss_pts[i][0], lv[i], gv[i]) for i in sel)
    T.write_text(os.path.join(rd(run), "note.md"),
                 "Aim run `b07e41c9` (experiment tab6-sweep), params: optimizer=sgd lr=1.3 momentum=0.9 "
                 "batch_size=256 hidden=256 epochs=10. Pasted from the metrics table (train loss / grad_norm):\n\n"
                 "```\nstep  loss    grad_norm\n%s\nval accuracy by epoch: %s\n```\n\n"
                 "Loss goes down nicely for the first ~%d steps and then goes back up and bounces around, and val "
                 "accuracy peaks in epoch 2 and then falls apart. Why?\n"
                 % (lines, " ".join("%.3f" % p[1] for p in va_pts), 5 * low))
    TRUTH[run] = dict(
        truth="lr_too_high",
        symptom="Loss goes down nicely for the first few dozen steps and then goes back up and bounces around, "
                "and val accuracy peaks in epoch 2 and then falls apart. Why?",
        how="SGD with lr=1.3 and momentum 0.9 on an MLP: loss falls from %.2f to %.2f, then rises to %.2f with "
            "grad-norm spikes up to %.1f and ends near chance (ln 6 = 1.79); val accuracy erratic."
            % (lv[0], lv[low], max(lv[low:]), max(gv)))
    CHECKS[run] = dict(loss=[round(v, 3) for v in lv[:40]], va=[p[1] for p in va_pts],
                       gn=[round(v, 2) for _, v, _, _ in gn_pts[:40]])


# ============================================================== run11
def run11():
    """Guild; resume restores weights only: optimizer/scheduler state lost -> lr back to 0.1 at resume."""
    run = "run11"
    rng = random.Random(1111)
    fl = dict(epochs=24, batch_size=200, lr=0.1, momentum=0.9, weight_decay=5e-4, lr_step=8, ckpt_every=5,
              resume="", seed=5)
    xtr, ytr, xva, yva = mix(12000, 6, 32, 0.5, seed=1111, n_val=1500)
    torch.manual_seed(fl["seed"])
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=fl["batch_size"],
                                     shuffle=True)

    def make_opt(m):
        o = torch.optim.SGD(m.parameters(), lr=fl["lr"], momentum=fl["momentum"], weight_decay=fl["weight_decay"])
        return o, torch.optim.lr_scheduler.StepLR(o, step_size=fl["lr_step"], gamma=0.1)

    model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 6))
    opt, sch = make_opt(model)
    ckpts = {}
    rows = []

    def epoch_run(epoch, out):
        tot, n = 0.0, 0
        for xb, yb in dl:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(xb)
            n += len(xb)
        lr = opt.param_groups[0]["lr"]
        sch.step()
        vl, va = evaluate(model, xva, yva)
        out.append("epoch: %d\nlr: %.6f\ntrain_loss: %.4f\nval_loss: %.4f\nval_acc: %.4f\n" % (epoch, lr, tot / n, vl, va))
        rows.append((epoch, lr, tot / n, vl, va))
        if epoch % fl["ckpt_every"] == 0:
            ckpts[epoch] = {k: v.clone() for k, v in model.state_dict().items()}
            out.append("saved checkpoints/epoch_%03d.pt\n" % epoch)

    # first run: preempted during epoch 12
    clk = T.Clock(1723100000.0 + 3600 * 2, 11)
    s1 = clk.t
    out1 = []
    for epoch in range(1, 12):
        epoch_run(epoch, out1)
        clk.tick(3.1)
    out1.append("Terminated\n")
    e1 = clk.tick(2.0)
    id1 = T.hexid(rng)
    # second run: --resume checkpoints/epoch_010.pt
    model.load_state_dict(ckpts[10])
    opt, sch = make_opt(model)
    rows_before = list(rows)
    s2 = clk.tick(420.0)
    id2 = T.hexid(rng)
    resume_path = "/home/mkhan/.guild/runs/%s/checkpoints/epoch_010.pt" % id1
    out2 = ["resumed weights from %s (epoch 10)\n" % resume_path]
    for epoch in range(11, fl["epochs"] + 1):
        epoch_run(epoch, out2)
        clk.tick(3.1)
    e2 = clk.tick(1.0)
    base_cmd = ["/home/mkhan/.venvs/gb/bin/python", "-um", "guild.op_main", "train"]
    for rid, s, e, out, status, resume, label in (
            (id1, s1, e1, out1, -15, "", "sgd step8 baseline"),
            (id2, s2, e2, out2, 0, resume_path, "sgd step8 baseline (resume e10)")):
        f = dict(fl)
        f["resume"] = resume
        T.guild_run(os.path.join(rd(run), "guild_runs", rid), run_id=rid, opref="e4b9a3c2d1f04e87",
                    op_name="gearbox:train", flags=f,
                    cmd=base_cmd + sum([["--%s" % k, str(v)] for k, v in f.items() if v != ""], []),
                    started_us=int(s * 1e6), stopped_us=int(e * 1e6), exit_status=status, output="".join(out),
                    label=label, sourcecode={"train.py": user_code("run11_train.py")})
    r10 = [r for r in rows_before if r[0] == 10][0]
    r11b = [r for r in rows if r[0] == 11][-1]
    worst = min(r[4] for r in rows[len(rows_before):])
    T.write_text(os.path.join(rd(run), "note.md"),
                 "Two guild runs: `%s` got preempted in epoch 12 (exit -15), `%s` is the same op restarted with "
                 "`resume=.../epoch_010.pt`. Before the preemption val_acc was %.3f; after resuming, train loss went "
                 "back up and val_acc dropped as low as %.3f. Is that checkpoint corrupted?\n"
                 % (id1[:8], id2[:8], r10[4], worst))
    TRUTH[run] = dict(
        truth="resume_mismatch",
        symptom="After the job was preempted and I resumed from the epoch-10 checkpoint, train loss went back up "
                "and val accuracy dropped; is the checkpoint corrupted?",
        how="The checkpoint stores model, optimizer, scheduler and epoch, but --resume only loads the model "
            "weights; a fresh SGD (no momentum buffer) and a fresh StepLR restart at lr 0.1 instead of 0.01, so "
            "at the resumed epoch 11 lr jumps %.3g -> %.3g, train loss %.3f -> %.3f and val acc %.3f -> %.3f."
            % (r10[1], r11b[1], r10[2], r11b[2], r10[4], r11b[4]))
    CHECKS[run] = dict(rows=[(e, "%.3g" % lr, round(tl, 4), round(vl, 4), round(va, 4)) for e, lr, tl, vl, va in rows])


# ============================================================== run12
def run12():
    """Neptune export; healthy run with linear warm-up + cosine decay, user asks about the lr curve."""
    run = "run12"
    xtr, ytr, xva, yva = mix(6000, 8, 40, 0.9, seed=1212, n_val=1500)
    torch.manual_seed(12)
    model = mlp(40, 192, 8)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
    epochs, bs, warm = 16, 64, 300
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=bs, shuffle=True,
                                     generator=torch.Generator().manual_seed(12))
    total = epochs * len(dl)

    def lam(s):
        if s < warm:
            return (s + 1) / warm
        return 0.5 * (1 + math.cos(math.pi * (s - warm) / (total - warm)))

    sch = torch.optim.lr_scheduler.LambdaLR(opt, lam)
    clk = T.Clock(1723900000.0 + 3600 * 13, 12)
    t0 = clk.t
    ser = {"train/loss": [], "train/lr": [], "val/loss": [], "val/acc": []}
    step, rows = 0, []
    for ep in range(epochs):
        for xb, yb in dl:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            lr = opt.param_groups[0]["lr"]
            opt.step()
            sch.step()
            ts = clk.tick(0.02)
            if step % 10 == 0:
                ser["train/loss"].append((step, r4(loss.item(), 7), ts))
                ser["train/lr"].append((step, r4(lr, 7), ts))
            step += 1
        vl, va = evaluate(model, xva, yva)
        ts = clk.tick(0.5)
        ser["val/loss"].append((ep, r4(vl, 7), ts))
        ser["val/acc"].append((ep, r4(va, 7), ts))
        rows.append((ep + 1, vl, va))
    t1 = clk.tick(1)
    attrs = {
        "sys/id": "VIBCLS-131", "sys/name": "mlp192-adamw-cosine", "sys/owner": "a.novak",
        "sys/creation_time": T.iso(t0 - 2), "sys/modification_time": T.iso(t1), "sys/ping_time": T.iso(t1),
        "sys/running_time": round(t1 - t0, 3), "sys/state": "Inactive", "sys/failed": False,
        "sys/tags": ["cosine", "mlp"], "sys/hostname": "ws-anovak",
        "parameters/model/hidden": 192, "parameters/model/depth": 2,
        "parameters/optim/name": "AdamW", "parameters/optim/lr": 0.002, "parameters/optim/weight_decay": 0.01,
        "parameters/sched/name": "warmup_cosine", "parameters/sched/warmup_steps": warm,
        "parameters/sched/total_steps": total, "parameters/batch_size": bs, "parameters/epochs": epochs,
        "parameters/data/train_size": 6000, "parameters/data/val_size": 1500,
    }
    T.neptune_export(os.path.join(rd(run), "neptune_export", "VIBCLS-131"), attributes=attrs, series=ser)
    T.write_text(os.path.join(rd(run), "note.md"),
                 "Exported run VIBCLS-131. I set lr=2e-3 but the logged lr starts near zero, climbs for a few hundred "
                 "steps and then decays all the way to ~0 by the end. Is the scheduler broken? Final val acc is "
                 "%.1f%%.\n" % (100 * rows[-1][2]))
    TRUTH[run] = dict(
        truth="healthy",
        symptom="I set lr=2e-3 but the logged lr climbs for the first few hundred steps and then decays to ~0 by "
                "the end - is my scheduler broken?",
        how="Nothing planted: the lr curve is exactly the configured 300-step linear warm-up followed by cosine "
            "decay to 0 over %d steps; loss falls smoothly and val accuracy ends at %.3f." % (total, rows[-1][2]))
    CHECKS[run] = dict(rows=[tuple(round(x, 4) for x in r) for r in rows[::3] + rows[-1:]])


def main():
    t0 = time.time()
    if os.path.isdir(RUNS):
        shutil.rmtree(RUNS)
    os.makedirs(RUNS)
    timings = {}
    for fn in (run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12):
        t = time.time()
        fn()
        timings[fn.__name__] = round(time.time() - t, 1)
        print("%s done in %.1fs" % (fn.__name__, timings[fn.__name__]), flush=True)
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(dict(sorted(TRUTH.items())), f, indent=2)
        f.write("\n")
    if "--checks" in sys.argv:
        for k, v in CHECKS.items():
            print(k, json.dumps(v, default=str))
    print("total %.1fs" % (time.time() - t0))


if __name__ == "__main__":
    main()
