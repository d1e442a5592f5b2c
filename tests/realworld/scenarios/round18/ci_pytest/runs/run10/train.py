import csv

import pandas as pd
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

FEATURES = ["floor_area", "n_floors", "year_built", "outdoor_temp", "humidity", "occupancy", "hour_sin", "hour_cos"]
TARGET = "kwh"


def load_table(path):
    df = pd.read_csv(path)
    X = torch.tensor(df[FEATURES].values)
    y = torch.tensor(df[TARGET].values).unsqueeze(1)
    return X, y


def fit_scaler(X):
    return X.mean(dim=0), X.std(dim=0) + 1e-6


def scale(X, stats):
    mean, std = stats
    return (X - mean) / std


class EnergyMLP(nn.Module):
    def __init__(self, n_features=len(FEATURES), hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


def fit(model, X, y, epochs=40, lr=3e-3, batch_size=64, seed=0, log_path=None):
    torch.manual_seed(seed)
    stats = fit_scaler(X)
    y_mean, y_std = y.mean(), y.std()
    loader = DataLoader(TensorDataset(scale(X, stats), (y - y_mean) / y_std), batch_size=batch_size, shuffle=True)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    print(f"training on {len(X)} rows, {X.shape[1]} features, {epochs} epochs")
    rows = []
    for epoch in range(1, epochs + 1):
        total, n = 0.0, 0
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item() * len(xb)
            n += len(xb)
        rows.append({"epoch": epoch, "mse_scaled": round(total / n, 5)})
        if epoch % 10 == 0:
            print(f"epoch {epoch}: mse_scaled={total / n:.4f}")
    if log_path is not None:
        with open(log_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["epoch", "mse_scaled"])
            w.writeheader()
            w.writerows(rows)
    return {"stats": stats, "y_mean": y_mean, "y_std": y_std, "history": rows}


@torch.no_grad()
def predict(model, X, state):
    model.eval()
    out = model(scale(X, state["stats"])) * state["y_std"] + state["y_mean"]
    model.train()
    return out
