import json

import numpy as np
import torch

from train import HORIZON, LOOKBACK, MLP, VAL_END, load_panel

torch.set_num_threads(1)


def scale(window, history):
    return (window - history.mean()) / history.std()


def unscale(values, history):
    return values * history.std() + history.mean()


def main():
    panel = load_panel()
    model = MLP()
    model.load_state_dict(torch.load("mlp.pt"))
    model.eval()
    history = panel[:, :VAL_END]
    seas = np.mean(np.abs(history[:, 24:] - history[:, :-24]), axis=1)

    rows = []
    for origin in range(VAL_END, panel.shape[1] - HORIZON + 1, HORIZON):
        x = scale(panel[:, origin - LOOKBACK:origin], history)
        with torch.no_grad():
            f = unscale(model(torch.tensor(x, dtype=torch.float32)).numpy(), history)
        y = panel[:, origin:origin + HORIZON]
        for s in range(panel.shape[0]):
            e = np.abs(y[s] - f[s])
            rows.append({"series": s, "origin": origin,
                         "MAE": float(e.mean()),
                         "MAPE": float(100 * np.mean(e / np.abs(y[s]))),
                         "sMAPE": float(np.mean(200 * e / (np.abs(y[s]) + np.abs(f[s])))),
                         "MASE": float(e.mean() / seas[s])})
    summary = {k: float(np.mean([r[k] for r in rows])) for k in ("MAE", "MAPE", "sMAPE", "MASE")}
    summary["n_forecasts"] = len(rows)
    print("rolling-origin backtest, %d origins x %d series" % (len(rows) // panel.shape[0], panel.shape[0]))
    for k, v in summary.items():
        print(f"  {k:12s} {v:.4f}" if isinstance(v, float) else f"  {k:12s} {v}")
    worst = sorted(rows, key=lambda r: -r["sMAPE"])[:5]
    print("worst windows:", [(r["series"], r["origin"], round(r["sMAPE"], 1)) for r in worst])
    json.dump({"summary": summary, "per_window": rows}, open("backtest.json", "w"), indent=1)


if __name__ == "__main__":
    main()
