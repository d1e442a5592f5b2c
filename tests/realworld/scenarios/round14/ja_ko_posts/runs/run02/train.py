import math
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(0)
np.random.seed(0)


def make_moons(n, noise=0.2):
    n1 = n // 2
    n2 = n - n1
    t1 = np.linspace(0, math.pi, n1)
    t2 = np.linspace(0, math.pi, n2)
    x1 = np.stack([np.cos(t1), np.sin(t1)], 1)
    x2 = np.stack([1 - np.cos(t2), 0.5 - np.sin(t2)], 1)
    X = np.concatenate([x1, x2]) + noise * np.random.randn(n, 2)
    y = np.concatenate([np.zeros(n1), np.ones(n2)])
    return X.astype(np.float32), y.astype(np.int64)


X, y = make_moons(2000)
perm = np.random.permutation(len(X))
X, y = X[perm], y[perm]
X_train, y_train = torch.tensor(X[:1600]), torch.tensor(y[:1600])
X_test, y_test = torch.tensor(X[1600:]), torch.tensor(y[1600:])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 32)
        self.fc2 = nn.Linear(32, 32)
        self.fc3 = nn.Linear(32, 2)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        return self.fc3(x)


model = Net()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

batch_size = 32
steps_per_epoch = len(X_train) // batch_size
epochs = 8
step = 0
for epoch in range(epochs):
    idx = torch.randperm(len(X_train))
    for i in range(steps_per_epoch):
        b = idx[i * batch_size:(i + 1) * batch_size]
        xb, yb = X_train[b], y_train[b]
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        grad_norm = math.sqrt(sum(p.grad.pow(2).sum().item() for p in model.parameters()))
        optimizer.step()
        step += 1
        if step % 25 == 0:
            with torch.no_grad():
                acc = (model(X_test).argmax(1) == y_test).float().mean().item()
            print(f"step {step:4d} | epoch {epoch + 1}/{epochs} | 損失: {loss.item():.4f} | 勾配ノルム: {grad_norm:.2f} | テスト正解率: {acc:.3f}")
