"""Assignment 4 submission.

Autograder interface:
    model = train_model(X_train, y_train)   # X: (N, 64) float array, y: (N,) int array
    preds = predict(model, X_test)
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

BATCH_SIZE = 64
EPOCHS = 12
LR = 2e-3


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(64, 128),
            nn.BatchNorm1d(128),
            nn.ReLU(),
            nn.Linear(128, 128),
            nn.BatchNorm1d(128),
            nn.ReLU(),
            nn.Linear(128, 10),
        )

    def forward(self, x):
        return self.layers(x)


def train_model(X_train, y_train, epochs=EPOCHS, verbose=False):
    torch.manual_seed(0)
    X = torch.tensor(X_train / 16.0, dtype=torch.float32)
    y = torch.tensor(y_train, dtype=torch.long)
    loader = DataLoader(TensorDataset(X, y), batch_size=BATCH_SIZE, shuffle=True)
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item() * len(xb)
        if verbose:
            print(f"epoch {epoch + 1:2d}  loss {total / len(X):.4f}")
    return model


def predict(model, X):
    model.eval()
    with torch.no_grad():
        logits = model(torch.tensor(X / 16.0, dtype=torch.float32))
    return logits.argmax(1).numpy()


if __name__ == "__main__":
    d = np.load("a4_data.npz")
    n_val = 600
    X_tr, y_tr = d["X"][:-n_val], d["y"][:-n_val]
    X_va, y_va = d["X"][-n_val:], d["y"][-n_val:]
    print(f"train {X_tr.shape}  val {X_va.shape}")
    model = train_model(X_tr, y_tr, verbose=True)
    acc = (predict(model, X_va) == y_va).mean()
    print(f"val accuracy: {acc:.4f}")
