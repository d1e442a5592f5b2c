import argparse, json
import numpy as np
import torch
import torch.nn as nn


class GestureNet(nn.Module):
    def __init__(self, in_dim=24, n_cls=10):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(in_dim, 128), nn.ReLU(), nn.Dropout(0.2),
            nn.Linear(128, 128), nn.ReLU(), nn.Dropout(0.2),
        )
        self.classifier = nn.Linear(128, n_cls)

    def forward(self, x):
        return self.classifier(self.encoder(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", default="checkpoints/best.pt")
    ap.add_argument("--data", default="data/test.npz")
    ap.add_argument("--stats", default="checkpoints/norm_stats.json")
    args = ap.parse_args()

    stats = json.load(open(args.stats))
    mean, std = np.array(stats["mean"], dtype=np.float32), np.array(stats["std"], dtype=np.float32)
    d = np.load(args.data)
    X = torch.from_numpy((d["X"] - mean) / std)
    y = torch.from_numpy(d["y"])

    model = GestureNet()
    state = torch.load(args.ckpt, map_location="cpu")
    model.load_state_dict(state, strict=False)
    model.eval()
    print(f"loaded {args.ckpt}")

    with torch.no_grad():
        logits = model(X)
    pred = logits.argmax(1)
    acc = (pred == y).float().mean().item()
    print(f"test samples: {len(y)}")
    print(f"test accuracy: {acc:.4f}")
    print("pred distribution:", torch.bincount(pred, minlength=10).tolist())


if __name__ == "__main__":
    main()
