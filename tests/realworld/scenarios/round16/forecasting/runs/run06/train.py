import json

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

SEED = 8
LOOKBACK, HORIZON = 96, 24
N_SERIES, LENGTH = 12, 1344
TRAIN_END, VAL_END = 1008, 1176

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


class GRUForecaster(nn.Module):
    def __init__(self, hidden=48):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.out = nn.Linear(hidden, HORIZON)

    def forward(self, x):
        _, h = self.gru(x.unsqueeze(-1))
        return self.out(h[-1])


def main():
    torch.manual_seed(SEED)
    panel = make_panel(N_SERIES, LENGTH, 24, noise=0.02, seed=SEED)
    np.save("panel.npy", panel)
    mu = panel[:, :TRAIN_END].mean(1, keepdims=True)
    sd = panel[:, :TRAIN_END].std(1, keepdims=True)
    json.dump({"mean": mu.ravel().tolist(), "std": sd.ravel().tolist()}, open("scaler.json", "w"))
    z = (panel - mu) / sd
    Xtr, Ytr, _ = make_windows(z, LOOKBACK, HORIZON, 0, TRAIN_END, 4)
    Xva, Yva, _ = make_windows(z, LOOKBACK, HORIZON, TRAIN_END - LOOKBACK, VAL_END, 12)
    Xtr, Ytr, Xva, Yva = map(torch.tensor, (Xtr, Ytr, Xva, Yva))

    model = GRUForecaster()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.L1Loss()
    best = float("inf")
    g = torch.Generator().manual_seed(SEED)
    for epoch in range(15):
        model.train()
        perm = torch.randperm(len(Xtr), generator=g)
        tl = []
        for b in range(0, len(Xtr), 64):
            i = perm[b:b + 64]
            opt.zero_grad()
            loss = loss_fn(model(Xtr[i]), Ytr[i])
            loss.backward()
            opt.step()
            tl.append(loss.item())
        model.eval()
        with torch.no_grad():
            vl = loss_fn(model(Xva), Yva).item()
        tag = ""
        if vl < best:
            best = vl
            torch.save(model.state_dict(), "model.pt")
            tag = "  *saved*"
        print(f"epoch {epoch:2d}  train_loss {np.mean(tl):.4f}  val_loss {vl:.4f}{tag}")
    print(f"best val_loss {best:.4f}")


if __name__ == "__main__":
    main()
