import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(10)
rng = np.random.default_rng(10)

def bars(n, size=12):
    """4 classes: horizontal, vertical, diagonal, anti-diagonal bar, random position, noisy."""
    X = rng.normal(0, 0.3, (n, 1, size, size)).astype(np.float32)
    y = rng.integers(0, 4, n)
    for i in range(n):
        k = rng.integers(2, size - 2)
        if y[i] == 0: X[i, 0, k, :] += 1
        elif y[i] == 1: X[i, 0, :, k] += 1
        elif y[i] == 2: X[i, 0] += np.eye(size, k=k - size // 2)
        else: X[i, 0] += np.fliplr(np.eye(size, k=k - size // 2))
    return torch.from_numpy(X), torch.from_numpy(y)

Xtr, ytr = bars(3000)
Xva, yva = bars(600)
mean, std = Xtr.mean(), Xtr.std()
Xtr, Xva = (Xtr - mean) / std, (Xva - mean) / std
train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True)

class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 3 * 3, 4)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))

model = SmallCNN()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(12):
    model.train()
    tl = 0.0
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        tl += loss.item() * len(yb)
    model.eval()
    with torch.no_grad():
        vlogits = model(Xva)
        vloss = F.cross_entropy(vlogits, yva).item()
        vacc = (vlogits.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch+1:2d} train_loss {tl/len(Xtr):.4f} val_loss {vloss:.4f} val_acc {vacc:.4f}")
