import argparse
import logging

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from accelerate import Accelerator
from accelerate.logging import get_logger
from accelerate.utils import set_seed

torch.set_num_threads(1)
logger = get_logger(__name__)


class LoadWindows(Dataset):
    def __init__(self, series, window=48, horizon=6):
        self.series = torch.as_tensor(series, dtype=torch.float32)
        self.window = window
        self.horizon = horizon

    def __len__(self):
        return len(self.series) - self.window

    def __getitem__(self, i):
        x = self.series[i:i + self.window]
        y = self.series[i + self.window:i + self.window + self.horizon, 0]
        return x, y


class GRUForecaster(nn.Module):
    def __init__(self, n_features=4, hidden=64, horizon=6):
        super().__init__()
        self.gru = nn.GRU(n_features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x):
        out, _ = self.gru(x)
        return self.head(out[:, -1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--seed", type=int, default=34)
    args = p.parse_args()

    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
                        datefmt="%m/%d/%Y %H:%M:%S", level=logging.INFO)
    accelerator = Accelerator()
    logger.info(accelerator.state, main_process_only=False)
    set_seed(args.seed)

    data = np.load("data/substation_load.npz")["values"]
    mu, sd = data.mean(0), data.std(0)
    data = (data - mu) / sd
    n_train = int(0.85 * len(data))
    train_ds = LoadWindows(data[:n_train])
    val_ds = LoadWindows(data[n_train:])
    train_dl = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)
    val_dl = DataLoader(val_ds, batch_size=256)

    model = GRUForecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    model, optimizer, train_dl, val_dl = accelerator.prepare(model, optimizer, train_dl, val_dl)

    accelerator.print({"train_windows": len(train_ds), "val_windows": len(val_ds),
                       "batch_size": args.batch_size, "lr": args.lr, "epochs": args.epochs})
    global_step = 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_dl:
            pred = model(x)
            loss = F.mse_loss(pred, y)
            optimizer.zero_grad()
            accelerator.backward(loss)
            optimizer.step()
            global_step += 1
            if global_step % 10 == 0:
                accelerator.print({"epoch": epoch, "step": global_step, "train_mse": round(loss.item(), 5)})

        model.eval()
        se, n = 0.0, 0
        with torch.no_grad():
            for x, y in val_dl:
                se += F.mse_loss(model(x), y, reduction="sum").item()
                n += y.numel()
        accelerator.print({"epoch": epoch, "val_mse": round(se / n, 5)})


if __name__ == "__main__":
    main()
