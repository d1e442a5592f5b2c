# train_stream.py -- new loader: stream rows straight from the parquet export
import glob
import math

import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, IterableDataset

DATA_DIR = "/mnt/exports/vibration_events_2024q2"   # hive-partitioned export from the warehouse job
FEATURES = [f"f{i:02d}" for i in range(16)]


class ParquetRows(IterableDataset):
    def __init__(self, files):
        self.files = files

    def __iter__(self):
        for path in self.files:
            df = pd.read_parquet(path)
            label = int(path.split("event_type=")[1].split("/")[0])
            X = torch.tensor(df[FEATURES].values, dtype=torch.float32)
            for i in range(len(X)):
                yield X[i], label


def main():
    train_files = sorted(glob.glob(f"{DATA_DIR}/split=train/event_type=*/part-*.parquet"))
    val_df = pd.read_parquet(f"{DATA_DIR}/val.parquet")
    Xva = torch.tensor(val_df[FEATURES].values, dtype=torch.float32)
    yva = torch.tensor(val_df["event_type"].values)

    loader = DataLoader(ParquetRows(train_files), batch_size=64, num_workers=0)

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 6))
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    crit = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(1, 20 + 1):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
            step += 1
            print(f"step {step} epoch {epoch} loss {loss.item():.4f}")
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            print(f"epoch {epoch} val_loss {crit(out, yva).item():.4f} "
                  f"val_acc {(out.argmax(1) == yva).float().mean().item():.4f}")


if __name__ == "__main__":
    main()
