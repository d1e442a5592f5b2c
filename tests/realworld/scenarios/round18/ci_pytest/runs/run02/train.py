import csv
import math

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def make_moons(n_samples=1000, noise=0.15, seed=0):
    rng = np.random.default_rng(seed)
    n_out = n_samples // 2
    n_in = n_samples - n_out
    t_out = rng.uniform(0, math.pi, n_out)
    t_in = rng.uniform(0, math.pi, n_in)
    outer = np.stack([np.cos(t_out), np.sin(t_out)], axis=1)
    inner = np.stack([1 - np.cos(t_in), 1 - np.sin(t_in) - 0.5], axis=1)
    X = np.concatenate([outer, inner]).astype(np.float32)
    y = np.concatenate([np.zeros(n_out), np.ones(n_in)]).astype(np.int64)
    X += rng.normal(0.0, noise, X.shape).astype(np.float32)
    perm = rng.permutation(n_samples)
    return torch.from_numpy(X[perm]), torch.from_numpy(y[perm])


class MLP(nn.Module):
    def __init__(self, hidden=64, n_classes=2):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(2, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, n_classes),
        )

    def forward(self, x):
        return self.net(x)


def grad_norm(model):
    total = 0.0
    for p in model.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return math.sqrt(total)


def _write_log(rows, path):
    if path is None:
        return
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


@torch.no_grad()
def accuracy(model, X, y):
    model.eval()
    acc = (model(X).argmax(dim=1) == y).float().mean().item()
    model.train()
    return acc


def overfit_batch(model, xb, yb, steps=150, lr=1e-2, log_path=None):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    rows = []
    for step in range(1, steps + 1):
        loss = loss_fn(model(xb), yb)
        loss.backward()
        gn = grad_norm(model)
        opt.step()
        rows.append({"step": step, "loss": round(loss.item(), 5), "grad_norm": round(gn, 4)})
    _write_log(rows, log_path)
    return rows


def fit(model, X, y, X_val, y_val, epochs=15, lr=1e-2, batch_size=64, seed=0, log_path=None):
    torch.manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    loader = DataLoader(TensorDataset(X, y), batch_size=batch_size, shuffle=True)
    rows = []
    for epoch in range(1, epochs + 1):
        losses, norms = [], []
        for xb, yb in loader:
            loss = loss_fn(model(xb), yb)
            loss.backward()
            norms.append(grad_norm(model))
            opt.step()
            losses.append(loss.item())
        rows.append({
            "epoch": epoch,
            "train_loss": round(sum(losses) / len(losses), 5),
            "grad_norm": round(sum(norms) / len(norms), 4),
            "val_acc": round(accuracy(model, X_val, y_val), 4),
        })
        print(f"epoch {epoch:02d} train_loss={rows[-1]['train_loss']:.4f} "
              f"grad_norm={rows[-1]['grad_norm']:.3f} val_acc={rows[-1]['val_acc']:.3f}")
    _write_log(rows, log_path)
    return rows
