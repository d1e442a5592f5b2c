from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class Config:
    data: str = "data/sensor_faults.csv"
    epochs: int = 40
    lr: float = 1e-3
    batch_size: int = 32
    seed: int = 0
    val_frac: float = 0.1
    test_frac: float = 0.1


def load_data(path):
    df = pd.read_csv(path)
    X = torch.tensor(df.drop(columns=["fault"]).values, dtype=torch.float32)
    y = torch.tensor(df["fault"].values, dtype=torch.long)
    X = (X - X.mean(0)) / X.std(0)
    return X, y


def make_splits(n, val_frac, test_frac, seed):
    perm = np.random.default_rng(seed).permutation(n)
    n_test, n_val = int(n * test_frac), int(n * val_frac)
    return perm[n_test + n_val:], perm[n_test:n_test + n_val], perm[:n_test]


def build_model(n_in):
    return nn.Sequential(nn.Linear(n_in, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))


def accuracy(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for xb, yb in loader:
            pred = model(xb.to(device)).argmax(1)
            correct += (pred == yb.to(device)).sum().item()
            total += len(yb)
    return correct / total


def main(cfg=Config()):
    torch.manual_seed(cfg.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    X, y = load_data(cfg.data)
    tr, va, te = make_splits(len(X), cfg.val_frac, cfg.test_frac, cfg.seed)
    loaders = {
        "train": DataLoader(TensorDataset(X[tr], y[tr]), batch_size=cfg.batch_size, shuffle=True),
        "val": DataLoader(TensorDataset(X[va], y[va]), batch_size=256),
        "test": DataLoader(TensorDataset(X[te], y[te]), batch_size=256),
    }
    print(f"train {len(tr)} / val {len(va)} / test {len(te)}")

    model = build_model(X.shape[1]).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(1, cfg.epochs + 1):
        model.train()
        tot = 0.0
        for xb, yb in loaders["train"]:
            xb, yb = xb.to(device), yb.to(device)
            loss = loss_fn(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(xb)
        if epoch % 10 == 0:
            print(f"epoch {epoch:3d}  loss {tot / len(tr):.4f}  train_acc {accuracy(model, loaders['train'], device):.4f}"
                  f"  val_acc {accuracy(model, loaders['val'], device):.4f}")

    print(f"TEST ACCURACY: {accuracy(model, loaders['test'], device):.4f}")
    torch.save(model.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
