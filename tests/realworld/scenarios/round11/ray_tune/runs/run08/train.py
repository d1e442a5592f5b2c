import math

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from ray import train, tune

FEATURES = ["longitude", "latitude", "housing_median_age", "total_rooms", "total_bedrooms",
            "population", "households", "median_income"]


def prepare(df):
    df = df.copy()
    df["rooms_per_household"] = df["total_rooms"] / df["households"]
    df["bedrooms_per_room"] = df["total_bedrooms"] / df["total_rooms"]
    cols = FEATURES + ["rooms_per_household", "bedrooms_per_room"]
    X = (df[cols] - df[cols].mean()) / df[cols].std()
    y = df["median_house_value"] / 100_000.0
    return torch.tensor(X.values, dtype=torch.float32), torch.tensor(y.values, dtype=torch.float32)


def train_regressor(config):
    torch.manual_seed(2)
    df = pd.read_csv(config["data_path"])
    val_df = df.sample(frac=0.2, random_state=0)
    train_df = df.drop(val_df.index)
    Xtr, ytr = prepare(train_df)
    Xva, yva = prepare(val_df)
    h = config["hidden"]
    model = nn.Sequential(nn.Linear(Xtr.shape[1], h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 1))
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=config["batch_size"], shuffle=True)
    step, window = 0, []
    for epoch in range(config["epochs"]):
        for xb, yb in loader:
            model.train()
            opt.zero_grad()
            loss = F.mse_loss(model(xb).squeeze(1), yb)
            loss.backward()
            opt.step()
            window.append(loss.item())
            step += 1
            if step % config["report_every"] == 0:
                model.eval()
                with torch.no_grad():
                    val_mse = F.mse_loss(model(Xva).squeeze(1), yva).item()
                train.report({"train_mse": float(np.mean(window)), "val_mse": val_mse,
                              "epoch": epoch, "step": step})
                window = []


if __name__ == "__main__":
    tuner = tune.Tuner(
        train_regressor,
        param_space={
            "data_path": "/home/mk/data/housing_blocks.csv",
            "lr": tune.grid_search([5e-4, 2e-3]),
            "batch_size": 32,
            "epochs": 6,
            "hidden": 64,
            "report_every": 15,
        },
        tune_config=tune.TuneConfig(metric="val_mse", mode="min"),
    )
    tuner.fit()
