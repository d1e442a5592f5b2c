import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 7
EPOCHS = 14
BATCH = 64
LR = 2e-3

torch.manual_seed(SEED)


class Net(nn.Module):
    def __init__(self, d_in, n_cls):
        super().__init__()
        self.features = nn.Sequential(
            nn.Linear(d_in, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(256, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
        )
        self.classifier = nn.Linear(256, n_cls)

    def forward(self, x):
        return self.classifier(self.features(x))


@torch.no_grad()
def evaluate(model, loader, crit):
    total_loss, correct, count = 0.0, 0, 0
    for xb, yb in loader:
        out = model(xb)
        total_loss += crit(out, yb).item() * len(yb)
        correct += (out.argmax(1) == yb).sum().item()
        count += len(yb)
    return total_loss / count, correct / count


data = np.load("data/spectra.npz")
train_dl = DataLoader(TensorDataset(torch.tensor(data["xtr"]), torch.tensor(data["ytr"])),
                      batch_size=BATCH, shuffle=True, drop_last=True)
val_dl = DataLoader(TensorDataset(torch.tensor(data["xva"]), torch.tensor(data["yva"])), batch_size=32)

model = Net(data["xtr"].shape[1], int(data["ytr"].max()) + 1)
opt = torch.optim.Adam(model.parameters(), lr=LR)
crit = nn.CrossEntropyLoss()
best = 0.0

for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    model.train()
    tot, n = 0.0, 0
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
        tot += loss.item() * len(yb)
        n += len(yb)
    train_loss = tot / n

    val_loss, val_acc = evaluate(model, val_dl, crit)

    if val_acc > best:
        best = val_acc
        torch.save(model.state_dict(), "best.pt")
    print(f"Epoch {epoch:02d}/{EPOCHS} - {time.time() - t0:.1f}s - loss: {train_loss:.4f} - "
          f"val_loss: {val_loss:.4f} - val_acc: {val_acc:.4f}" + (" *" if best == val_acc else ""))

print(f"best val_acc {best:.4f}")
