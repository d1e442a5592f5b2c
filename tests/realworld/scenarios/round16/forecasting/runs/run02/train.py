import json
import time

import numpy as np
import torch
import torch.nn as nn
import yaml

torch.set_num_threads(1)

CFG = {
    "seed": 42,
    "n_series": 10,
    "length": 1000,
    "period": 24,
    "val_size": 200,
    "lookback": 72,
    "horizon": 24,
    "stride": 3,
    "n_blocks": 3,
    "width": 128,
    "n_layers": 3,
    "lr": 1e-3,
    "batch_size": 64,
    "max_epochs": 30,
}

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


class Block(nn.Module):
    def __init__(self, lookback, horizon, width, n_layers):
        super().__init__()
        layers, d = [], lookback
        for _ in range(n_layers):
            layers += [nn.Linear(d, width), nn.ReLU()]
            d = width
        self.fc = nn.Sequential(*layers)
        self.backcast = nn.Linear(width, lookback)
        self.forecast = nn.Linear(width, horizon)

    def forward(self, x):
        h = self.fc(x)
        return self.backcast(h), self.forecast(h)


class NBeats(nn.Module):
    def __init__(self, lookback, horizon, n_blocks, width, n_layers):
        super().__init__()
        self.blocks = nn.ModuleList([Block(lookback, horizon, width, n_layers) for _ in range(n_blocks)])

    def forward(self, x):
        forecast = 0
        for block in self.blocks:
            b, f = block(x)
            x = x - b
            forecast = forecast + f
        return forecast


def main():
    torch.manual_seed(CFG["seed"])
    np.random.seed(CFG["seed"])
    L, H = CFG["lookback"], CFG["horizon"]
    panel = make_panel(CFG["n_series"], CFG["length"], CFG["period"], noise=0.06, seed=CFG["seed"])
    train_end = CFG["length"] - CFG["val_size"]
    mu = panel[:, :train_end].mean(axis=1, keepdims=True)
    sd = panel[:, :train_end].std(axis=1, keepdims=True)
    z = (panel - mu) / sd

    Xtr, Ytr, _ = make_windows(z, L, H, 0, train_end, CFG["stride"])
    Xva, Yva, ids_va = make_windows(z, L, H, train_end - L, CFG["length"], H // 2)
    Xtr, Ytr, Xva, Yva = map(torch.tensor, (Xtr, Ytr, Xva, Yva))
    y_true = Yva.numpy() * sd[ids_va] + mu[ids_va]
    print(f"train windows: {len(Xtr)}  val windows: {len(Xva)}")

    model = NBeats(L, H, CFG["n_blocks"], CFG["width"], CFG["n_layers"])
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    loss_fn = nn.MSELoss()
    print(f"params: {sum(p.numel() for p in model.parameters())}")

    with open("hparams.yaml", "w") as f:
        yaml.safe_dump(CFG, f, sort_keys=False)

    log = open("metrics.csv", "w")
    log.write("epoch,step,train_loss,val_loss,val_MAE,val_SMAPE,val_MASE\n")
    best, step = float("inf"), 0
    g = torch.Generator().manual_seed(CFG["seed"])
    for epoch in range(CFG["max_epochs"]):
        t0 = time.time()
        model.train()
        perm = torch.randperm(len(Xtr), generator=g)
        losses = []
        for b in range(0, len(Xtr), CFG["batch_size"]):
            idx = perm[b:b + CFG["batch_size"]]
            opt.zero_grad()
            loss = loss_fn(model(Xtr[idx]), Ytr[idx])
            loss.backward()
            opt.step()
            losses.append(loss.item())
            step += 1
        model.eval()
        with torch.no_grad():
            pred = model(Xva)
        val_loss = loss_fn(pred, Yva).item()
        y_pred = pred.numpy() * sd[ids_va] + mu[ids_va]
        v_mae = float(np.mean(np.abs(y_true - y_pred)))
        v_smape = smape(y_true, y_pred)
        v_mase = mase(y_true, y_pred, ids_va, panel, train_end)
        train_loss = float(np.mean(losses))
        log.write(f"{epoch},{step},{train_loss:.6f},{val_loss:.6f},{v_mae:.4f},{v_smape:.4f},{v_mase:.4f}\n")
        log.flush()
        print(f"Epoch {epoch}: train_loss={train_loss:.4f} val_loss={val_loss:.4f} val_MAE={v_mae:.3f} "
              f"val_SMAPE={v_smape:.2f} val_MASE={v_mase:.3f} ({time.time() - t0:.1f}s)")
        if val_loss < best:
            best = val_loss
            torch.save({"epoch": epoch, "model": model.state_dict()}, "best.pt")
            summary = {"best_epoch": epoch, "val_loss": val_loss, "MAE": v_mae, "sMAPE": v_smape, "MASE": v_mase}
    log.close()
    print("best:", json.dumps(summary))
    with open("backtest.json", "w") as f:
        json.dump(summary, f, indent=2)


if __name__ == "__main__":
    main()
