import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from model import TabNet

torch.manual_seed(0)
tr = np.load("data/train.npz")
va = np.load("data/val.npz")
train_loader = DataLoader(TensorDataset(torch.from_numpy(tr["x"]), torch.from_numpy(tr["y"])),
                          batch_size=64, shuffle=True)
val_loader = DataLoader(TensorDataset(torch.from_numpy(va["x"]), torch.from_numpy(va["y"])),
                        batch_size=64)

model = TabNet(tr["x"].shape[1], int(tr["y"].max()) + 1)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
crit = nn.CrossEntropyLoss()

best = 0.0
for epoch in range(1, 9):
    model.train()
    tl, n = 0.0, 0
    for xb, yb in train_loader:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
        tl += loss.item() * len(yb)
        n += len(yb)
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for xb, yb in val_loader:
            correct += (model(xb).argmax(1) == yb).sum().item()
            total += len(yb)
    acc = correct / total
    msg = f"epoch {epoch:02d} train_loss={tl / n:.4f} val_acc={acc:.4f}"
    if acc > best:
        best = acc
        torch.save(model.state_dict(), "checkpoints/best.pt")
        msg += "  -> saved checkpoints/best.pt"
    print(msg)
print(f"best val_acc {best:.4f}")
