import numpy as np
import torch
import torch.nn as nn
from skorch import NeuralNetClassifier
from skorch.callbacks import Checkpoint

torch.manual_seed(1234)

data = np.load("data/products.npz")
X = data["X"].astype(np.float32)
y = data["y"].astype(np.int64)
X = (X - X.mean(axis=0)) / X.std(axis=0)
print("X:", X.shape, "n_classes:", len(np.unique(y)))


class ProductClassifier(nn.Module):
    def __init__(self, n_in=30, n_hidden=128, n_out=10, dropout=0.1):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(n_in, n_hidden),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(n_hidden, n_hidden),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(n_hidden, n_out),
            nn.Softmax(dim=-1),
        )

    def forward(self, X):
        return self.layers(X)


net = NeuralNetClassifier(
    ProductClassifier,
    criterion=nn.CrossEntropyLoss,
    optimizer=torch.optim.Adam,
    lr=1e-3,
    max_epochs=40,
    batch_size=64,
    iterator_train__shuffle=True,
    callbacks=[Checkpoint(monitor="valid_loss_best", dirname="checkpoints")],
)

net.fit(X, y)
net.history.to_file("history.json")
