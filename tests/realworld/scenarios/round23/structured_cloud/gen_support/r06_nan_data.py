"""Azure ML (v1) driver log; churn features CSV with one blank cell parsed by np.genfromtxt to NaN.
Loss is finite and falling, then NaN from the batch containing that row onwards."""
import datetime as dt
import io
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from .common import AZ_EPILOGUE, AZ_PREAMBLE, Clock, az_ts, grad_norm, jdump, r, seed_all, write

COLS = ["tenure_z", "monthly_charges_z", "total_charges_z", "n_services_z", "contract_months_z", "support_calls_z",
        "late_payments_z", "data_usage_z", "discount_z", "age_z", "tickets_90d_z", "nps_z"]
ARGS = dict(epochs=5, lr=1e-3, batch_size=64, val_frac=0.2, seed=3)

TRAIN_PY = '''import argparse
import logging

import mlflow
import numpy as np
import torch
import torch.nn as nn
from pythonjsonlogger import jsonlogger
from torch.utils.data import DataLoader, TensorDataset

h = logging.StreamHandler()
h.setFormatter(jsonlogger.JsonFormatter("%(asctime)s %(levelname)s %(message)s"))
log = logging.getLogger("churn")
log.addHandler(h)
log.setLevel(logging.INFO)


def grad_norm(model):
    return torch.norm(torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None])).item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)  # features export from the feature-store job (already z-scored)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(args.seed)

    raw = np.genfromtxt(args.data, delimiter=",", skip_header=1, usecols=range(1, 14), dtype=np.float32)
    X, y = raw[:, :-1], raw[:, -1].astype(np.int64)
    log.info("loaded", extra={"rows": len(X), "features": X.shape[1], "x_mean": float(X.mean()),
                              "pos_rate": round(float(y.mean()), 4)})

    rng = np.random.default_rng(args.seed)
    idx = rng.permutation(len(X))
    n_val = int(0.2 * len(X))
    va, tr = idx[:n_val], idx[n_val:]
    train_dl = DataLoader(TensorDataset(torch.from_numpy(X[tr]), torch.from_numpy(y[tr])),
                          batch_size=args.batch_size, shuffle=True)
    Xva, yva = torch.from_numpy(X[va]), torch.from_numpy(y[va])

    model = nn.Sequential(nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    step = 0
    for epoch in range(1, args.epochs + 1):
        model.train()
        for xb, yb in train_dl:
            loss = nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            gn = grad_norm(model)
            opt.step()
            step += 1
            if step % 5 == 0:
                log.info("step", extra={"epoch": epoch, "step": step, "loss": round(loss.item(), 4),
                                        "grad_norm": round(gn, 4)})
                mlflow.log_metric("train_loss", loss.item(), step=step)
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = nn.functional.cross_entropy(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        log.info("epoch", extra={"epoch": epoch, "val_loss": round(val_loss, 4), "val_acc": round(val_acc, 4)})
        mlflow.log_metrics({"val_loss": val_loss, "val_acc": val_acc}, step=step)
    torch.save(model.state_dict(), "outputs/churn_mlp.pt")


if __name__ == "__main__":
    main()
'''


def make_csv(g, n, blank_row):
    Z = g.randn(n, len(COLS))
    Z[:, 2] = 0.8 * Z[:, 0] + 0.6 * Z[:, 2]   # total charges follow tenure
    w = np.array([-1.2, 0.8, -0.4, -0.3, -1.0, 0.7, 0.9, 0.1, -0.2, -0.1, 0.5, -0.6])
    p = 1 / (1 + np.exp(-(Z @ w - 0.8)))
    y = (g.rand(n) < p).astype(int)
    buf = io.StringIO()
    buf.write("customer_id," + ",".join(COLS) + ",churned\n")
    for i in range(n):
        cells = [f"{v:.4f}" for v in Z[i]]
        if i == blank_row:
            cells[2] = ""
        buf.write(f"C{7000000 + g.randint(0, 999999):07d}," + ",".join(cells) + f",{y[i]}\n")
    return buf.getvalue()


def make(out):
    seed_all(ARGS["seed"])
    g = np.random.RandomState(606)
    n = 5000
    rng = np.random.default_rng(ARGS["seed"])
    idx = rng.permutation(n)
    n_val = int(ARGS["val_frac"] * n)
    va, tr = idx[:n_val], idx[n_val:]
    blank_row = int(tr[1234])
    text = make_csv(g, n, blank_row)
    raw = np.genfromtxt(io.StringIO(text), delimiter=",", skip_header=1, usecols=range(1, 14), dtype=np.float32)
    X, y = raw[:, :-1], raw[:, -1].astype(np.int64)
    assert np.isnan(X).sum() == 1

    clk = Clock(dt.datetime(2024, 9, 23, 7, 55, 2, 310551))
    run_id = "churn-mlp_1727078100_5d1e0a2b"
    argl = ["--data", "/mnt/azureml/cr/j/9b2a7c1d4e5f40a8b3c6/cap/data-capability/wd/INPUT_data/churn_features_2024-09.csv"]
    pre = AZ_PREAMBLE.format(t0=az_ts(clk.now()), t1=az_ts(clk.now()), t2=az_ts(clk.now()), t3=az_ts(clk.now()),
                             script="train.py", args="".join(f", '{a}'" for a in argl),
                             arglist=", ".join(f"'{a}'" for a in argl), ws="mlw-churn-prod", run_id=run_id)
    lines = []

    def log(level, msg, **kw):
        t = clk.now()
        rec = {"asctime": t.strftime("%Y-%m-%d %H:%M:%S") + f",{t.microsecond // 1000:03d}", "levelname": level, "message": msg}
        rec.update(kw)
        lines.append(jdump(rec))

    log("INFO", "loaded", rows=len(X), features=X.shape[1], x_mean=float(X.mean()), pos_rate=round(float(y.mean()), 4))
    train_dl = DataLoader(TensorDataset(torch.from_numpy(X[tr]), torch.from_numpy(y[tr])), batch_size=ARGS["batch_size"],
                          shuffle=True)
    Xva, yva = torch.from_numpy(X[va]), torch.from_numpy(y[va])
    model = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
    opt = torch.optim.Adam(model.parameters(), lr=ARGS["lr"])
    step = 0
    first_nan = None
    hist = []
    for epoch in range(1, ARGS["epochs"] + 1):
        model.train()
        for xb, yb in train_dl:
            loss = nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            gn = grad_norm(model)
            opt.step()
            step += 1
            if first_nan is None and math.isnan(loss.item()):
                first_nan = step
            if step % 5 == 0:
                log("INFO", "step", epoch=epoch, step=step, loss=r(loss.item()), grad_norm=r(gn))
                hist.append((step, loss.item(), gn))
        model.eval()
        with torch.no_grad():
            o = model(Xva)
            vl = nn.functional.cross_entropy(o, yva).item()
            vacc = (o.argmax(1) == yva).float().mean().item()
        log("INFO", "epoch", epoch=epoch, val_loss=r(vl), val_acc=r(vacc))
    epi = AZ_EPILOGUE.format(t0=az_ts(clk.now()), t1=az_ts(clk.now()), status="completed successfully",
                             cleanup=0.0871, suffix="")
    write(f"{out}/azureml-logs/70_driver_log.txt", pre + "\n".join(lines) + epi)
    write(f"{out}/train.py", TRAIN_PY)
    head = "\n".join(text.splitlines()[:5])
    steps_per_epoch = len(train_dl)
    write(f"{out}/question.md", f"""**Loss goes NaN in the first epoch, Adam lr too high?**

Training a small churn MLP on Azure ML (driver log + train.py attached). Loss goes down fine for a while, then
turns into `NaN` partway through epoch 1 and never comes back, and every val metric after that is garbage.

I'm guessing lr=1e-3 is too aggressive for Adam on this data. Should I drop it to 1e-4, or add gradient
clipping? The input file is the usual export from the feature-store job, already standardised; the first rows look fine:

```
$ head -5 churn_features_2024-09.csv
{head}
```
""")
    finite = [h for h in hist if not math.isnan(h[1])]
    return {
        "truth": "nan_in_data",
        "symptom": "Loss goes down fine for a while, then turns into NaN partway through epoch 1 and never comes back. "
                   "I'm guessing lr=1e-3 is too aggressive for Adam here, should I drop it to 1e-4 or add gradient clipping?",
        "how": f"Row {blank_row + 2} of the CSV has an empty total_charges_z cell that np.genfromtxt turns into NaN (no check in train.py); "
               f"loss is finite and falling (last logged {finite[-1][1]:.4f}, grad_norm {finite[-1][2]:.3f}) until the shuffled batch "
               f"holding that row at step {first_nan} ({steps_per_epoch} steps/epoch), NaN ever after; the 'loaded' line shows x_mean=NaN.",
        "_hist": hist[:3] + [(first_nan,)],
    }
