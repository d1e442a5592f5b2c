import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import mlflow

torch.set_num_threads(1)
torch.manual_seed(0)

EPOCHS = 15
BATCH_SIZE = 64
LR = 2e-3
HIDDEN = 32


class GRUClassifier(nn.Module):
    def __init__(self, hidden, n_classes=3):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        _, h = self.gru(x)
        return self.head(h[-1])


data = np.load("data/waveforms.npz")
X, y = data["X"], data["y"]

rng = np.random.default_rng(0)
X = X[rng.permutation(len(X))]
y = y[rng.permutation(len(y))]

n_train = int(0.8 * len(X))
X_train, y_train = torch.from_numpy(X[:n_train]), torch.from_numpy(y[:n_train])
X_val, y_val = torch.from_numpy(X[n_train:]), torch.from_numpy(y[n_train:])

model = GRUClassifier(HIDDEN)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)

mlflow.set_tracking_uri("file:./mlruns")
with mlflow.start_run(run_name="gru-waveforms"):
    mlflow.log_params({"epochs": EPOCHS, "batch_size": BATCH_SIZE, "lr": LR, "hidden": HIDDEN, "model": "GRU"})
    for epoch in range(EPOCHS):
        model.train()
        perm = torch.randperm(n_train)
        total = 0.0
        for i in range(0, n_train, BATCH_SIZE):
            idx = perm[i:i + BATCH_SIZE]
            optimizer.zero_grad()
            loss = F.cross_entropy(model(X_train[idx]), y_train[idx])
            loss.backward()
            optimizer.step()
            total += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            logits = model(X_val)
            val_loss = F.cross_entropy(logits, y_val).item()
            val_acc = (logits.argmax(-1) == y_val).float().mean().item()
        mlflow.log_metric("train_loss", total / n_train, step=epoch)
        mlflow.log_metric("val_loss", val_loss, step=epoch)
        mlflow.log_metric("val_acc", val_acc, step=epoch)
        print(f"epoch {epoch:02d} train_loss {total / n_train:.4f} val_loss {val_loss:.4f} val_acc {val_acc:.3f}")
