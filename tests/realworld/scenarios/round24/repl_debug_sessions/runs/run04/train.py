import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

EPOCHS = 3
BATCH = 64
LR = 0.01

data = np.load("data/sensors_train.npz")
X = torch.tensor(data["X"], dtype=torch.float32)
y = torch.tensor(data["y"], dtype=torch.long)
train_loader = DataLoader(TensorDataset(X, y), batch_size=BATCH, shuffle=True)

model = nn.Sequential(
    nn.Linear(X.shape[1], 64),
    nn.ReLU(),
    nn.Linear(64, 64),
    nn.ReLU(),
    nn.Linear(64, 10),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)

history = []
optimizer.zero_grad()
for epoch in range(EPOCHS):
    model.train()
    for step, (xb, yb) in enumerate(train_loader):
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        grad_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()]))
        optimizer.step()
        history.append((loss.item(), grad_norm.item()))
        if step % 2 == 0:
            print(f"epoch {epoch} step {step:3d}  loss {loss.item():.4f}  grad_norm {grad_norm.item():.3f}")
    print(f"== epoch {epoch} mean loss {np.mean([h[0] for h in history[-len(train_loader):]]):.4f}")
