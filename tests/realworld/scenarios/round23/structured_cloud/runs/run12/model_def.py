import torch.nn as nn


def build_model(n_in=32, hidden=256, n_classes=5, p=0.5):
    return nn.Sequential(
        nn.Linear(n_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
        nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
        nn.Linear(hidden, n_classes),
    )
