import csv

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

MATERIALS = ("polymer", "glass", "ceramic", "metal")
N_BINS = 32


def load_spectra(n_per_class=400, seed=0, noise=0.4):
    """One block of spectra per material, read one material file after another."""
    rng = np.random.default_rng(seed)
    grid = np.linspace(0, 1, N_BINS)
    peaks = {0: (0.2, 0.55), 1: (0.3, 0.6), 2: (0.45, 0.7), 3: (0.25, 0.8)}
    X, y = [], []
    for label, (p1, p2) in peaks.items():
        shift = rng.normal(0, 0.03, (n_per_class, 1))
        amp = rng.uniform(0.6, 1.4, (n_per_class, 2))
        spec = (amp[:, :1] * np.exp(-((grid - p1 - shift) ** 2) / 0.004)
                + amp[:, 1:] * np.exp(-((grid - p2 - shift) ** 2) / 0.004))
        X.append(spec + rng.normal(0, noise, spec.shape))
        y.append(np.full(n_per_class, label))
    X = torch.tensor(np.concatenate(X), dtype=torch.float32)
    y = torch.tensor(np.concatenate(y), dtype=torch.long)
    return X, y


def make_model(hidden=64):
    return nn.Sequential(nn.Linear(N_BINS, hidden), nn.ReLU(), nn.Linear(hidden, len(MATERIALS)))


@torch.no_grad()
def evaluate(model, X, y):
    model.eval()
    acc = (model(X).argmax(1) == y).float().mean().item()
    model.train()
    return acc


def train(model, X, y, X_val, y_val, epochs=6, lr=0.05, batch_size=32, step_log=None):
    loader = DataLoader(TensorDataset(X, y), batch_size=batch_size)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    steps, epochs_out, step = [], [], 0
    for epoch in range(1, epochs + 1):
        total = 0.0
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            step += 1
            total += loss.item()
            steps.append({"step": step, "epoch": epoch, "loss": round(loss.item(), 5)})
        val_acc = evaluate(model, X_val, y_val)
        epochs_out.append({"epoch": epoch, "train_loss": total / len(loader), "val_acc": val_acc})
        print(f"epoch {epoch} | train_loss {total / len(loader):.4f} | val_acc {val_acc:.3f}")
    if step_log is not None:
        with open(step_log, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["step", "epoch", "loss"])
            w.writeheader()
            w.writerows(steps)
    return epochs_out
