import argparse
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
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--lr", type=float, default=0.001)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--dropout", type=float, default=0.4)
    ap.add_argument("--weight-decay", type=float, default=0.0001)
    ap.add_argument("--val-frac", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=17)
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
    log.info("data", extra={"n_train": len(Xtr), "n_val": len(Xva), "n_features": X.shape[1], "n_classes": n_classes})

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
        log.info("epoch", extra={"epoch": epoch, "train_loss": round(train_loss, 4), "train_acc": round(train_acc, 4),
                                 "val_loss": round(val_loss, 4), "val_acc": round(val_acc, 4)})
        mlflow.log_metrics({"train_loss": train_loss, "val_loss": val_loss, "train_acc": train_acc,
                            "val_acc": val_acc}, step=epoch)

    os.makedirs("outputs", exist_ok=True)
    torch.save(model.state_dict(), "outputs/model.pt")
    log.info("saved", extra={"path": "outputs/model.pt"})


if __name__ == "__main__":
    main()
