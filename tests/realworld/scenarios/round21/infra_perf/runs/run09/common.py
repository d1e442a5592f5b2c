import torch
import torch.nn as nn


def build_model():
    return nn.Sequential(
        nn.Conv1d(1, 16, 7, padding=3), nn.ReLU(), nn.MaxPool1d(2),
        nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
        nn.Flatten(), nn.Linear(32, 6))


def make_signals(n, seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 6, (n,), generator=g)
    t = torch.linspace(0, 1, 128)
    freq = 3.0 + 1.0 * y.float()
    x = torch.sin(2 * torch.pi * freq[:, None] * t[None] + torch.rand(n, 1, generator=g) * 6.28)
    x = x + 1.6 * torch.randn(n, 128, generator=g)
    return x.unsqueeze(1), y
