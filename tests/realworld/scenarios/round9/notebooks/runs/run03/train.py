import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split

torch.manual_seed(3)
torch.set_num_threads(1)


X, y = make_moons(n_samples=3000, noise=0.25, random_state=3)
X_tr, X_val, y_tr, y_val = train_test_split(X, y, test_size=0.2, random_state=3)
train_ds = TensorDataset(torch.tensor(X_tr, dtype=torch.float32), torch.tensor(y_tr, dtype=torch.float32))
val_ds = TensorDataset(torch.tensor(X_val, dtype=torch.float32), torch.tensor(y_val, dtype=torch.float32))
train_loader = DataLoader(train_ds, batch_size=128, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=256)


def evaluate(model, loader, loss_fn):
    model.eval()
    losses, accs = [], []
    with torch.no_grad():
        for xb, yb in loader:
            logits = model(xb)
            losses.append(loss_fn(logits, yb.unsqueeze(1)).item())
            preds = (logits > 0).float()
            accs.append((preds == yb).float().mean().item())
    return float(np.mean(losses)), float(np.mean(accs))


model = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
loss_fn = nn.BCEWithLogitsLoss()
opt = torch.optim.Adam(model.parameters(), lr=5e-3)

for epoch in range(1, 31):
    model.train()
    tl = []
    for xb, yb in train_loader:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb.unsqueeze(1))
        loss.backward()
        opt.step()
        tl.append(loss.item())
    vl, va = evaluate(model, val_loader, loss_fn)
    print(f"[{epoch:02d}] train_loss {np.mean(tl):.4f} | val_loss {vl:.4f} | val_acc {va:.3f}")
