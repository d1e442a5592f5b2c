import numpy as np
import pandas as pd
import torch
import torch.nn as nn

torch.set_num_threads(1)

SEED = 21
LOOKBACK, HORIZON = 48, 24
TRAIN_END = 720
EPOCHS = 10

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


def load_data():
    panel = make_panel(10, 900, 24, noise=0.08, seed=SEED)
    frames = []
    for s in range(panel.shape[0]):
        ts = pd.date_range("2022-03-01", periods=panel.shape[1], freq="h")
        frames.append(pd.DataFrame({"series_id": s, "time_idx": np.arange(len(ts)), "y": panel[s],
                                    "hour": ts.hour, "dayofweek": ts.day_of_week}))
    return pd.concat(frames, ignore_index=True), panel


def build_windows(df, feature_cols, start, end, stride):
    past, fut, target, ids = [], [], [], []
    for sid, g in df.groupby("series_id"):
        y = g["y"].to_numpy(np.float32)
        feats = g[feature_cols].to_numpy(np.float32)
        for i in range(start, end - LOOKBACK - HORIZON + 1, stride):
            past.append(y[i:i + LOOKBACK])
            fut.append(feats[i + LOOKBACK:i + LOOKBACK + HORIZON].ravel())
            target.append(y[i + LOOKBACK:i + LOOKBACK + HORIZON])
            ids.append(sid)
    return (torch.tensor(np.stack(past)), torch.tensor(np.stack(fut)),
            torch.tensor(np.stack(target)), np.array(ids))


class MLPForecaster(nn.Module):
    def __init__(self, n_fut, hidden=128, dropout=0.2):
        super().__init__()
        self.linear = nn.Linear(LOOKBACK + n_fut, HORIZON)
        self.mlp = nn.Sequential(
            nn.Linear(LOOKBACK + n_fut, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, HORIZON))

    def forward(self, past, fut):
        x = torch.cat([past, fut], dim=1)
        return self.linear(x) + self.mlp(x)


def main():
    torch.manual_seed(SEED)
    df, panel = load_data()
    stats = df[df.time_idx < TRAIN_END].groupby("series_id")["y"].agg(["mean", "std"])
    df["y"] = (df["y"] - df["series_id"].map(stats["mean"])) / df["series_id"].map(stats["std"])
    df["hour"] = df["hour"] / 23.0
    df["dayofweek"] = df["dayofweek"] / 6.0
    df["is_weekend"] = (df["dayofweek"] > 0.8).astype(np.float32)
    feature_cols = [c for c in df.columns if c not in ("series_id", "time_idx")]
    print("known future covariates:", feature_cols)

    Ptr, Ftr, Ytr, _ = build_windows(df, feature_cols, 0, TRAIN_END, 2)
    Pva, Fva, Yva, ids = build_windows(df, feature_cols, TRAIN_END - LOOKBACK, df.time_idx.max() + 1, 12)
    mu, sd = stats["mean"].to_numpy()[ids][:, None], stats["std"].to_numpy()[ids][:, None]
    y_true = Yva.numpy() * sd + mu
    print(f"train windows {len(Ptr)}, val windows {len(Pva)}")

    model = MLPForecaster(Ftr.shape[1])
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    loss_fn = nn.MSELoss()
    out = open("training_log.csv", "w")
    out.write("epoch,train_loss,val_loss,val_MAE,val_SMAPE,val_MASE\n")
    g = torch.Generator().manual_seed(SEED)
    for epoch in range(EPOCHS):
        model.train()
        perm = torch.randperm(len(Ptr), generator=g)
        tl = []
        for b in range(0, len(Ptr), 32):
            i = perm[b:b + 32]
            opt.zero_grad()
            loss = loss_fn(model(Ptr[i], Ftr[i]), Ytr[i])
            loss.backward()
            opt.step()
            tl.append(loss.item())
        model.eval()
        with torch.no_grad():
            pv = model(Pva, Fva)
        vl = loss_fn(pv, Yva).item()
        y_pred = pv.numpy() * sd + mu
        v_mae = float(np.abs(y_true - y_pred).mean())
        v_smape = smape(y_true, y_pred)
        v_mase = mase(y_true, y_pred, ids, panel, TRAIN_END)
        out.write(f"{epoch},{np.mean(tl):.5f},{vl:.5f},{v_mae:.4f},{v_smape:.4f},{v_mase:.4f}\n")
        print(f"Epoch {epoch}: train_loss={np.mean(tl):.4f} val_loss={vl:.4f} val_MAE={v_mae:.3f} "
              f"val_SMAPE={v_smape:.2f} val_MASE={v_mase:.3f}")
    out.close()
    naive = Pva.numpy()[:, -24:] * sd + mu
    print(f"seasonal naive on the same windows: MAE={np.abs(y_true - naive).mean():.3f} "
          f"sMAPE={smape(y_true, naive):.2f} MASE={mase(y_true, naive, ids, panel, TRAIN_END):.3f}")


if __name__ == "__main__":
    main()
