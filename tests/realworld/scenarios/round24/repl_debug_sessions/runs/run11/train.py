import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

cfg = dict(epochs=4, batch_size=64, lr=1e-3, clip=1.0)

raw = np.load("data/churn_features.npz")
X = torch.from_numpy(raw["X"])
y = torch.from_numpy(raw["y"])
loader = DataLoader(TensorDataset(X, y), batch_size=cfg["batch_size"], shuffle=True)

model = nn.Sequential(
    nn.Linear(X.shape[1], 128), nn.ReLU(),
    nn.Linear(128, 64), nn.ReLU(),
    nn.Linear(64, 2),
)
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
loss_fn = nn.CrossEntropyLoss()

print(f"{len(X)} samples, {len(loader)} batches/epoch")
for epoch in range(cfg["epochs"]):
    total, n = 0.0, 0
    for i, (xb, yb) in enumerate(loader):
        # standardize features with the batch statistics
        xb = (xb - xb.mean(0)) / xb.std(0)
        out = model(xb)
        loss = loss_fn(out, yb)
        opt.zero_grad()
        loss.backward()
        gn = nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
        opt.step()
        total += loss.item() * len(xb)
        n += len(xb)
        if i % 8 == 0:
            print(f"ep {epoch} it {i:3d} loss {loss.item():.4f} gnorm {gn.item():.3f}")
    print(f"epoch {epoch}: train_loss {total / n:.4f}")
