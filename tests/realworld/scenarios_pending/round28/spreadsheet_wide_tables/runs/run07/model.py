# model.py
import torch.nn as nn


def build_model(d_in, n_cls, hidden=128, dropout=0.5):
    return nn.Sequential(
        nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(dropout),
        nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(dropout),
        nn.Linear(hidden, n_cls),
    )
