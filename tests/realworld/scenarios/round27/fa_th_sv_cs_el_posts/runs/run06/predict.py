import sys

import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, n_in=40, n_hidden=256, n_out=8, p_drop=0.5):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(n_in, n_hidden), nn.BatchNorm1d(n_hidden), nn.ReLU(), nn.Dropout(p_drop),
            nn.Linear(n_hidden, n_hidden), nn.BatchNorm1d(n_hidden), nn.ReLU(), nn.Dropout(p_drop),
        )
        self.head = nn.Linear(n_hidden, n_out)

    def forward(self, x):
        return self.head(self.body(x))


def main(path):
    model = Net()
    model.load_state_dict(torch.load("checkpoints/best.pt", map_location="cpu"))

    data = np.load(path)
    X = torch.from_numpy(data["X"])
    y = torch.from_numpy(data["y"])

    preds = []
    with torch.no_grad():
        for i in range(0, len(X), 16):
            logits = model(X[i:i + 16])
            preds.append(logits.argmax(dim=1))
    preds = torch.cat(preds)
    acc = (preds == y).float().mean().item()
    print(f"{path}: {len(X)} samples, accuracy = {acc:.4f}")
    print("first 20 preds:", preds[:20].tolist())
    print("first 20 true: ", y[:20].tolist())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data/val.npz")
