import argparse
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
