import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(42)

data = np.load("data/senzory_train.npz")
X = torch.tensor(data["X"], dtype=torch.float32)
y = torch.tensor(data["y"], dtype=torch.long)
print(f"nacteno {len(X)} vzorku, {X.shape[1]} priznaku, {int(y.max()) + 1} trid")

loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)

model = nn.Sequential(
    nn.Linear(X.shape[1], 128), nn.ReLU(),
    nn.Linear(128, 64), nn.ReLU(),
    nn.Linear(64, int(y.max()) + 1),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(1, 6):
    total, n_ok, n = 0.0, 0, 0
    for i, (xb, yb) in enumerate(loader):
        # normalizace kazde davky (senzory maji ruzne rozsahy)
        xb = (xb - xb.mean(dim=0)) / (xb.std(dim=0) + 1e-6)

        out = model(xb)
        loss = criterion(out, yb)

        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()

        total += loss.item() * len(xb)
        n_ok += (out.argmax(1) == yb).sum().item()
        n += len(xb)
        if i % 5 == 0:
            print(f"epoch {epoch} batch {i:3d}/{len(loader)} loss {loss.item():.4f}")
    print(f"--- epoch {epoch}: train loss {total / n:.4f}, acc {n_ok / n:.3f}")
