import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(7)
np.random.seed(7)

# данные: 5 классов, 20 признаков
def sgenerirovat(n=3000, d=20, k=5):
    rng = np.random.default_rng(7)
    centry = rng.normal(0, 1.5, size=(k, 8))
    y = rng.integers(0, k, size=n)
    X_inf = centry[y] + rng.normal(0, 1.0, size=(n, 8))
    X_shum = rng.normal(0, 1.0, size=(n, d - 8))
    X = np.hstack([X_inf, X_shum]).astype(np.float32)
    return X, y.astype(np.int64)

X, y = sgenerirovat()
X = (X - X.mean(0)) / X.std(0)
n_train = 2400
train_ds = TensorDataset(torch.from_numpy(X[:n_train]), torch.from_numpy(y[:n_train]))
val_ds = TensorDataset(torch.from_numpy(X[n_train:]), torch.from_numpy(y[n_train:]))
train_dl = DataLoader(train_ds, batch_size=64, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=256)

model = nn.Sequential(
    nn.Linear(20, 128), nn.Tanh(),
    nn.Linear(128, 128), nn.Tanh(),
    nn.Linear(128, 5),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1.0, momentum=0.9)

EPOCHS = 30
log = open("log.txt", "w", encoding="utf-8")
log.write("epoch,step,loss,grad_norm\n")
step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    total, correct, summa = 0, 0, 0.0
    for xb, yb in train_dl:
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        gn = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
        optimizer.step()
        step += 1
        log.write(f"{epoch},{step},{loss.item():.4f},{gn:.4f}\n")
        summa += loss.item() * len(yb)
        correct += (out.argmax(1) == yb).sum().item()
        total += len(yb)
    model.eval()
    vl, vc, vt = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in val_dl:
            out = model(xb)
            vl += criterion(out, yb).item() * len(yb)
            vc += (out.argmax(1) == yb).sum().item()
            vt += len(yb)
    print(f"Эпоха {epoch}/{EPOCHS} потеря: {summa/total:.4f} точность: {correct/total:.4f} | вал. потеря: {vl/vt:.4f} вал. точность: {vc/vt:.4f}", flush=True)
log.close()
