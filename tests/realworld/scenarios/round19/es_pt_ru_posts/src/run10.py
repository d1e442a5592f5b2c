import csv
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(2024)
rng = np.random.default_rng(2024)

# небольшой табличный датасет: 500 объектов, 40 признаков, 2 класса
n, d = 500, 40
w = np.zeros(d)
w[:6] = rng.normal(0, 1.0, 6)
X = rng.normal(0, 1, size=(n, d))
p = 1 / (1 + np.exp(-(X @ w)))
y = (rng.random(n) < p).astype(np.int64)
X = X.astype(np.float32)

X_train, y_train = torch.tensor(X[:350]), torch.tensor(y[:350])
X_val, y_val = torch.tensor(X[350:]), torch.tensor(y[350:])

model = nn.Sequential(
    nn.Linear(d, 512), nn.ReLU(),
    nn.Linear(512, 512), nn.ReLU(),
    nn.Linear(512, 256), nn.ReLU(),
    nn.Linear(256, 2),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)

EPOCHS = 150
BS = 32
history = []
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(len(X_train))
    tot, corr = 0.0, 0
    for i in range(0, len(perm), BS):
        idx = perm[i:i + BS]
        optimizer.zero_grad()
        out = model(X_train[idx])
        loss = criterion(out, y_train[idx])
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(idx)
        corr += (out.argmax(1) == y_train[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        out_v = model(X_val)
        val_loss = criterion(out_v, y_val).item()
        val_acc = (out_v.argmax(1) == y_val).float().mean().item()
    row = dict(epoch=epoch, loss=tot / len(X_train), accuracy=corr / len(X_train), val_loss=val_loss, val_accuracy=val_acc)
    history.append(row)
    if epoch == 1 or epoch % 5 == 0:
        print(f"Epoch {epoch}/{EPOCHS} - loss: {row['loss']:.4f} - accuracy: {row['accuracy']:.4f} "
              f"- val_loss: {val_loss:.4f} - val_accuracy: {val_acc:.4f}", flush=True)

with open("history.csv", "w", newline="") as f:
    wr = csv.DictWriter(f, fieldnames=list(history[0].keys()))
    wr.writeheader()
    for r in history:
        wr.writerow({k: (round(v, 5) if isinstance(v, float) else v) for k, v in r.items()})
print("история сохранена в history.csv")
