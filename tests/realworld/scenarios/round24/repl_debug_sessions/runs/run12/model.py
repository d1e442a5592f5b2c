import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, in_dim, hidden=64, depth=3, n_classes=10):
        super().__init__()
        self.layers = []
        d = in_dim
        for _ in range(depth):
            self.layers.append(nn.Sequential(nn.Linear(d, hidden), nn.ReLU()))
            d = hidden
        self.head = nn.Linear(d, n_classes)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.head(x)
