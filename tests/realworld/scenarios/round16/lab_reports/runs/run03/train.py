import json
import sys

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(11)
np.random.seed(11)

LR = float(sys.argv[1]) if len(sys.argv) > 1 else 1e-3
EPOCHS = 40
BATCH = 32


def make_dataset(n, n_features=12, n_informative=5, seed=0):
    rng = np.random.RandomState(seed)
    w = np.random.RandomState(99).randn(n_informative)
    Z = rng.randn(n, n_informative)
    logits = Z @ w + 0.8 * np.sin(2 * Z[:, 0]) * Z[:, 1]
    y = (logits + 0.3 * rng.randn(n) > 0).astype(np.int64)
    mix = np.random.RandomState(98).randn(n_informative, n_features)
    X = Z @ mix * 0.5 + rng.randn(n, n_features) * 0.5
    return X.astype(np.float32), y


X, y = make_dataset(3000, seed=3)
X_train, y_train = torch.tensor(X[:2400]), torch.tensor(y[:2400])
X_val, y_val = torch.tensor(X[2400:]), torch.tensor(y[2400:])

model = nn.Sequential(
    nn.Linear(12, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 2),
)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
loss_fn = nn.CrossEntropyLoss()

log = []
for epoch in range(EPOCHS):
    model.train()
    idx = torch.randperm(len(X_train))
    losses, gnorms = [], []
    for i in range(0, len(idx), BATCH):
        b = idx[i:i + BATCH]
        out = model(X_train[b])
        loss = loss_fn(out, y_train[b])
        loss.backward()
        gn = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
        optimizer.step()
        losses.append(loss.item())
        gnorms.append(gn)

    model.eval()
    with torch.no_grad():
        out = model(X_val)
        val_loss = loss_fn(out, y_val).item()
        val_acc = (out.argmax(-1) == y_val).float().mean().item()
    entry = {
        "epoch": epoch,
        "train_loss": float(np.mean(losses)),
        "val_loss": val_loss,
        "val_acc": val_acc,
        "grad_norm": float(np.mean(gnorms)),
        "grad_norm_max": float(np.max(gnorms)),
    }
    log.append(entry)
    print(json.dumps(entry))

with open("history.json", "w") as f:
    json.dump(log, f)
