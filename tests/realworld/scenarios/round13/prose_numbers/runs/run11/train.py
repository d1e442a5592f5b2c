import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(11)


def make_images(n, seed):
    g = np.random.RandomState(seed)
    protos = np.random.RandomState(111).rand(10, 1, 12, 12) > 0.6
    y = g.randint(0, 10, n)
    X = protos[y].astype(np.float32) + 0.6 * g.randn(n, 1, 12, 12).astype(np.float32)
    return X, y.astype(np.int64)


X, y = make_images(3000, 11)
X = (X - X.mean()) / X.std()
X, y = torch.tensor(X), torch.tensor(y)
X_train, y_train = X[:2500], y[:2500]
X_val, y_val = X[2500:], y[2500:]


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.drop = nn.Dropout(0.25)
        self.fc = nn.Linear(32 * 3 * 3, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(self.drop(x.flatten(1)))


model = SmallCNN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=15)

history = []
for epoch in range(15):
    model.train()
    perm = torch.randperm(len(X_train))
    total = 0.0
    for i in range(0, len(X_train), 64):
        b = perm[i:i + 64]
        optimizer.zero_grad()
        loss = F.cross_entropy(model(X_train[b]), y_train[b])
        loss.backward()
        optimizer.step()
        total += loss.item() * len(b)
    scheduler.step()
    model.eval()
    with torch.no_grad():
        out = model(X_val)
        val_loss = F.cross_entropy(out, y_val).item()
        val_acc = (out.argmax(1) == y_val).float().mean().item()
    history.append((epoch + 1, total / len(X_train), val_loss, val_acc))
    print(f"[{epoch + 1}/15] train_loss={total / len(X_train):.4f} val_loss={val_loss:.4f} val_acc={val_acc:.4f}")
