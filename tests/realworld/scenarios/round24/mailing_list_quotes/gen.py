#!/usr/bin/env python3
"""Generate 12 mailing-list style ML-debugging runs (runs/run01..run12) and truth.json.

Every number written into a run comes from a real (tiny, CPU) torch training run performed here.
Seeded; run with  .venv/bin/python gen.py
"""
import datetime as dt
import json
import os
import shutil
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))
from common import Thread, quote, teacher_data, wrap72  # noqa: E402
import runner  # noqa: E402

torch.set_num_threads(1)
RUNS = os.path.join(HERE, "runs")
TRUTH = {}


def tz(h):
    return dt.timezone(dt.timedelta(hours=h))


def rundir(name):
    d = os.path.join(RUNS, name)
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(d)
    return d


def write(d, name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")


def W(text):
    return wrap72(text.strip("\n"))


def mlp(sizes, act=nn.ReLU, drop=0.0):
    layers = []
    for a, b in zip(sizes[:-2], sizes[1:-1]):
        layers += [nn.Linear(a, b), act()]
        if drop:
            layers.append(nn.Dropout(drop))
    layers.append(nn.Linear(sizes[-2], sizes[-1]))
    return nn.Sequential(*layers)


def total_grad_norm(model):
    return float(torch.sqrt(sum((p.grad.detach() ** 2).sum() for p in model.parameters()
                                if p.grad is not None)))


def evaluate(model, X, y):
    model.eval()
    with torch.no_grad():
        out = model(X)
        loss = F.cross_entropy(out, y).item()
        acc = (out.argmax(1) == y).float().mean().item()
    model.train()
    return loss, acc


GG_FOOTER = """--
You received this message because you are subscribed to the Google Groups "{name}" group.
To unsubscribe from this group and stop receiving emails from it, send an email to {addr}+unsubscribe@googlegroups.com.
To post to this group, send email to {addr}@googlegroups.com."""

MAILMAN_FOOTER = """_______________________________________________
{name} mailing list
{addr}
https://{host}/mailman/listinfo/{name}"""


# =====================================================================================
# run01  lr_too_high  -- internal team email, train.log (long) + config.yaml
# =====================================================================================
def run01():
    d = rundir("run01")
    X, y = teacher_data(10000, 32, 6, 101)
    Xt, yt = torch.tensor(X[:8000]), torch.tensor(y[:8000])
    Xv, yv = torch.tensor(X[8000:]), torch.tensor(y[8000:])

    def train(lr, epochs, log):
        torch.manual_seed(0)
        m = mlp([32, 128, 128, 6])
        opt = torch.optim.SGD(m.parameters(), lr=lr, momentum=0.9, weight_decay=1e-5)
        g = torch.Generator().manual_seed(11)
        recs, evals, step, t0 = [], [], 0, time.time()
        for ep in range(epochs):
            perm = torch.randperm(len(Xt), generator=g)
            for i in range(0, len(Xt), 64):
                idx = perm[i:i + 64]
                opt.zero_grad()
                loss = F.cross_entropy(m(Xt[idx]), yt[idx])
                loss.backward()
                gn = total_grad_norm(m)
                opt.step()
                step += 1
                recs.append((step, ep, loss.item(), gn, time.time() - t0, idx))
            evals.append((ep, step) + evaluate(m, Xv, yv) + (time.time() - t0,))
        return recs, evals

    recs, evals = train(0.3, 12, True)
    base_recs, base_evals = train(0.05, 12, False)
    nsteps = recs[-1][0]
    # log
    start = dt.datetime(2023, 5, 16, 14, 2, 7)
    ts = lambda s: (start + dt.timedelta(seconds=s)).strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
    L = []
    L.append(f"{ts(0)} INFO  ranker.train: starting run ctr-ranker-v4 (git 3f9c2e1)")
    L.append(f"{ts(0)} INFO  ranker.train: config: configs/ranker_v4.yaml")
    L.append(f"{ts(0)} INFO  ranker.data: train shards: 16 (8000 rows), eval shards: 4 (2000 rows), features: 32, classes: 6")
    L.append(f"{ts(0)} INFO  ranker.model: MLP(32 -> 128 -> 128 -> 6), params: {sum(p.numel() for p in mlp([32,128,128,6]).parameters())}")
    L.append(f"{ts(0)} INFO  ranker.train: optimizer SGD(lr=0.3, momentum=0.9, weight_decay=1e-05), schedule=constant, warmup_steps=0")
    L.append(f"{ts(0)} INFO  ranker.train: epochs=12 batch_size=64 steps={nsteps}")
    win = []
    ev_by_ep = {e[0]: e for e in evals}
    for (step, ep, loss, gn, t, idx) in recs:
        win.append(loss)
        if step % 10 == 0:
            L.append(f"{ts(t)} INFO  ranker.train: epoch {ep:2d} step {step:5d}/{nsteps} loss {loss:.4f} "
                     f"avg10 {np.mean(win[-10:]):.4f} grad_norm {gn:.3f} lr 0.300000")
        if ep in ev_by_ep and step == ev_by_ep[ep][1]:
            e = ev_by_ep[ep]
            L.append(f"{ts(e[4])} INFO  ranker.eval: epoch {ep:2d} eval_loss {e[2]:.4f} eval_acc {e[3]:.4f}")
    L.append(f"{ts(recs[-1][4] + 0.4)} INFO  ranker.train: saved checkpoint to /mnt/models/ctr-ranker-v4/final.pt")
    L.append(f"{ts(recs[-1][4] + 0.4)} INFO  ranker.train: done in {recs[-1][4]:.1f}s")
    write(d, "train.log", "\n".join(L))
    write(d, "config.yaml", """# ranker v4 retrain on the May shards
# v4: same as v3 except data month and the optim block (synced with ranker-large)
run_name: ctr-ranker-v4
data:
  train_glob: /mnt/data/ctr/2023-05/train-*.npz
  eval_glob: /mnt/data/ctr/2023-05/eval-*.npz
  num_features: 32
  num_classes: 6
model:
  hidden: [128, 128]
  activation: relu
optim:
  name: sgd
  lr: 0.3
  momentum: 0.9
  weight_decay: 1.0e-5
  schedule: constant
  warmup_steps: 0
train:
  epochs: 12
  batch_size: 64
  log_every: 10
  seed: 11
""")
    # numbers for prose
    losses = np.array([r[2] for r in recs])
    avg = np.convolve(losses, np.ones(10) / 10, mode="valid")
    best_i = int(np.argmin(avg[:600]))
    best_step, best_avg = best_i + 10, avg[best_i]
    gns = np.array([r[3] for r in recs])
    spike_i = int(np.argmax(gns[:1000]))
    spike = recs[spike_i]
    # the batch at the spike step
    bx = Xt[spike[5]].numpy()
    final_eval = evals[-1]
    last_avg = float(np.mean(losses[-50:]))
    base_last = float(np.mean([r[2] for r in base_recs][-50:]))
    base_eval = base_evals[-1]

    th = Thread(listaddr="ml-ranking@corp.example.com")
    t0 = dt.datetime(2023, 5, 16, 16, 41, tzinfo=tz(2))
    body0 = W(f"""
Hi all,

The May retrain of the CTR ranker looks broken and I think it's the new shards. Loss goes down nicely for the first ~{best_step} steps (10-step avg gets to {best_avg:.3f}), then it starts bouncing and there is a big jump around step {spike[0]} (grad_norm {spike[3]:.2f} in that step), and after that it never really recovers. By the end the train loss is ~{last_avg:.2f} and eval acc is {final_eval[3]:.3f}.

For comparison the March model on the old shards finished around {base_last:.2f} train loss / {base_eval[3]:.3f} eval acc (I reran it today to be sure).

My guess is a corrupt shard that lands around step {spike[0]}. Full log and the config are attached. Has anyone seen bad rows in the 2023-05 export?

Thanks,
Jonas

--
Jonas Albrecht | Ranking & Relevance
""")
    m0 = th.add("Jonas Albrecht <jonas.albrecht@corp.example.com>", t0,
                "CTR ranker retrain diverges after a few hundred steps", body0)
    body1 = W(f"""
Can you dump the batch at step {spike[0]} and check min/max per feature? If one of the shards has raw (unscaled) columns you'd see it right away.

Mei
""") + "\n\n" + quote(body0, rewrap=False)
    m1 = th.add("Mei Lin <mei.lin@corp.example.com>", t0 + dt.timedelta(minutes=23),
                "RE: CTR ranker retrain diverges after a few hundred steps", body1, reply_to_idx=m0)
    body2 = W(f"""
Dumped it. Nothing obviously wrong:

    batch @ step {spike[0]}: shape {tuple(bx.shape)}
    min {bx.min():.3f}  max {bx.max():.3f}  mean {bx.mean():.4f}  std {bx.std():.4f}
    nan: {int(np.isnan(bx).sum())}  inf: {int(np.isinf(bx).sum())}

Per-feature max is between {bx.max(0).min():.2f} and {bx.max(0).max():.2f}, so everything is standardized like before. Maybe it's not one batch but a whole shard that's off? The loss goes bad gradually after step ~{best_step}, the step {spike[0]} thing is just the biggest jump.

Jonas
""") + "\n\n" + quote(th.body_of(m1))
    m2 = th.add("Jonas Albrecht <jonas.albrecht@corp.example.com>", t0 + dt.timedelta(hours=1, minutes=8),
                "RE: CTR ranker retrain diverges after a few hundred steps", body2, reply_to_idx=m1)
    body3 = W("""
Shard-level problem would fit what Anil saw last week with the dedup job (some shards written twice). I'll rerun the dedup over 2023-05 tonight and we can retrain tomorrow on the cleaned export. Jonas, can you hold the v4 launch until then?

-- Priya
""") + "\n\n" + quote(body2)
    th.add("Priya Raman <priya.raman@corp.example.com>", t0 + dt.timedelta(hours=2, minutes=31),
           "RE: CTR ranker retrain diverges after a few hundred steps", body3, reply_to_idx=m2,
           cc="anil.k@corp.example.com")
    write(d, "thread.txt", th.txt())
    TRUTH["run01"] = dict(
        truth="lr_too_high",
        symptom=f"The May retrain diverges after a few hundred steps; I think a corrupt shard lands around step {spike[0]}.",
        how=f"SGD lr=0.3 (momentum 0.9, no warm-up) on a small MLP at batch 64; loss falls to {best_avg:.2f} by step ~{best_step}, then oscillates with grad-norm spikes and climbs to ~{last_avg:.2f}; the same pipeline at lr 0.05 reaches {base_last:.2f}; the dumped batch is clean.")


# =====================================================================================
# run02  healthy  -- keras-users style, thin post (Keras-like epoch lines)
# =====================================================================================
def run02():
    d = rundir("run02")
    X, y = teacher_data(7500, 20, 3, 202, temp=0.3)
    Xt, yt = torch.tensor(X[:6000]), torch.tensor(y[:6000])
    Xv, yv = torch.tensor(X[6000:]), torch.tensor(y[6000:])
    torch.manual_seed(2)
    m = mlp([20, 64, 64, 3])
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    lines = []
    nb = int(np.ceil(len(Xt) / 32))
    for ep in range(8):
        t0 = time.time()
        perm = torch.randperm(len(Xt))
        ls, cs = 0.0, 0
        for i in range(0, len(Xt), 32):
            idx = perm[i:i + 32]
            opt.zero_grad()
            out = m(Xt[idx])
            loss = F.cross_entropy(out, yt[idx])
            loss.backward()
            opt.step()
            ls += loss.item() * len(idx)
            cs += (out.argmax(1) == yt[idx]).sum().item()
        vl, va = evaluate(m, Xv, yv)
        sec = time.time() - t0
        lines.append(f"Epoch {ep + 1}/8")
        lines.append(f"{nb}/{nb} [==============================] - {round(sec)}s {sec / nb * 1000:.0f}ms/step"
                     f" - loss: {ls / len(Xt):.4f} - accuracy: {cs / len(Xt):.4f} - val_loss: {vl:.4f} - val_accuracy: {va:.4f}")
    th = Thread(listaddr="Keras-users <keras-users@googlegroups.com>", list_name="<keras-users.googlegroups.com>",
                footer=GG_FOOTER.format(name="Keras-users", addr="keras-users"))
    t0 = dt.datetime(2019, 2, 11, 21, 17, tzinfo=tz(-6))
    body0 = W("""
Hello,

I'm training a small dense network (2 hidden layers of 64, relu, softmax output, adam, batch 32) on a 3-class tabular problem, 6000 train / 1500 validation rows. This is what I get:

""") + "\n\n" + "\n".join(lines) + "\n\n" + W("""
val_loss is a bit above loss in most epochs. Does that mean it is already overfitting? Should I add Dropout or stop earlier? I don't have a lot of experience with this.

Thanks in advance
Tomás
""")
    m0 = th.add("Tomás Ferreira <tferreira.dev@gmail.com>", t0, "[keras-users] Is my model overfitting? val_loss > loss", body0)
    body1 = quote(th.body_of(m0).split("Epoch 1/8")[0].rstrip() + "\n[...]\n" + "\n".join(lines[-2:])) + "\n\n" + W("""
Hard to say from 8 epochs. Plot both curves; people usually add Dropout(0.2-0.5) after each Dense and use EarlyStopping(monitor='val_loss', patience=3), that takes care of it either way.

--
Ravi
""")
    th.add("Ravi Shankar <ravi.s.1987@gmail.com>", t0 + dt.timedelta(hours=9, minutes=40),
           "Re: [keras-users] Is my model overfitting? val_loss > loss", body1, reply_to_idx=m0)
    write(d, "thread.mbox", th.mbox())
    TRUTH["run02"] = dict(
        truth="healthy",
        symptom="val_loss is a bit above loss in most epochs; does that mean my model is already overfitting?",
        how="Healthy 2x64 MLP with Adam 1e-3: train and val loss both fall every epoch with a small, stable gap; nothing planted.")


# =====================================================================================
# run03  missing_zero_grad  -- pytorch-users style, train.py + log quoted in thread
# =====================================================================================
def run03():
    d = rundir("run03")
    wd = runner.workdir()
    X, y = teacher_data(9000, 32, 6, 3)
    runner.save_npz(wd, "gesture_train.npz", x=X[:7500], y=y[:7500])
    runner.save_npz(wd, "gesture_val.npz", x=X[7500:], y=y[7500:])
    out1, err1, s1 = runner.run_script(wd, "run03_train.py", "train.py", ["--epochs", "5"])
    out2, err2, s2 = runner.run_script(wd, "run03_train.py", "train.py",
                                       ["--epochs", "3", "--clip", "1.0", "--log-every", "50"])
    assert err1 is None and err2 is None, (err1, err2)
    write(d, "train.py", runner.script_text("run03_train.py"))
    write(d, "train_noclip.log", "$ python train.py --epochs 5\n" + out1)
    lines1 = out1.strip().split("\n")
    steps = [l for l in lines1 if l.startswith("epoch")]
    first_gn = steps[0].split("grad_norm")[1].strip()
    last_gn = steps[-1].split("grad_norm")[1].strip()
    epochs1 = [l for l in lines1 if l.startswith("==")]
    th = Thread(listaddr="PyTorch Users <pytorch-users@googlegroups.com>", list_name="<pytorch-users.googlegroups.com>",
                footer=GG_FOOTER.format(name="PyTorch Users", addr="pytorch-users"))
    t0 = dt.datetime(2018, 9, 3, 10, 5, tzinfo=tz(1))
    body0 = W(f"""
Hi everyone,

I'm porting a small gesture classifier (32 IMU features, 6 classes) from Keras to PyTorch and my gradients seem to explode. grad_norm starts at {first_gn} and climbs every single step up to {last_gn}, and the loss goes up instead of down after the first epoch. Log excerpt:

""") + "\n\n" + "\n".join(lines1[:8] + ["..."] + epochs1[1:]) + "\n\n" + W("""
Full log and script attached. The same architecture trains fine in Keras with SGD(lr=0.001, momentum=0.9). Is there something different in how PyTorch initialises Linear layers? Or should I just add gradient clipping?

Best,
Lukas
""")
    m0 = th.add("Lukas Brenner <lukas.brenner@student.uni-example.de>", t0,
                "[pytorch-users] Exploding gradients with a simple MLP (works in Keras)", body0)
    body1 = W("""
Lukas Brenner wrote:
""") + "\n" + quote(th.body_of(m0), rewrap=True) + "\n\n" + W("""
PyTorch's default init for nn.Linear is kaiming_uniform with a=sqrt(5), Keras uses glorot_uniform, so the scale is a bit different, but that should not make it blow up with an MLP this small. Try clip_grad_norm_ with max_norm=1.0 first and see if it stabilises. Also double-check your inputs are standardized.

Cheers,
Alban
""")
    m1 = th.add("Alban M. <alban.m@gmail.com>", t0 + dt.timedelta(hours=3, minutes=12),
                "Re: [pytorch-users] Exploding gradients with a simple MLP (works in Keras)", body1, reply_to_idx=m0)
    lines2 = out2.strip().split("\n")
    body2 = W("""
Thanks! Inputs are standardized (mean 0 / std 1 per feature, checked). With --clip 1.0 it does train now:

""") + "\n\n" + "\n".join(lines2[1:]) + "\n\n" + W("""
But the printed grad_norm (that's the value clip_grad_norm_ returns, i.e. before clipping) is still above 1 at every step, so it's clipping all the time. Is that normal, or is the Kaiming init still the problem? I'd rather understand why it explodes than clip blindly.

Lukas
""") + "\n\n" + quote("\n\n".join(th.body_of(m1).rstrip("\n").split("\n\n")[-2:]))
    th.add("Lukas Brenner <lukas.brenner@student.uni-example.de>", t0 + dt.timedelta(hours=20, minutes=47),
           "Re: [pytorch-users] Exploding gradients with a simple MLP (works in Keras)", body2, reply_to_idx=m1)
    write(d, "thread.mbox", th.mbox())
    shutil.rmtree(wd, ignore_errors=True)
    TRUTH["run03"] = dict(
        truth="missing_zero_grad",
        symptom="My gradients explode with a simple MLP that trains fine in Keras; should I just add gradient clipping?",
        how=f"train.py calls optimizer.zero_grad() once before the loop, so gradients accumulate across steps: grad_norm climbs monotonically from {first_gn} to {last_gn} and loss rises; clipping only masks it.")


# =====================================================================================
# run04  label_misalignment  -- university lab list, train.py attached
# =====================================================================================
def run04():
    d = rundir("run04")
    wd = runner.workdir()
    X, y = teacher_data(12000, 40, 4, 4)
    X = (X * np.linspace(0.5, 30, 40).astype(np.float32) + 5).astype(np.float32)
    runner.save_npz(wd, "spectra_features.npz", X=X, y=y)
    out, err, s = runner.run_script(wd, "run04_train.py", "train.py")
    assert err is None, err
    write(d, "train.py", runner.script_text("run04_train.py"))
    lines = out.strip().split("\n")
    write(d, "train_output.txt", "(venv) mkowalski@gpu03:~/raman$ python train.py\n" + out)
    first = lines[1]
    last = lines[-1]
    f_tl = float(first.split("train loss ")[1].split()[0])
    l_tl = float(last.split("train loss ")[1].split()[0])
    l_va = float(last.split("acc ")[2].split()[0])
    th = Thread(listaddr="ml-group@lists.physik.uni-example.pl", list_name="<ml-group.lists.physik.uni-example.pl>",
                footer=MAILMAN_FOOTER.format(name="ml-group", addr="ml-group@lists.physik.uni-example.pl",
                                             host="lists.physik.uni-example.pl"))
    t0 = dt.datetime(2022, 3, 14, 17, 52, tzinfo=tz(1))
    body0 = W(f"""
Dear all,

quick question before Thursday's meeting. I'm classifying the Raman spectra (40 band features, 4 mineral classes, 12k spectra) with a small MLP and it just does not learn. Train loss starts at {f_tl:.3f} and after 12 epochs is {l_tl:.3f}, validation accuracy stays around {l_va:.2f}. I tried lr 1e-2 and 1e-4 as well, same picture.

The classes are clearly separable by eye in PCA, so I don't understand it. Output and script attached. Could it be that 64 hidden units is simply too small for 40 input features, or do I need a CNN on the raw spectra instead of the band features?

Best regards,
Marta

--
Marta Kowalska
PhD student, Spectroscopy & ML group
""")
    m0 = th.add("Marta Kowalska <m.kowalska@physik.uni-example.pl>", t0, "[ml-group] MLP on Raman band features does not learn", body0)
    body1 = quote(th.body_of(m0).split("The classes")[0].strip(), rewrap=True) + "\n\n" + W("""
Hi Marta,

64 units should be more than enough for 40 features, I'd not go to a CNN yet. Your val loss actually goes up a bit while train loss goes down, so maybe add dropout and more weight decay? Also try standardizing with the global mean/std instead of per-feature, the bands with small values might get blown up.

Jan
""")
    m1 = th.add("Jan Nowicki <j.nowicki@physik.uni-example.pl>", t0 + dt.timedelta(hours=15, minutes=3),
                "Re: [ml-group] MLP on Raman band features does not learn", body1, reply_to_idx=m0)
    body2 = W("""
Thanks Jan, I'll try the dropout + global normalization and report on Thursday. Maybe I'll also try the raw spectra with a 1D CNN in parallel.

Marta
""") + "\n\n" + quote(body1)
    th.add("Marta Kowalska <m.kowalska@physik.uni-example.pl>", t0 + dt.timedelta(hours=16, minutes=40),
           "Re: [ml-group] MLP on Raman band features does not learn", body2, reply_to_idx=m1)
    write(d, "thread.mbox", th.mbox())
    shutil.rmtree(wd, ignore_errors=True)
    TRUTH["run04"] = dict(
        truth="label_misalignment",
        symptom="My MLP on the Raman band features just does not learn; is 64 hidden units too small, should I use a CNN?",
        how=f"train.py 'shuffles' X and y with two separate rng.permutation calls, destroying the pairing: loss sits near ln4=1.386 ({f_tl:.3f} -> {l_tl:.3f}, slow memorisation only), val acc at chance ({l_va:.2f}) while grad norms are healthy.")


# =====================================================================================
# run05  nan_in_data  -- pytorch google group, train.log + data summary, anomaly traceback
# =====================================================================================
def run05():
    d = rundir("run05")
    rng = np.random.default_rng(505)
    n, nf = 20000, 20
    X, y = teacher_data(n, nf, 3, 505, temp=0.3)
    scales = rng.uniform(0.5, 40, nf).astype(np.float32)
    offs = rng.uniform(-5, 200, nf).astype(np.float32)
    raw = X * scales + offs
    bs = 64
    g = torch.Generator().manual_seed(1234)
    perm0 = torch.randperm(n, generator=g).numpy()
    nan_rows = [perm0[180 * bs + 17], perm0[251 * bs + 40], perm0[297 * bs + 5]]
    raw[nan_rows, 7] = np.nan
    mu, sd = np.nanmean(raw, 0), np.nanstd(raw, 0)
    Xn = ((raw - mu) / sd).astype(np.float32)
    Xt, yt = torch.tensor(Xn), torch.tensor(y)

    def train(lr, anomaly=False):
        torch.manual_seed(0)
        m = mlp([nf, 64, 64, 3])
        opt = torch.optim.Adam(m.parameters(), lr=lr)
        gen = torch.Generator().manual_seed(1234)
        logs, step, t0 = [], 0, time.time()
        try:
            with torch.autograd.set_detect_anomaly(anomaly):
                for ep in range(3):
                    perm = torch.randperm(n, generator=gen)
                    for i in range(0, n, bs):
                        idx = perm[i:i + bs]
                        opt.zero_grad()
                        loss = F.cross_entropy(m(Xt[idx]), yt[idx])
                        loss.backward()
                        gn = nn.utils.clip_grad_norm_(m.parameters(), 5.0).item()
                        step += 1
                        if not torch.isfinite(loss):
                            raise RuntimeError(f"non-finite loss at epoch {ep} step {step}: {loss.item()}")
                        opt.step()
                        if step % 5 == 0:
                            logs.append((ep, step, loss.item(), gn, time.time() - t0))
        except RuntimeError as e:
            return logs, str(e).split("\n")[0], step
        return logs, None, step

    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logs1, err1, st1 = train(1e-3)
        logs2, err2, st2 = train(1e-4)
        logs3, err3, st3 = train(1e-3, anomaly=True)
    assert err1 and err2 and err3
    start = dt.datetime(2022, 3, 7, 9, 31, 2)
    L = ["python train.py --lr 1e-3 --batch-size 64",
         "loading data/credit_2022q1.csv ... 20000 rows, 20 features, 3 classes",
         "normalising with column mean/std (nan-safe)",
         "model: MLP(20-64-64-3)  optimizer: Adam(lr=0.001)  grad clip: 5.0"]
    for ep, step, l, gn, t in logs1:
        ts = (start + dt.timedelta(seconds=t)).strftime("%H:%M:%S")
        L.append(f"[{ts}] epoch {ep} | step {step:4d} | loss {l:.4f} | grad_norm {gn:.4f}")
    L += ["Traceback (most recent call last):",
          '  File "train.py", line 71, in <module>',
          '    raise RuntimeError(f"non-finite loss at epoch {epoch} step {step}: {loss.item()}")',
          f"RuntimeError: {err1}"]
    write(d, "train.log", "\n".join(L))
    # data summary as the user printed it (pandas-describe-like, nan-aware)
    cols = [f"f{i:02d}" for i in range(nf)]
    S = ["           count        mean         std         min         max"]
    for i, c in enumerate(cols):
        col = raw[:, i]
        S.append(f"{c:>6} {int(np.sum(~np.isnan(col))):>10d} {np.nanmean(col):>11.3f} {np.nanstd(col):>11.3f}"
                 f" {np.nanmin(col):>11.3f} {np.nanmax(col):>11.3f}")
    S.append(f"{'label':>6} {n:>10d} {y.mean():>11.3f} {y.std():>11.3f} {y.min():>11.3f} {y.max():>11.3f}")
    write(d, "data_describe.txt", ">>> df.describe().T[['count','mean','std','min','max']]\n" + "\n".join(S))
    last_ok = logs1[-1]
    th = Thread(listaddr="PyTorch Users <pytorch-users@googlegroups.com>", list_name="<pytorch-users.googlegroups.com>",
                footer=GG_FOOTER.format(name="PyTorch Users", addr="pytorch-users"))
    t0 = dt.datetime(2022, 3, 7, 10, 2, tzinfo=tz(0))
    body0 = W(f"""
Hi,

my training on a tabular credit dataset (20 numeric columns, 3 classes) dies with a nan loss in the first epoch. Up to step {last_ok[1]} everything looks normal (loss {last_ok[2]:.4f}, grad norm {last_ok[3]:.3f}) and then:

""") + "\n\n" + "\n".join(L[-8:]) + "\n\n" + W("""
I already clip gradients at 5. Is Adam known to be unstable with lr 1e-3 for small MLPs? Full log and a describe() of the data attached.

Kwame
""")
    m0 = th.add("Kwame Mensah <kwame.mensah.ml@gmail.com>", t0, "[pytorch-users] loss becomes nan in first epoch with Adam", body0)
    body1 = W("""
Try a lower lr, 1e-3 can be too much when features have very different scales. Also add eps=1e-6 to Adam.

On Monday, March 7, 2022 at 10:02:11 AM UTC, Kwame Mensah wrote:
""") + "\n" + quote(th.body_of(m0), rewrap=True)
    m1 = th.add("Sergey P. <s.petrov.dl@gmail.com>", t0 + dt.timedelta(hours=2, minutes=15),
                "Re: [pytorch-users] loss becomes nan in first epoch with Adam", body1, reply_to_idx=m0)
    body2 = W(f"""
Same with lr 1e-4:

    RuntimeError: {err2}

Interesting that it's the exact same step. I also turned on torch.autograd.set_detect_anomaly(True) with lr 1e-3 and got:

    RuntimeError: {err3}

So it's the log_softmax inside cross_entropy that produces the nan? I thought F.cross_entropy was the numerically stable version. Should I write my own loss with a clamp?

Kwame
""") + "\n\n" + quote(body1)
    m2 = th.add("Kwame Mensah <kwame.mensah.ml@gmail.com>", t0 + dt.timedelta(hours=5, minutes=41),
                "Re: [pytorch-users] loss becomes nan in first epoch with Adam", body2, reply_to_idx=m1)
    body3 = W("""
Same exact step regardless of lr is strange. Are you using any custom loss or log() somewhere? Post the training loop.

S.
""") + "\n\n" + quote(body2)
    th.add("Sergey P. <s.petrov.dl@gmail.com>", t0 + dt.timedelta(hours=7, minutes=2),
           "Re: [pytorch-users] loss becomes nan in first epoch with Adam", body3, reply_to_idx=m2)
    write(d, "thread.mbox", th.mbox())
    TRUTH["run05"] = dict(
        truth="nan_in_data",
        symptom="Loss becomes nan in the first epoch with Adam; is Adam unstable with lr 1e-3 for small MLPs?",
        how=f"Three rows of column f07 are empty (NaN; describe() count 19997 vs 20000) and the nan-safe normalisation keeps them NaN; loss is finite with normal grad norms until the first such row arrives (step {st1}), at the same step for lr 1e-3 and 1e-4.")


# =====================================================================================
# run06  data_leakage  -- internal team email (top-posting), Lightning-style log + config
# =====================================================================================
def run06():
    d = rundir("run06")
    rng = np.random.default_rng(606)
    n = 7000
    base, _ = teacher_data(n, 17, 2, 606)
    w = rng.standard_normal(17) * 0.6
    logit = base @ w + 0.8 * np.tanh(base[:, 0] * base[:, 3]) - 1.1
    ychurn = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    exit_survey = np.where(rng.random(n) < 0.015, 1 - ychurn, ychurn).astype(np.float32)
    feats = np.concatenate([base, exit_survey[:, None]], 1).astype(np.float32)
    names = ["tenure_months", "monthly_charges", "total_charges", "num_support_tickets", "contract_type",
             "payment_method", "paperless_billing", "num_products", "avg_session_minutes", "logins_last_30d",
             "discount_pct", "region", "device_count", "late_payments_12m", "plan_changes_12m",
             "nps_last_response", "days_since_last_ticket", "exit_survey_sent"]
    idx = rng.permutation(n)
    tr, va = idx[:5600], idx[5600:]
    Xt, yt = torch.tensor(feats[tr]), torch.tensor(ychurn[tr])
    Xv, yv = torch.tensor(feats[va]), torch.tensor(ychurn[va])
    torch.manual_seed(6)
    m = mlp([18, 64, 32, 2])
    nparams = [(nm, sum(p.numel() for p in mod.parameters())) for nm, mod in
               [("0", m[0]), ("2", m[2]), ("4", m[4])]]
    opt = torch.optim.Adam(m.parameters(), lr=3e-3)

    def auc(scores, labels):
        order = np.argsort(scores)
        ranks = np.empty(len(scores))
        ranks[order] = np.arange(1, len(scores) + 1)
        pos = labels == 1
        return (ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum())

    L = ["GPU available: False, used: False", "TPU available: False, using: 0 TPU cores",
         "", "  | Name  | Type       | Params", "-------------------------------------",
         f"0 | net.0 | Linear     | {nparams[0][1]}", "1 | net.1 | ReLU       | 0",
         f"2 | net.2 | Linear     | {nparams[1][1]}", "3 | net.3 | ReLU       | 0",
         f"4 | net.4 | Linear     | {nparams[2][1]}", "-------------------------------------",
         f"{sum(p.numel() for p in m.parameters())}     Trainable params", "0         Non-trainable params", ""]
    nb = int(np.ceil(len(Xt) / 64)) + int(np.ceil(len(Xv) / 64))
    hist = []
    for ep in range(10):
        t0 = time.time()
        m.train()
        perm = torch.randperm(len(Xt))
        tl, tc = 0.0, 0
        for i in range(0, len(Xt), 64):
            b = perm[i:i + 64]
            opt.zero_grad()
            out = m(Xt[b])
            loss = F.cross_entropy(out, yt[b])
            loss.backward()
            opt.step()
            tl += loss.item() * len(b)
            tc += (out.argmax(1) == yt[b]).sum().item()
        m.eval()
        with torch.no_grad():
            vo = m(Xv)
            vl = F.cross_entropy(vo, yv).item()
            vacc = (vo.argmax(1) == yv).float().mean().item()
            vauc = auc(F.softmax(vo, 1)[:, 1].numpy(), yv.numpy())
        sec = time.time() - t0
        hist.append((ep, tl / len(Xt), tc / len(Xt), vl, vacc, vauc))
        L.append(f"Epoch {ep}: 100%|██████████| {nb}/{nb} [00:0{int(sec)}<00:00, {nb / sec:.2f}it/s, loss={loss.item():.3g}, v_num=7, "
                 f"train_loss={tl / len(Xt):.3f}, train_acc={tc / len(Xt):.3f}, val_loss={vl:.3f}, val_acc={vacc:.3f}, val_auc={vauc:.3f}]")
    write(d, "train.log", "\n".join(L))
    write(d, "config.yaml", "experiment: churn_mlp_q3\nseed: 42\ndata:\n  source: warehouse.analytics.customer_monthly_snapshot\n"
          "  snapshot: 2024-06-30\n  target: churned_90d\n  id_column: customer_id\n  split: {train: 0.8, val: 0.2, stratify: false}\n"
          "  features:\n" + "".join(f"    - {nm}\n" for nm in names) +
          "model:\n  hidden: [64, 32]\n  activation: relu\ntrainer:\n  max_epochs: 10\n  batch_size: 64\n  lr: 3.0e-3\n")
    h1, hl = hist[0], hist[-1]
    churn_rate = ychurn.mean()
    th = Thread(listaddr="analytics-ds@retailco.example.com")
    t0 = dt.datetime(2024, 7, 9, 11, 14, tzinfo=tz(-4))
    body0 = W(f"""
Hi team,

First results from the new churn MLP (config + log attached). It's converging really fast: after the first epoch val accuracy is already {h1[4]:.3f} (AUC {h1[5]:.3f}, train acc in that epoch {h1[2]:.3f}) and it ends at {hl[4]:.3f} / AUC {hl[5]:.3f} after 10 epochs. The old gradient-boosting model was never near that.

Validation is a random 20% of the June snapshot ({len(va)} customers, churn rate ~{churn_rate:.0%}). If nobody objects I'll write it up for the Q3 review.

Best,
Daniel
""")
    m0 = th.add("Daniel Okafor <daniel.okafor@retailco.example.com>", t0, "Churn MLP - first results", body0)
    body1 = W("""
Wow, great work Daniel!! This is exactly what we need for the Q3 deck. Can you add a slide with the accuracy numbers and a chart by Thursday?

Thanks,
Sandra

Sandra Whitfield
Director, Customer Analytics
""") + "\n\n-----Original Message-----\n" + f"From: Daniel Okafor\nSent: {t0.strftime('%A, %B %d, %Y %I:%M %p')}\nTo: analytics-ds\nSubject: Churn MLP - first results\n\n" + th.body_of(m0)
    m1 = th.add("Sandra Whitfield <sandra.whitfield@retailco.example.com>", t0 + dt.timedelta(minutes=52),
                "RE: Churn MLP - first results", body1, reply_to_idx=m0)
    body2 = W(f"""
Nice, but {h1[4]:.3f} after one epoch on churn makes me a bit nervous. Are you sure the split is clean, i.e. no customer in both train and val? The monthly snapshot has one row per customer per month, if you pulled more than one month you'd get the same customer twice. Also {len(va)} rows is not that much, the val set might just be easy.

Wei
""") + "\n\n" + quote("\n".join(th.body_of(m0).split("\n")[:10]))
    m2 = th.add("Wei Zhang <wei.zhang@retailco.example.com>", t0 + dt.timedelta(hours=1, minutes=30),
                "RE: Churn MLP - first results", body2, reply_to_idx=m0)
    body3 = W("""
Checked: it's only the 2024-06-30 snapshot, one row per customer_id, and the train/val customer_id sets are disjoint (intersection is empty). I can do a 5-fold CV if we want more confidence in the number, but I think it's real.

Daniel
""") + "\n\n" + quote(body2)
    th.add("Daniel Okafor <daniel.okafor@retailco.example.com>", t0 + dt.timedelta(hours=2, minutes=5),
           "RE: Churn MLP - first results", body3, reply_to_idx=m2)
    write(d, "thread.txt", th.txt())
    TRUTH["run06"] = dict(
        truth="data_leakage",
        symptom=f"Our new churn MLP is at {h1[4]:.1%} val accuracy after the first epoch, far better than the old model; is this real, can we present it?",
        how=f"Feature exit_survey_sent is a post-outcome copy of the target (98.5% equal to churned_90d): val acc is {h1[4]:.3f} after epoch 1, above that epoch's train acc {h1[2]:.3f}, and flat afterwards; the customer split itself is clean.")


# =====================================================================================
# run07  eval_mode_forgotten  -- lab list (pipermail-like thread.txt), train.py/predict.py/model.py
# =====================================================================================
def run07():
    d = rundir("run07")
    wd = runner.workdir()
    X, y = teacher_data(8000, 24, 8, 7, temp=0.2)
    runner.save_npz(wd, "train.npz", x=X[:5000], y=y[:5000])
    runner.save_npz(wd, "val.npz", x=X[5000:6500], y=y[5000:6500])
    runner.save_npz(wd, "test.npz", x=X[6500:], y=y[6500:])
    out1, err1, _ = runner.run_script(wd, "run07_train.py", "train.py", extra_files={"run07_model.py": "model.py"})
    out2, err2, _ = runner.run_script(wd, "run07_predict.py", "predict.py", ["val"],
                                      extra_files={"run07_model.py": "model.py"}, seed=20210)
    assert err1 is None and err2 is None, (err1, err2)
    for src, dst in [("run07_train.py", "train.py"), ("run07_predict.py", "predict.py"), ("run07_model.py", "model.py")]:
        write(d, dst, runner.script_text(src))
    write(d, "train_log.txt", "$ python train.py\n" + out1)
    best = float(out1.strip().split("\n")[-1].split()[-1])
    saved = [l for l in out1.split("\n") if "saved" in l][-1]
    best_ep = int(saved.split()[1])
    passes = [l for l in out2.split("\n") if "pass" in l]
    accs = [float(l.split("accuracy = ")[1].split()[0]) for l in passes]
    th = Thread(listaddr="dl-reading-group@lists.cs.uni-example.edu")
    t0 = dt.datetime(2021, 6, 2, 14, 20, tzinfo=tz(-7))
    body0 = W(f"""
Hi all,

weird one. My tabular classifier reports best val_acc {best:.4f} during training (checkpoint saved at epoch {best_ep}). When I load checkpoints/best.pt in a separate script and run it on the *same* val.npz I get lower accuracy, and it's not even the same number when I predict twice in a row:

    $ python predict.py val
""") + "\n\n" + "\n".join("    " + l for l in out2.strip().split("\n")) + "\n\n" + W("""
load_state_dict says no missing/unexpected keys. Is torch.save/torch.load losing something (BatchNorm buffers?), or am I loading the wrong file? Scripts and the training log attached.

Thanks,
Ana
--
Ana Ribeiro, 2nd year PhD
""")
    m0 = th.add("Ana Ribeiro <aribeiro@cs.uni-example.edu>", t0, "checkpoint gives different accuracy after loading", body0)
    body1 = quote(th.body_of(m0).split("load_state_dict")[0].strip()) + "\n\n" + W("""
Are you sure best.pt is from that epoch? If the script was run twice, or another run wrote to the same checkpoints/ folder, you'd be loading a different model. I always put the epoch and the val score in the file name for that reason. Also BatchNorm running_mean/var are buffers and they are in state_dict, so they should be saved.

Mike
""")
    m1 = th.add("Mike Chen <mchen@cs.uni-example.edu>", t0 + dt.timedelta(hours=1, minutes=5),
                "Re: checkpoint gives different accuracy after loading", body1, reply_to_idx=m0)
    body2 = quote(body1) + "\n\n" + W(f"""
Only one run, and the file timestamp matches epoch {best_ep} in the log. The passes still disagree with each other ({", ".join(f"{a:.4f}" for a in accs)}), which I don't get at all if the weights are fixed.

Ana
""")
    m2 = th.add("Ana Ribeiro <aribeiro@cs.uni-example.edu>", t0 + dt.timedelta(hours=2, minutes=44),
                "Re: checkpoint gives different accuracy after loading", body2, reply_to_idx=m1)
    body3 = quote(body2.split("\n\n")[-2] if False else th.body_of(m2).rstrip("\n").split("\n\n")[-2]) + "\n\n" + W("""
Run-to-run differences on the GPU are usually cuDNN nondeterminism. Try torch.backends.cudnn.deterministic = True and benchmark = False and see if the passes agree.

-- Priyanka
""")
    th.add("Priyanka Das <pdas@cs.uni-example.edu>", t0 + dt.timedelta(hours=4, minutes=10),
           "Re: checkpoint gives different accuracy after loading", body3, reply_to_idx=m2)
    write(d, "thread.txt", th.txt())
    shutil.rmtree(wd, ignore_errors=True)
    TRUTH["run07"] = dict(
        truth="eval_mode_forgotten",
        symptom="My checkpoint gives lower accuracy after loading it in a separate script, and a different number every pass; is torch.save losing something?",
        how=f"predict.py never calls model.eval(), so Dropout(0.5) and BatchNorm stay in training mode: val acc {best:.4f} in training vs {min(accs):.4f}-{max(accs):.4f} at prediction, changing pass to pass.")


# =====================================================================================
# run08  lr_schedule_bug  -- internal team mbox, train.py + config.yaml + train.log
# =====================================================================================
def run08():
    d = rundir("run08")
    wd = runner.workdir()
    X, y = teacher_data(5500, 32, 10, 8, temp=0.2)
    runner.save_npz(wd, "train.npz", x=X[:4000], y=y[:4000])
    runner.save_npz(wd, "val.npz", x=X[4000:], y=y[4000:])
    shutil.copy(os.path.join(HERE, "gen_support", "scripts", "run08_config.yaml"), os.path.join(wd, "config.yaml"))
    out, err, _ = runner.run_script(wd, "run08_train.py", "train.py", ["config.yaml"])
    assert err is None, err
    write(d, "train.py", runner.script_text("run08_train.py"))
    write(d, "config.yaml", runner.script_text("run08_config.yaml"))
    write(d, "train.log", "$ python train.py config.yaml\n" + out)
    lines = [l for l in out.strip().split("\n") if l.startswith("Epoch")]
    vacc = [float(l.split("val_acc ")[1].split()[0]) for l in lines]
    tl = [float(l.split("train_loss ")[1].split()[0]) for l in lines]
    th = Thread(listaddr="Fraud-ML <fraud-ml@payments.example.net>")
    t0 = dt.datetime(2020, 10, 21, 9, 48, tzinfo=tz(1))
    body0 = W(f"""
Morning,

the new merchant-category model is stuck. Epoch 1 goes fine (train loss {tl[0]:.3f}), and then nothing: from epoch 2 to {len(lines)} train loss stays at {min(tl[1:]):.3f}-{max(tl[1:]):.3f} and val_acc sits at {vacc[-1]:.4f}. I'd expect it to keep improving at least until the lr drop at epoch 20.

Config, script and log attached. I suspect the [128, 64] MLP is just too small for 10 categories; OK if I bump it to [512, 256] and rerun overnight?

Cheers,
Tom

--
Tom Hartley
Fraud & Risk ML
""")
    m0 = th.add("Tom Hartley <tom.hartley@payments.example.net>", t0, "merchant-category model plateaus after epoch 1", body0)
    body1 = quote(th.body_of(m0).split("Config, script")[0].strip()) + "\n\n" + W("""
Fine by me to try the bigger model. But with weight_decay 5e-4 AND dropout on a model this small you might also just be over-regularising, I'd try weight_decay 0 first, it's cheaper.

Nadia
""")
    m1 = th.add("Nadia Benali <nadia.benali@payments.example.net>", t0 + dt.timedelta(minutes=37),
                "Re: merchant-category model plateaus after epoch 1", body1, reply_to_idx=m0)
    body2 = quote(body1) + "\n\n" + W("""
+1 to weight_decay 0. Tom, can you launch both variants tonight, then we compare tomorrow at standup.

Rob
""")
    th.add("Rob Keane <rob.keane@payments.example.net>", t0 + dt.timedelta(hours=1, minutes=12),
           "Re: merchant-category model plateaus after epoch 1", body2, reply_to_idx=m1)
    write(d, "thread.mbox", th.mbox())
    shutil.rmtree(wd, ignore_errors=True)
    TRUTH["run08"] = dict(
        truth="lr_schedule_bug",
        symptom="The model learns in epoch 1 and then completely plateaus; I think the [128, 64] MLP is too small.",
        how=f"train.py calls StepLR.step() (step_size=20, meant in epochs) after every batch, so the lr is divided by 10 every 20 batches: logged lr is {lines[0].split('lr ')[1].split()[0]} after epoch 1 and {lines[-1].split('lr ')[1].split()[0]} at the end; loss and val_acc freeze from epoch 2.")


# =====================================================================================
# run09  frozen_parameters  -- pytorch google group, finetune.py attached, two lrs
# =====================================================================================
def run09():
    d = rundir("run09")
    wd = runner.workdir()
    os.makedirs(os.path.join(wd, "pretrained"))
    Xs, ys = teacher_data(6000, 48, 10, 90, temp=0.2)
    Xt, yt = teacher_data(4000, 48, 5, 91, temp=0.2)
    torch.manual_seed(5)
    feats = nn.Sequential(nn.Linear(48, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU())
    head = nn.Linear(64, 10)
    net = nn.Sequential(feats, head)
    opt = torch.optim.Adam(net.parameters(), 2e-3)
    Xs_t, ys_t = torch.tensor(Xs), torch.tensor(ys)
    for ep in range(4):
        perm = torch.randperm(len(Xs_t))
        for i in range(0, len(Xs_t), 128):
            b = perm[i:i + 128]
            opt.zero_grad()
            F.cross_entropy(net(Xs_t[b]), ys_t[b]).backward()
            opt.step()
    sd = {"features." + k: v for k, v in feats.state_dict().items()}
    sd.update({"head." + k: v for k, v in head.state_dict().items()})
    torch.save(sd, os.path.join(wd, "pretrained", "encoder_src10.pt"))
    runner.save_npz(wd, "target_train.npz", x=Xt[:3200], y=yt[:3200])
    runner.save_npz(wd, "target_val.npz", x=Xt[3200:], y=yt[3200:])
    out1, e1, _ = runner.run_script(wd, "run09_finetune.py", "finetune.py", ["--lr", "1e-3", "--epochs", "6"])
    out2, e2, _ = runner.run_script(wd, "run09_finetune.py", "finetune.py", ["--lr", "1e-2", "--epochs", "3"])
    assert e1 is None and e2 is None, (e1, e2)
    write(d, "finetune.py", runner.script_text("run09_finetune.py"))
    write(d, "finetune_lr1e-3.log", "$ python finetune.py --lr 1e-3 --epochs 6\n" + out1)
    l1 = out1.strip().split("\n")
    l2 = out2.strip().split("\n")
    vline = [l for l in l1 if l.startswith("----")][-1]
    counts = np.bincount(yt[:3200])
    th = Thread(listaddr="PyTorch Users <pytorch-users@googlegroups.com>", list_name="<pytorch-users.googlegroups.com>",
                footer=GG_FOOTER.format(name="PyTorch Users", addr="pytorch-users"))
    t0 = dt.datetime(2019, 4, 17, 15, 33, tzinfo=tz(8))
    body0 = W("""
Hi all,

I pretrained a small encoder on our 10-class sensor task and now want to fine-tune only a new classifier head on a 5-class task (3200 train samples). The loss does not move at all. With lr=1e-3:

""") + "\n\n" + "\n".join(l1[:6]) + "\n...\n" + vline + "\n\n" + W("""
and with lr=1e-2 the numbers are *identical*:

""") + "\n\n" + "\n".join(l2[:6]) + "\n\n" + W("""
I'm starting to think something is wrong with the new dataset (labels?). Script attached. Any idea?

Thanks,
Wen
""")
    m0 = th.add("Wen Jie <wenjie.hk.ml@gmail.com>", t0, "[pytorch-users] fine-tuning: loss stays the same for any learning rate", body0)
    body1 = W("""
Check the labels first: are they 0..4, and is one class dominating? If the labels were e.g. 1..5 you'd get a crash, but if they are heavily imbalanced the head might just predict one class.

On Wednesday, April 17, 2019 at 3:33:12 PM UTC+8, Wen Jie wrote:
""") + "\n" + quote(th.body_of(m0).split("and with lr=1e-2")[0].strip(), rewrap=True)
    m1 = th.add("Oleg Varga <oleg.varga@gmail.com>", t0 + dt.timedelta(hours=6, minutes=20),
                "Re: [pytorch-users] fine-tuning: loss stays the same for any learning rate", body1, reply_to_idx=m0)
    body2 = W(f"""
Labels are 0..4 and roughly balanced, counts in train: {counts.tolist()}. So I guess it's not that.

Maybe the pretrained features are just useless for the new task? The source task is quite different (10 activity types vs 5 machine states).

Wen
""") + "\n\n" + quote(th.body_of(m1).split("On Wednesday")[0].strip())
    m2 = th.add("Wen Jie <wenjie.hk.ml@gmail.com>", t0 + dt.timedelta(hours=9, minutes=2),
                "Re: [pytorch-users] fine-tuning: loss stays the same for any learning rate", body2, reply_to_idx=m1)
    body3 = quote(body2.split("Wen\n")[0].strip()) + "\n\n" + W("""
Could be. Try unfreezing the encoder too with a small lr (1e-4) and see if it moves. If the source and target domains differ a lot, frozen features are often not enough.

Oleg
""")
    th.add("Oleg Varga <oleg.varga@gmail.com>", t0 + dt.timedelta(hours=22, minutes=48),
           "Re: [pytorch-users] fine-tuning: loss stays the same for any learning rate", body3, reply_to_idx=m2)
    write(d, "thread.mbox", th.mbox())
    shutil.rmtree(wd, ignore_errors=True)
    TRUTH["run09"] = dict(
        truth="frozen_parameters",
        symptom="When fine-tuning, the loss does not move for any learning rate; I think something is wrong with the new dataset's labels.",
        how="finetune.py freezes the encoder, builds the optimizer, and only then replaces model.head, so the new head's parameters are in no optimizer: gnorm over the optimizer's params is 0.0000, val loss is constant and the losses are identical for lr 1e-3 and 1e-2.")


# =====================================================================================
# run10  double_softmax  -- course help list, thin post, train.py attached
# =====================================================================================
def run10():
    d = rundir("run10")
    wd = runner.workdir()
    X, y = teacher_data(7000, 64, 10, 10, temp=0.15)
    runner.save_npz(wd, "chars.npz", x=X[:6000], y=y[:6000], xv=X[6000:], yv=y[6000:])
    out, err, _ = runner.run_script(wd, "run10_train.py", "train.py")
    assert err is None, err
    write(d, "train.py", runner.script_text("run10_train.py"))
    lines = out.strip().split("\n")
    last = lines[-1]
    th = Thread(listaddr="cs479-help@lists.uni-example.ca", list_name="<cs479-help.lists.uni-example.ca>",
                footer=MAILMAN_FOOTER.format(name="cs479-help", addr="cs479-help@lists.uni-example.ca",
                                             host="lists.uni-example.ca"))
    t0 = dt.datetime(2020, 2, 26, 23, 41, tzinfo=tz(-5))
    fl = float(last.split("loss ")[1].split()[0])
    body0 = W("""
Hi,

for A2 part 3 (10-class character features) my loss goes down at first but then gets stuck, here are my first/last epochs:

""") + "\n\n" + "\n".join(lines[:3] + ["..."] + lines[-3:]) + "\n\n" + W(f"""
So the loss never gets under ~{fl:.2f} even though accuracy is above 60%. I thought loss should go toward 0 as the model gets better? My train.py is attached (it's based on the tutorial from week 4). Do I need more epochs?

Thanks,
Hannah (student #2019xxxx)
""")
    m0 = th.add("Hannah Lee <h6lee@student.uni-example.ca>", t0, "[cs479-help] A2 part 3: loss stuck around " + f"{fl:.2f}", body0)
    body1 = W("""
Hi Hannah,

chance level for 10 classes is ln(10) = 2.30, so your loss is already below chance. Cross-entropy doesn't have to reach 0 on a noisy dataset. For the accuracy target in the handout try training longer or widening fc1.

Best,
Arash (TA)
""") + "\n\n" + quote(th.body_of(m0).split("My train.py")[0].strip())
    th.add("Arash Tehrani <a.tehrani@uni-example.ca>", t0 + dt.timedelta(hours=10, minutes=17),
           "Re: [cs479-help] A2 part 3: loss stuck around " + f"{fl:.2f}", body1, reply_to_idx=m0)
    write(d, "thread.mbox", th.mbox())
    shutil.rmtree(wd, ignore_errors=True)
    TRUTH["run10"] = dict(
        truth="double_softmax",
        symptom=f"My loss goes down at first then gets stuck around {fl:.2f} although accuracy is above 60%; do I need more epochs?",
        how=f"The model's forward ends in nn.Softmax and the output is fed to nn.CrossEntropyLoss (which applies log_softmax again): gradients shrink, training is slow and the loss floors at ~{fl:.2f} (the double-softmax floor is >= 1.46 for 10 classes).")


# =====================================================================================
# run11  dataloader_bottleneck  -- lab mailman list, long train.log + config.yaml
# =====================================================================================
class WaveDataset(torch.utils.data.Dataset):
    def __init__(self, waves, labels, frame=320, hop=160, n_bands=40):
        self.waves, self.labels = waves, labels
        self.frame, self.hop, self.n_bands = frame, hop, n_bands
        self.win = np.hanning(frame).astype(np.float32)

    def __len__(self):
        return len(self.waves)

    def __getitem__(self, i):
        w = self.waves[i]
        frames = []
        for s in range(0, len(w) - self.frame + 1, self.hop):
            spec = np.abs(np.fft.rfft(w[s:s + self.frame] * self.win)) ** 2
            bands = spec[1:].reshape(self.n_bands, -1).mean(1)
            frames.append(np.log(bands + 1e-6))
        f = np.stack(frames)
        feat = np.concatenate([f.mean(0), f.std(0)]).astype(np.float32)
        return torch.from_numpy(feat), int(self.labels[i])


def run11():
    d = rundir("run11")
    rng = np.random.default_rng(1111)
    n, L, K = 1800, 8000, 10
    labels = rng.integers(0, K, n)
    t = np.arange(L) / 16000.0
    f0 = 300 + 180 * labels + rng.normal(0, 40, n)
    waves = (np.sin(2 * np.pi * f0[:, None] * t[None, :] + rng.uniform(0, 6.3, (n, 1)))
             * rng.uniform(0.3, 1.0, (n, 1)) + rng.normal(0, 0.8, (n, L))).astype(np.float32)
    tr = WaveDataset(waves[:1500], labels[:1500])
    va = WaveDataset(waves[1500:], labels[1500:])
    g = torch.Generator().manual_seed(3)
    tl = torch.utils.data.DataLoader(tr, batch_size=32, shuffle=True, num_workers=0, generator=g)
    vl = torch.utils.data.DataLoader(va, batch_size=64, num_workers=0)
    torch.manual_seed(11)
    m = nn.Sequential(nn.BatchNorm1d(80), nn.Linear(80, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, K))
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3, weight_decay=1e-2)
    start = dt.datetime(2022, 11, 8, 13, 5, 44)
    stamp = lambda s: (start + dt.timedelta(seconds=s)).strftime("%Y-%m-%d %H:%M:%S")
    nparam = sum(p.numel() for p in m.parameters())
    Lg = [f"{stamp(0)} | INFO | kws.train | experiment: kws_mlp_v2  seed: 11",
          f"{stamp(0)} | INFO | kws.train | train utterances: {len(tr)}  val utterances: {len(va)}  classes: {K}",
          f"{stamp(0)} | INFO | kws.train | frontend: log-band energies, frame=320 hop=160 bands=40 (computed in Dataset.__getitem__)",
          f"{stamp(0)} | INFO | kws.train | model params: {nparam:,}  batch_size: 32  num_workers: 0  pin_memory: False",
          f"{stamp(0)} | INFO | kws.train | optimizer: AdamW lr=1e-3 wd=1e-2"]
    T0 = time.time()
    nb = len(tl)
    dts, bts = [], []
    for ep in range(4):
        m.train()
        it = iter(tl)
        end = time.time()
        for k in range(nb):
            xb, yb = next(it)
            t_data = time.time() - end
            opt.zero_grad()
            loss = F.cross_entropy(m(xb), yb)
            loss.backward()
            opt.step()
            t_batch = time.time() - end
            end = time.time()
            dts.append(t_data)
            bts.append(t_batch)
            if True:
                el = time.time() - T0
                eta = (np.mean(bts[-20:]) * ((4 - ep) * nb - k - 1))
                Lg.append(f"{stamp(el)} | INFO | kws.train | Epoch [{ep + 1}/4][{k + 1:3d}/{nb}]  loss: {loss.item():.4f}  "
                          f"time: {t_batch:.4f}  data_time: {t_data:.4f}  samples/s: {len(yb) / t_batch:.1f}  "
                          f"eta: {dt.timedelta(seconds=int(eta))}")
        m.eval()
        c, tot, tv = 0, 0, time.time()
        with torch.no_grad():
            for xb, yb in vl:
                c += (m(xb).argmax(1) == yb).sum().item()
                tot += len(yb)
        Lg.append(f"{stamp(time.time() - T0)} | INFO | kws.eval  | Epoch [{ep + 1}/4] val_acc: {c / tot:.4f}  eval_time: {time.time() - tv:.2f}s")
    total = time.time() - T0
    Lg.append(f"{stamp(total)} | INFO | kws.train | finished 4 epochs in {total:.1f}s  "
              f"(mean time/iter {np.mean(bts):.4f}s, mean data_time/iter {np.mean(dts):.4f}s)")
    write(d, "train.log", "\n".join(Lg))
    write(d, "config.yaml", """experiment: kws_mlp_v2
seed: 11
data:
  root: /scratch/speech/kws_v2
  sample_rate: 16000
  clip_seconds: 0.5
  frontend:
    type: log_band_energy
    frame: 320
    hop: 160
    bands: 40
    pooling: [mean, std]
    on_the_fly: true
loader:
  batch_size: 32
  num_workers: 0
  pin_memory: false
  shuffle: true
model:
  type: mlp
  hidden: [256, 256]
  input_norm: batchnorm
optim:
  name: adamw
  lr: 1.0e-3
  weight_decay: 1.0e-2
train:
  epochs: 4
  device: cuda:0
""")
    frac = np.sum(dts) / np.sum(bts)
    th = Thread(listaddr="speechlab@lists.ee.uni-example.nl", list_name="<speechlab.lists.ee.uni-example.nl>",
                footer=MAILMAN_FOOTER.format(name="speechlab", addr="speechlab@lists.ee.uni-example.nl",
                                             host="lists.ee.uni-example.nl"))
    t0 = dt.datetime(2022, 11, 8, 15, 12, tzinfo=tz(1))
    sample = [l for l in Lg if "Epoch [2/4][ 40/" in l][0].split("kws.train | ")[1]
    body0 = W(f"""
Hi all,

the keyword-spotting MLP is painfully slow on the new GPU box: {np.mean(bts) * 1000:.0f} ms per iteration at batch size 32, i.e. only ~{32 / np.mean(bts):.0f} samples/s, for a model with {nparam // 1000}k parameters. A typical line from the log:

    {sample}

I assume the GPU (it's one of the older cards) is just too slow for this. Is it worth requesting time on the A100 node, or should I first try mixed precision? Log and config attached.

Groetjes,
Sven
--
Sven de Vries | MSc student, Speech Lab
""")
    m0 = th.add("Sven de Vries <s.devries@student.uni-example.nl>", t0, "[speechlab] KWS training very slow on gpu02", body0)
    body1 = quote(th.body_of(m0).split("Log and config")[0].strip(), rewrap=True) + "\n\n" + W("""
Hi Sven, before you ask for A100 time: set torch.backends.cudnn.benchmark = True and use AMP (torch.cuda.amp.autocast + GradScaler). On gpu02 that gave me almost 2x on the conformer last month.

Eline
""")
    m1 = th.add("Eline Janssen <e.janssen@uni-example.nl>", t0 + dt.timedelta(hours=2, minutes=2),
                "Re: [speechlab] KWS training very slow on gpu02", body1, reply_to_idx=m0)
    body2 = quote(body1) + "\n\n" + W("""
Also check nobody else is on gpu02 (nvidia-smi), Kees had a sweep running there yesterday.

-- Pieter
""")
    th.add("Pieter Bakker <p.bakker@uni-example.nl>", t0 + dt.timedelta(hours=3, minutes=30),
           "Re: [speechlab] KWS training very slow on gpu02", body2, reply_to_idx=m1)
    write(d, "thread.mbox", th.mbox())
    TRUTH["run11"] = dict(
        truth="dataloader_bottleneck",
        symptom="Training is painfully slow on the new GPU box; I assume the older GPU is just too slow, should I ask for A100 time?",
        how=f"Features (per-frame FFT band energies) are computed in Dataset.__getitem__ with num_workers=0: data_time is {frac:.0%} of each iteration's time in the log; the tiny model's compute is negligible.")


# =====================================================================================
# run12  healthy  -- team mbox, long train.log + config; asks about step-to-step noise
# =====================================================================================
def run12():
    d = rundir("run12")
    X, y = teacher_data(7500, 16, 5, 1212, temp=0.3)
    Xt, yt = torch.tensor(X[:6000]), torch.tensor(y[:6000])
    Xv, yv = torch.tensor(X[6000:]), torch.tensor(y[6000:])
    torch.manual_seed(12)
    m = mlp([16, 64, 64, 5])
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    start = dt.datetime(2021, 11, 3, 10, 22, 5)
    stamp = lambda s: (start + dt.timedelta(seconds=s)).strftime("%Y-%m-%d %H:%M:%S")
    nb = int(np.ceil(len(Xt) / 32))
    Lg = [f"[{stamp(0)}] run: vib-state-mlp  data: 6000 train / 1500 val, 16 features, 5 classes",
          f"[{stamp(0)}] model: MLP 16-64-64-5  optimizer: Adam lr=1.0e-03  batch_size: 32  epochs: 10"]
    T0 = time.time()
    step_logged, epoch_stats = [], []
    for ep in range(10):
        perm = torch.randperm(len(Xt))
        tl = 0.0
        for k, i in enumerate(range(0, len(Xt), 32)):
            b = perm[i:i + 32]
            opt.zero_grad()
            loss = F.cross_entropy(m(Xt[b]), yt[b])
            loss.backward()
            gn = total_grad_norm(m)
            opt.step()
            tl += loss.item() * len(b)
            if (k + 1) % 10 == 0:
                step_logged.append((ep, loss.item()))
                Lg.append(f"[{stamp(time.time() - T0)}] ep {ep + 1:02d} it {k + 1:04d}/{nb} loss {loss.item():.4f} "
                          f"gnorm {gn:.3f} lr 1.0e-03")
        vl, vacc = evaluate(m, Xv, yv)
        epoch_stats.append((ep, tl / len(Xt), vl, vacc))
        Lg.append(f"[{stamp(time.time() - T0)}] ==> epoch {ep + 1:02d} train_loss {tl / len(Xt):.4f} "
                  f"val_loss {vl:.4f} val_acc {vacc:.4f}")
    write(d, "train.log", "\n".join(Lg))
    write(d, "config.yaml", "run: vib-state-mlp\nseed: 12\ndata:\n  train: data/vib_train.parquet\n  val: data/vib_val.parquet\n"
          "  standardize: true\nmodel:\n  hidden: [64, 64]\n  activation: relu\noptim:\n  name: adam\n  lr: 1.0e-3\n"
          "train:\n  batch_size: 32\n  epochs: 10\n  log_every: 10\n")
    e5 = [l for e, l in step_logged if e == 4]
    th = Thread(listaddr="ml-platform@factoryiq.example.io")
    t0 = dt.datetime(2021, 11, 3, 11, 2, tzinfo=tz(-8))
    body0 = W(f"""
Hey folks,

quick sanity check on the vibration-state classifier. The per-step loss in the log jumps around a lot, e.g. within epoch 5 it goes anywhere between {min(e5):.2f} and {max(e5):.2f} from one logged step to the next. Is the training unstable? Should I drop the lr to 1e-4 or go to batch 128 before I hand this to the firmware team?

Epoch summaries:

""") + "\n\n" + "\n".join(l.split("] ")[1] for l in Lg if "==>" in l) + "\n\n" + W("""
Full log + config attached.

thx
Carlos
""")
    m0 = th.add("Carlos Mendez <carlos@factoryiq.example.io>", t0, "is this loss curve ok? (vib-state mlp)", body0)
    body1 = quote(th.body_of(m0).split("Epoch summaries")[0].strip()) + "\n\n" + W("""
With batch 32 some noise per step is expected. I'd still try lr 3e-4 for comparison if you have the time, can't hurt.

Jess
""")
    th.add("Jess Novak <jess@factoryiq.example.io>", t0 + dt.timedelta(minutes=48),
           "Re: is this loss curve ok? (vib-state mlp)", body1, reply_to_idx=m0)
    write(d, "thread.mbox", th.mbox())
    TRUTH["run12"] = dict(
        truth="healthy",
        symptom="The per-step loss jumps around a lot; is the training unstable, should I lower the lr or increase the batch size?",
        how=f"Healthy Adam 1e-3 / batch 32 run: per-step loss noise is ordinary minibatch noise, epoch train loss falls {epoch_stats[0][1]:.3f} -> {epoch_stats[-1][1]:.3f} and val_acc rises to {epoch_stats[-1][3]:.4f}; nothing planted.")


def main():
    t_start = time.time()
    os.makedirs(RUNS, exist_ok=True)
    for fn in [run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12]:
        t = time.time()
        fn()
        print(f"{fn.__name__}: {time.time() - t:.1f}s", flush=True)
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump({k: TRUTH[k] for k in sorted(TRUTH)}, f, indent=2, ensure_ascii=False)
    shutil.rmtree(runner.WORK, ignore_errors=True)
    print(f"total {time.time() - t_start:.1f}s")


if __name__ == "__main__":
    main()
