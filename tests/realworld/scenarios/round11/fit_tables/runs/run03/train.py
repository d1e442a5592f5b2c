import time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(0)
rng = np.random.default_rng(0)

# 4 gaussian clusters in 20-d, 8 informative dims
n, d, k = 4000, 20, 4
centers = rng.normal(0, 1.6, size=(k, 8))
y = rng.integers(0, k, size=n)
X = rng.normal(0, 1, size=(n, d))
X[:, :8] += centers[y]
X = (X - X.mean(0)) / X.std(0)

idx = rng.permutation(n)
tr, va = idx[:3200], idx[3200:]
train_ds = TensorDataset(torch.tensor(X[tr], dtype=torch.float32), torch.tensor(y[tr]))
valid_ds = TensorDataset(torch.tensor(X[va], dtype=torch.float32), torch.tensor(y[va]))
train_dl = DataLoader(train_ds, batch_size=64, shuffle=True)
valid_dl = DataLoader(valid_ds, batch_size=256)

model = nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, k))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()

names = ["epoch", "train_loss", "valid_loss", "accuracy", "time"]
names = [s + " " * (8 - len(s)) if len(s) < 8 else s for s in names]
print("  ".join(names))

smooth, n_seen, beta = 0.0, 0, 0.98
for epoch in range(12):
    t0 = time.time()
    model.train()
    for xb, yb in train_dl:
        loss = loss_fn(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        n_seen += 1
        smooth = beta * smooth + (1 - beta) * loss.item()
    train_loss = smooth / (1 - beta ** n_seen)

    model.eval()
    tot, correct, count = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in valid_dl:
            out = model(xb)
            tot += loss_fn(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            count += len(yb)
    el = int(time.time() - t0)
    vals = [str(epoch), f"{train_loss:.6f}", f"{tot / count:.6f}", f"{correct / count:.6f}", f"{el // 60:02d}:{el % 60:02d}"]
    print("".join(v + " " * (2 + len(nm) - len(v)) for v, nm in zip(vals, names)), flush=True)
