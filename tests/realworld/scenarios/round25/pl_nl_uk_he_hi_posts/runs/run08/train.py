import argparse
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self, in_dim, hidden, n_cls):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(in_dim, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, n_cls),
            nn.Softmax(dim=1),
        )

    def forward(self, x):
        return self.layers(x)


def run(hidden, epochs=15, lr=1e-3):
    torch.manual_seed(0)
    d = np.load("data/gatunki_feats.npz")
    train = DataLoader(TensorDataset(torch.from_numpy(d["X_train"]), torch.from_numpy(d["y_train"])),
                       batch_size=64, shuffle=True)
    Xv, yv = torch.from_numpy(d["X_val"]), torch.from_numpy(d["y_val"])

    model = Classifier(d["X_train"].shape[1], hidden, 10)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"hidden={hidden} params={n_params}")
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    criterion = nn.CrossEntropyLoss()

    for ep in range(1, epochs + 1):
        model.train()
        tot, correct, n = 0.0, 0, 0
        for xb, yb in train:
            out = model(xb)
            loss = criterion(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
        model.eval()
        with torch.no_grad():
            vout = model(Xv)
            vloss = criterion(vout, yv).item()
            vacc = (vout.argmax(1) == yv).float().mean().item()
        print(f"[ep {ep:2d}] loss {tot / n:.4f}  acc {correct / n:.4f}  |  val_loss {vloss:.4f}  val_acc {vacc:.4f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--hidden", type=int, default=128)
    run(ap.parse_args().hidden)
