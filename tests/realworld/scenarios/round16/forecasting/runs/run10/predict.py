import json

import numpy as np
import torch

from train import HORIZON, INPUT_SIZE, TRAIN_END, VAL_END, build_net, load_panel, mase, smape

torch.set_num_threads(1)

CKPT = "checkpoints/best.pt"


def main():
    torch.manual_seed(0)
    panel = load_panel()
    ckpt = torch.load(CKPT)
    net = build_net()
    print(net.load_state_dict(ckpt["state_dict"], strict=False))
    net.eval()
    print(f"loaded {CKPT} (epoch {ckpt['epoch']}, val_loss {ckpt['val_loss']:.4f})")
    mu = np.array(ckpt["scaler"]["mean"], dtype=np.float32)
    sd = np.array(ckpt["scaler"]["std"], dtype=np.float32)

    ys, fs, ids = [], [], []
    for s in range(panel.shape[0]):
        for origin in range(VAL_END, panel.shape[1] - HORIZON + 1, HORIZON):
            x = torch.tensor((panel[s, origin - INPUT_SIZE:origin] - mu[s]) / sd[s])[None]
            with torch.no_grad():
                f = (x[:, -1:] + net(x))[0].numpy() * sd[s] + mu[s]
            ys.append(panel[s, origin:origin + HORIZON])
            fs.append(f)
            ids.append(s)
    ys, fs, ids = np.stack(ys), np.stack(fs), np.array(ids)
    res = {
        "checkpoint": CKPT,
        "n_forecasts": int(len(ys)),
        "MAE": float(np.abs(ys - fs).mean()),
        "MAPE": float(np.mean(100 * np.abs(ys - fs) / np.abs(ys))),
        "sMAPE": smape(ys, fs),
        "MASE": mase(ys, fs, ids, panel, TRAIN_END),
    }
    print(json.dumps(res, indent=2))
    json.dump(res, open("test_metrics.json", "w"), indent=2)


if __name__ == "__main__":
    main()
