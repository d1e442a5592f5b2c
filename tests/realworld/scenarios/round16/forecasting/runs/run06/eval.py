import json
import sys

import numpy as np
import torch

sys.path.insert(0, ".")
from train import GRUForecaster, LOOKBACK, HORIZON, VAL_END

torch.set_num_threads(1)

GIT_REV = "b71e0d4"
OUT_FILE = "backtest_2024-06-11.json"


def smape(y_true, y_pred):
    return float(np.mean(200.0 * np.abs(y_true - y_pred) / (np.abs(y_true) + np.abs(y_pred))))


def mase(y_true, y_pred, y_insample, m=1):
    scale = np.mean(np.abs(y_insample[m:] - y_insample[:-m]))
    return float(np.mean(np.abs(y_true - y_pred)) / scale)


def main():
    panel = np.load("panel.npy")
    sc = json.load(open("scaler.json"))
    mu = np.array(sc["mean"], dtype=np.float32)[:, None]
    sd = np.array(sc["std"], dtype=np.float32)[:, None]
    model = GRUForecaster()
    model.load_state_dict(torch.load("model.pt"))
    model.eval()

    rows = []
    for s in range(panel.shape[0]):
        history = panel[s, :VAL_END]
        for origin in range(VAL_END, panel.shape[1] - HORIZON + 1, HORIZON):
            x = (panel[s, origin - LOOKBACK:origin] - mu[s]) / sd[s]
            with torch.no_grad():
                f = model(torch.tensor(x)[None])[0].numpy() * sd[s] + mu[s]
            y = panel[s, origin:origin + HORIZON]
            rows.append({
                "series": s, "origin": origin,
                "MAE": float(np.mean(np.abs(y - f))),
                "RMSE": float(np.sqrt(np.mean((y - f) ** 2))),
                "sMAPE": smape(y, f),
                "MASE": mase(y, f, history),
            })
    summary = {k: float(np.mean([r[k] for r in rows])) for k in ("MAE", "RMSE", "sMAPE", "MASE")}
    summary["n_windows"] = len(rows)
    summary["git_rev"] = GIT_REV
    print(f"backtest @ {GIT_REV}: {len(rows)} windows (7 daily origins x {panel.shape[0]} series)")
    for k in ("MAE", "RMSE", "sMAPE", "MASE"):
        print(f"  {k:6s} {summary[k]:.4f}")
    json.dump({"summary": summary, "per_window": rows}, open(OUT_FILE, "w"), indent=1)


if __name__ == "__main__":
    main()
