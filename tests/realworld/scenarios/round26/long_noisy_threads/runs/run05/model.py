import torch.nn as nn


class Net(nn.Module):
    def __init__(self, d_in, n_cls, hidden=128, p=0.3):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
        )
        self.head = nn.Linear(hidden, n_cls)

    def forward(self, x):
        return self.head(self.body(x))
