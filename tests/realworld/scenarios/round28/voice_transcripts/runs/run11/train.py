import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(11)
rng = np.random.default_rng(11)

data = np.load("data/wells_features.npz")
X, y = data["x"].astype(np.float32), data["y"].astype(np.int64)
idx = rng.permutation(len(X))
n_val = len(X) // 5
val_idx, train_idx = idx[:n_val], idx[n_val:]

mean, std = X[train_idx].mean(0), X[train_idx].std(0)
X = (X - mean) / std

train_loader = DataLoader(TensorDataset(torch.from_numpy(X[train_idx]), torch.from_numpy(y[train_idx])),
                          batch_size=128, shuffle=True)
val_x, val_y = torch.from_numpy(X[val_idx]), torch.from_numpy(y[val_idx])

model = nn.Sequential(
    nn.Linear(20, 128), nn.ReLU(), nn.Dropout(0.5),
    nn.Linear(128, 128), nn.ReLU(), nn.Dropout(0.5),
    nn.Linear(128, 6),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)

for epoch in range(1, 16):
    model.train()
    tl = tc = n = 0
    for xb, yb in train_loader:
        out = model(xb)
        loss = criterion(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tl += loss.item() * len(yb)
        tc += (out.argmax(1) == yb).sum().item()
        n += len(yb)
    model.eval()
    with torch.no_grad():
        out = model(val_x)
        vl = criterion(out, val_y).item()
        va = (out.argmax(1) == val_y).float().mean().item()
    print(f"{epoch:02d}  train_loss={tl / n:.4f} train_acc={tc / n:.4f}  val_loss={vl:.4f} val_acc={va:.4f}")
