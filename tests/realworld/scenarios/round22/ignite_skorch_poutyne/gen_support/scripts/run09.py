import numpy as np
import torch
from torch import nn
from skorch import NeuralNetClassifier
from skorch.callbacks import Checkpoint

torch.manual_seed(99)

d = np.load("data/churn.npz")
X, y = d["X"].astype(np.float32), d["y"].astype(np.int64)
X = (X - X.mean(0)) / X.std(0)


class ChurnMLP(nn.Module):
    def __init__(self, n_in=16, hidden=64, p=0.5):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(n_in, hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, 2),
        )

    def forward(self, x):
        return torch.softmax(self.body(x), dim=-1)


net = NeuralNetClassifier(
    ChurnMLP,
    max_epochs=20,
    lr=0.01,
    optimizer=torch.optim.Adam,
    batch_size=128,
    iterator_train__shuffle=True,
    callbacks=[Checkpoint(dirname="churn_cp")],
)
net.fit(X, y)
net.history.to_file("history.json")
