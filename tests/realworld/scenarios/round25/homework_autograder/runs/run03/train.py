"""ML 3410 -- Assignment 3, Part B: image classifier for Digits8x8.

Usage: python train.py
Writes model.pt (state dict). The autograder imports `DigitNet` and `predict_proba`.
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 42
EPOCHS = 15
BATCH_SIZE = 64
LR = 1e-3


class DigitNet(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(64, 128),
            nn.ReLU(),
            nn.Linear(128, 64),
            nn.ReLU(),
            nn.Linear(64, n_classes),
            nn.Softmax(dim=1),
        )

    def forward(self, x):
        return self.net(x)


def predict_proba(model, X):
    """Return an (N, 10) array of class probabilities (rows sum to 1)."""
    model.eval()
    with torch.no_grad():
        logits = model(torch.as_tensor(X, dtype=torch.float32) / 16.0)
    return torch.softmax(logits, dim=1).numpy()


def load_split(name):
    d = np.load(f"data/{name}.npz")
    X = torch.tensor(d["X"], dtype=torch.float32) / 16.0
    y = torch.tensor(d["y"], dtype=torch.long)
    return X, y


def main():
    torch.manual_seed(SEED)
    X_tr, y_tr = load_split("train")
    X_va, y_va = load_split("val")
    loader = DataLoader(TensorDataset(X_tr, y_tr), batch_size=BATCH_SIZE, shuffle=True)

    model = DigitNet()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)

    for epoch in range(1, EPOCHS + 1):
        model.train()
        total, correct, running = 0, 0, 0.0
        for xb, yb in loader:
            optimizer.zero_grad()
            out = model(xb)
            loss = criterion(out, yb)
            loss.backward()
            optimizer.step()
            running += loss.item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            total += len(yb)
        model.eval()
        with torch.no_grad():
            out = model(X_va)
            val_loss = criterion(out, y_va).item()
            val_acc = (out.argmax(1) == y_va).float().mean().item()
        print(f"Epoch {epoch:2d}/{EPOCHS}  train_loss={running / total:.4f}  train_acc={correct / total:.4f}"
              f"  val_loss={val_loss:.4f}  val_acc={val_acc:.4f}")

    torch.save(model.state_dict(), "model.pt")
    print("saved model.pt")


if __name__ == "__main__":
    main()
