import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
import wandb

torch.set_num_threads(1)

config = {
    "dataset": "moons",
    "n_samples": 2000,
    "noise": 0.2,
    "hidden": 64,
    "lr": 3e-3,
    "weight_decay": 1e-4,
    "batch_size": 64,
    "epochs": 40,
    "seed": 7,
}


def make_moons(n, noise, rng):
    n_out = n // 2
    n_in = n - n_out
    t_out = np.linspace(0, np.pi, n_out)
    t_in = np.linspace(0, np.pi, n_in)
    X = np.vstack([np.c_[np.cos(t_out), np.sin(t_out)],
                   np.c_[1 - np.cos(t_in), 1 - np.sin(t_in) - 0.5]])
    y = np.r_[np.zeros(n_out), np.ones(n_in)].astype(np.int64)
    X = X + rng.normal(scale=noise, size=X.shape)
    return X.astype(np.float32), y


def main():
    torch.manual_seed(config["seed"])
    rng = np.random.default_rng(config["seed"])
    X, y = make_moons(config["n_samples"], config["noise"], rng)
    perm = rng.permutation(len(X))
    X, y = X[perm], y[perm]
    n_val = len(X) // 5
    X_val, y_val = X[:n_val], y[:n_val]
    X_tr, y_tr = X[n_val:], y[n_val:]
    mu, sd = X_tr.mean(0), X_tr.std(0)
    X_tr = (X_tr - mu) / sd
    X_val = (X_val - mu) / sd

    train_loader = DataLoader(TensorDataset(torch.from_numpy(X_tr), torch.from_numpy(y_tr)),
                              batch_size=config["batch_size"], shuffle=True)
    Xv, yv = torch.from_numpy(X_val), torch.from_numpy(y_val)

    h = config["hidden"]
    model = nn.Sequential(nn.Linear(2, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 2))
    opt = torch.optim.AdamW(model.parameters(), lr=config["lr"], weight_decay=config["weight_decay"])

    run = wandb.init(project="moons-baseline", config=config, mode="offline")
    best = 0.0
    for epoch in range(config["epochs"]):
        model.train()
        total, n = 0.0, 0
        for xb, yb in train_loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item() * len(xb)
            n += len(xb)
        model.eval()
        with torch.no_grad():
            logits = model(Xv)
            val_loss = F.cross_entropy(logits, yv).item()
            val_acc = (logits.argmax(1) == yv).float().mean().item()
        best = max(best, val_acc)
        wandb.log({"epoch": epoch, "train/loss": total / n, "val/loss": val_loss, "val/accuracy": val_acc})
        print(f"epoch {epoch:3d}  train_loss {total / n:.4f}  val_loss {val_loss:.4f}  val_acc {val_acc:.4f}")
    run.summary["best_val_accuracy"] = best
    wandb.finish()


if __name__ == "__main__":
    main()
