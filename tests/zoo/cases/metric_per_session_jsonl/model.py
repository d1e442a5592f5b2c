"""The classifier."""
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(cfg["dim"], cfg["hidden"]), nn.ReLU(), nn.Dropout(cfg["dropout"]),
                                  nn.Linear(cfg["hidden"], cfg["hidden"]), nn.ReLU(), nn.Dropout(cfg["dropout"]))
        self.head = nn.Linear(cfg["hidden"], cfg["num_classes"])

    def forward(self, x):
        return self.head(self.body(x))
