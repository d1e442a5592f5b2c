import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

data = np.load("hw3_digits.npz")
X = torch.tensor(data["X"], dtype=torch.float32)
y = torch.tensor(data["y"].ravel(), dtype=torch.long)
print("X:", tuple(X.shape), "y:", tuple(y.shape))

loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)

model = nn.Sequential(nn.Linear(64, 100), nn.Sigmoid(), nn.Linear(100, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
criterion = nn.CrossEntropyLoss()

for epoch in range(20):
    for xb, yb in loader:
        out = model(xb)
        print("out:", tuple(out.shape))
        loss = criterion(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, loss.item())
