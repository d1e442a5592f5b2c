import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(4)
rng = np.random.RandomState(4)


def load_data(n=2400, d=24, k=4):
    centers = rng.randn(k, 10) * 0.8
    y = rng.randint(0, k, n)
    X = rng.randn(n, d)
    X[:, :10] += centers[y]
    flip = rng.rand(n) < 0.15
    y[flip] = rng.randint(0, k, flip.sum())
    return X.astype(np.float32), y.astype(np.int64)


X, y = load_data()
X = (X - X.mean(0)) / X.std(0)

# hold out a test set for the final number
X_test, y_test = torch.tensor(X[2000:]), torch.tensor(y[2000:])
X, y = X[:2000], y[:2000]

idx = rng.permutation(len(X))
n_val = 400
train_idx = idx
val_idx = idx[:n_val]

X_train, y_train = torch.tensor(X[train_idx]), torch.tensor(y[train_idx])
X_val, y_val = torch.tensor(X[val_idx]), torch.tensor(y[val_idx])

model = nn.Sequential(
    nn.Linear(24, 256), nn.ReLU(),
    nn.Linear(256, 256), nn.ReLU(),
    nn.Linear(256, 4),
)
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
loss_fn = nn.CrossEntropyLoss()


def accuracy(X, y):
    model.eval()
    with torch.no_grad():
        return (model(X).argmax(1) == y).float().mean().item()


history = []
for epoch in range(1, 31):
    model.train()
    perm = torch.randperm(len(X_train))
    running = 0.0
    for i in range(0, len(X_train), 64):
        b = perm[i:i + 64]
        optimizer.zero_grad()
        loss = loss_fn(model(X_train[b]), y_train[b])
        loss.backward()
        optimizer.step()
        running += loss.item() * len(b)
    train_loss = running / len(X_train)
    val_acc = accuracy(X_val, y_val)
    history.append((epoch, train_loss, val_acc))
    print(f"Epoch {epoch:02d} | train loss {train_loss:.4f} | val acc {val_acc*100:.1f}%")

test_acc = accuracy(X_test, y_test)
print(f"Test accuracy: {test_acc*100:.1f}%")
