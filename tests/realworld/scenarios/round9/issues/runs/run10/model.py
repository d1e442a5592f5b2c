import torch.nn as nn


class EncoderClassifier(nn.Module):
    def __init__(self, num_classes=10, feat_dim=64):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(32 * 4 * 4, feat_dim), nn.ReLU(),
        )
        self.feat_dim = feat_dim
        self.head = nn.Linear(feat_dim, num_classes)

    def forward(self, x):
        return self.head(self.encoder(x))

    def freeze_encoder(self):
        for p in self.encoder.parameters():
            p.requires_grad = False

    def reset_classifier(self, num_classes):
        self.head = nn.Linear(self.feat_dim, num_classes)
