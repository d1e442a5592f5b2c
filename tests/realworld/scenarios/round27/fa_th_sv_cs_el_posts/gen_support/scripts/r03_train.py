import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
d = np.loadtxt("data/train.csv", delimiter=",", skiprows=1)
X = torch.tensor(d[:, :-1], dtype=torch.float32)
y = torch.tensor(d[:, -1], dtype=torch.long)
NUM_CLASSES = 10
print(f"Loaded {len(X)} rows, {X.shape[1]} features, num_classes={NUM_CLASSES}")

dl = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)
model = nn.Sequential(nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))
criterion = nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(20):
    for step, (xb, yb) in enumerate(dl):
        logits = model(xb)
        loss = criterion(logits, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
