import torch.nn as nn


class TabNet(nn.Module):
    def __init__(self, n_in, n_classes, hidden=128, p_drop=0.5):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(n_in, hidden),
            nn.BatchNorm1d(hidden),
            nn.ReLU(),
            nn.Dropout(p_drop),
            nn.Linear(hidden, hidden),
            nn.BatchNorm1d(hidden),
            nn.ReLU(),
            nn.Dropout(p_drop),
        )
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.out(self.body(x))
