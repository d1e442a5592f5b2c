"""run10: per-batch feature standardisation; dataset size = k*bs + 1 -> last batch of one -> std() NaN."""
import random, datetime as dt, warnings
from common import *
from thread import Discourse, code, details, when
import noise

USER = "/home/pjansen/projects/turbine-health/train.py"

TRAIN_PY = '''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
BS, EPOCHS, LR = 128, 3, 1e-3

d = np.load("data/turbine_windows.npz")        # 24 aggregate features per 10-min window, 5 health states
Xtr, ytr = torch.from_numpy(d["X_train"]).float(), torch.from_numpy(d["y_train"]).long()
Xva, yva = torch.from_numpy(d["X_val"]).float(), torch.from_numpy(d["y_val"]).long()
print(f"train {tuple(Xtr.shape)} val {tuple(Xva.shape)}")
assert not torch.isnan(Xtr).any() and not torch.isnan(Xva).any()

train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=BS, shuffle=True)

model = nn.Sequential(nn.Linear(24, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 5))
opt = torch.optim.Adam(model.parameters(), lr=LR)


def standardize(x):
    # sensors have wildly different units; normalise each feature over the batch
    return (x - x.mean(0, keepdim=True)) / (x.std(0, keepdim=True) + 1e-6)


for epoch in range(1, EPOCHS + 1):
    model.train()
    tot, n = 0.0, 0
    for step, (xb, yb) in enumerate(train_dl, 1):
        xb = standardize(xb)
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item(); n += 1
        if step % 20 == 0:
            print(f"epoch {epoch} step {step}/{len(train_dl)} loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        out = model(standardize(Xva))
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch} train_loss {tot / n:.4f} val_loss {vl:.4f} val_acc {va:.4f}")
'''
WARN_LINE = 35   # line of `return (x - x.mean...` in TRAIN_PY


def standardize(x):
    return (x - x.mean(0, keepdim=True)) / (x.std(0, keepdim=True) + 1e-6)


def run(X, y, Xv, yv, bs, epochs, seed, anomaly=False, nan_probe=False, user=USER, wline=None, lr=1e-3):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(X.shape[1], 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, int(y.max()) + 1))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    g = torch.Generator().manual_seed(seed)
    nb = (len(X) + bs - 1) // bs
    lines, warned, err = [], [], None
    for epoch in range(1, epochs + 1):
        model.train()
        tot, n = 0.0, 0
        for step, (xb, yb) in enumerate(batches(X, y, bs, True, g), 1):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                xs = standardize(xb)
            if w and not warned:
                warned.append(str(w[0].message))
                lines.append(f"{user}:{wline or WARN_LINE}: UserWarning: {w[0].message}\n"
                             f"  return (x - x.mean(0, keepdim=True)) / (x.std(0, keepdim=True) + 1e-6)")
            loss = F.cross_entropy(model(xs), yb)
            if nan_probe and torch.isnan(loss):
                lines.append(f"NaN loss at epoch {epoch} step {step}/{nb}: xb.shape={tuple(xb.shape)} "
                             f"isnan(xb)={bool(torch.isnan(xb).any())} isnan(xb_std)={bool(torch.isnan(xs).any())}")
                return lines, warned, None
            opt.zero_grad()
            if anomaly:
                try:
                    with torch.autograd.detect_anomaly():
                        loss.backward()
                except RuntimeError as e:
                    return lines, warned, (epoch, step, str(e).splitlines()[0])
            else:
                loss.backward()
            opt.step()
            tot += loss.item(); n += 1
            if step % 20 == 0:
                lines.append(f"epoch {epoch} step {step}/{nb} loss {loss.item():.4f}")
        vl, va = evaluate_std(model, Xv, yv)
        lines.append(f"epoch {epoch} train_loss {tot / n:.4f} val_loss {vl:.4f} val_acc {va:.4f}")
    return lines, warned, err


@torch.no_grad()
def evaluate_std(model, Xv, yv):
    model.eval()
    out = model(standardize(Xv))
    return F.cross_entropy(out, yv).item(), (out.argmax(1) == yv).float().mean().item()


def build(out):
    r = random.Random(1010)
    task = Mixture(24, 5, 141, blobs=3, sigma=0.9)
    X, y = task.sample(12801, 142); Xv, yv = task.sample(2000, 143)
    # raw sensor units: the script standardises per batch
    rs = np.random.default_rng(144)
    sc, off = rs.uniform(0.05, 500, 24), rs.uniform(-20, 2000, 24)
    X = X * sc + off; Xv = Xv * sc + off
    X, y, Xv, yv = torch.tensor(X, dtype=torch.float32), torch.tensor(y), torch.tensor(Xv, dtype=torch.float32), torch.tensor(yv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        L, warned, _ = run(X, y, Xv, yv, 128, 3, 0)
        Lp, _, _ = run(X, y, Xv, yv, 128, 1, 0, nan_probe=True)
        _, _, anom = run(X, y, Xv, yv, 128, 1, 0, anomaly=True)
    # the reporter's try with lr 1e-4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lr_run, _, _ = run(X, y, Xv, yv, 128, 1, 0, lr=1e-4)
    lr_lines = [l for l in lr_run if not l.startswith((USER, "  return"))]
    # +1 poster: 5121 rows, batch 256, same helper
    task2 = Mixture(16, 3, 151, blobs=2, sigma=1.0)
    X2, y2 = task2.sample(5121, 152); Xv2, yv2 = task2.sample(800, 153)
    X2 = X2 * 30 + 100; Xv2 = Xv2 * 30 + 100
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        L2, _, _ = run(*map(lambda a: torch.tensor(a, dtype=torch.float32) if a.dtype != np.int64 else torch.tensor(a),
                            (X2, y2, Xv2, yv2)), 256, 2, 5, user="/data/agomes/vib/src/fit.py", wline=61)

    write(f"{out}/train.py", TRAIN_PY)
    log = [f"$ python train.py 2>&1 | tee logs/run_{dt.date(2024, 11, 4):%Y%m%d}.txt", f"train {tuple(X.shape)} val {tuple(Xv.shape)}"] + L
    write(f"{out}/run_20241104.txt", "\n".join(log))

    base = dt.datetime(2024, 11, 4, 14, 55)
    t = Discourse("discuss.pytorch.org", "autograd", "Loss becomes NaN at the end of the first epoch although the data has no NaN",
                  tags=["nan", "dataloader"])
    show = [l for l in L if not l.startswith(USER) and not l.startswith("  return")]
    t.post("pjansen", base, f"""Hi! My MLP on wind-turbine sensor windows trains normally for most of the first epoch, then the epoch ends with `train_loss nan` and from then on everything is NaN:

{code(chr(10).join(show[:1] + ['...'] + show[3:7]))}

I assert there are no NaNs in the tensors before training (`assert not torch.isnan(Xtr).any()` passes) and the raw CSV has no empty cells either. So where does the NaN come from? Could the DataLoader be corrupting a batch? Script and full output attached.

📎 train.py 📎 run_20241104.txt""")
    t.post("yusuf.k", base + dt.timedelta(minutes=35), "Classic exploding loss. lr=1e-3 for Adam on unnormalised sensor data is too "
           "high, use 1e-4 and clip gradients.")
    t.post("pjansen", base + dt.timedelta(hours=1, minutes=10), "The inputs are normalised (see `standardize`), and the loss is going "
           "*down* right before it happens. But I tried 1e-4 anyway, first epoch:\n\n" + code("\n".join(lr_lines[-3:])) +
           "\n\nSo the loss is fine until the very end of the epoch, then NaN again. Same place.")
    t.post("ana_gomes", base + dt.timedelta(hours=2), f"+1, I have basically the same thing with a different dataset (16 features, "
           f"3 classes, batch 256), NaN at the end of the first epoch:\n\n" + code("\n".join(l for l in L2 if not l.startswith(("/data/agomes", "  return")))))
    t.post("martin.ek", base + dt.timedelta(hours=3), "Turn on anomaly detection, it tells you which op produced the NaN: "
           "`with torch.autograd.detect_anomaly(): loss.backward()`", likes=2)
    t.post("pjansen", base + dt.timedelta(hours=5), f"""Done:

{code(f'''epoch {anom[0]} step {anom[1]}: RuntimeError: {anom[2]}''')}

Not sure what to make of it, it's the loss itself? I also added a check that prints the batch when the loss is NaN:

{code(chr(10).join(Lp[-1:]))}""")
    t.post("yusuf.k", base + dt.timedelta(hours=6), "LogSoftmax returning NaN means your logits overflowed. Use float64 or "
           "`torch.nn.functional.log_softmax` explicitly.")
    t.post("ana_gomes", base + dt.timedelta(hours=9), "Maybe a driver thing? We're both on recent drivers. Mine:\n\n" +
           details("collect_env", code(noise.collect_env(r))))
    t.post("pjansen", base + dt.timedelta(days=1), "I'm on CPU for this one actually (laptop), so no driver involved.\n\n" +
           details("pip freeze", code(noise.pip_freeze(r, extra=[("pandas", "2.2.2")]))))
    t.post("k.liebermann", base + dt.timedelta(days=1, hours=2), "Not an answer, but I'd move the normalisation out of the loop and "
           "compute mean/std once on the training set, then also save them for inference. Per-batch statistics make your val "
           "predictions depend on the batch composition.")
    t.post("pjansen", base + dt.timedelta(days=1, hours=3), "Fair point, but I'd first like to understand where the NaN comes from, "
           "since the data is clean. Is there anything else in the output I should look at?")
    write(f"{out}/thread.md", t.render())
    return {"truth": "zero_variance_statistic",
            "symptom": "Loss becomes NaN at the very end of the first epoch every time, although there are no NaNs in my data.",
            "how": f"train.py standardises each batch with x.std(0) while the 12801-row training set leaves a last batch of "
                   f"one sample (no drop_last): std over one element is NaN ('{warned[0][:44]}...' warning in the output, "
                   f"+1e-6 does not help), so the loss is NaN at step 101/101 and the weights are NaN afterwards."}
