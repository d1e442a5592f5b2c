import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(2)
rng = np.random.default_rng(2)

# 8x8 "glyphs": one random template per class plus pixel noise and small shifts
templates = (rng.random((10, 8, 8)) > 0.55).astype(np.float32)
def make(n):
    y = rng.integers(0, 10, n)
    x = templates[y].copy()
    for i in range(n):
        x[i] = np.roll(x[i], rng.integers(-1, 2), axis=int(rng.integers(0, 2)))
    x += rng.normal(0, 0.35, x.shape)
    return torch.tensor(x.reshape(n, 64), dtype=torch.float32), torch.tensor(y)

Xtr, ytr = make(3000)
Xte, yte = make(600)
train_loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=32, shuffle=True)

net = nn.Sequential(
    nn.Linear(64, 128),
    nn.ReLU(),
    nn.Linear(128, 10),
    nn.Softmax(dim=1),
)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

for epoch in range(25):
    net.train()
    running = 0.0
    for xb, yb in train_loader:
        optimizer.zero_grad()
        out = net(xb)
        loss = loss_fn(out, yb)
        loss.backward()
        optimizer.step()
        running += loss.item()
    net.eval()
    with torch.no_grad():
        test_acc = (net(Xte).argmax(dim=1) == yte).float().mean().item()
    print(f"Epoch [{epoch+1}/25] train_loss: {running/len(train_loader):.4f} test_acc: {test_acc*100:.2f}%")
