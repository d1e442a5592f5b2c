import numpy as np
import torch
from torch import nn
from skorch import NeuralNetClassifier
from skorch.callbacks import Checkpoint

torch.manual_seed(0)

X = np.load("data/moons_X.npy").astype(np.float32)
y = np.load("data/moons_y.npy").astype(np.int64)


class MoonNet(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(2, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, 2),
        )

    def forward(self, x):
        return torch.softmax(self.net(x), dim=-1)


net = NeuralNetClassifier(
    MoonNet,
    module__hidden=64,
    max_epochs=60,
    lr=0.05,
    batch_size=16,
    optimizer=torch.optim.SGD,
    iterator_train__shuffle=True,
    callbacks=[Checkpoint(dirname="cp_moons")],
)
net.fit(X, y)
net.history.to_file("history.json")
