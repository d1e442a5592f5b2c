import time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(8)
rng = np.random.default_rng(8)

D = 30
proj = rng.normal(0, 1, (6, D))


def make_task(n, n_classes, spread):
    z_centers = rng.normal(0, spread, (n_classes, 6))
    y = rng.integers(0, n_classes, n)
    z = z_centers[y] + rng.normal(0, 1, (n, 6))
    X = z @ proj + rng.normal(0, 0.5, (n, D))
    return X.astype(np.float32), y


def loaders(X, y, n_val):
    tr = DataLoader(TensorDataset(torch.tensor(X[n_val:]), torch.tensor(y[n_val:])), batch_size=64, shuffle=True)
    va = DataLoader(TensorDataset(torch.tensor(X[:n_val]), torch.tensor(y[:n_val])), batch_size=256)
    return tr, va


class Net(nn.Module):
    def __init__(self, n_out):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU())
        self.head = nn.Linear(64, n_out)

    def forward(self, x):
        return self.head(self.body(x))


def fit(model, optimizer, train_dl, valid_dl, epochs):
    crit = nn.CrossEntropyLoss()
    cols = ["epoch", "train_loss", "valid_acc", "valid_loss", "dur"]
    w = [max(len(c) + 2, 6) for c in cols]
    print("  ".join(c.rjust(k) for c, k in zip(cols, w)))
    print("  ".join("-" * k for k in w))
    for ep in range(1, epochs + 1):
        t0 = time.time()
        model.train()
        tot, cnt = 0.0, 0
        for xb, yb in train_dl:
            optimizer.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            optimizer.step()
            tot += loss.item() * len(yb)
            cnt += len(yb)
        model.eval()
        vl, vc, vn = 0.0, 0, 0
        with torch.no_grad():
            for xb, yb in valid_dl:
                out = model(xb)
                vl += crit(out, yb).item() * len(yb)
                vc += (out.argmax(1) == yb).sum().item()
                vn += len(yb)
        row = [f"{ep}", f"{tot / cnt:.4f}", f"{vc / vn:.4f}", f"{vl / vn:.4f}", f"{time.time() - t0:.4f}"]
        print("  ".join(r.rjust(k) for r, k in zip(row, w)), flush=True)


# stage 1: pretrain on the big source task
Xs, ys = make_task(8000, 10, 2.0)
src_train, src_valid = loaders(Xs, ys, 1000)
model = Net(10)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
print("Pretraining on source task (10 classes)")
fit(model, optimizer, src_train, src_valid, epochs=6)

# stage 2: fine-tune a new head on the small target task
Xt, yt = make_task(1200, 3, 1.5)
tgt_train, tgt_valid = loaders(Xt, yt, 300)
for p in model.body.parameters():
    p.requires_grad = False
model.head = nn.Linear(64, 3)
print()
print("Fine-tuning on target task (3 classes)")
fit(model, optimizer, tgt_train, tgt_valid, epochs=20)
