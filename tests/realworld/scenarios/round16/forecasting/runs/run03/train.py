import argparse
import csv
import json

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)

def make_panel(n_series, length, period=24, noise=0.08, seed=0, level=(20.0, 200.0)):
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    daily = np.sin(2 * np.pi * t / period)
    weekly = np.sin(2 * np.pi * t / (7 * period))
    panel = np.empty((n_series, length), dtype=np.float32)
    for i in range(n_series):
        lvl = rng.uniform(*level)
        trend = rng.uniform(-0.15, 0.35) * t / length
        a_d, a_w = rng.uniform(0.2, 0.45), rng.uniform(0.05, 0.2)
        lag = rng.integers(0, 3)
        season = a_d * np.roll(daily, lag) + a_w * weekly
        panel[i] = lvl * (1.0 + trend + season + noise * rng.standard_normal(length))
    return panel


def make_windows(panel, lookback, horizon, start, end, stride=1):
    xs, ys, ids = [], [], []
    for s in range(panel.shape[0]):
        for i in range(start, end - lookback - horizon + 1, stride):
            xs.append(panel[s, i:i + lookback])
            ys.append(panel[s, i + lookback:i + lookback + horizon])
            ids.append(s)
    return np.stack(xs), np.stack(ys), np.array(ids)


def smape(y, f):
    return float(np.mean(200.0 * np.abs(y - f) / (np.abs(y) + np.abs(f) + 1e-8)))


def mase(y, f, ids, panel, train_end, m=24):
    scale = np.mean(np.abs(panel[:, m:train_end] - panel[:, :train_end - m]), axis=1)
    return float(np.mean(np.mean(np.abs(y - f), axis=1) / scale[ids]))


class TCN(nn.Module):
    def __init__(self, lookback, horizon, channels=24, kernel=3):
        super().__init__()
        layers, c_in = [], 1
        for d in (1, 2, 4, 8):
            layers += [nn.Conv1d(c_in, channels, kernel, dilation=d, padding=d * (kernel - 1) // 2), nn.ReLU()]
            c_in = channels
        self.tcn = nn.Sequential(*layers)
        self.head = nn.Linear(channels * lookback, horizon)

    def forward(self, x):
        h = self.tcn(x.unsqueeze(1))
        return self.head(h.flatten(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--lookback", type=int, default=96)
    ap.add_argument("--horizon", type=int, default=24)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--bs", type=int, default=128)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)

    panel = make_panel(8, 1400, 24, noise=0.07, seed=args.seed)
    n_train = 1150
    mean = panel[:, :n_train].mean(1, keepdims=True)
    std = panel[:, :n_train].std(1, keepdims=True)
    z = (panel - mean) / std

    X_train, Y_train, _ = make_windows(z, args.lookback, args.horizon, 0, n_train, stride=3)
    X_val, Y_val, val_ids = make_windows(z, args.lookback, args.horizon, n_train - args.lookback, panel.shape[1], stride=12)

    X_train = X_train[rng.permutation(len(X_train))]
    Y_train = Y_train[rng.permutation(len(Y_train))]

    train_dl = DataLoader(TensorDataset(torch.tensor(X_train), torch.tensor(Y_train)), batch_size=args.bs, shuffle=True)
    Xv, Yv = torch.tensor(X_val), torch.tensor(Y_val)
    y_true = Y_val * std[val_ids] + mean[val_ids]

    model = TCN(args.lookback, args.horizon)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    crit = nn.MSELoss()
    json.dump(vars(args) | {"model": "TCN(24ch, dilations 1-2-4-8)", "n_series": 8, "n_train": n_train},
              open("config.json", "w"), indent=2)
    print(f"{len(X_train)} train / {len(X_val)} val windows, {sum(p.numel() for p in model.parameters())} params")

    with open("history.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "train_loss", "val_loss", "val_MAE", "val_SMAPE", "val_MASE"])
        for epoch in range(1, args.epochs + 1):
            model.train()
            tot, n = 0.0, 0
            for xb, yb in train_dl:
                opt.zero_grad()
                loss = crit(model(xb), yb)
                loss.backward()
                opt.step()
                tot += loss.item() * len(xb)
                n += len(xb)
            model.eval()
            with torch.no_grad():
                pv = model(Xv)
            vloss = crit(pv, Yv).item()
            y_pred = pv.numpy() * std[val_ids] + mean[val_ids]
            mae = float(np.abs(y_true - y_pred).mean())
            s = smape(y_true, y_pred)
            m = mase(y_true, y_pred, val_ids, panel, n_train)
            w.writerow([epoch, round(tot / n, 5), round(vloss, 5), round(mae, 4), round(s, 3), round(m, 4)])
            print(f"[epoch {epoch:02d}/{args.epochs}] train_loss={tot / n:.4f} val_loss={vloss:.4f} "
                  f"val_MAE={mae:.3f} val_SMAPE={s:.2f} val_MASE={m:.3f}")

    # seasonal-naive reference on the same windows
    naive = X_val[:, -24:] * std[val_ids] + mean[val_ids]
    print(f"seasonal naive: MAE={np.abs(y_true - naive).mean():.3f} sMAPE={smape(y_true, naive):.2f} "
          f"MASE={mase(y_true, naive, val_ids, panel, n_train):.3f}")


if __name__ == "__main__":
    main()
