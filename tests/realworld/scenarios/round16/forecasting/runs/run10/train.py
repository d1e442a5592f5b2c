import os

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

SEED = 13
N_SERIES, LENGTH, TRAIN_END, VAL_END = 9, 1100, 850, 1000
INPUT_SIZE, HORIZON = 120, 24

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


def build_net(input_size=INPUT_SIZE, horizon=HORIZON, hidden=256):
    return nn.Sequential(
        nn.Linear(input_size, hidden), nn.ReLU(),
        nn.Linear(hidden, hidden), nn.ReLU(),
        nn.Linear(hidden, horizon),
    )


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = build_net()

    def forward(self, x):
        # simple residual on the last value, MLP does the rest
        return x[:, -1:] + self.net(x)


def load_panel():
    return make_panel(N_SERIES, LENGTH, 24, noise=0.05, seed=SEED)


def main():
    torch.manual_seed(SEED)
    panel = load_panel()
    mu = panel[:, :TRAIN_END].mean(1, keepdims=True)
    sd = panel[:, :TRAIN_END].std(1, keepdims=True)
    z = (panel - mu) / sd
    Xtr, Ytr, _ = make_windows(z, INPUT_SIZE, HORIZON, 0, TRAIN_END, 2)
    Xva, Yva, ids = make_windows(z, INPUT_SIZE, HORIZON, TRAIN_END - INPUT_SIZE, VAL_END, 6)
    Xtr, Ytr, Xva, Yva = map(torch.tensor, (Xtr, Ytr, Xva, Yva))
    y_true = Yva.numpy() * sd[ids] + mu[ids]

    model = Forecaster()
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    crit = nn.MSELoss()
    os.makedirs("checkpoints", exist_ok=True)
    best = float("inf")
    g = torch.Generator().manual_seed(SEED)
    for epoch in range(25):
        model.train()
        perm = torch.randperm(len(Xtr), generator=g)
        tl = []
        for b in range(0, len(Xtr), 128):
            i = perm[b:b + 128]
            opt.zero_grad()
            loss = crit(model(Xtr[i]), Ytr[i])
            loss.backward()
            opt.step()
            tl.append(loss.item())
        model.eval()
        with torch.no_grad():
            pv = model(Xva)
        vl = crit(pv, Yva).item()
        y_pred = pv.numpy() * sd[ids] + mu[ids]
        print(f"epoch {epoch:02d} | train_loss {np.mean(tl):.4f} | val_loss {vl:.4f} | "
              f"val_MAE {np.abs(y_true - y_pred).mean():.3f} | val_SMAPE {smape(y_true, y_pred):.2f} | "
              f"val_MASE {mase(y_true, y_pred, ids, panel, TRAIN_END):.3f}")
        if vl < best:
            best = vl
            torch.save({"epoch": epoch, "val_loss": vl, "state_dict": model.state_dict(),
                        "scaler": {"mean": mu.ravel().tolist(), "std": sd.ravel().tolist()}},
                       "checkpoints/best.pt")
    print(f"done, best val_loss {best:.4f} -> checkpoints/best.pt")


if __name__ == "__main__":
    main()
