import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import deepspeed

torch.set_num_threads(1)


def load_listings(path="data/listings_features.npz"):
    d = np.load(path)
    return d["features"], d["log_price"]


class PriceMLP(nn.Module):
    def __init__(self, d_in=24, hidden=256):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.GELU(),
            nn.Linear(hidden, hidden), nn.GELU(),
            nn.Linear(hidden, 1),
        )

    def forward(self, x):
        return self.net(x).squeeze(-1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=40)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    torch.manual_seed(0)

    X, y = load_listings()
    n_val = 6000
    train_ds = torch.utils.data.TensorDataset(torch.from_numpy(X[n_val:]), torch.from_numpy(y[n_val:]))
    Xv, yv = torch.from_numpy(X[:n_val]), torch.from_numpy(y[:n_val])

    model = PriceMLP()
    engine, optimizer, train_loader, _ = deepspeed.initialize(
        args=args, model=model, model_parameters=model.parameters(), training_data=train_ds)

    for epoch in range(args.epochs):
        engine.train()
        for xb, yb in train_loader:
            pred = engine(xb.half())
            loss = F.mse_loss(pred.float(), yb, reduction="sum")
            engine.backward(loss)
            engine.step()
            print(f"epoch {epoch} step {engine.global_steps} loss/sample {loss.item() / len(yb):.4f}", flush=True)
        engine.eval()
        with torch.no_grad():
            pv = engine(Xv.half()).float()
            rmse = torch.sqrt(F.mse_loss(pv, yv)).item()
        print(f"epoch {epoch} val_rmse {rmse:.4f}", flush=True)


if __name__ == "__main__":
    main()
