"""Azure ML (v2) user_logs/std_log.txt + train.py + job.yml. The script builds the validation split but
trains on the full array, so every validation row is also a training row: val beats train every epoch
and climbs to ~100 %, while fresh data scores far lower."""
import datetime as dt

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from .common import Clock, jdump, r, seed_all, write

ARGS = dict(epochs=18, lr=2e-3, batch_size=64, hidden=256, dropout=0.1, val_frac=0.2, seed=11)

TRAIN_PY = '''import argparse
import json
import logging
import os

import mlflow
import numpy as np
import torch
import torch.nn as nn
from pythonjsonlogger import jsonlogger
from torch.utils.data import DataLoader, TensorDataset

handler = logging.StreamHandler()
handler.setFormatter(jsonlogger.JsonFormatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
logger = logging.getLogger("dedup_train")
logger.addHandler(handler)
logger.setLevel(logging.INFO)


def load(path):
    d = np.load(path)
    return d["features"].astype(np.float32), d["is_duplicate"].astype(np.int64)


def make_model(n_in, hidden, p):
    return nn.Sequential(
        nn.Linear(n_in, hidden), nn.ReLU(), nn.Dropout(p),
        nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(p),
        nn.Linear(hidden, 2),
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--epochs", type=int, default={epochs})
    ap.add_argument("--lr", type=float, default={lr})
    ap.add_argument("--batch-size", type=int, default={batch_size})
    ap.add_argument("--hidden", type=int, default={hidden})
    ap.add_argument("--dropout", type=float, default={dropout})
    ap.add_argument("--val-frac", type=float, default={val_frac})
    ap.add_argument("--seed", type=int, default={seed})
    ap.add_argument("--model-dir", default="./outputs")
    args = ap.parse_args()
    torch.manual_seed(args.seed)

    X, y = load(os.path.join(args.data, "listing_pairs_labelled.npz"))
    rng = np.random.default_rng(args.seed)
    perm = rng.permutation(len(X))
    n_val = int(len(X) * args.val_frac)
    val_idx = perm[:n_val]
    X_val, y_val = X[val_idx], y[val_idx]

    train_ds = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
    val_ds = TensorDataset(torch.from_numpy(X_val), torch.from_numpy(y_val))
    train_dl = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)
    val_dl = DataLoader(val_ds, batch_size=512)
    logger.info("datasets ready", extra={{"rows": len(X), "train_size": len(train_ds), "val_size": len(val_ds),
                                          "pos_rate": round(float(y.mean()), 4)}})

    model = make_model(X.shape[1], args.hidden, args.dropout)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    best = 0.0
    for epoch in range(1, args.epochs + 1):
        model.train()
        tot, correct, n = 0.0, 0, 0
        for xb, yb in train_dl:
            logits = model(xb)
            loss = loss_fn(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(yb)
            correct += (logits.argmax(1) == yb).sum().item()
            n += len(yb)
        model.eval()
        vtot, vcorrect, vn = 0.0, 0, 0
        with torch.no_grad():
            for xb, yb in val_dl:
                logits = model(xb)
                vtot += loss_fn(logits, yb).item() * len(yb)
                vcorrect += (logits.argmax(1) == yb).sum().item()
                vn += len(yb)
        metrics = {{"train_loss": tot / n, "train_acc": correct / n, "val_loss": vtot / vn, "val_acc": vcorrect / vn}}
        mlflow.log_metrics(metrics, step=epoch)
        logger.info("epoch", extra={{"epoch": epoch, **{{k: round(v, 4) for k, v in metrics.items()}}}})
        if metrics["val_acc"] > best:
            best = metrics["val_acc"]
            torch.save(model.state_dict(), os.path.join(args.model_dir, "best.pt"))
    logger.info("done", extra={{"best_val_acc": round(best, 4)}})
    with open(os.path.join(args.model_dir, "metrics.json"), "w") as f:
        json.dump({{"best_val_acc": best}}, f)


if __name__ == "__main__":
    main()
'''


def make_data(g, n, d=24):
    W = g.randn(d, 32)
    v = g.randn(32)
    return W, v


def sample(g, W, v, n, d=24):
    X = g.randn(n, d).astype(np.float32)
    s = np.tanh(X @ W / np.sqrt(d)) @ v / np.sqrt(32)
    y = ((s + 0.35 * g.randn(n)) > 0).astype(np.int64)
    return X, y


def make(out):
    seed_all(ARGS["seed"])
    g = np.random.RandomState(1111)
    W, v = make_data(g, 0)
    X, y = sample(g, W, v, 3000)
    X_new, y_new = sample(g, W, v, 2000)   # later, freshly labelled pairs
    rng = np.random.default_rng(ARGS["seed"])
    perm = rng.permutation(len(X))
    n_val = int(len(X) * ARGS["val_frac"])
    val_idx = perm[:n_val]
    X_val, y_val = X[val_idx], y[val_idx]
    train_ds = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
    val_ds = TensorDataset(torch.from_numpy(X_val), torch.from_numpy(y_val))
    train_dl = DataLoader(train_ds, batch_size=ARGS["batch_size"], shuffle=True)
    val_dl = DataLoader(val_ds, batch_size=512)
    clk = Clock(dt.datetime(2025, 2, 11, 13, 30, 18, 550000))
    lines = []

    def log(level, msg, **kw):
        t = clk.now()
        rec = {"asctime": t.strftime("%Y-%m-%d %H:%M:%S") + f",{t.microsecond // 1000:03d}", "name": "dedup_train",
               "levelname": level, "message": msg}
        rec.update(kw)
        lines.append(jdump(rec))

    log("INFO", "datasets ready", rows=len(X), train_size=len(train_ds), val_size=len(val_ds), pos_rate=round(float(y.mean()), 4))
    h = ARGS["hidden"]
    p = ARGS["dropout"]
    model = nn.Sequential(nn.Linear(24, h), nn.ReLU(), nn.Dropout(p), nn.Linear(h, h), nn.ReLU(), nn.Dropout(p), nn.Linear(h, 2))
    opt = torch.optim.Adam(model.parameters(), lr=ARGS["lr"])
    loss_fn = nn.CrossEntropyLoss()
    best = 0.0
    hist = []
    for epoch in range(1, ARGS["epochs"] + 1):
        model.train()
        tot, correct, n = 0.0, 0, 0
        for xb, yb in train_dl:
            logits = model(xb)
            loss = loss_fn(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(yb)
            correct += (logits.argmax(1) == yb).sum().item()
            n += len(yb)
        model.eval()
        vtot, vc, vn = 0.0, 0, 0
        with torch.no_grad():
            for xb, yb in val_dl:
                lo = model(xb)
                vtot += loss_fn(lo, yb).item() * len(yb)
                vc += (lo.argmax(1) == yb).sum().item()
                vn += len(yb)
        m = {"train_loss": tot / n, "train_acc": correct / n, "val_loss": vtot / vn, "val_acc": vc / vn}
        hist.append(m)
        log("INFO", "epoch", epoch=epoch, **{k: round(v2, 4) for k, v2 in m.items()})
        if m["val_acc"] > best:
            best = m["val_acc"]
    log("INFO", "done", best_val_acc=round(best, 4))
    # the user's later scoring of fresh labelled transactions with the saved model
    with torch.no_grad():
        new_acc = (model(torch.from_numpy(X_new)).argmax(1) == torch.from_numpy(y_new)).float().mean().item()
    write(f"{out}/user_logs/std_log.txt", "\n".join(lines) + "\n")
    write(f"{out}/train.py", TRAIN_PY.format(**ARGS))
    write(f"{out}/job.yml", f"""$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json
code: ./src
command: >-
  python train.py --data ${{{{inputs.data}}}} --epochs {ARGS['epochs']} --hidden {ARGS['hidden']}
inputs:
  data:
    type: uri_folder
    path: azureml:listing-pairs-labelled:7
environment: azureml:dedup-train-env:12
compute: azureml:cpu-cluster-d8
experiment_name: listing-dedup-mlp
display_name: listing-dedup-mlp-0211
""")
    ep_val_beats = sum(1 for m in hist if m["val_acc"] >= m["train_acc"])
    return {
        "truth": "data_leakage",
        "symptom": f"Validation accuracy is {best:.1%} but when we scored a fresh batch of labelled listing pairs it was only {new_acc:.1%}. "
                   "Why is the gap so large?",
        "how": f"train.py builds X_val from a permutation but wraps the full X in the training TensorDataset, so all {len(X_val)} val rows are "
               f"trained on (log: rows={len(X)}, train_size={len(train_ds)}, val_size={len(val_ds)}); val acc >= train acc in {ep_val_beats}/{len(hist)} epochs "
               f"and reaches {best:.3f} with val loss falling throughout, while fresh rows from the same generator score {new_acc:.3f}.",
        "_hist": [(m["train_acc"], m["val_acc"], m["val_loss"]) for m in hist] + [new_acc],
    }
