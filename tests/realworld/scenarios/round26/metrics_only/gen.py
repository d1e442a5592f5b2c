#!/usr/bin/env python3
"""Builds runs/run01..run12 and truth.json.

Every run really trains a small torch model on CPU (synthetic numpy/torch data) with one planted fault
or none, and writes only the metric files its logger would have written. Seeded; one thread.
Usage: .venv/bin/python gen.py
"""
import json, math, os, shutil, sys, time, copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))
from writers import (Clock, LightningCSV, keras_csv, tb_export, jsonl, wandb_history_csv,
                     hf_trainer_state, iso, f32)

torch.set_num_threads(1)
RUNS = os.path.join(HERE, "runs")
TRUTH = {}


def seed_all(s):
    torch.manual_seed(s)
    np.random.seed(s)


def clusters(seed, n, k, d, spread, noise=1.0):
    """Gaussian class clusters; returns float32 X, int64 y."""
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(k, d, generator=g) * spread
    y = torch.randint(0, k, (n,), generator=g)
    x = centres[y] + noise * torch.randn(n, d, generator=g)
    return x, y, centres


def mlp(sizes, act=nn.ReLU, norm=None, dropout=0.0, final_softmax=False):
    layers = []
    for i in range(len(sizes) - 2):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if norm is not None:
            layers.append(norm(sizes[i + 1]))
        layers.append(act())
        if dropout:
            layers.append(nn.Dropout(dropout))
    layers.append(nn.Linear(sizes[-2], sizes[-1]))
    if final_softmax:
        layers.append(nn.Softmax(dim=-1))
    return nn.Sequential(*layers)


def evaluate(model, x, y, bs=256, loss_fn=F.cross_entropy):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for i in range(0, len(x), bs):
            out = model(x[i:i + bs])
            tot += loss_fn(out, y[i:i + bs]).item() * len(out)
            correct += (out.argmax(1) == y[i:i + bs]).sum().item()
            n += len(out)
    model.train()
    return tot / n, correct / n


def rundir(name):
    p = os.path.join(RUNS, name)
    os.makedirs(p, exist_ok=True)
    return p


def record(name, truth, symptom, how):
    TRUTH[name] = {"truth": truth, "symptom": symptom, "how": how}


# --------------------------------------------------------------------------------------------
# run01: BatchNorm MLP trained with batch size 4 (Lightning CSVLogger)
def run01():
    seed_all(101)
    x, y, _ = clusters(1, 3600, 6, 20, 0.9)
    xt, yt, xv, yv = x[:3000], y[:3000], x[3000:], y[3000:]
    hp = {"in_dim": 20, "hidden_dim": 128, "num_classes": 6, "norm": "batch", "lr": 0.05, "momentum": 0.9,
          "batch_size": 4, "max_epochs": 8}
    model = mlp([20, 128, 128, 6], norm=nn.BatchNorm1d)
    opt = torch.optim.SGD(model.parameters(), lr=hp["lr"], momentum=hp["momentum"])
    log = LightningCSV(os.path.join(rundir("run01"), "lightning_logs", "version_0"))
    step = 0
    for ep in range(hp["max_epochs"]):
        perm = torch.randperm(len(xt))
        losses = []
        for i in range(0, len(xt), hp["batch_size"]):
            idx = perm[i:i + hp["batch_size"]]
            loss = F.cross_entropy(model(xt[idx]), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if (step + 1) % 25 == 0:
                log.log(step, epoch=ep, train_loss_step=loss.item())
            step += 1
        vl, va = evaluate(model, xv, yv)
        log.log(step - 1, epoch=ep, val_loss=vl, val_acc=va)
        log.log(step - 1, epoch=ep, train_loss_epoch=float(np.mean(losses)))
    log.save(hp)
    record("run01", "batch_size_too_small",
           "Training loss is extremely noisy from one logged step to the next and val accuracy moves around a lot "
           "between epochs. Is this normal?",
           "A BatchNorm MLP is trained with batch_size 4 (hparams.yaml): per-step train loss swings between ~0 and "
           ">2 throughout, the epoch train loss sits far above the eval-mode val loss, and val acc jumps between epochs.")


# --------------------------------------------------------------------------------------------
# run02: healthy Keras-style run with dropout (val_loss below loss early)
def run02():
    seed_all(202)
    x, y, _ = clusters(2, 5000, 3, 16, 0.55)
    xt, yt, xv, yv = x[:4000], y[:4000], x[4000:], y[4000:]
    model = mlp([16, 64, 64, 3], dropout=0.3)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    rows = []
    for ep in range(25):
        perm = torch.randperm(len(xt))
        ls, acs = [], []
        for i in range(0, len(xt), 32):
            idx = perm[i:i + 32]
            out = model(xt[idx])
            loss = F.cross_entropy(out, yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            ls.append(loss.item())
            acs.append((out.argmax(1) == yt[idx]).float().mean().item())
        vl, va = evaluate(model, xv, yv)
        rows.append({"epoch": ep, "loss": np.mean(ls), "accuracy": np.mean(acs), "val_loss": vl, "val_accuracy": va})
    keras_csv(os.path.join(rundir("run02"), "history.csv"), rows)
    record("run02", "healthy",
           "My val_loss is lower than my training loss for almost every epoch. Did I leak validation data into "
           "training, or is this run OK?",
           "No fault: an MLP with dropout 0.3 on overlapping classes; train loss/accuracy are dropout-on running "
           "means so val_loss sits a little below loss, val_accuracy plateaus near the Bayes limit (~0.85), no rise.")


# --------------------------------------------------------------------------------------------
def hf_like_train(model, loss_fn, xt, yt, xv, yv, epochs, bs, lr, warmup_ratio, logging_steps, clock):
    """A Hugging Face Trainer-like loop (AdamW, linear warm-up/decay, clip 1.0, eval each epoch)."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    spe = math.ceil(len(xt) / bs)
    max_steps = spe * epochs
    warm = int(math.ceil(warmup_ratio * max_steps))

    def lam(s):
        if s < warm:
            return s / max(1, warm)
        return max(0.0, (max_steps - s) / max(1, max_steps - warm))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lam)
    hist, window, all_losses = [], [], []
    step = 0
    t_start = clock.elapsed()
    for ep in range(epochs):
        perm = torch.randperm(len(xt))
        model.train()
        for i in range(0, len(xt), bs):
            idx = perm[i:i + bs]
            loss = loss_fn(model(xt[idx]), yt[idx])
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            window.append(loss.item())
            all_losses.append(loss.item())
            if step % logging_steps == 0:
                hist.append({"epoch": step / spe, "grad_norm": float(gn.item()),
                             "learning_rate": float(sched.get_last_lr()[0]),
                             "loss": round(float(np.mean(window)), 4), "step": step})
                window = []
        t0 = time.perf_counter()
        model.eval()
        with torch.no_grad():
            tot, corr, nb = 0.0, 0, 0
            for j in range(0, len(xv), 64):
                out = model(xv[j:j + 64])
                tot += loss_fn(out, yv[j:j + 64]).item()
                corr += (out.argmax(1) == yv[j:j + 64]).sum().item()
                nb += 1
        rt = time.perf_counter() - t0
        hist.append({"epoch": float(ep + 1), "eval_accuracy": corr / len(xv), "eval_loss": tot / nb,
                     "eval_runtime": round(rt, 4), "eval_samples_per_second": round(len(xv) / rt, 3),
                     "eval_steps_per_second": round(nb / rt, 3), "step": step})
    rt = clock.elapsed() - t_start
    hist.append({"epoch": float(epochs), "step": step, "total_flos": 0.0, "train_loss": float(np.mean(all_losses)),
                 "train_runtime": round(rt, 4), "train_samples_per_second": round(len(xt) * epochs / rt, 3),
                 "train_steps_per_second": round(step / rt, 3)})
    return hist, step, max_steps


# run03: softmax inside the model before CrossEntropyLoss (HF trainer_state.json)
def run03():
    seed_all(303)
    x, y, _ = clusters(3, 9000, 10, 32, 0.8)
    xt, yt, xv, yv = x[:8000], y[:8000], x[8000:], y[8000:]
    model = mlp([32, 128, 10], final_softmax=True)
    clock = Clock(1731400000)
    hist, step, max_steps = hf_like_train(model, F.cross_entropy, xt, yt, xv, yv, epochs=5, bs=32, lr=5e-4,
                                          warmup_ratio=0.0, logging_steps=50, clock=clock)
    hf_trainer_state(os.path.join(rundir("run03"), "trainer_state.json"), hist, step, max_steps, 5, 32, 50)
    record("run03", "double_softmax",
           "Eval accuracy is 99% but the training loss won't go below ~1.49 no matter how long I train. Is my model "
           "too small?",
           "The model ends in nn.Softmax and its probabilities go into cross_entropy: with 10 classes the loss cannot "
           "go below ln(e+9)-1 = 1.46, so train/eval loss floor at ~1.49 while eval_accuracy is ~0.99.")


# --------------------------------------------------------------------------------------------
# run04: class-sorted data, DataLoader without shuffle (JSONL per step)
def run04():
    seed_all(404)
    k = 5
    x, y, _ = clusters(4, 2500, k, 16, 0.7)
    xt, yt, xv, yv = x[:2000], y[:2000], x[2000:], y[2000:]
    order = torch.argsort(yt, stable=True)       # the export is grouped by class
    xt, yt = xt[order], yt[order]
    model = mlp([16, 64, 64, k])
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    clock = Clock(1730800000)
    recs = []
    step = 0
    for ep in range(8):
        for i in range(0, len(xt), 25):
            loss = F.cross_entropy(model(xt[i:i + 25]), yt[i:i + 25])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            recs.append({"ts": round(clock.now(), 3), "epoch": ep, "step": step, "loss": round(loss.item(), 5),
                         "lr": 0.05})
        vl, va = evaluate(model, xv, yv)
        recs.append({"ts": round(clock.now(), 3), "epoch": ep, "step": step, "val_loss": round(vl, 5),
                     "val_acc": round(va, 4)})
    jsonl(os.path.join(rundir("run04"), "metrics.jsonl"), recs)
    record("run04", "data_not_shuffled",
           "The per-step loss makes the same odd up-and-down pattern every epoch and val accuracy never gets much "
           "above chance. What's going on?",
           "Training rows are sorted by class and iterated in order: loss spikes at each of the 4 class boundaries "
           "(every 16 steps) with an identical 80-step pattern per epoch; val_acc stays near 0.2-0.4.")


# --------------------------------------------------------------------------------------------
# run05: fp16 autocast + GradScaler, outputs leave the fp16 range (TensorBoard CSV exports)
def run05():
    folder = rundir("run05")
    g = torch.Generator().manual_seed(5)
    x = torch.randn(4096, 16, generator=g)
    w = torch.randn(16, generator=g)
    y = 45000 + 18000 * (x @ w / 4) + 3000 * torch.randn(4096, generator=g)
    for amp, run, base in [(True, "precision16", 1732100000), (False, "precision32", 1732103600)]:
        seed_all(505)
        model = mlp([16, 64, 64, 1])
        opt = torch.optim.Adam(model.parameters(), lr=3e-3)
        scaler = torch.amp.GradScaler("cpu", enabled=amp)
        clock = Clock(base)
        pts_loss, pts_scale = [], []
        step = 0
        for ep in range(12):
            perm = torch.randperm(len(x))
            for i in range(0, len(x), 64):
                idx = perm[i:i + 64]
                with torch.autocast("cpu", dtype=torch.float16, enabled=amp):
                    out = model(x[idx]).squeeze(-1)
                    loss = F.mse_loss(out, y[idx])
                opt.zero_grad()
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
                step += 1
                if step % 5 == 0:
                    pts_loss.append((clock.now(), step, loss.item()))
                    if amp:
                        pts_scale.append((clock.now(), step, scaler.get_scale()))
        tb_export(os.path.join(folder, f"run-{run}-tag-train_loss.csv"), pts_loss)
        if amp:
            first_bad = next(st for _, st, v in pts_loss if not math.isfinite(v))
            last_ok = max(st for _, st, v in pts_loss if math.isfinite(v))
            tb_export(os.path.join(folder, f"run-{run}-tag-train_grad_scale.csv"), pts_scale)
    record("run05", "mixed_precision_overflow",
           f"Loss starts showing inf around step {first_bad // 10 * 10} and after step {last_ok // 10 * 10} it is nan "
           "for good. What happened?",
           "Regression to raw-unit targets (~45k, up to ~88k) under fp16 autocast: once predictions approach the fp16 "
           "max (65504) the output overflows, GradScaler skips every step and the scale halves to 0; the fp32 run "
           "of the same seed keeps converging.")


# --------------------------------------------------------------------------------------------
# run06: 35 % of labels replaced at random (Keras CSVLogger)
def run06():
    seed_all(606)
    x, y, _ = clusters(6, 6000, 5, 20, 1.0)
    g = torch.Generator().manual_seed(66)
    flip = torch.rand(len(y), generator=g) < 0.35
    y = torch.where(flip, torch.randint(0, 5, (len(y),), generator=g), y)
    xt, yt, xv, yv = x[:5000], y[:5000], x[5000:], y[5000:]
    model = mlp([20, 96, 96, 5])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    rows = []
    for ep in range(45):
        perm = torch.randperm(len(xt))
        ls, acs = [], []
        for i in range(0, len(xt), 64):
            idx = perm[i:i + 64]
            out = model(xt[idx])
            loss = F.cross_entropy(out, yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            ls.append(loss.item())
            acs.append((out.argmax(1) == yt[idx]).float().mean().item())
        vl, va = evaluate(model, xv, yv)
        rows.append({"epoch": ep, "loss": np.mean(ls), "accuracy": np.mean(acs), "val_loss": vl, "val_accuracy": va})
    keras_csv(os.path.join(rundir("run06"), "training_log.csv"), rows)
    record("run06", "label_noise",
           "Training accuracy sits at ~72% for 25+ epochs before it slowly creeps up. I guess the learning rate is too "
           "low?",
           "35% of all labels (train and val) were replaced by random classes: train accuracy plateaus at ~0.72 "
           "(= 1-0.35*4/5) with loss floored near 0.96, then falls late as the MLP memorises; val_accuracy capped at ~0.74, sliding to 0.68 as it memorises.")


# --------------------------------------------------------------------------------------------
# run07: resumed from a checkpoint with weights + step only; fresh AdamW and scheduler (JSONL)
def run07():
    seed_all(707)
    g = torch.Generator().manual_seed(7)
    d, k = 24, 8
    wmat = torch.randn(d, k, generator=g)

    def make(n):
        xx = torch.randn(n, d, generator=g)
        return xx, ((xx @ wmat) + 0.5 * torch.randn(n, k, generator=g)).argmax(1)

    xt, yt = make(8000)
    xv, yv = make(1000)
    cfg = {"lr": 0.002, "warmup_steps": 150, "total_steps": 2500, "batch_size": 64, "optimizer": "adamw",
           "weight_decay": 0.01, "eval_every": 250}
    total, warm, peak = cfg["total_steps"], cfg["warmup_steps"], cfg["lr"]

    def lr_lambda(s):
        if s < warm:
            return s / warm
        return 0.5 * (1 + math.cos(math.pi * (s - warm) / (total - warm)))

    def build():
        torch.manual_seed(7070)
        m = mlp([d, 256, 256, k], act=nn.GELU)
        o = torch.optim.AdamW(m.parameters(), lr=peak, weight_decay=cfg["weight_decay"])
        return m, o, torch.optim.lr_scheduler.LambdaLR(o, lr_lambda)

    model, opt, sched = build()
    clock = Clock(1733050000)
    recs = [{"type": "config", "time": iso(clock.now()), **cfg, "resume": None}]
    step, resume_at = 0, 1750
    while step < total:
        perm = torch.randperm(len(xt))
        for i in range(0, len(xt), 64):
            if step == resume_at:
                ckpt = {"model": copy.deepcopy(model.state_dict()), "step": step}
                # the job is pre-empted here; a new process starts from the checkpoint
                clock = Clock(clock.now() + 2710.0)
                model, opt, sched = build()
                model.load_state_dict(ckpt["model"])
                step = ckpt["step"]
                recs.append({"type": "config", "time": iso(clock.now()), **cfg,
                             "resume": f"checkpoints/step_{step}.pt"})
            idx = perm[i:i + 64]
            loss = F.cross_entropy(model(xt[idx]), yt[idx])
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            lr_used = opt.param_groups[0]["lr"]
            opt.step()
            sched.step()
            step += 1
            if step % 10 == 0:
                recs.append({"type": "train", "step": step, "loss": round(loss.item(), 4), "lr": float("%.4e" % lr_used),
                             "grad_norm": round(gn.item(), 3), "elapsed_s": round(clock.elapsed(), 1)})
            if step % cfg["eval_every"] == 0:
                vl, va = evaluate(model, xv, yv)
                recs.append({"type": "eval", "step": step, "val_loss": round(vl, 4), "val_acc": round(va, 4),
                             "elapsed_s": round(clock.elapsed(), 1)})
            if step >= total:
                break
    jsonl(os.path.join(rundir("run07"), "train_log.jsonl"), recs)
    record("run07", "resume_mismatch",
           "The job got pre-empted and I restarted it from the step-1750 checkpoint; after that the loss went back up "
           "and the final val accuracy is worse than before the restart. Was the checkpoint corrupted?",
           "On resume only the model weights and step were restored; AdamW and the warm-up/cosine scheduler start "
           "fresh, so lr drops to 0 and re-warms to the 2e-3 peak from step 1751 (elapsed_s resets), and train/val "
           "loss rise after the resume.")


# --------------------------------------------------------------------------------------------
# run08: 10 sigmoid layers, plain SGD (wandb history export with per-layer grad norms)
def run08():
    seed_all(808)
    x, y, _ = clusters(8, 7000, 10, 32, 1.2)
    xt, yt, xv, yv = x[:6000], y[:6000], x[6000:], y[6000:]
    model = mlp([32] + [128] * 10 + [10], act=nn.Sigmoid)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    named = [("net." + n, p) for n, p in model.named_parameters() if n.endswith("weight")]
    clock = Clock(1731900000)
    rows = []
    step = 0
    for ep in range(10):
        perm = torch.randperm(len(xt))
        for i in range(0, len(xt), 64):
            idx = perm[i:i + 64]
            out = model(xt[idx])
            loss = F.cross_entropy(out, yt[idx])
            opt.zero_grad()
            loss.backward()
            if step % 50 == 0:
                r = {"_step": step, "_runtime": clock.elapsed(), "_timestamp": clock.now(), "epoch": ep,
                     "train/loss": loss.item(), "train/acc": (out.argmax(1) == yt[idx]).float().mean().item()}
                for n, p in named:
                    r["grad_norm/" + n] = p.grad.norm().item()
                rows.append(r)
            opt.step()
            step += 1
        vl, va = evaluate(model, xv, yv)
        rows.append({"_step": step, "_runtime": clock.elapsed(), "_timestamp": clock.now(), "epoch": ep,
                     "val/loss": vl, "val/acc": va})
    wandb_history_csv(os.path.join(rundir("run08"), "wandb_export_history.csv"), rows)
    record("run08", "vanishing_gradients",
           "Loss sits at 2.30 the whole run and accuracy is ~10%. I think my labels got shuffled relative to the inputs.",
           "A 10-hidden-layer sigmoid MLP (default init, SGD): per-layer weight-grad norms fall ~7x per layer toward "
           "the input (0.1-0.6 at the head, ~5e-9 at net.0), so loss stays at ln 10 and val/acc at ~0.1.")


# --------------------------------------------------------------------------------------------
# run09: healthy HF-style run
def run09():
    seed_all(909)
    x, y, _ = clusters(9, 7000, 4, 24, 0.5)
    xt, yt, xv, yv = x[:6000], y[:6000], x[6000:], y[6000:]
    model = mlp([24, 128, 128, 4])
    clock = Clock(1732700000)
    hist, step, max_steps = hf_like_train(model, F.cross_entropy, xt, yt, xv, yv, epochs=3, bs=16, lr=5e-4,
                                          warmup_ratio=0.1, logging_steps=25, clock=clock)
    hf_trainer_state(os.path.join(rundir("run09"), "trainer_state.json"), hist, step, max_steps, 3, 16, 25)
    record("run09", "healthy",
           "Eval accuracy hardly moved in the last epoch. Is this run fine to ship or did something break?",
           "No fault: an MLP with warm-up + linear decay; train loss falls smoothly to the noise floor, eval loss and "
           "accuracy converge in epoch 1 (~0.85) and stay flat (the classes overlap), grad norms stay moderate.")


# --------------------------------------------------------------------------------------------
# run10: a feature derived from the target is left in the inputs (plain printed table)
def run10():
    seed_all(1010)
    x, y, _ = clusters(10, 6000, 4, 12, 0.35)
    g = torch.Generator().manual_seed(1011)
    derived = y.float().unsqueeze(1) * 4 + 0.1 * torch.randn(len(y), 1, generator=g)
    x = torch.cat([x, derived], 1)
    xt, yt, xv, yv = x[:5000], y[:5000], x[5000:], y[5000:]
    model = mlp([13, 64, 64, 4], dropout=0.5)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    lines = ["epoch  loss    acc     val_loss  val_acc"]
    for ep in range(8):
        perm = torch.randperm(len(xt))
        ls, acs = [], []
        for i in range(0, len(xt), 32):
            idx = perm[i:i + 32]
            out = model(xt[idx])
            loss = F.cross_entropy(out, yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            ls.append(loss.item())
            acs.append((out.argmax(1) == yt[idx]).float().mean().item())
        vl, va = evaluate(model, xv, yv)
        lines.append(f"{ep + 1:<6d} {np.mean(ls):.4f}  {np.mean(acs):.4f}  {vl:.4f}    {va:.4f}")
    with open(os.path.join(rundir("run10"), "train_output.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    record("run10", "data_leakage",
           "Val accuracy is 93% after one epoch and 100% from epoch 7, always above train accuracy. Can that be right?",
           "One input column is 4*class id plus small noise (the target leaks into the features): val_acc 0.93 after "
           "epoch 1 and 1.000 later, above train acc all run; the other 12 features alone reach only ~0.58.")


# --------------------------------------------------------------------------------------------
# run11: one shard of a streamed tabular dataset has missing values read as NaN (CSV log)
def run11():
    seed_all(1111)
    g = torch.Generator().manual_seed(11)
    n_shards, shard = 10, 4096
    wtrue = torch.randn(10, generator=g)
    xs, ys = [], []
    for s in range(n_shards):
        xx = torch.randn(shard, 10, generator=g)
        yy = torch.tanh(xx @ wtrue / 3) * 2 + 0.3 * torch.randn(shard, generator=g)
        if s == 7:
            bad = torch.randperm(shard, generator=g)[:40]
            xx[bad, 3] = float("nan")      # empty cells in that shard's CSV
        perm = torch.randperm(shard, generator=g)
        xs.append(xx[perm])
        ys.append(yy[perm])
    x, y = torch.cat(xs), torch.cat(ys)
    model = mlp([10, 64, 64, 1])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    clock = Clock(1732300000)
    lines = ["iter,samples_seen,loss,grad_norm,lr,sec_per_iter"]
    win, t_last = [], clock.elapsed()
    bs = 32
    first_nan = None
    for it in range(len(x) // bs):
        xb, yb = x[it * bs:(it + 1) * bs], y[it * bs:(it + 1) * bs]
        loss = F.mse_loss(model(xb).squeeze(-1), yb)
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
        opt.step()
        win.append(loss.item())
        if first_nan is None and not math.isfinite(loss.item()):
            first_nan = it + 1
        if (it + 1) % 20 == 0:
            now = clock.elapsed()
            lines.append(f"{it + 1},{(it + 1) * bs},{np.mean(win):.5f},{gn.item():.4f},0.001,{(now - t_last) / 20:.4f}")
            win, t_last = [], now
    with open(os.path.join(rundir("run11"), "log.csv"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    record("run11", "nan_in_data",
           "The loss suddenly became nan at around iteration 900 and stayed nan for the rest of the run.",
           "40 rows of the 8th of 10 data shards have an empty (NaN) feature; loss is flat near 0.1 with steady "
           f"grad norms until the first such batch (shard starts at iter 897, NaN from iter {first_nan}), then "
           "loss and grad_norm are nan.")


# --------------------------------------------------------------------------------------------
# run12: StepLR meant per epoch, stepped per batch (Lightning CSVLogger + LearningRateMonitor)
def run12():
    seed_all(1212)
    x, y, _ = clusters(12, 3600, 8, 24, 0.45)
    xt, yt, xv, yv = x[:3000], y[:3000], x[3000:], y[3000:]
    hp = {"in_dim": 24, "hidden_dim": 128, "num_classes": 8, "lr": 0.05, "momentum": 0.9, "weight_decay": 0.0005,
          "lr_step_size": 30, "lr_gamma": 0.1, "batch_size": 64, "max_epochs": 90}
    model = mlp([24, 128, 128, 8])
    opt = torch.optim.SGD(model.parameters(), lr=hp["lr"], momentum=hp["momentum"], weight_decay=hp["weight_decay"])
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=hp["lr_step_size"], gamma=hp["lr_gamma"])
    log = LightningCSV(os.path.join(rundir("run12"), "lightning_logs", "version_2"))
    step = 0
    for ep in range(hp["max_epochs"]):
        perm = torch.randperm(len(xt))
        losses = []
        for i in range(0, len(xt), hp["batch_size"]):
            idx = perm[i:i + hp["batch_size"]]
            lr_now = opt.param_groups[0]["lr"]
            loss = F.cross_entropy(model(xt[idx]), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
            if (step + 1) % 10 == 0:
                log.log(step, **{"lr-SGD": lr_now})
                log.log(step, epoch=ep, train_loss_step=loss.item())
            step += 1
        vl, va = evaluate(model, xv, yv)
        log.log(step - 1, epoch=ep, val_loss=vl, val_acc=va)
        log.log(step - 1, epoch=ep, train_loss_epoch=float(np.mean(losses)))
    log.save(hp)
    record("run12", "lr_schedule_bug",
           "Val accuracy gets to 67% in the first epoch and then doesn't move at all for the remaining 89 epochs.",
           "StepLR(step_size=30, gamma=0.1) meant per epoch (hparams, 90 epochs) is stepped every batch: lr-SGD "
           "falls 10x every 30 steps (0.05 -> 5e-5 by step 90 of 47/epoch), so losses and val_acc (0.67) freeze "
           "from epoch 3 on.")


def main():
    t0 = time.perf_counter()
    if os.path.isdir(RUNS):
        shutil.rmtree(RUNS)
    os.makedirs(RUNS)
    for fn in [run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12]:
        t = time.perf_counter()
        fn()
        print(f"{fn.__name__}: {time.perf_counter() - t:.1f}s", flush=True)
    with open(os.path.join(HERE, "truth.json"), "w") as fh:
        json.dump(dict(sorted(TRUTH.items())), fh, indent=2)
        fh.write("\n")
    print(f"total {time.perf_counter() - t0:.1f}s")


if __name__ == "__main__":
    main()
