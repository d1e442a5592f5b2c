import csv

import numpy as np
import torch
from torch import nn


def make_sequences(n, length=30, n_features=3, seed=0):
    """Sensor windows; label 1 if channel 0 trends upward over the window."""
    rng = np.random.default_rng(seed)
    slope = rng.normal(0, 1, n)
    t = np.linspace(-1, 1, length)
    X = rng.normal(0, 1.0, (n, length, n_features))
    X[:, :, 0] += slope[:, None] * t[None, :] * 0.8
    X[:, :, 1] += 0.5 * np.sin(6 * t)[None, :]
    y = (slope > 0).astype(np.int64)
    return torch.tensor(X, dtype=torch.float32), torch.from_numpy(y)


class TrendGRU(nn.Module):
    def __init__(self, n_features=3, hidden=32):
        super().__init__()
        self.gru = nn.GRU(n_features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 2)

    def forward(self, x):
        _, h = self.gru(x)
        return self.head(h[-1])


@torch.no_grad()
def evaluate(model, X, y):
    model.eval()
    out = model(X)
    loss = nn.functional.cross_entropy(out, y).item()
    acc = (out.argmax(1) == y).float().mean().item()
    model.train()
    return loss, acc


def train(model, X, y, X_val, y_val, steps=200, lr=0.005, batch_size=16, eval_every=20, seed=0, log_path=None):
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    rows = []
    for step in range(1, steps + 1):
        idx = torch.randint(0, len(X), (batch_size,), generator=g)
        opt.zero_grad()
        loss = loss_fn(model(X[idx]), y[idx])
        loss.backward()
        gn = nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0).item()
        opt.step()
        row = {"step": step, "loss": round(loss.item(), 5), "grad_norm": round(gn, 4), "val_loss": "", "val_acc": ""}
        if step % eval_every == 0:
            vl, va = evaluate(model, X_val, y_val)
            row.update(val_loss=round(vl, 5), val_acc=round(va, 4))
        rows.append(row)
    if log_path is not None:
        with open(log_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return rows
