import torch
import torch.nn as nn


def glyph_prototypes(seed=7):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(10, 8, 8, generator=g) < 0.35).float()


def make_glyphs(n, seed, protos, flip=0.08, noise=0.2):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 10, (n,), generator=g)
    x = protos[y].clone()
    shift = torch.randint(-1, 2, (n, 2), generator=g) * (torch.rand(n, 1, generator=g) < 0.3).long()
    for i in range(n):
        x[i] = torch.roll(x[i], shifts=(int(shift[i, 0]), int(shift[i, 1])), dims=(0, 1))
    flips = torch.rand(x.shape, generator=g) < flip
    x = torch.where(flips, 1 - x, x)
    x = (x * 16 + torch.randn(x.shape, generator=g) * noise * 16).clamp(0, 16).round()
    return x.view(n, 1, 8, 8) / 16.0, y


class TeacherCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(64 * 16, 128), nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, 10))

    def forward(self, x):
        return self.fc(self.conv(x))


class StudentMLP(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 10))

    def forward(self, x):
        return self.net(x)
