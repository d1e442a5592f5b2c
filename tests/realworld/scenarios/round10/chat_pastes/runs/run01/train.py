import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(0)
rng = np.random.default_rng(0)

N_CLASSES, DIM, N = 4, 10, 20000
X = rng.normal(size=(N, DIM))
W1 = rng.normal(size=(DIM, 16))
W2 = rng.normal(size=(16, N_CLASSES))
y = (np.tanh(X @ W1) @ W2).argmax(1)

perm = rng.permutation(N)
X, y = X[perm], y[perm]
n_val = 2000
X_tr = torch.tensor(X[n_val:], dtype=torch.float32)
y_tr = torch.tensor(y[n_val:])
X_va = torch.tensor(X[:n_val], dtype=torch.float32)
y_va = torch.tensor(y[:n_val])

train_dl = DataLoader(TensorDataset(X_tr, y_tr), batch_size=64, shuffle=True)

model = nn.Sequential(
    nn.Linear(DIM, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, N_CLASSES),
)
EPOCHS = 25
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS)
loss_fn = nn.CrossEntropyLoss()

for epoch in range(1, EPOCHS + 1):
    model.train()
    total, count = 0.0, 0
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
        count += len(xb)
    sched.step()
    model.eval()
    with torch.no_grad():
        out = model(X_va)
        val_loss = loss_fn(out, y_va).item()
        val_acc = (out.argmax(1) == y_va).float().mean().item()
    print(f"Epoch {epoch:02d}/{EPOCHS}  train_loss={total / count:.4f}  val_loss={val_loss:.4f}  val_acc={val_acc:.3f}")

torch.save(model.state_dict(), "model.pt")
