import torch.nn as nn


class LeafNet(nn.Module):
    def __init__(self, in_dim, n_classes, width=256, p_drop=0.2):
        super().__init__()
        self.features = nn.Sequential(
            nn.Linear(in_dim, width), nn.BatchNorm1d(width), nn.ReLU(), nn.Dropout(p_drop),
            nn.Linear(width, width), nn.BatchNorm1d(width), nn.ReLU(), nn.Dropout(p_drop),
        )
        self.classifier = nn.Linear(width, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x))
