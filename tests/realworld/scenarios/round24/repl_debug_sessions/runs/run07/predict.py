import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, d_in=20, hidden=256, n_classes=10, p=0.5):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
        )
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.body(x))


def load_model(path):
    model = Net()
    ckpt = torch.load(path, map_location="cpu")
    print(model.load_state_dict(ckpt["model"]))
    return model


def make_loader(path, batch_size=256):
    d = np.load(path)
    return DataLoader(TensorDataset(torch.from_numpy(d["X"]), torch.from_numpy(d["y"])),
                      batch_size=batch_size)


def evaluate(model, loader):
    correct = total = 0
    with torch.no_grad():
        for xb, yb in loader:
            pred = model(xb).argmax(dim=1)
            correct += (pred == yb).sum().item()
            total += len(yb)
    return correct / total
