import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(12)
rng = np.random.default_rng(12)


def make_moons(n, noise=0.15):
    n1 = n // 2
    a = np.linspace(0, np.pi, n1)
    b = np.linspace(0, np.pi, n - n1)
    upper = np.stack([np.cos(a), np.sin(a)], 1)
    lower = np.stack([1 - np.cos(b), 0.5 - np.sin(b)], 1)
    X = np.concatenate([upper, lower]) + rng.normal(0, noise, size=(n, 2))
    y = np.concatenate([np.zeros(n1), np.ones(n - n1)])
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y, dtype=torch.long)


X, y = make_moons(2000)
perm = torch.randperm(len(X))
X, y = X[perm], y[perm]
Xtr, ytr, Xte, yte = X[:1600], y[:1600], X[1600:], y[1600:]

model = nn.Sequential(
    nn.Linear(2, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 2),
)
LR = 1.0
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
criterion = nn.CrossEntropyLoss()

for epoch in range(1, 31):
    model.train()
    losses, norms = [], []
    order = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), 50):
        idx = order[i:i + 50]
        optimizer.zero_grad()
        loss = criterion(model(Xtr[idx]), ytr[idx])
        loss.backward()
        norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9).item())
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        acc = (model(Xte).argmax(1) == yte).float().mean().item()
    print(f"epoch {epoch:2d} | loss {np.mean(losses):.4f} | max grad_norm {max(norms):.2f} | lr {LR} | test acc {acc:.3f}")
