import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(6)


def moons(n, noise=0.15, seed=0):
    g = np.random.RandomState(seed)
    n1 = n // 2
    t1 = np.pi * g.rand(n1)
    t2 = np.pi * g.rand(n - n1)
    a = np.stack([np.cos(t1), np.sin(t1)], 1)
    b = np.stack([1 - np.cos(t2), 0.5 - np.sin(t2)], 1)
    X = np.concatenate([a, b]) + noise * g.randn(n, 2)
    y = np.concatenate([np.zeros(n1), np.ones(n - n1)])
    return X.astype(np.float32), y.astype(np.int64)


X, y = moons(2000, seed=6)
p = np.random.RandomState(0).permutation(len(X))
X, y = X[p], y[p]
X_train, y_train = torch.tensor(X[:1600]), torch.tensor(y[:1600])
X_val, y_val = torch.tensor(X[1600:]), torch.tensor(y[1600:])

model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.03)
criterion = nn.CrossEntropyLoss()

history = []
step = 0
for epoch in range(10):
    perm = torch.randperm(len(X_train))
    for i in range(0, len(X_train), 32):
        idx = perm[i:i + 32]
        logits = model(X_train[idx])
        loss = criterion(logits, y_train[idx])
        loss.backward()
        gnorm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
        optimizer.step()
        step += 1
        if step % 10 == 0:
            history.append((step, loss.item(), gnorm))
            print(f"step {step}  loss {loss.item():.4f}  grad_norm {gnorm:.2f}")
    with torch.no_grad():
        acc = (model(X_val).argmax(1) == y_val).float().mean().item()
    print(f"epoch {epoch + 1} val_acc {acc:.3f}")
