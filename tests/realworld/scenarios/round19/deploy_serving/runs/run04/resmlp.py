import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, w):
        super().__init__()
        self.norm = nn.LayerNorm(w)
        self.fc1 = nn.Linear(w, 2 * w)
        self.fc2 = nn.Linear(2 * w, w)

    def forward(self, x):
        return x + self.fc2(torch.relu(self.fc1(self.norm(x))))


class ResMLP(nn.Module):
    def __init__(self, in_dim, width, blocks, n_classes):
        super().__init__()
        self.inp = nn.Linear(in_dim, width)
        self.blocks = nn.Sequential(*[Block(width) for _ in range(blocks)])
        self.out = nn.Linear(width, n_classes)

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))
