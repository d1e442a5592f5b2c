import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(8)
g = np.random.RandomState(8)

# 3-class toy problem, 16 features
k, d, n = 3, 16, 3000
centers = g.randn(k, d) * 0.7
y = g.randint(0, k, n)
X = (g.randn(n, d) + centers[y]).astype(np.float32)
y = y.astype(np.int64)
X_train, y_train = torch.tensor(X[:2400]), torch.tensor(y[:2400])
X_val, y_val = torch.tensor(X[2400:]), torch.tensor(y[2400:])


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.6),
            nn.Linear(128, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.6),
            nn.Linear(128, k),
        )

    def forward(self, x):
        return self.net(x)


model = Classifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()


def evaluate(model, X, y, bs=2):
    correct = 0
    with torch.no_grad():
        for i in range(0, len(X), bs):
            out = model(X[i:i + bs])
            correct += (out.argmax(1) == y[i:i + bs]).sum().item()
    return correct / len(X)


history = []
for epoch in range(20):
    model.train()
    perm = torch.randperm(len(X_train))
    total = 0.0
    for i in range(0, len(X_train), 64):
        b = perm[i:i + 64]
        optimizer.zero_grad()
        loss = criterion(model(X_train[b]), y_train[b])
        loss.backward()
        optimizer.step()
        total += loss.item() * len(b)
    val_acc = evaluate(model, X_val, y_val)
    history.append((epoch + 1, total / len(X_train), val_acc))
    print(f"epoch {epoch + 1:2d}  train_loss {total / len(X_train):.4f}  val_acc {val_acc:.3f}")

# sanity check: evaluate the final model a few more times
final_accs = [evaluate(model, X_val, y_val) for _ in range(3)]
print("final val acc:", final_accs)
