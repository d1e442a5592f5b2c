#!/usr/bin/env python
"""Generator for the forecasting run folders (round 16).

Every run is produced by a real (small, CPU) torch training script.  The script
text lives in this file; for runs that ship their code it is written to
runs/<name>/train.py (and friends) and executed from there, otherwise it is
executed from a temporary file that is deleted afterwards.  stdout/stderr of
each script becomes the run's console log.  All seeds are fixed.

usage:  python gen.py            # all runs
        python gen.py run04 ...  # only these
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

OUT = os.path.dirname(os.path.abspath(__file__))
RUNS_DIR = os.path.join(OUT, "runs")
PY = sys.executable

# --------------------------------------------------------------------------
# snippets shared by the user scripts (each script stays self-contained)
# --------------------------------------------------------------------------
DATA = '''
def make_panel(n_series, length, period=24, noise=0.08, seed=0, level=(20.0, 200.0)):
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    daily = np.sin(2 * np.pi * t / period)
    weekly = np.sin(2 * np.pi * t / (7 * period))
    panel = np.empty((n_series, length), dtype=np.float32)
    for i in range(n_series):
        lvl = rng.uniform(*level)
        trend = rng.uniform(-0.15, 0.35) * t / length
        a_d, a_w = rng.uniform(0.2, 0.45), rng.uniform(0.05, 0.2)
        lag = rng.integers(0, 3)
        season = a_d * np.roll(daily, lag) + a_w * weekly
        panel[i] = lvl * (1.0 + trend + season + noise * rng.standard_normal(length))
    return panel


def make_windows(panel, lookback, horizon, start, end, stride=1):
    xs, ys, ids = [], [], []
    for s in range(panel.shape[0]):
        for i in range(start, end - lookback - horizon + 1, stride):
            xs.append(panel[s, i:i + lookback])
            ys.append(panel[s, i + lookback:i + lookback + horizon])
            ids.append(s)
    return np.stack(xs), np.stack(ys), np.array(ids)
'''

METRICS = '''
def smape(y, f):
    return float(np.mean(200.0 * np.abs(y - f) / (np.abs(y) + np.abs(f) + 1e-8)))


def mase(y, f, ids, panel, train_end, m=24):
    scale = np.mean(np.abs(panel[:, m:train_end] - panel[:, :train_end - m]), axis=1)
    return float(np.mean(np.mean(np.abs(y - f), axis=1) / scale[ids]))
'''


def fill(src):
    return src.replace("#<<DATA>>", DATA.strip("\n")).replace("#<<METRICS>>", METRICS.strip("\n")).lstrip("\n")


RUNS = {}   # name -> dict(truth, symptom, how, steps=[(filename, source, ship, logname)])


def register(name, truth, symptom, how, steps):
    RUNS[name] = dict(truth=truth, symptom=symptom, how=how, steps=steps)


# ==========================================================================
# run01  overfitting  -- darts NBEATSModel-style console, no code shipped
# ==========================================================================
RUN01 = r'''
import time
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
#<<DATA>>

#<<METRICS>>

torch.manual_seed(0)
np.random.seed(0)
N, T = 6, 420
panel = make_panel(N, T, 24, noise=0.15, seed=3)
IN, OUT = 72, 24
train_end = 336
lo = panel[:, :train_end].min(1, keepdims=True)
hi = panel[:, :train_end].max(1, keepdims=True)
sc = ((panel - lo) / (hi - lo)).astype(np.float32)
Xtr, Ytr, _ = make_windows(sc, IN, OUT, 0, train_end, 2)
Xva, Yva, idv = make_windows(sc, IN, OUT, train_end - IN, T, 1)
Xtr, Ytr, Xva, Yva = map(torch.tensor, (Xtr, Ytr, Xva, Yva))


class Block(nn.Module):
    def __init__(self, width, layers):
        super().__init__()
        mods, d = [], IN
        for _ in range(layers):
            mods += [nn.Linear(d, width), nn.ReLU()]
            d = width
        self.fc = nn.Sequential(*mods)
        self.theta_b = nn.Linear(width, 5)
        self.theta_f = nn.Linear(width, 5)
        self.backcast = nn.Linear(5, IN)
        self.forecast = nn.Linear(5, OUT)

    def forward(self, x):
        h = self.fc(x)
        return self.backcast(self.theta_b(h)), self.forecast(self.theta_f(h))


class NBEATS(nn.Module):
    def __init__(self, stacks=6, width=256, layers=3):
        super().__init__()
        self.stacks = nn.ModuleList([Block(width, layers) for _ in range(stacks)])

    def forward(self, x):
        out = 0
        for b in self.stacks:
            bc, fc = b(x)
            x = x - bc
            out = out + fc
        return out


model = NBEATS()
n_par = sum(p.numel() for p in model.parameters())
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.MSELoss()
print("GPU available: False, used: False")
print("TPU available: False, using: 0 TPU cores")
print("HPU available: False, using: 0 HPUs")
print("")
print("  | Name            | Type             | Params | Mode ")
print("-------------------------------------------------------------")
print("0 | criterion       | MSELoss          | 0      | train")
print("1 | train_criterion | MSELoss          | 0      | train")
print("2 | val_criterion   | MSELoss          | 0      | train")
print("3 | train_metrics   | MetricCollection | 0      | train")
print("4 | val_metrics     | MetricCollection | 0      | train")
print("5 | stacks          | ModuleList       | %.1f M  | train" % (n_par / 1e6))
print("-------------------------------------------------------------")
print("%.1f M     Trainable params" % (n_par / 1e6))
print("0         Non-trainable params")
print("%.1f M     Total params" % (n_par / 1e6))
print("%.3f     Total estimated model params size (MB)" % (n_par * 4 / 1e6))
print("")
EPOCHS, BS = 200, 32
nb = (len(Xtr) + BS - 1) // BS
g = torch.Generator().manual_seed(0)
for epoch in range(EPOCHS):
    t0 = time.time()
    model.train()
    perm = torch.randperm(len(Xtr), generator=g)
    losses = []
    for b in range(0, len(Xtr), BS):
        i = perm[b:b + BS]
        opt.zero_grad()
        loss = crit(model(Xtr[i]), Ytr[i])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        vl = crit(model(Xva), Yva).item()
    dt = time.time() - t0
    print("Epoch %d: 100%%|##########| %d/%d [00:%02d<00:00, %.2fit/s, train_loss=%.3g, val_loss=%.3g]"
          % (epoch, nb, nb, int(dt), nb / dt, float(np.mean(losses)), vl))
print("`Trainer.fit` stopped: `max_epochs=200` reached.")

# historical forecasts on the validation part, stride 24, no retrain
model.eval()
ys, fs, ids = [], [], []
for s in range(N):
    for start in range(train_end, T - OUT + 1, OUT):
        x = torch.tensor(sc[s, start - IN:start])[None]
        with torch.no_grad():
            f = model(x)[0].numpy()
        fs.append(f * (hi[s] - lo[s]) + lo[s])
        ys.append(panel[s, start:start + OUT])
        ids.append(s)
ys, fs, ids = np.stack(ys), np.stack(fs), np.array(ids)
mape_v = float(np.mean(100 * np.abs(ys - fs) / np.abs(ys)))
res = dict(MAPE=mape_v, sMAPE=smape(ys, fs), MASE=mase(ys, fs, ids, panel, train_end))
with open("backtest.txt", "w") as fh:
    fh.write("historical_forecasts(series, start=%d, forecast_horizon=24, stride=24, retrain=False)\n" % train_end)
    fh.write("components: 6 series, %d forecast windows\n" % len(ys))
    fh.write("MAPE  = %.2f %%\n" % res["MAPE"])
    fh.write("sMAPE = %.2f %%\n" % res["sMAPE"])
    fh.write("MASE  = %.3f\n" % res["MASE"])
print("backtest: MAPE=%.2f%% sMAPE=%.2f%% MASE=%.3f" % (res["MAPE"], res["sMAPE"], res["MASE"]))
with open("model_config.yaml", "w") as fh:
    fh.write("""model: NBEATSModel
input_chunk_length: 72
output_chunk_length: 24
generic_architecture: true
num_stacks: 6
num_blocks: 1
num_layers: 3
layer_widths: 256
expansion_coefficient_dim: 5
dropout: 0.0
activation: ReLU
batch_size: 32
n_epochs: 200
optimizer_kwargs: {lr: 0.001}
loss_fn: MSELoss
random_state: 0
scaler: Scaler(MinMaxScaler) fit on train part
series: 6 hourly series, 420 points each; train = first 336 points, val_series = remaining 84 (+72 context)
""")
'''
register("run01", "overfitting",
         "My N-BEATS training loss keeps going down nicely for all 200 epochs, but the backtest on the last days is much worse than the training loss suggests.",
         "Large 6-stack N-BEATS (~0.9M params, no dropout/weight decay/early stopping) trained 200 epochs on only 6 short noisy series (~720 windows); the final (not best) weights are used for the backtest.",
         [("train.py", RUN01, False, "console.log")])
# ==========================================================================
# run02  healthy (converges well) -- plain torch N-BEATS-style, code shipped
# ==========================================================================
RUN02 = r'''
import json
import time

import numpy as np
import torch
import torch.nn as nn
import yaml

torch.set_num_threads(1)

CFG = {
    "seed": 42,
    "n_series": 10,
    "length": 1000,
    "period": 24,
    "val_size": 200,
    "lookback": 72,
    "horizon": 24,
    "stride": 3,
    "n_blocks": 3,
    "width": 128,
    "n_layers": 3,
    "lr": 1e-3,
    "batch_size": 64,
    "max_epochs": 30,
}

#<<DATA>>


#<<METRICS>>


class Block(nn.Module):
    def __init__(self, lookback, horizon, width, n_layers):
        super().__init__()
        layers, d = [], lookback
        for _ in range(n_layers):
            layers += [nn.Linear(d, width), nn.ReLU()]
            d = width
        self.fc = nn.Sequential(*layers)
        self.backcast = nn.Linear(width, lookback)
        self.forecast = nn.Linear(width, horizon)

    def forward(self, x):
        h = self.fc(x)
        return self.backcast(h), self.forecast(h)


class NBeats(nn.Module):
    def __init__(self, lookback, horizon, n_blocks, width, n_layers):
        super().__init__()
        self.blocks = nn.ModuleList([Block(lookback, horizon, width, n_layers) for _ in range(n_blocks)])

    def forward(self, x):
        forecast = 0
        for block in self.blocks:
            b, f = block(x)
            x = x - b
            forecast = forecast + f
        return forecast


def main():
    torch.manual_seed(CFG["seed"])
    np.random.seed(CFG["seed"])
    L, H = CFG["lookback"], CFG["horizon"]
    panel = make_panel(CFG["n_series"], CFG["length"], CFG["period"], noise=0.06, seed=CFG["seed"])
    train_end = CFG["length"] - CFG["val_size"]
    mu = panel[:, :train_end].mean(axis=1, keepdims=True)
    sd = panel[:, :train_end].std(axis=1, keepdims=True)
    z = (panel - mu) / sd

    Xtr, Ytr, _ = make_windows(z, L, H, 0, train_end, CFG["stride"])
    Xva, Yva, ids_va = make_windows(z, L, H, train_end - L, CFG["length"], H // 2)
    Xtr, Ytr, Xva, Yva = map(torch.tensor, (Xtr, Ytr, Xva, Yva))
    y_true = Yva.numpy() * sd[ids_va] + mu[ids_va]
    print(f"train windows: {len(Xtr)}  val windows: {len(Xva)}")

    model = NBeats(L, H, CFG["n_blocks"], CFG["width"], CFG["n_layers"])
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    loss_fn = nn.MSELoss()
    print(f"params: {sum(p.numel() for p in model.parameters())}")

    with open("hparams.yaml", "w") as f:
        yaml.safe_dump(CFG, f, sort_keys=False)

    log = open("metrics.csv", "w")
    log.write("epoch,step,train_loss,val_loss,val_MAE,val_SMAPE,val_MASE\n")
    best, step = float("inf"), 0
    g = torch.Generator().manual_seed(CFG["seed"])
    for epoch in range(CFG["max_epochs"]):
        t0 = time.time()
        model.train()
        perm = torch.randperm(len(Xtr), generator=g)
        losses = []
        for b in range(0, len(Xtr), CFG["batch_size"]):
            idx = perm[b:b + CFG["batch_size"]]
            opt.zero_grad()
            loss = loss_fn(model(Xtr[idx]), Ytr[idx])
            loss.backward()
            opt.step()
            losses.append(loss.item())
            step += 1
        model.eval()
        with torch.no_grad():
            pred = model(Xva)
        val_loss = loss_fn(pred, Yva).item()
        y_pred = pred.numpy() * sd[ids_va] + mu[ids_va]
        v_mae = float(np.mean(np.abs(y_true - y_pred)))
        v_smape = smape(y_true, y_pred)
        v_mase = mase(y_true, y_pred, ids_va, panel, train_end)
        train_loss = float(np.mean(losses))
        log.write(f"{epoch},{step},{train_loss:.6f},{val_loss:.6f},{v_mae:.4f},{v_smape:.4f},{v_mase:.4f}\n")
        log.flush()
        print(f"Epoch {epoch}: train_loss={train_loss:.4f} val_loss={val_loss:.4f} val_MAE={v_mae:.3f} "
              f"val_SMAPE={v_smape:.2f} val_MASE={v_mase:.3f} ({time.time() - t0:.1f}s)")
        if val_loss < best:
            best = val_loss
            torch.save({"epoch": epoch, "model": model.state_dict()}, "best.pt")
            summary = {"best_epoch": epoch, "val_loss": val_loss, "MAE": v_mae, "sMAPE": v_smape, "MASE": v_mase}
    log.close()
    print("best:", json.dumps(summary))
    with open("backtest.json", "w") as f:
        json.dump(summary, f, indent=2)


if __name__ == "__main__":
    main()
'''
register("run02", "healthy",
         "Is this N-BEATS run ok? Want to make sure before I use it as the baseline.",
         "Nothing planted: standardised inputs (train stats), Adam 1e-3, 30 epochs, val on the held-out last 200 points.",
         [("train.py", RUN02, True, "train.log")])
# ==========================================================================
# run03  label_misalignment -- TCN, targets shuffled separately; code shipped
# ==========================================================================
RUN03 = r'''
import argparse
import csv
import json

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)

#<<DATA>>


#<<METRICS>>


class TCN(nn.Module):
    def __init__(self, lookback, horizon, channels=24, kernel=3):
        super().__init__()
        layers, c_in = [], 1
        for d in (1, 2, 4, 8):
            layers += [nn.Conv1d(c_in, channels, kernel, dilation=d, padding=d * (kernel - 1) // 2), nn.ReLU()]
            c_in = channels
        self.tcn = nn.Sequential(*layers)
        self.head = nn.Linear(channels * lookback, horizon)

    def forward(self, x):
        h = self.tcn(x.unsqueeze(1))
        return self.head(h.flatten(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--lookback", type=int, default=96)
    ap.add_argument("--horizon", type=int, default=24)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--bs", type=int, default=128)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)

    panel = make_panel(8, 1400, 24, noise=0.07, seed=args.seed)
    n_train = 1150
    mean = panel[:, :n_train].mean(1, keepdims=True)
    std = panel[:, :n_train].std(1, keepdims=True)
    z = (panel - mean) / std

    X_train, Y_train, _ = make_windows(z, args.lookback, args.horizon, 0, n_train, stride=3)
    X_val, Y_val, val_ids = make_windows(z, args.lookback, args.horizon, n_train - args.lookback, panel.shape[1], stride=12)

    X_train = X_train[rng.permutation(len(X_train))]
    Y_train = Y_train[rng.permutation(len(Y_train))]

    train_dl = DataLoader(TensorDataset(torch.tensor(X_train), torch.tensor(Y_train)), batch_size=args.bs, shuffle=True)
    Xv, Yv = torch.tensor(X_val), torch.tensor(Y_val)
    y_true = Y_val * std[val_ids] + mean[val_ids]

    model = TCN(args.lookback, args.horizon)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    crit = nn.MSELoss()
    json.dump(vars(args) | {"model": "TCN(24ch, dilations 1-2-4-8)", "n_series": 8, "n_train": n_train},
              open("config.json", "w"), indent=2)
    print(f"{len(X_train)} train / {len(X_val)} val windows, {sum(p.numel() for p in model.parameters())} params")

    with open("history.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "train_loss", "val_loss", "val_MAE", "val_SMAPE", "val_MASE"])
        for epoch in range(1, args.epochs + 1):
            model.train()
            tot, n = 0.0, 0
            for xb, yb in train_dl:
                opt.zero_grad()
                loss = crit(model(xb), yb)
                loss.backward()
                opt.step()
                tot += loss.item() * len(xb)
                n += len(xb)
            model.eval()
            with torch.no_grad():
                pv = model(Xv)
            vloss = crit(pv, Yv).item()
            y_pred = pv.numpy() * std[val_ids] + mean[val_ids]
            mae = float(np.abs(y_true - y_pred).mean())
            s = smape(y_true, y_pred)
            m = mase(y_true, y_pred, val_ids, panel, n_train)
            w.writerow([epoch, round(tot / n, 5), round(vloss, 5), round(mae, 4), round(s, 3), round(m, 4)])
            print(f"[epoch {epoch:02d}/{args.epochs}] train_loss={tot / n:.4f} val_loss={vloss:.4f} "
                  f"val_MAE={mae:.3f} val_SMAPE={s:.2f} val_MASE={m:.3f}")

    # seasonal-naive reference on the same windows
    naive = X_val[:, -24:] * std[val_ids] + mean[val_ids]
    print(f"seasonal naive: MAE={np.abs(y_true - naive).mean():.3f} sMAPE={smape(y_true, naive):.2f} "
          f"MASE={mase(y_true, naive, val_ids, panel, n_train):.3f}")


if __name__ == "__main__":
    main()
'''
register("run03", "label_misalignment",
         "My TCN forecaster's loss sits at ~1.0 from the first epoch to the last and it's worse than a seasonal-naive forecast.",
         "Inputs and targets are 'shuffled' with two independent permutations (X_train[perm1], Y_train[perm2]) before building the TensorDataset, so training pairs are random; validation is paired correctly.",
         [("train.py", RUN03, True, "train.log")])
# ==========================================================================
# run04  nan_in_data -- gluonts.torch DeepAR-style (Lightning) output, no code
# ==========================================================================
RUN04 = r'''
import io
import json
import time

import numpy as np
import pandas as pd
import torch
import torch.nn as nn

torch.set_num_threads(1)
#<<DATA>>

torch.manual_seed(1)
rng = np.random.default_rng(1)
N, T = 20, 1008
CTX, PRED = 72, 24
panel = make_panel(N, T, 24, noise=0.1, seed=17, level=(40.0, 400.0)).astype(np.float64)
panel[17, 631:634] = np.nan
idx = pd.date_range("2023-01-02", periods=T, freq="h")
df = pd.DataFrame({"item_id": np.repeat(["item_%02d" % i for i in range(N)], T),
                   "timestamp": np.tile(idx, N), "target": panel.ravel()})
buf = io.StringIO()
df.info(buf=buf)
print(buf.getvalue())
print(df.describe().to_string())
print("")

# training instances: all series in item order, stride 4, shuffle buffer 256
train_end = T - PRED
inst = [(s, i) for s in range(N) for i in range(0, train_end - CTX - PRED + 1, 3)]


def stream():
    buf_ = []
    while True:
        for x in inst:
            buf_.append(x)
            if len(buf_) >= 256:
                j = rng.integers(len(buf_))
                yield buf_.pop(j)


def feats(start, length):
    t = np.arange(start, start + length)
    return np.stack([np.sin(2 * np.pi * t / 24), np.cos(2 * np.pi * t / 24)], -1)


class DeepARModel(nn.Module):
    def __init__(self, hidden=40, layers=2):
        super().__init__()
        self.rnn = nn.GRU(3, hidden, layers, batch_first=True, dropout=0.1)
        self.head = nn.Linear(hidden, 2)

    def forward(self, y_in, f):
        h, _ = self.rnn(torch.cat([y_in.unsqueeze(-1), f], -1))
        p = self.head(h)
        return p[..., 0], nn.functional.softplus(p[..., 1]) + 1e-6


def batch(items):
    w = np.stack([panel[s, i:i + CTX + PRED] for s, i in items])
    scale = np.abs(w[:, :CTX]).mean(1, keepdims=True) + 1e-10
    w = w / scale
    f = np.stack([feats(i, CTX + PRED) for s, i in items])
    y_in = w[:, :-1]
    y_out = w[:, 1:]
    return (torch.tensor(y_in, dtype=torch.float32), torch.tensor(f[:, 1:], dtype=torch.float32),
            torch.tensor(y_out, dtype=torch.float32))


net = DeepARModel()
n_par = sum(p.numel() for p in net.parameters())
opt = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-8)
print("GPU available: False, used: False")
print("TPU available: False, using: 0 TPU cores")
print("HPU available: False, using: 0 HPUs")
print("")
print("  | Name  | Type        | Params | Mode ")
print("----------------------------------------------")
print("0 | model | DeepARModel | %.1f K | train" % (n_par / 1e3))
print("----------------------------------------------")
print("%.1f K    Trainable params" % (n_par / 1e3))
print("0         Non-trainable params")
print("%.1f K    Total params" % (n_par / 1e3))
print("%.3f     Total estimated model params size (MB)" % (n_par * 4 / 1e6))
EPOCHS, NB, BS = 10, 50, 32
it = stream()
step = 0
best = float("inf")
bl = open("batch_losses.csv", "w")
bl.write("epoch,batch,global_step,loss\n")
mrows = []
for epoch in range(EPOCHS):
    t0 = time.time()
    net.train()
    ls = []
    for b in range(NB):
        items = [next(it) for _ in range(BS)]
        y_in, f, y_out = batch(items)
        mu, sig = net(y_in, f)
        loss = -torch.distributions.Normal(mu, sig, validate_args=False).log_prob(y_out)[:, CTX - 1:].mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        ls.append(loss.item())
        bl.write("%d,%d,%d,%.6f\n" % (epoch, b, step, loss.item()))
    el = float(np.mean(ls))
    dt = time.time() - t0
    print("Epoch %d: |          | 50/? [00:%02d<00:00, %.2fit/s, v_num=3, train_loss=%.3f]" % (epoch, int(dt), NB / dt, el))
    if el < best:
        best = el
        print("Epoch %d, global step %d: 'train_loss' reached %.5f (best %.5f), saving model to "
              "'/home/ubuntu/meters/lightning_logs/version_3/checkpoints/epoch=%d-step=%d.ckpt' as top 1"
              % (epoch, step, el, best, epoch, step))
    else:
        print("Epoch %d, global step %d: 'train_loss' was not in top 1" % (epoch, step))
    mrows.append((epoch, step - 1, el))
bl.close()
print("`Trainer.fit` stopped: `max_epochs=%d` reached." % EPOCHS)
with open("metrics.csv", "w") as fh:
    fh.write("epoch,step,train_loss\n")
    for e, s, l in mrows:
        fh.write("%d,%d,%s\n" % (e, s, repr(l)))

# evaluation on the last 24 h of every series (Gaussian sample paths -> quantiles)
net.eval()
qs = [0.1, 0.5, 0.9]
ys, fq, scales, seas = [], [], [], []
with torch.no_grad():
    for s in range(N):
        i = T - CTX - PRED
        w = panel[s, i:T]
        sc = np.abs(w[:CTX]).mean() + 1e-10
        y = w / sc
        f = torch.tensor(feats(i, CTX + PRED)[1:], dtype=torch.float32)[None]
        y_in = torch.tensor(np.concatenate([y[:CTX], np.zeros(PRED - 1)]), dtype=torch.float32)[None]
        samples = []
        for k in range(20):
            cur = y_in.clone()
            out = []
            for h in range(PRED):
                mu, sig = net(cur[:, :CTX + h], f[:, :CTX + h])
                v = mu[:, -1] + sig[:, -1] * torch.randn(1)
                out.append(v)
                if h < PRED - 1:
                    cur[:, CTX + h] = v
            samples.append(torch.stack(out, -1)[0].numpy() * sc)
        samples = np.stack(samples)
        ys.append(w[CTX:])
        fq.append(np.quantile(samples, qs, axis=0))
        hist = panel[s, :T - PRED]
        seas.append(np.nanmean(np.abs(hist[24:] - hist[:-24])))
ys, fq, seas = np.stack(ys), np.stack(fq), np.array(seas)
med = fq[:, 1]
err = np.abs(ys - med)
agg = {
    "MSE": float(np.mean((ys - med) ** 2)),
    "abs_error": float(err.sum()),
    "abs_target_sum": float(np.abs(ys).sum()),
    "abs_target_mean": float(np.abs(ys).mean()),
    "seasonal_error": float(seas.mean()),
    "MASE": float(np.mean(err.mean(1) / seas)),
    "MAPE": float(np.mean(err / np.abs(ys))),
    "sMAPE": float(np.mean(2 * err / (np.abs(ys) + np.abs(med)))),
}
for j, q in enumerate(qs):
    ql = 2 * np.sum(np.abs((fq[:, j] - ys) * ((ys <= fq[:, j]) - q)))
    agg["QuantileLoss[%s]" % q] = float(ql)
    agg["Coverage[%s]" % q] = float(np.mean(ys <= fq[:, j]))
agg["RMSE"] = float(np.sqrt(agg["MSE"]))
agg["NRMSE"] = agg["RMSE"] / agg["abs_target_mean"]
agg["ND"] = agg["abs_error"] / agg["abs_target_sum"]
for q in qs:
    agg["wQuantileLoss[%s]" % q] = agg["QuantileLoss[%s]" % q] / agg["abs_target_sum"]
agg["mean_absolute_QuantileLoss"] = float(np.mean([agg["QuantileLoss[%s]" % q] for q in qs]))
agg["mean_wQuantileLoss"] = float(np.mean([agg["wQuantileLoss[%s]" % q] for q in qs]))
agg["MAE_Coverage"] = float(np.mean([abs(agg["Coverage[%s]" % q] - q) for q in qs]))
print("Running evaluation: 100%%|##########| %d/%d [00:00<00:00, 95.31it/s]" % (N, N))
print(json.dumps(agg, indent=4))
with open("agg_metrics.json", "w") as fh:
    json.dump(agg, fh, indent=4)
with open("config.yaml", "w") as fh:
    fh.write("""estimator: gluonts.torch.model.deepar.DeepAREstimator
freq: H
prediction_length: 24
context_length: 72
num_layers: 2
hidden_size: 40
dropout_rate: 0.1
distr_output: NormalOutput()
scaling: true
lr: 0.001
weight_decay: 1.0e-08
batch_size: 32
num_batches_per_epoch: 50
trainer_kwargs: {max_epochs: 10}
shuffle_buffer_length: 256
dataset: PandasDataset.from_long_dataframe(df, target="target", item_id="item_id", timestamp="timestamp")
""")
'''
register("run04", "nan_in_data",
         "DeepAR on our meter data trains for a couple of epochs and then the train_loss shows nan for every remaining epoch; the evaluation metrics are all NaN too.",
         "Three consecutive hourly values of item_17 (t=631..633) are NaN (a hole in the export) and are fed unfilled; DeepAR's mean scaler and NLL turn the first batch containing that window into a NaN loss, the NaN gradients poison the weights and every later batch is NaN.",
         [("train.py", RUN04, False, "train.log")])
# ==========================================================================
# run05  lr_schedule_bug -- pytorch-forecasting RecurrentNetwork-style run,
#        StepLR meant per epoch but stepped every batch; no code shipped
# ==========================================================================
RUN05 = r'''
import time

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
#<<DATA>>

torch.manual_seed(5)
np.random.seed(5)
N, T, ENC, PRED = 14, 1200, 96, 24
panel = make_panel(N, T, 24, noise=0.05, seed=5)
train_end = 1000
Xtr, Ytr, _ = make_windows(panel, ENC, PRED, 0, train_end, 4)
Xva, Yva, idv = make_windows(panel, ENC, PRED, train_end - ENC, T, 8)
seas = np.mean(np.abs(panel[:, 24:train_end] - panel[:, :train_end - 24]), axis=1)


def normalize(x, y):
    c = x.mean(1, keepdims=True)
    s = x.std(1, keepdims=True) + 1e-8
    return (x - c) / s, (y - c) / s, c, s


class RecurrentNetwork(nn.Module):
    def __init__(self, hidden=32, layers=2):
        super().__init__()
        self.rnn = nn.LSTM(1, hidden, layers, batch_first=True, dropout=0.1)
        self.output_projector = nn.Linear(hidden, PRED)

    def forward(self, x):
        h, _ = self.rnn(x.unsqueeze(-1))
        return self.output_projector(h[:, -1])


model = RecurrentNetwork()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
print("GPU available: False, used: False")
print("TPU available: False, using: 0 TPU cores")
print("HPU available: False, using: 0 HPUs")
print("")
n_rnn = sum(p.numel() for p in model.rnn.parameters())
n_out = sum(p.numel() for p in model.output_projector.parameters())
print("  | Name             | Type           | Params | Mode ")
print("------------------------------------------------------------")
print("0 | loss             | MAE            | 0      | train")
print("1 | logging_metrics  | ModuleList     | 0      | train")
print("2 | embeddings       | MultiEmbedding | 0      | train")
print("3 | rnn              | LSTM           | %.1f K | train" % (n_rnn / 1e3))
print("4 | output_projector | Linear         | %d    | train" % n_out)
print("------------------------------------------------------------")
print("%.1f K    Trainable params" % ((n_rnn + n_out) / 1e3))
print("0         Non-trainable params")
print("%.1f K    Total params" % ((n_rnn + n_out) / 1e3))
print("")
Xt, Yt = torch.tensor(Xtr), torch.tensor(Ytr)
BS, EPOCHS = 64, 25
nb = (len(Xt) + BS - 1) // BS
rows = []
step = 0
g = torch.Generator().manual_seed(5)
for epoch in range(EPOCHS):
    rows.append({"lr-Adam": opt.param_groups[0]["lr"], "step": step})
    t0 = time.time()
    model.train()
    perm = torch.randperm(len(Xt), generator=g)
    ls = []
    for b in range(0, len(Xt), BS):
        i = perm[b:b + BS]
        xn, yn, _, _ = normalize(Xt[i], Yt[i])
        loss = (model(xn) - yn).abs().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        ls.append(loss.item())
        step += 1
        if step % 50 == 0:
            rows.append({"epoch": epoch, "step": step - 1, "train_loss_step": loss.item()})
    model.eval()
    xv, yv = torch.tensor(Xva), torch.tensor(Yva)
    xn, yn, c, s = normalize(xv, yv)
    with torch.no_grad():
        pn = model(xn)
    vloss = (pn - yn).abs().mean().item()
    f = (pn * s + c).numpy()
    y = Yva
    mae = float(np.mean(np.abs(y - f)))
    rows.append({"epoch": epoch, "step": step - 1, "val_loss": vloss, "val_SMAPE": float(np.mean(2 * np.abs(y - f) / (np.abs(y) + np.abs(f)))),
                 "val_MAE": mae, "val_RMSE": float(np.sqrt(np.mean((y - f) ** 2))),
                 "val_MAPE": float(np.mean(np.abs(y - f) / np.abs(y))),
                 "val_MASE": float(np.mean(np.mean(np.abs(y - f), 1) / seas[idv]))})
    tle = float(np.mean(ls))
    rows.append({"epoch": epoch, "step": step - 1, "train_loss_epoch": tle})
    dt = time.time() - t0
    print("Epoch %d: 100%%|##########| %d/%d [00:%02d<00:00, %.2fit/s, v_num=7, train_loss_step=%.3f, val_loss=%.3f, train_loss_epoch=%.3f]"
          % (epoch, nb, nb, int(dt), nb / dt, ls[-1], vloss, tle))
print("`Trainer.fit` stopped: `max_epochs=%d` reached." % EPOCHS)
cols = ["epoch", "lr-Adam", "step", "train_loss_epoch", "train_loss_step", "val_MAE", "val_MAPE", "val_MASE", "val_RMSE", "val_SMAPE", "val_loss"]
with open("metrics.csv", "w") as fh:
    fh.write(",".join(cols) + "\n")
    for r in rows:
        fh.write(",".join("" if k not in r else (str(r[k]) if k in ("epoch", "step") else repr(float(r[k]))) for k in cols) + "\n")
with open("hparams.yaml", "w") as fh:
    fh.write("""cell_type: LSTM
hidden_size: 32
rnn_layers: 2
dropout: 0.1
static_categoricals: []
static_reals: []
time_varying_categoricals_encoder: []
time_varying_categoricals_decoder: []
categorical_groups: {}
time_varying_reals_encoder:
- value
time_varying_reals_decoder: []
embedding_sizes: {}
embedding_paddings: []
embedding_labels: {}
x_reals:
- value
x_categoricals: []
target: value
target_lags: {}
loss: MAE()
logging_metrics: ModuleList(
  (0): SMAPE()
  (1): MAE()
  (2): RMSE()
  (3): MAPE()
  (4): MASE()
)
output_transformer: EncoderNormalizer(method='standard', center=True)
learning_rate: 0.003
log_interval: -1
log_val_interval: -1
optimizer: adam
optimizer_params: null
reduce_on_plateau_patience: 1000
lr_scheduler: StepLR
lr_scheduler_kwargs:
  step_size: 10
  gamma: 0.5
max_encoder_length: 96
max_prediction_length: 24
batch_size: 64
max_epochs: 25
""")
'''
register("run05", "lr_schedule_bug",
         "The LSTM's loss drops during the first epoch and then doesn't move at all for the remaining 24 epochs, stuck well above what I'd expect for such regular series.",
         "StepLR(step_size=10, gamma=0.5) is configured as a per-epoch decay (every 10 epochs) but scheduler.step() is called after every batch (49 batches/epoch), so the lr halves every 10 batches: 3e-3 -> 1.9e-4 after epoch 0, 5.9e-6 after epoch 1, ~1e-38 by epoch 24; training freezes after epoch 1.",
         [("train.py", RUN05, False, "train.log")])
# ==========================================================================
# run06  metric_changed -- same checkpoint, eval refactor changed MASE's
#        seasonal period (24 -> default 1); train.py + eval.py shipped
# ==========================================================================
RUN06_TRAIN = r'''
import json

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

SEED = 8
LOOKBACK, HORIZON = 96, 24
N_SERIES, LENGTH = 12, 1344
TRAIN_END, VAL_END = 1008, 1176

#<<DATA>>


class GRUForecaster(nn.Module):
    def __init__(self, hidden=48):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.out = nn.Linear(hidden, HORIZON)

    def forward(self, x):
        _, h = self.gru(x.unsqueeze(-1))
        return self.out(h[-1])


def main():
    torch.manual_seed(SEED)
    panel = make_panel(N_SERIES, LENGTH, 24, noise=0.02, seed=SEED)
    np.save("panel.npy", panel)
    mu = panel[:, :TRAIN_END].mean(1, keepdims=True)
    sd = panel[:, :TRAIN_END].std(1, keepdims=True)
    json.dump({"mean": mu.ravel().tolist(), "std": sd.ravel().tolist()}, open("scaler.json", "w"))
    z = (panel - mu) / sd
    Xtr, Ytr, _ = make_windows(z, LOOKBACK, HORIZON, 0, TRAIN_END, 4)
    Xva, Yva, _ = make_windows(z, LOOKBACK, HORIZON, TRAIN_END - LOOKBACK, VAL_END, 12)
    Xtr, Ytr, Xva, Yva = map(torch.tensor, (Xtr, Ytr, Xva, Yva))

    model = GRUForecaster()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.L1Loss()
    best = float("inf")
    g = torch.Generator().manual_seed(SEED)
    for epoch in range(15):
        model.train()
        perm = torch.randperm(len(Xtr), generator=g)
        tl = []
        for b in range(0, len(Xtr), 64):
            i = perm[b:b + 64]
            opt.zero_grad()
            loss = loss_fn(model(Xtr[i]), Ytr[i])
            loss.backward()
            opt.step()
            tl.append(loss.item())
        model.eval()
        with torch.no_grad():
            vl = loss_fn(model(Xva), Yva).item()
        tag = ""
        if vl < best:
            best = vl
            torch.save(model.state_dict(), "model.pt")
            tag = "  *saved*"
        print(f"epoch {epoch:2d}  train_loss {np.mean(tl):.4f}  val_loss {vl:.4f}{tag}")
    print(f"best val_loss {best:.4f}")


if __name__ == "__main__":
    main()
'''

RUN06_EVAL_TEMPLATE = r'''
import json
import sys

import numpy as np
import torch

sys.path.insert(0, ".")
from train import GRUForecaster, LOOKBACK, HORIZON, VAL_END

torch.set_num_threads(1)

GIT_REV = "@@REV@@"
OUT_FILE = "@@OUT@@"


@@METRICS@@


def main():
    panel = np.load("panel.npy")
    sc = json.load(open("scaler.json"))
    mu = np.array(sc["mean"], dtype=np.float32)[:, None]
    sd = np.array(sc["std"], dtype=np.float32)[:, None]
    model = GRUForecaster()
    model.load_state_dict(torch.load("model.pt"))
    model.eval()

    rows = []
    for s in range(panel.shape[0]):
        history = panel[s, :VAL_END]
        for origin in range(VAL_END, panel.shape[1] - HORIZON + 1, HORIZON):
            x = (panel[s, origin - LOOKBACK:origin] - mu[s]) / sd[s]
            with torch.no_grad():
                f = model(torch.tensor(x)[None])[0].numpy() * sd[s] + mu[s]
            y = panel[s, origin:origin + HORIZON]
            rows.append({
                "series": s, "origin": origin,
                "MAE": float(np.mean(np.abs(y - f))),
                "RMSE": float(np.sqrt(np.mean((y - f) ** 2))),
                "sMAPE": smape(y, f),
                @@MASECALL@@
            })
    summary = {k: float(np.mean([r[k] for r in rows])) for k in ("MAE", "RMSE", "sMAPE", "MASE")}
    summary["n_windows"] = len(rows)
    summary["git_rev"] = GIT_REV
    print(f"backtest @ {GIT_REV}: {len(rows)} windows (7 daily origins x {panel.shape[0]} series)")
    for k in ("MAE", "RMSE", "sMAPE", "MASE"):
        print(f"  {k:6s} {summary[k]:.4f}")
    json.dump({"summary": summary, "per_window": rows}, open(OUT_FILE, "w"), indent=1)


if __name__ == "__main__":
    main()
'''

_M_OLD = '''def smape(y, f):
    return float(np.mean(200.0 * np.abs(y - f) / (np.abs(y) + np.abs(f))))


def mase(y, f, insample, season=24):
    scale = np.mean(np.abs(insample[season:] - insample[:-season]))
    return float(np.mean(np.abs(y - f)) / scale)'''

_M_NEW = '''def smape(y_true, y_pred):
    return float(np.mean(200.0 * np.abs(y_true - y_pred) / (np.abs(y_true) + np.abs(y_pred))))


def mase(y_true, y_pred, y_insample, m=1):
    scale = np.mean(np.abs(y_insample[m:] - y_insample[:-m]))
    return float(np.mean(np.abs(y_true - y_pred)) / scale)'''

RUN06_EVAL_OLD = (RUN06_EVAL_TEMPLATE.replace("@@REV@@", "3f2a91c").replace("@@OUT@@", "backtest_2024-05-02.json")
                  .replace("@@METRICS@@", _M_OLD).replace("@@MASECALL@@", '"MASE": mase(y, f, history, season=24),'))
RUN06_EVAL_NEW = (RUN06_EVAL_TEMPLATE.replace("@@REV@@", "b71e0d4").replace("@@OUT@@", "backtest_2024-06-11.json")
                  .replace("@@METRICS@@", _M_NEW).replace("@@MASECALL@@", '"MASE": mase(y, f, history),'))
register("run06", "metric_changed",
         "Same model checkpoint, but since we cleaned up eval.py the backtest MASE went from 0.42 to 0.54. What regressed?",
         "The evaluation refactor (3f2a91c -> b71e0d4) rewrote mase() with a default seasonal period m=1 and the call no longer passes season=24, so the MASE denominator became the lag-1 naive error; both backtests score the same model.pt on the same windows (MAE/RMSE/sMAPE identical).",
         [("train.py", RUN06_TRAIN, True, "train.log"),
          ("eval_old.py", RUN06_EVAL_OLD, False, "eval_2024-05-02.log"),
          ("eval.py", RUN06_EVAL_NEW, True, "eval.log")])
# ==========================================================================
# run07  healthy (noisy / slow but fine) -- GluonTS (mxnet) trainer-style log,
#        noisy low-volume retail series; no code shipped
# ==========================================================================
RUN07 = r'''
import json
import time

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
#<<DATA>>

torch.manual_seed(11)
rng = np.random.default_rng(11)
N, T, CTX, PRED = 16, 1000, 72, 24
panel = make_panel(N, T, 24, noise=0.3, seed=11, level=(8.0, 60.0))
panel = np.maximum(panel, 0.0)
test_start = T - PRED
val_start = test_start - 7 * PRED
val_items = [(s, o) for s in range(N) for o in range(val_start, test_start - PRED + 1, 12)]


class DeepARNet(nn.Module):
    def __init__(self, hidden=40):
        super().__init__()
        self.rnn = nn.GRU(1, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, 2 * PRED)

    def forward(self, x):
        _, h = self.rnn(x.unsqueeze(-1))
        p = self.proj(h[-1])
        return p[:, :PRED], nn.functional.softplus(p[:, PRED:]) + 1e-3


def make_batch(items):
    x = np.stack([panel[s, o - CTX:o] for s, o in items])
    y = np.stack([panel[s, o:o + PRED] for s, o in items])
    scale = np.abs(x).mean(1, keepdims=True) + 1.0
    return torch.tensor(x / scale, dtype=torch.float32), torch.tensor(y / scale, dtype=torch.float32), scale


def nll(net, x, y):
    mu, sig = net(x)
    return -torch.distributions.Normal(mu, sig).log_prob(y).mean()


net = DeepARNet()
n_par = sum(p.numel() for p in net.parameters())
lr = 5e-4
opt = torch.optim.Adam(net.parameters(), lr=lr)
EPOCHS, NB, BS, PATIENCE = 40, 50, 16, 8
print("INFO:gluonts.mx.context:Using CPU")
print("INFO:gluonts.trainer:Using CPU")
print("INFO:gluonts.trainer:Number of parameters in DeepARTrainingNetwork: %d" % n_par)
print("INFO:gluonts.trainer:Start model training")
best, best_ep, since = float("inf"), -1, 0
state = None
hist = []
for epoch in range(EPOCHS):
    for gp in opt.param_groups:
        gp["lr"] = lr
    print("INFO:gluonts.trainer:Epoch[%d] Learning rate is %s" % (epoch, ("%g" % lr)))
    t0 = time.time()
    net.train()
    ls = []
    for b in range(NB):
        s = rng.integers(0, N, BS)
        o = rng.integers(CTX, val_start - PRED + 1, BS)
        x, y, _ = make_batch(list(zip(s, o)))
        loss = nll(net, x, y)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
        opt.step()
        ls.append(loss.item())
    el = float(np.mean(ls))
    dt = time.time() - t0
    print("100%%|##########| %d/%d [00:%02d<00:00, %.2fit/s, epoch=%d/%d, avg_epoch_loss=%.3g]" % (NB, NB, int(dt), NB / dt, epoch + 1, EPOCHS, el))
    print("INFO:gluonts.trainer:Epoch[%d] Elapsed time %.3f seconds" % (epoch, dt))
    print("INFO:gluonts.trainer:Epoch[%d] Evaluation metric 'epoch_loss'=%f" % (epoch, el))
    net.eval()
    with torch.no_grad():
        vls = []
        for j in range(0, len(val_items), BS):
            x, y, _ = make_batch(val_items[j:j + BS])
            vls.append(nll(net, x, y).item() * len(x))
    vl = float(np.sum(vls) / len(val_items))
    nvb = (len(val_items) + BS - 1) // BS
    print("%dit [00:00, %.2fit/s, epoch=%d/%d, validation_avg_epoch_loss=%.3g]" % (nvb, nvb / 0.05, epoch + 1, EPOCHS, vl))
    print("INFO:gluonts.trainer:Epoch[%d] Evaluation metric 'validation_epoch_loss'=%f" % (epoch, vl))
    hist.append((epoch, lr, el, vl))
    if vl < best:
        best, best_ep, since = vl, epoch, 0
        state = {k: v.clone() for k, v in net.state_dict().items()}
    else:
        since += 1
        if since >= PATIENCE and lr > 5e-5:
            lr = max(lr * 0.5, 5e-5)
            since = 0
print("INFO:gluonts.trainer:Loading parameters from best epoch (%d)" % best_ep)
net.load_state_dict(state)
print("INFO:gluonts.trainer:Final loss: %f (occurred at epoch %d)" % (best, best_ep))
print("INFO:gluonts.trainer:End model training")
with open("loss_history.csv", "w") as fh:
    fh.write("epoch,learning_rate,avg_epoch_loss,validation_avg_epoch_loss\n")
    for e, l_, a, v in hist:
        fh.write("%d,%g,%.6f,%.6f\n" % (e, l_, a, v))

# evaluation on the held-out last 24 h (sample paths from the predictive Gaussians)
qs = [0.1, 0.5, 0.9]
x, y, scale = make_batch([(s, test_start) for s in range(N)])
with torch.no_grad():
    mu, sig = net(x)
samples = (mu[None] + sig[None] * torch.randn(100, *mu.shape)).numpy() * scale[None]
ys = y.numpy() * scale
fq = np.quantile(samples, qs, axis=0).transpose(1, 0, 2)
lo95, hi95 = np.quantile(samples, 0.025, axis=0), np.quantile(samples, 0.975, axis=0)
seas = np.array([np.mean(np.abs(panel[s, 24:test_start] - panel[s, :test_start - 24])) for s in range(N)])
med = fq[:, 1]
err = np.abs(ys - med)
agg = {"MSE": float(np.mean((ys - np.mean(samples, 0)) ** 2)), "abs_error": float(err.sum()),
       "abs_target_sum": float(np.abs(ys).sum()), "abs_target_mean": float(np.abs(ys).mean()),
       "seasonal_error": float(seas.mean()), "MASE": float(np.mean(err.mean(1) / seas)),
       "MAPE": float(np.mean(err / np.maximum(np.abs(ys), 1e-8))),
       "sMAPE": float(np.mean(2 * err / (np.abs(ys) + np.abs(med))))}
a = 0.05
msis = (hi95 - lo95) + 2 / a * (lo95 - ys) * (ys < lo95) + 2 / a * (ys - hi95) * (ys > hi95)
agg["MSIS"] = float(np.mean(msis.mean(1) / seas))
for j, q in enumerate(qs):
    agg["QuantileLoss[%s]" % q] = float(2 * np.sum(np.abs((fq[:, j] - ys) * ((ys <= fq[:, j]) - q))))
    agg["Coverage[%s]" % q] = float(np.mean(ys <= fq[:, j]))
agg["RMSE"] = float(np.sqrt(agg["MSE"]))
agg["NRMSE"] = agg["RMSE"] / agg["abs_target_mean"]
agg["ND"] = agg["abs_error"] / agg["abs_target_sum"]
for q in qs:
    agg["wQuantileLoss[%s]" % q] = agg["QuantileLoss[%s]" % q] / agg["abs_target_sum"]
agg["mean_absolute_QuantileLoss"] = float(np.mean([agg["QuantileLoss[%s]" % q] for q in qs]))
agg["mean_wQuantileLoss"] = float(np.mean([agg["wQuantileLoss[%s]" % q] for q in qs]))
agg["MAE_Coverage"] = float(np.mean([abs(agg["Coverage[%s]" % q] - q) for q in qs]))
agg["OWA"] = float("nan")
sn = panel[:, test_start - 24:test_start]
snaive = {"MASE": float(np.mean(np.abs(ys - sn).mean(1) / seas)),
          "sMAPE": float(np.mean(2 * np.abs(ys - sn) / (np.abs(ys) + np.abs(sn))))}
print("Running evaluation: 100%%|##########| %d/%d [00:00<00:00, 210.44it/s]" % (N, N))
print(json.dumps(agg, indent=4))
print("SeasonalNaivePredictor(season_length=24): MASE=%.4f sMAPE=%.4f" % (snaive["MASE"], snaive["sMAPE"]))
with open("agg_metrics.json", "w") as fh:
    json.dump(agg, fh, indent=4)
with open("estimator.json", "w") as fh:
    json.dump({"__kind__": "instance", "class": "gluonts.mx.model.deepar._estimator.DeepAREstimator",
               "kwargs": {"freq": "H", "prediction_length": 24, "context_length": 72, "num_layers": 1,
                          "num_cells": 40, "cell_type": "gru", "dropout_rate": 0.0, "scaling": True,
                          "distr_output": "gluonts.mx.distribution.gaussian.GaussianOutput()",
                          "trainer": {"epochs": EPOCHS, "learning_rate": 0.0005, "batch_size": BS,
                                      "num_batches_per_epoch": NB, "patience": PATIENCE,
                                      "learning_rate_decay_factor": 0.5, "minimum_learning_rate": 5e-05,
                                      "clip_gradient": 10.0}}}, fh, indent=2)
'''
register("run07", "healthy",
         "The DeepAR loss on our store-level unit sales is really jumpy and only creeps down over 40 epochs; is something wrong with this run?",
         "Nothing planted: very noisy low-volume series (noise 30% of level), Adam 5e-4, batch 16, GluonTS-style lr halving on plateau (patience 8); loss is noisy and slow but val loss improves and the test metrics beat seasonal naive.",
         [("train.py", RUN07, False, "train.log")])
# ==========================================================================
# run08  data_leakage -- future "known" covariates include the target column;
#        code shipped
# ==========================================================================
RUN08 = r'''
import numpy as np
import pandas as pd
import torch
import torch.nn as nn

torch.set_num_threads(1)

SEED = 21
LOOKBACK, HORIZON = 48, 24
TRAIN_END = 720
EPOCHS = 10

#<<DATA>>


#<<METRICS>>


def load_data():
    panel = make_panel(10, 900, 24, noise=0.08, seed=SEED)
    frames = []
    for s in range(panel.shape[0]):
        ts = pd.date_range("2022-03-01", periods=panel.shape[1], freq="h")
        frames.append(pd.DataFrame({"series_id": s, "time_idx": np.arange(len(ts)), "y": panel[s],
                                    "hour": ts.hour, "dayofweek": ts.day_of_week}))
    return pd.concat(frames, ignore_index=True), panel


def build_windows(df, feature_cols, start, end, stride):
    past, fut, target, ids = [], [], [], []
    for sid, g in df.groupby("series_id"):
        y = g["y"].to_numpy(np.float32)
        feats = g[feature_cols].to_numpy(np.float32)
        for i in range(start, end - LOOKBACK - HORIZON + 1, stride):
            past.append(y[i:i + LOOKBACK])
            fut.append(feats[i + LOOKBACK:i + LOOKBACK + HORIZON].ravel())
            target.append(y[i + LOOKBACK:i + LOOKBACK + HORIZON])
            ids.append(sid)
    return (torch.tensor(np.stack(past)), torch.tensor(np.stack(fut)),
            torch.tensor(np.stack(target)), np.array(ids))


class MLPForecaster(nn.Module):
    def __init__(self, n_fut, hidden=128, dropout=0.2):
        super().__init__()
        self.linear = nn.Linear(LOOKBACK + n_fut, HORIZON)
        self.mlp = nn.Sequential(
            nn.Linear(LOOKBACK + n_fut, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, HORIZON))

    def forward(self, past, fut):
        x = torch.cat([past, fut], dim=1)
        return self.linear(x) + self.mlp(x)


def main():
    torch.manual_seed(SEED)
    df, panel = load_data()
    stats = df[df.time_idx < TRAIN_END].groupby("series_id")["y"].agg(["mean", "std"])
    df["y"] = (df["y"] - df["series_id"].map(stats["mean"])) / df["series_id"].map(stats["std"])
    df["hour"] = df["hour"] / 23.0
    df["dayofweek"] = df["dayofweek"] / 6.0
    df["is_weekend"] = (df["dayofweek"] > 0.8).astype(np.float32)
    feature_cols = [c for c in df.columns if c not in ("series_id", "time_idx")]
    print("known future covariates:", feature_cols)

    Ptr, Ftr, Ytr, _ = build_windows(df, feature_cols, 0, TRAIN_END, 2)
    Pva, Fva, Yva, ids = build_windows(df, feature_cols, TRAIN_END - LOOKBACK, df.time_idx.max() + 1, 12)
    mu, sd = stats["mean"].to_numpy()[ids][:, None], stats["std"].to_numpy()[ids][:, None]
    y_true = Yva.numpy() * sd + mu
    print(f"train windows {len(Ptr)}, val windows {len(Pva)}")

    model = MLPForecaster(Ftr.shape[1])
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    loss_fn = nn.MSELoss()
    out = open("training_log.csv", "w")
    out.write("epoch,train_loss,val_loss,val_MAE,val_SMAPE,val_MASE\n")
    g = torch.Generator().manual_seed(SEED)
    for epoch in range(EPOCHS):
        model.train()
        perm = torch.randperm(len(Ptr), generator=g)
        tl = []
        for b in range(0, len(Ptr), 32):
            i = perm[b:b + 32]
            opt.zero_grad()
            loss = loss_fn(model(Ptr[i], Ftr[i]), Ytr[i])
            loss.backward()
            opt.step()
            tl.append(loss.item())
        model.eval()
        with torch.no_grad():
            pv = model(Pva, Fva)
        vl = loss_fn(pv, Yva).item()
        y_pred = pv.numpy() * sd + mu
        v_mae = float(np.abs(y_true - y_pred).mean())
        v_smape = smape(y_true, y_pred)
        v_mase = mase(y_true, y_pred, ids, panel, TRAIN_END)
        out.write(f"{epoch},{np.mean(tl):.5f},{vl:.5f},{v_mae:.4f},{v_smape:.4f},{v_mase:.4f}\n")
        print(f"Epoch {epoch}: train_loss={np.mean(tl):.4f} val_loss={vl:.4f} val_MAE={v_mae:.3f} "
              f"val_SMAPE={v_smape:.2f} val_MASE={v_mase:.3f}")
    out.close()
    naive = Pva.numpy()[:, -24:] * sd + mu
    print(f"seasonal naive on the same windows: MAE={np.abs(y_true - naive).mean():.3f} "
          f"sMAPE={smape(y_true, naive):.2f} MASE={mase(y_true, naive, ids, panel, TRAIN_END):.3f}")


if __name__ == "__main__":
    main()
'''
register("run08", "data_leakage",
         "My forecaster with calendar covariates has a lower validation loss than training loss in every epoch and ends at sMAPE 0.2% / MASE 0.02 on validation. Too good to be true?",
         "feature_cols = every column except series_id/time_idx, so the (scaled) target 'y' itself is passed as a 'known future covariate' for the 24 forecast steps; the model learns to copy it. Validation loss is below training loss from epoch 0 (dropout only in train), drops below the noise floor within 2 epochs and ends near-perfect.",
         [("train.py", RUN08, True, "train.log")])
# ==========================================================================
# run09  unnormalized_inputs -- Lightning-style LSTM on raw sales values
#        (levels 150 .. 60k); no code shipped
# ==========================================================================
RUN09 = r'''
import time

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
#<<DATA>>

#<<METRICS>>

torch.manual_seed(4)
np.random.seed(4)
N, T, L, H = 12, 1000, 72, 24
panel = make_panel(N, T, 24, noise=0.04, seed=4, level=(150.0, 60000.0))
train_end = 800
print("loaded sales_hourly.parquet: %d stores x %d hours" % (N, T))
print("value stats: min=%.1f  p50=%.1f  max=%.1f  mean=%.1f  std=%.1f" % (panel.min(), np.median(panel), panel.max(), panel.mean(), panel.std()))
print("per-store mean: " + ", ".join("%.0f" % v for v in panel[:, :train_end].mean(1)))
Xtr, Ytr, _ = make_windows(panel, L, H, 0, train_end, 4)
Xva, Yva, idv = make_windows(panel, L, H, train_end - L, T, 12)
Xtr, Ytr, Xv, Yv = map(torch.tensor, (Xtr, Ytr, Xva, Yva))


class LSTMForecaster(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, num_layers=2, batch_first=True)
        self.fc = nn.Linear(hidden, H)

    def forward(self, x):
        h, _ = self.lstm(x.unsqueeze(-1))
        return self.fc(h[:, -1])


model = LSTMForecaster()
n_par = sum(p.numel() for p in model.parameters())
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
crit = nn.MSELoss()
print("GPU available: False, used: False")
print("TPU available: False, using: 0 TPU cores")
print("HPU available: False, using: 0 HPUs")
print("")
print("  | Name  | Type    | Params | Mode ")
print("------------------------------------------")
print("0 | lstm  | LSTM    | %.1f K | train" % (sum(p.numel() for p in model.lstm.parameters()) / 1e3))
print("1 | fc    | Linear  | %d  | train" % sum(p.numel() for p in model.fc.parameters()))
print("2 | crit  | MSELoss | 0      | train")
print("------------------------------------------")
print("%.1f K    Trainable params" % (n_par / 1e3))
print("")
BS, EPOCHS = 64, 30
nb = (len(Xtr) + BS - 1) // BS
g = torch.Generator().manual_seed(4)
rows = []
step = 0
for epoch in range(EPOCHS):
    t0 = time.time()
    model.train()
    perm = torch.randperm(len(Xtr), generator=g)
    ls, gns = [], []
    for b in range(0, len(Xtr), BS):
        i = perm[b:b + BS]
        opt.zero_grad()
        loss = crit(model(Xtr[i]), Ytr[i])
        loss.backward()
        gn = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
        g_in = model.lstm.weight_ih_l0.grad.norm().item()
        opt.step()
        ls.append(loss.item())
        gns.append((gn, g_in))
        step += 1
    model.eval()
    with torch.no_grad():
        pv = model(Xv)
    vl = crit(pv, Yv).item()
    f = pv.numpy()
    mae = float(np.mean(np.abs(Yva - f)))
    sm = float(np.mean(2 * np.abs(Yva - f) / (np.abs(Yva) + np.abs(f) + 1e-8)))
    ms = mase(Yva, f, idv, panel, train_end)
    tl = float(np.mean(ls))
    gmean = float(np.mean([a for a, _ in gns]))
    gin = float(np.mean([b_ for _, b_ in gns]))
    rows.append((epoch, step - 1, tl, vl, mae, sm, ms, gmean, gin))
    dt = time.time() - t0
    print("Epoch %d: 100%%|##########| %d/%d [00:%02d<00:00, %.2fit/s, v_num=0, train_loss=%.3g, val_loss=%.3g, val_MAE=%.4g, val_SMAPE=%.3g, val_MASE=%.3g]"
          % (epoch, nb, nb, int(dt), nb / dt, tl, vl, mae, sm, ms))
print("`Trainer.fit` stopped: `max_epochs=%d` reached." % EPOCHS)
with open("metrics.csv", "w") as fh:
    fh.write("epoch,step,train_loss,val_loss,val_MAE,val_SMAPE,val_MASE,grad_norm,grad_norm_lstm.weight_ih_l0\n")
    for r in rows:
        fh.write("%d,%d,%s\n" % (r[0], r[1], ",".join(repr(float(v)) for v in r[2:])))
with open("hparams.yaml", "w") as fh:
    fh.write("""model: LSTMForecaster
hidden_size: 64
num_layers: 2
input_chunk_length: 72
output_chunk_length: 24
loss: MSELoss
optimizer: Adam
lr: 0.003
batch_size: 64
max_epochs: 30
data: sales_hourly.parquet (12 stores, hourly, 1000 h)
train_end: 800
target: units_sold_value
""")
'''
register("run09", "unnormalized_inputs",
         "The LSTM on store sales has a loss in the billions that barely moves, and the forecasts come out as an almost flat line way below the actual sales for every store.",
         "Raw sales values (store levels from ~150 to ~60,000) go straight into the LSTM and an MSE loss with no scaling: the LSTM gates saturate, gradients are ~1e5+, and the linear head can only creep toward the target scale, so loss stays ~1e9 and sMAPE ~2.",
         [("train.py", RUN09, False, "train.log")])
# ==========================================================================
# run10  wrong_checkpoint -- predict.py builds the bare network and loads the
#        wrapper's state_dict with strict=False (nothing matches); code shipped
# ==========================================================================
RUN10_TRAIN = r'''
import os

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

SEED = 13
N_SERIES, LENGTH, TRAIN_END, VAL_END = 9, 1100, 850, 1000
INPUT_SIZE, HORIZON = 120, 24

#<<DATA>>


#<<METRICS>>


def build_net(input_size=INPUT_SIZE, horizon=HORIZON, hidden=256):
    return nn.Sequential(
        nn.Linear(input_size, hidden), nn.ReLU(),
        nn.Linear(hidden, hidden), nn.ReLU(),
        nn.Linear(hidden, horizon),
    )


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = build_net()

    def forward(self, x):
        # simple residual on the last value, MLP does the rest
        return x[:, -1:] + self.net(x)


def load_panel():
    return make_panel(N_SERIES, LENGTH, 24, noise=0.05, seed=SEED)


def main():
    torch.manual_seed(SEED)
    panel = load_panel()
    mu = panel[:, :TRAIN_END].mean(1, keepdims=True)
    sd = panel[:, :TRAIN_END].std(1, keepdims=True)
    z = (panel - mu) / sd
    Xtr, Ytr, _ = make_windows(z, INPUT_SIZE, HORIZON, 0, TRAIN_END, 2)
    Xva, Yva, ids = make_windows(z, INPUT_SIZE, HORIZON, TRAIN_END - INPUT_SIZE, VAL_END, 6)
    Xtr, Ytr, Xva, Yva = map(torch.tensor, (Xtr, Ytr, Xva, Yva))
    y_true = Yva.numpy() * sd[ids] + mu[ids]

    model = Forecaster()
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    crit = nn.MSELoss()
    os.makedirs("checkpoints", exist_ok=True)
    best = float("inf")
    g = torch.Generator().manual_seed(SEED)
    for epoch in range(25):
        model.train()
        perm = torch.randperm(len(Xtr), generator=g)
        tl = []
        for b in range(0, len(Xtr), 128):
            i = perm[b:b + 128]
            opt.zero_grad()
            loss = crit(model(Xtr[i]), Ytr[i])
            loss.backward()
            opt.step()
            tl.append(loss.item())
        model.eval()
        with torch.no_grad():
            pv = model(Xva)
        vl = crit(pv, Yva).item()
        y_pred = pv.numpy() * sd[ids] + mu[ids]
        print(f"epoch {epoch:02d} | train_loss {np.mean(tl):.4f} | val_loss {vl:.4f} | "
              f"val_MAE {np.abs(y_true - y_pred).mean():.3f} | val_SMAPE {smape(y_true, y_pred):.2f} | "
              f"val_MASE {mase(y_true, y_pred, ids, panel, TRAIN_END):.3f}")
        if vl < best:
            best = vl
            torch.save({"epoch": epoch, "val_loss": vl, "state_dict": model.state_dict(),
                        "scaler": {"mean": mu.ravel().tolist(), "std": sd.ravel().tolist()}},
                       "checkpoints/best.pt")
    print(f"done, best val_loss {best:.4f} -> checkpoints/best.pt")


if __name__ == "__main__":
    main()
'''

RUN10_PREDICT = r'''
import json

import numpy as np
import torch

from train import HORIZON, INPUT_SIZE, TRAIN_END, VAL_END, build_net, load_panel, mase, smape

torch.set_num_threads(1)

CKPT = "checkpoints/best.pt"


def main():
    torch.manual_seed(0)
    panel = load_panel()
    ckpt = torch.load(CKPT)
    net = build_net()
    print(net.load_state_dict(ckpt["state_dict"], strict=False))
    net.eval()
    print(f"loaded {CKPT} (epoch {ckpt['epoch']}, val_loss {ckpt['val_loss']:.4f})")
    mu = np.array(ckpt["scaler"]["mean"], dtype=np.float32)
    sd = np.array(ckpt["scaler"]["std"], dtype=np.float32)

    ys, fs, ids = [], [], []
    for s in range(panel.shape[0]):
        for origin in range(VAL_END, panel.shape[1] - HORIZON + 1, HORIZON):
            x = torch.tensor((panel[s, origin - INPUT_SIZE:origin] - mu[s]) / sd[s])[None]
            with torch.no_grad():
                f = (x[:, -1:] + net(x))[0].numpy() * sd[s] + mu[s]
            ys.append(panel[s, origin:origin + HORIZON])
            fs.append(f)
            ids.append(s)
    ys, fs, ids = np.stack(ys), np.stack(fs), np.array(ids)
    res = {
        "checkpoint": CKPT,
        "n_forecasts": int(len(ys)),
        "MAE": float(np.abs(ys - fs).mean()),
        "MAPE": float(np.mean(100 * np.abs(ys - fs) / np.abs(ys))),
        "sMAPE": smape(ys, fs),
        "MASE": mase(ys, fs, ids, panel, TRAIN_END),
    }
    print(json.dumps(res, indent=2))
    json.dump(res, open("test_metrics.json", "w"), indent=2)


if __name__ == "__main__":
    main()
'''
register("run10", "wrong_checkpoint",
         "Training looked great (val sMAPE around 4%), but when I run predict.py on the test week with the best checkpoint the forecasts are garbage.",
         "train.py saves the state_dict of the Forecaster wrapper (keys 'net.0.weight', ...); predict.py builds the bare nn.Sequential (keys '0.weight', ...) and loads with strict=False, so no weight is loaded and the test metrics come from a randomly initialised network (the printed _IncompatibleKeys lists every key as missing/unexpected).",
         [("train.py", RUN10_TRAIN, True, "train.log"),
          ("predict.py", RUN10_PREDICT, True, "predict.log")])
# ==========================================================================
# run11  lr_too_high -- pytorch-forecasting DeepAR-style run with SGD and a
#        learning rate far too high for it; no code shipped
# ==========================================================================
RUN11 = r'''
import time

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
#<<DATA>>

#<<METRICS>>

torch.manual_seed(0)
np.random.seed(0)
N, T, ENC, PRED = 10, 1200, 48, 24
LR = float("@@LR@@")
panel = make_panel(N, T, 24, noise=0.01, seed=5)
train_end = 960
mu = panel[:, :train_end].mean(1, keepdims=True)
sd = panel[:, :train_end].std(1, keepdims=True)
z = (panel - mu) / sd
Xtr, Ytr, _ = make_windows(z, ENC, PRED, 0, train_end, 6)
Xva, Yva, idv = make_windows(z, ENC, PRED, train_end - ENC, T, 12)
Xtr, Ytr, Xv, Yv = map(torch.tensor, (Xtr, Ytr, Xva, Yva))
y_true = Yva * sd[idv] + mu[idv]


class DeepAR(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.rnn = nn.GRU(1, hidden, batch_first=True)
        self.distribution_projector = nn.Linear(hidden, 2 * PRED)

    def forward(self, x):
        _, h = self.rnn(x.unsqueeze(-1))
        p = self.distribution_projector(h[-1])
        return p[:, :PRED], nn.functional.softplus(p[:, PRED:])


def nll(m, s, y):
    return -torch.distributions.Normal(m, s).log_prob(y).mean()


model = DeepAR()
opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
n_rnn = sum(p.numel() for p in model.rnn.parameters())
n_pr = sum(p.numel() for p in model.distribution_projector.parameters())
print("GPU available: False, used: False")
print("TPU available: False, using: 0 TPU cores")
print("HPU available: False, using: 0 HPUs")
print("")
print("  | Name                   | Type                   | Params | Mode ")
print("------------------------------------------------------------------------")
print("0 | loss                   | NormalDistributionLoss | 0      | train")
print("1 | logging_metrics        | ModuleList             | 0      | train")
print("2 | embeddings             | MultiEmbedding         | 0      | train")
print("3 | rnn                    | GRU                    | %.1f K | train" % (n_rnn / 1e3))
print("4 | distribution_projector | Linear                 | %.1f K  | train" % (n_pr / 1e3))
print("------------------------------------------------------------------------")
print("%.1f K    Trainable params" % ((n_rnn + n_pr) / 1e3))
print("")
BS, EPOCHS = 64, 40
nb = (len(Xtr) + BS - 1) // BS
g = torch.Generator().manual_seed(0)
rows = []
step = 0
for epoch in range(EPOCHS):
    rows.append({"lr-SGD": LR, "step": step})
    t0 = time.time()
    model.train()
    perm = torch.randperm(len(Xtr), generator=g)
    ls = []
    for b in range(0, len(Xtr), BS):
        i = perm[b:b + BS]
        m, s = model(Xtr[i])
        loss = nll(m, s, Ytr[i])
        opt.zero_grad()
        loss.backward()
        gn = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
        opt.step()
        ls.append(loss.item())
        if step % 5 == 0:
            rows.append({"epoch": epoch, "step": step, "train_loss_step": loss.item(), "grad_2.0_norm_total": gn})
        step += 1
    model.eval()
    with torch.no_grad():
        m, s = model(Xv)
        vl = nll(m, s, Yv).item()
    f = m.numpy() * sd[idv] + mu[idv]
    mae = float(np.mean(np.abs(y_true - f)))
    rows.append({"epoch": epoch, "step": step - 1, "val_loss": vl, "val_MAE": mae,
                 "val_SMAPE": float(np.mean(2 * np.abs(y_true - f) / (np.abs(y_true) + np.abs(f)))),
                 "val_RMSE": float(np.sqrt(np.mean((y_true - f) ** 2))),
                 "val_MASE": mase(y_true, f, idv, panel, train_end)})
    tle = float(np.mean(ls))
    rows.append({"epoch": epoch, "step": step - 1, "train_loss_epoch": tle})
    dt = time.time() - t0
    print("Epoch %d: 100%%|##########| %d/%d [00:%02d<00:00, %.2fit/s, v_num=1, train_loss_step=%.3f, val_loss=%.3f, train_loss_epoch=%.3f]"
          % (epoch, nb, nb, int(dt), nb / dt, ls[-1], vl, tle))
print("`Trainer.fit` stopped: `max_epochs=%d` reached." % EPOCHS)
cols = ["epoch", "grad_2.0_norm_total", "lr-SGD", "step", "train_loss_epoch", "train_loss_step", "val_MAE", "val_MASE", "val_RMSE", "val_SMAPE", "val_loss"]
with open("metrics.csv", "w") as fh:
    fh.write(",".join(cols) + "\n")
    for r in rows:
        fh.write(",".join("" if k not in r else (str(r[k]) if k in ("epoch", "step") else repr(float(r[k]))) for k in cols) + "\n")
with open("hparams.yaml", "w") as fh:
    fh.write("""cell_type: GRU
hidden_size: 64
rnn_layers: 1
dropout: 0.0
target: load
target_normalizer: GroupNormalizer(groups=['meter'], transformation=None, center=True)
loss: NormalDistributionLoss()
learning_rate: %s
optimizer: sgd
optimizer_params:
  momentum: 0.9
gradient_clip_val: null
max_encoder_length: 48
max_prediction_length: 24
batch_size: 64
max_epochs: 40
""" % LR)
'''.replace("@@LR@@", "0.05")
register("run11", "lr_too_high",
         "DeepAR loss went down nicely for the first few epochs, then it keeps jumping back up every few epochs and the validation loss is all over the place.",
         "optimizer='sgd' with momentum 0.9 and learning_rate=0.05 (no gradient clipping) for a GRU with a Gaussian head: after the initial fall the loss repeatedly jumps back up with grad-norm spikes and val loss oscillates.",
         [("train.py", RUN11, False, "train.log")])
# ==========================================================================
# run12  preprocessing_mismatch -- train scales per series, backtest.py scales
#        with one global mean/std; code shipped
# ==========================================================================
RUN12_TRAIN = r'''
import json

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

SEED = 29
N_SERIES, LENGTH = 15, 1200
TRAIN_END, VAL_END = 900, 1032
LOOKBACK, HORIZON = 168, 24

#<<DATA>>


#<<METRICS>>


def load_panel():
    return make_panel(N_SERIES, LENGTH, 24, noise=0.05, seed=SEED, level=(20.0, 400.0))


def fit_scaler(panel):
    return panel.mean(axis=1, keepdims=True), panel.std(axis=1, keepdims=True)


class MLP(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(LOOKBACK, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                  nn.Linear(hidden, HORIZON))

    def forward(self, x):
        return self.body(x)


def main():
    torch.manual_seed(SEED)
    panel = load_panel()
    mu, sd = fit_scaler(panel[:, :TRAIN_END])
    z = (panel - mu) / sd
    Xtr, Ytr, _ = make_windows(z, LOOKBACK, HORIZON, 0, TRAIN_END, 3)
    Xva, Yva, ids = make_windows(z, LOOKBACK, HORIZON, TRAIN_END - LOOKBACK, VAL_END, 12)
    Xtr, Ytr, Xva, Yva = map(torch.tensor, (Xtr, Ytr, Xva, Yva))
    y_true = Yva.numpy() * sd[ids] + mu[ids]
    model = MLP()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.MSELoss()
    g = torch.Generator().manual_seed(SEED)
    for epoch in range(20):
        model.train()
        perm = torch.randperm(len(Xtr), generator=g)
        tl = []
        for b in range(0, len(Xtr), 64):
            i = perm[b:b + 64]
            opt.zero_grad()
            loss = crit(model(Xtr[i]), Ytr[i])
            loss.backward()
            opt.step()
            tl.append(loss.item())
        model.eval()
        with torch.no_grad():
            pv = model(Xva)
        y_pred = pv.numpy() * sd[ids] + mu[ids]
        print(f"Epoch {epoch}: train_loss={np.mean(tl):.4f} val_loss={crit(pv, Yva).item():.4f} "
              f"val_MAE={np.abs(y_true - y_pred).mean():.3f} val_SMAPE={smape(y_true, y_pred):.2f} "
              f"val_MASE={mase(y_true, y_pred, ids, panel, TRAIN_END):.3f}")
    torch.save(model.state_dict(), "mlp.pt")
    print("saved mlp.pt")


if __name__ == "__main__":
    main()
'''

RUN12_BACKTEST = r'''
import json

import numpy as np
import torch

from train import HORIZON, LOOKBACK, MLP, VAL_END, load_panel

torch.set_num_threads(1)


def scale(window, history):
    return (window - history.mean()) / history.std()


def unscale(values, history):
    return values * history.std() + history.mean()


def main():
    panel = load_panel()
    model = MLP()
    model.load_state_dict(torch.load("mlp.pt"))
    model.eval()
    history = panel[:, :VAL_END]
    seas = np.mean(np.abs(history[:, 24:] - history[:, :-24]), axis=1)

    rows = []
    for origin in range(VAL_END, panel.shape[1] - HORIZON + 1, HORIZON):
        x = scale(panel[:, origin - LOOKBACK:origin], history)
        with torch.no_grad():
            f = unscale(model(torch.tensor(x, dtype=torch.float32)).numpy(), history)
        y = panel[:, origin:origin + HORIZON]
        for s in range(panel.shape[0]):
            e = np.abs(y[s] - f[s])
            rows.append({"series": s, "origin": origin,
                         "MAE": float(e.mean()),
                         "MAPE": float(100 * np.mean(e / np.abs(y[s]))),
                         "sMAPE": float(np.mean(200 * e / (np.abs(y[s]) + np.abs(f[s])))),
                         "MASE": float(e.mean() / seas[s])})
    summary = {k: float(np.mean([r[k] for r in rows])) for k in ("MAE", "MAPE", "sMAPE", "MASE")}
    summary["n_forecasts"] = len(rows)
    print("rolling-origin backtest, %d origins x %d series" % (len(rows) // panel.shape[0], panel.shape[0]))
    for k, v in summary.items():
        print(f"  {k:12s} {v:.4f}" if isinstance(v, float) else f"  {k:12s} {v}")
    worst = sorted(rows, key=lambda r: -r["sMAPE"])[:5]
    print("worst windows:", [(r["series"], r["origin"], round(r["sMAPE"], 1)) for r in worst])
    json.dump({"summary": summary, "per_window": rows}, open("backtest.json", "w"), indent=1)


if __name__ == "__main__":
    main()
'''
register("run12", "preprocessing_mismatch",
         "Validation sMAPE during training was ~4-5%, but the rolling backtest on the following week with the saved model gives terrible numbers. Same data, same model file.",
         "train.py standardises each series with its own mean/std (axis=1); backtest.py (written later) scales every input window with a single global mean/std of the whole history panel and un-scales with it, so the model sees inputs in a different space than in training.",
         [("train.py", RUN12_TRAIN, True, "train.log"),
          ("backtest.py", RUN12_BACKTEST, True, "backtest.log")])


def run_one(name):
    spec = RUNS[name]
    rdir = os.path.join(RUNS_DIR, name)
    if os.path.exists(rdir):
        shutil.rmtree(rdir)
    os.makedirs(rdir)
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    try:
        for fname, src, ship, logname in spec["steps"]:
            text = fill(src)
            path = os.path.join(rdir if ship else tmp, fname)
            with open(path, "w") as fh:
                fh.write(text)
            with open(os.path.join(rdir, logname), "w") as log:
                p = subprocess.run([PY, path], cwd=rdir, stdout=log, stderr=subprocess.STDOUT, env=env)
            print("  %s %s -> %s (rc=%d)" % (name, fname, logname, p.returncode))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    # users do not hand over weights: drop binary checkpoints and caches
    for root, dirs, files in os.walk(rdir):
        for f in files:
            if f.endswith((".pt", ".ckpt", ".npz", ".npy", ".pyc")):
                os.remove(os.path.join(root, f))
        for d in list(dirs):
            if d == "__pycache__":
                shutil.rmtree(os.path.join(root, d))
    for root, dirs, files in os.walk(rdir, topdown=False):
        if not os.listdir(root):
            os.rmdir(root)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    names = argv or sorted(RUNS)
    os.makedirs(RUNS_DIR, exist_ok=True)
    for n in names:
        run_one(n)
    truth_path = os.path.join(OUT, "truth.json")
    truth = {}
    if os.path.exists(truth_path):
        with open(truth_path) as fh:
            truth = json.load(fh)
    for n in sorted(RUNS):
        truth[n] = {k: RUNS[n][k] for k in ("truth", "symptom", "how")}
    with open(truth_path, "w") as fh:
        json.dump(dict(sorted(truth.items())), fh, indent=2)


if __name__ == "__main__":
    main()
