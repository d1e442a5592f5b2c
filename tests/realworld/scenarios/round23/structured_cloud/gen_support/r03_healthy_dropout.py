"""Azure ML (v1) 70_driver_log.txt with python-json-logger lines. Healthy run: disjoint split, dropout 0.3;
train loss is the running mean in train mode, so it sits above the eval-mode val loss."""
import datetime as dt

import numpy as np
import torch
import torch.nn as nn

from .common import AZ_EPILOGUE, AZ_PREAMBLE, Clock, az_ts, jdump, r, seed_all, write
from .r01_overfit import make_data

ARGS = dict(epochs=8, lr=1e-3, batch_size=64, dropout=0.4, weight_decay=1e-4, val_frac=0.2, seed=17)

TRAIN_PY = '''import argparse
import logging
import os

import mlflow
import numpy as np
import torch
import torch.nn as nn
from pythonjsonlogger import jsonlogger

handler = logging.StreamHandler()
handler.setFormatter(jsonlogger.JsonFormatter("%(asctime)s %(levelname)s %(message)s"))
log = logging.getLogger("train")
log.addHandler(handler)
log.setLevel(logging.INFO)


def build_model(n_in, n_out, p):
    return nn.Sequential(
        nn.Linear(n_in, 128), nn.ReLU(), nn.Dropout(p),
        nn.Linear(128, 128), nn.ReLU(), nn.Dropout(p),
        nn.Linear(128, n_out),
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--epochs", type=int, default={epochs})
    ap.add_argument("--lr", type=float, default={lr})
    ap.add_argument("--batch-size", type=int, default={batch_size})
    ap.add_argument("--dropout", type=float, default={dropout})
    ap.add_argument("--weight-decay", type=float, default={weight_decay})
    ap.add_argument("--val-frac", type=float, default={val_frac})
    ap.add_argument("--seed", type=int, default={seed})
    args = ap.parse_args()
    torch.manual_seed(args.seed)

    d = np.load(os.path.join(args.data, "features.npz"))
    X, y = d["X"].astype(np.float32), d["y"].astype(np.int64)
    rng = np.random.default_rng(args.seed)
    idx = rng.permutation(len(X))
    n_val = int(len(X) * args.val_frac)
    val_idx, train_idx = idx[:n_val], idx[n_val:]
    Xtr, ytr = torch.from_numpy(X[train_idx]), torch.from_numpy(y[train_idx])
    Xva, yva = torch.from_numpy(X[val_idx]), torch.from_numpy(y[val_idx])
    n_classes = int(y.max()) + 1
    log.info("data", extra={{"n_train": len(Xtr), "n_val": len(Xva), "n_features": X.shape[1], "n_classes": n_classes}})

    model = build_model(X.shape[1], n_classes, args.dropout)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    loss_fn = nn.CrossEntropyLoss()

    for epoch in range(1, args.epochs + 1):
        model.train()
        perm = torch.randperm(len(Xtr))
        tot_loss, tot_correct = 0.0, 0
        for i in range(0, len(Xtr), args.batch_size):
            b = perm[i:i + args.batch_size]
            logits = model(Xtr[b])
            loss = loss_fn(logits, ytr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot_loss += loss.item() * len(b)
            tot_correct += (logits.argmax(1) == ytr[b]).sum().item()
        train_loss, train_acc = tot_loss / len(Xtr), tot_correct / len(Xtr)

        model.eval()
        with torch.no_grad():
            logits = model(Xva)
            val_loss = loss_fn(logits, yva).item()
            val_acc = (logits.argmax(1) == yva).float().mean().item()
        log.info("epoch", extra={{"epoch": epoch, "train_loss": round(train_loss, 4), "train_acc": round(train_acc, 4),
                                 "val_loss": round(val_loss, 4), "val_acc": round(val_acc, 4)}})
        mlflow.log_metrics({{"train_loss": train_loss, "val_loss": val_loss, "train_acc": train_acc,
                            "val_acc": val_acc}}, step=epoch)

    os.makedirs("outputs", exist_ok=True)
    torch.save(model.state_dict(), "outputs/model.pt")
    log.info("saved", extra={{"path": "outputs/model.pt"}})


if __name__ == "__main__":
    main()
'''


def make(out):
    seed_all(ARGS["seed"])
    X, y = make_data(31, 12000, 40, 5)
    rng = np.random.default_rng(ARGS["seed"])
    idx = rng.permutation(len(X))
    n_val = int(len(X) * ARGS["val_frac"])
    val_idx, train_idx = idx[:n_val], idx[n_val:]
    Xtr, ytr = torch.from_numpy(X[train_idx]), torch.from_numpy(y[train_idx])
    Xva, yva = torch.from_numpy(X[val_idx]), torch.from_numpy(y[val_idx])
    clk = Clock(dt.datetime(2024, 8, 2, 16, 41, 9, 655120))
    run_id = "loyal_kiwi_7bq2m1xk9d"
    argl = ["--data", "/mnt/azureml/cr/j/3f1c0e9a7d2b4c58a1e6/cap/data-capability/wd/INPUT_data",
            "--epochs", str(ARGS["epochs"])]
    pre = AZ_PREAMBLE.format(t0=az_ts(clk.now()), t1=az_ts(clk.now()), t2=az_ts(clk.now()), t3=az_ts(clk.now()),
                             script="train.py", args="".join(f", '{a}'" for a in argl),
                             arglist=", ".join(f"'{a}'" for a in argl), ws="ws-risk-ml", run_id=run_id)
    lines = []

    def log(level, msg, **kw):
        t = clk.now()
        rec = {"asctime": t.strftime("%Y-%m-%d %H:%M:%S") + f",{t.microsecond // 1000:03d}", "levelname": level, "message": msg}
        rec.update(kw)
        lines.append(jdump(rec))

    log("INFO", "data", n_train=len(Xtr), n_val=len(Xva), n_features=X.shape[1], n_classes=5)
    model = nn.Sequential(nn.Linear(40, 128), nn.ReLU(), nn.Dropout(ARGS["dropout"]), nn.Linear(128, 128), nn.ReLU(),
                          nn.Dropout(ARGS["dropout"]), nn.Linear(128, 5))
    opt = torch.optim.Adam(model.parameters(), lr=ARGS["lr"], weight_decay=ARGS["weight_decay"])
    loss_fn = nn.CrossEntropyLoss()
    hist = []
    for epoch in range(1, ARGS["epochs"] + 1):
        model.train()
        perm = torch.randperm(len(Xtr))
        tot_loss, tot_correct = 0.0, 0
        bs = ARGS["batch_size"]
        for i in range(0, len(Xtr), bs):
            b = perm[i:i + bs]
            logits = model(Xtr[b])
            loss = loss_fn(logits, ytr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot_loss += loss.item() * len(b)
            tot_correct += (logits.argmax(1) == ytr[b]).sum().item()
        tl, ta = tot_loss / len(Xtr), tot_correct / len(Xtr)
        model.eval()
        with torch.no_grad():
            lo = model(Xva)
            vl = loss_fn(lo, yva).item()
            va = (lo.argmax(1) == yva).float().mean().item()
        hist.append((epoch, tl, ta, vl, va))
        log("INFO", "epoch", epoch=epoch, train_loss=round(tl, 4), train_acc=round(ta, 4), val_loss=round(vl, 4), val_acc=round(va, 4))
    log("INFO", "saved", path="outputs/model.pt")
    body = "\n".join(lines)
    epi = AZ_EPILOGUE.format(t0=az_ts(clk.now()), t1=az_ts(clk.now()), status="completed successfully",
                             cleanup=0.1 + 0.01 * (hash(run_id) % 7) * 0, suffix="")
    write(f"{out}/azureml-logs/70_driver_log.txt", pre + body + epi)
    write(f"{out}/train.py", TRAIN_PY.format(**ARGS))
    n_below = sum(1 for h in hist if h[3] < h[1])
    write(f"{out}/question.md", f"""Quick sanity question before I hand this model over.

In basically every epoch of this run my **validation loss is lower than my training loss** (and val acc is
higher than train acc). Everything I've read says it should be the other way round. Is validation data
somehow ending up in training, or is this fine? Driver log and train.py attached (Azure ML, job `{run_id}`).
""")
    return {
        "truth": "healthy",
        "symptom": "My validation loss is lower than my training loss in almost every epoch, and val acc is higher than train acc. Is validation data somehow ending up in training, or is this fine?",
        "how": f"Nothing planted: disjoint permutation split, dropout {ARGS['dropout']}; train loss/acc are running means in train mode (dropout on) "
               f"while val is eval mode, so val loss is below train loss in {n_below}/{len(hist)} epochs; val acc {hist[-1][4]:.3f}, "
               f"not near-perfect, and val loss does not rise.",
        "_hist": hist,
    }
