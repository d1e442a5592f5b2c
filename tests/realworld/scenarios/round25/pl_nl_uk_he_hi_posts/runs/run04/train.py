import argparse
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class SensorNet(nn.Module):
    def __init__(self, n_feat, n_cls):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_feat, 64), nn.ReLU(),
            nn.Linear(64, 64), nn.ReLU(),
            nn.Linear(64, n_cls),
        )

    def forward(self, x):
        # sensors have very different ranges (mm/s, g, degC) -> standardise every batch
        x = (x - x.mean(dim=0)) / x.std(dim=0)
        return self.net(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--bs", type=int, default=64)
    args = ap.parse_args()
    torch.manual_seed(0)

    tr = np.load("data/kampan_train.npz")
    va = np.load("data/kampan_val.npz")
    train_ds = TensorDataset(torch.tensor(tr["X"]), torch.tensor(tr["y"]))
    Xv, yv = torch.tensor(va["X"]), torch.tensor(va["y"])
    loader = DataLoader(train_ds, batch_size=args.bs, shuffle=True)
    print(f"train samples: {len(train_ds)}  val samples: {len(Xv)}  batches/epoch: {len(loader)}")

    model = SensorNet(tr["X"].shape[1], 3)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    crit = nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        model.train()
        total = 0.0
        for i, (xb, yb) in enumerate(loader):
            loss = crit(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            if (i + 1) % 4 == 0 or i + 1 == len(loader):
                print(f"Epoch [{epoch + 1}/{args.epochs}] Step [{i + 1}/{len(loader)}] Loss: {loss.item():.4f}")
        model.eval()
        with torch.no_grad():
            acc = (model(Xv).argmax(1) == yv).float().mean().item()
        print(f"Epoch {epoch + 1} avg loss: {total / len(loader):.4f} | val acc: {acc:.4f}")


if __name__ == "__main__":
    main()
