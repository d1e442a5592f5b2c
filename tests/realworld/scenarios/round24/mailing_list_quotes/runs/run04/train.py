import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(1)

data = np.load("data/spectra_features.npz")
X, y = data["X"], data["y"]
print("loaded", X.shape, y.shape, "classes:", np.bincount(y))

# shuffle once, then split 85/15
rng = np.random.default_rng(42)
X = X[rng.permutation(len(X))]
y = y[rng.permutation(len(y))]

n_val = int(0.15 * len(X))
X_train, y_train = torch.tensor(X[n_val:]), torch.tensor(y[n_val:])
X_val, y_val = torch.tensor(X[:n_val]), torch.tensor(y[:n_val])

mean, std = X_train.mean(0), X_train.std(0)
X_train = (X_train - mean) / std
X_val = (X_val - mean) / std

n_classes = int(y.max()) + 1
model = nn.Sequential(
    nn.Linear(X.shape[1], 64),
    nn.ReLU(),
    nn.Linear(64, 64),
    nn.ReLU(),
    nn.Linear(64, n_classes),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
loss_fn = nn.CrossEntropyLoss()

batch_size = 256
for epoch in range(1, 13):
    model.train()
    perm = torch.randperm(len(X_train))
    tot_loss, tot_correct, gnorms = 0.0, 0, []
    for i in range(0, len(X_train), batch_size):
        idx = perm[i:i + batch_size]
        xb, yb = X_train[idx], y_train[idx]
        opt.zero_grad()
        logits = model(xb)
        loss = loss_fn(logits, yb)
        loss.backward()
        gnorms.append(torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item())
        opt.step()
        tot_loss += loss.item() * len(idx)
        tot_correct += (logits.argmax(1) == yb).sum().item()
    model.eval()
    with torch.no_grad():
        vlogits = model(X_val)
        vloss = loss_fn(vlogits, y_val).item()
        vacc = (vlogits.argmax(1) == y_val).float().mean().item()
    print(f"epoch {epoch:2d} | train loss {tot_loss / len(X_train):.4f} acc {tot_correct / len(X_train):.3f}"
          f" | val loss {vloss:.4f} acc {vacc:.3f} | grad norm {np.mean(gnorms):.3f}")
