import argparse
import time

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
import wandb
from torch.utils.data import DataLoader, Dataset

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--batch_size", type=int, default=32)
parser.add_argument("--hidden", type=int, default=64)
parser.add_argument("--epochs", type=int, default=3)
args = parser.parse_args()

CSV = "data/features.csv"


class FeatureRows(Dataset):
    def __init__(self, path, rows):
        self.path = path
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        df = pd.read_csv(self.path)
        r = df.iloc[self.rows[i]]
        x = torch.tensor(r.drop("label").values.astype(np.float32))
        return x, int(r["label"])


run = wandb.init(project="sensor-cls", config=vars(args))
cfg = wandb.config

train_ds = FeatureRows(CSV, list(range(320)))
val_ds = FeatureRows(CSV, list(range(320, 400)))
train_dl = DataLoader(train_ds, batch_size=cfg.batch_size, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=64)

model = nn.Sequential(nn.Linear(40, cfg.hidden), nn.ReLU(), nn.Linear(cfg.hidden, cfg.hidden), nn.ReLU(),
                      nn.Linear(cfg.hidden, 3))
opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)

for epoch in range(1, cfg.epochs + 1):
    model.train()
    t_epoch = time.perf_counter()
    data_sum, comp_sum, loss_sum, n = 0.0, 0.0, 0.0, 0
    tic = time.perf_counter()
    for xb, yb in train_dl:
        t_data = time.perf_counter() - tic
        t0 = time.perf_counter()
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        t_comp = time.perf_counter() - t0
        data_sum += t_data
        comp_sum += t_comp
        loss_sum += loss.item() * len(yb)
        n += len(yb)
        wandb.log({"train_loss": loss.item(), "data_time": t_data, "step_time": t_data + t_comp})
        tic = time.perf_counter()
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in val_dl:
            correct += (model(xb).argmax(1) == yb).sum().item()
    val_acc = correct / len(val_ds)
    dt = time.perf_counter() - t_epoch
    wandb.log({"val_acc": val_acc, "samples_per_sec": n / dt})
    print("epoch %d | train_loss %.4f | val_acc %.4f | epoch_time %.1fs | data %.1fs | fwd/bwd %.2fs | %.0f samples/s"
          % (epoch, loss_sum / n, val_acc, dt, data_sum, comp_sum, n / dt))
run.finish()
