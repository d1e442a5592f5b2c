import torch.nn as nn


class HARNet(nn.Module):
    def __init__(self, window=128, channels=(16, 32), kernel=5, fc=64, n_classes=4):
        super().__init__()
        c1, c2 = channels
        self.features = nn.Sequential(
            nn.Conv1d(1, c1, kernel, padding=kernel // 2), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(c1, c2, kernel, padding=kernel // 2), nn.ReLU(), nn.MaxPool1d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(c2 * (window // 4), fc), nn.ReLU(),
                                        nn.Linear(fc, n_classes))

    def forward(self, x):
        return self.classifier(self.features(x))
