import argparse
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
    ap.add_argument("--epochs", type=int, default=18)
    ap.add_argument("--lr", type=float, default=0.002)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--val-frac", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=11)
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
    logger.info("datasets ready", extra={"rows": len(X), "train_size": len(train_ds), "val_size": len(val_ds),
                                          "pos_rate": round(float(y.mean()), 4)})

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
        metrics = {"train_loss": tot / n, "train_acc": correct / n, "val_loss": vtot / vn, "val_acc": vcorrect / vn}
        mlflow.log_metrics(metrics, step=epoch)
        logger.info("epoch", extra={"epoch": epoch, **{k: round(v, 4) for k, v in metrics.items()}})
        if metrics["val_acc"] > best:
            best = metrics["val_acc"]
            torch.save(model.state_dict(), os.path.join(args.model_dir, "best.pt"))
    logger.info("done", extra={"best_val_acc": round(best, 4)})
    with open(os.path.join(args.model_dir, "metrics.json"), "w") as f:
        json.dump({"best_val_acc": best}, f)


if __name__ == "__main__":
    main()
