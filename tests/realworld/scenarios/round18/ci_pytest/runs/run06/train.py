import csv

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

GESTURES = ("swipe_left", "swipe_right", "tap", "pinch", "rotate")
N_FEATURES = 24


def load_split(split, n_per_gesture=600, seed=0):
    """Feature vectors for each gesture; recordings are stored gesture by gesture."""
    centers = np.random.default_rng(42).normal(0.0, 1.0, (len(GESTURES), N_FEATURES))
    rng = np.random.default_rng({"train": 0, "val": 1, "test": 2}[split] + 10 * seed)
    X, y = [], []
    for g in range(len(GESTURES)):
        X.append(centers[g] + rng.normal(0.0, 1.0, (n_per_gesture, N_FEATURES)))
        y.append(np.full(n_per_gesture, g))
    X = torch.tensor(np.concatenate(X), dtype=torch.float32)
    y = torch.tensor(np.concatenate(y), dtype=torch.long)
    return X, y


class GestureNet(nn.Module):
    def __init__(self, n_features=N_FEATURES, n_classes=len(GESTURES), hidden=128, p_drop=0.3):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(n_features, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p_drop),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p_drop),
        )
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.body(x))


def predict(model, X, batch_size=64):
    preds = []
    with torch.no_grad():
        for i in range(0, len(X), batch_size):
            preds.append(model(X[i:i + batch_size]).argmax(dim=1))
    return torch.cat(preds)


def evaluate(model, X, y):
    return (predict(model, X) == y).float().mean().item()


def fit(model, train, val, epochs=25, lr=1e-3, batch_size=64, seed=0, log_path=None):
    torch.manual_seed(seed)
    loader = DataLoader(TensorDataset(*train), batch_size=batch_size, shuffle=True, drop_last=True)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    history = []
    for epoch in range(1, epochs + 1):
        model.train()
        total, correct, n = 0.0, 0, 0
        for xb, yb in loader:
            opt.zero_grad()
            out = model(xb)
            loss = loss_fn(out, yb)
            loss.backward()
            opt.step()
            total += loss.item() * len(xb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(xb)
        history.append({"epoch": epoch, "train_loss": round(total / n, 5),
                        "train_acc": round(correct / n, 4), "val_acc": round(evaluate(model, *val), 4)})
        print("epoch {epoch:02d}  train_loss {train_loss:.4f}  train_acc {train_acc:.3f}  val_acc {val_acc:.3f}".format(**history[-1]))
    if log_path is not None:
        with open(log_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(history[0]))
            w.writeheader()
            w.writerows(history)
    return history
