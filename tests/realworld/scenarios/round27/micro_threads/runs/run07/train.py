import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from wine_data import load_wine_quality

torch.manual_seed(7)
LR = 3e-3

X, y = load_wine_quality()  # red+white, 11 physico-chemical features, quality binned to 3 classes
n_tr = int(0.85 * len(X))
Xtr, ytr, Xva, yva = X[:n_tr], y[:n_tr], X[n_tr:], y[n_tr:]
print(f"train={len(Xtr)} val={len(Xva)}")

dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True)


def standardize(xb):
    # ranges are all over the place (total SO2 ~100s, density ~1.0)
    return (xb - xb.mean(0, keepdim=True)) / (xb.std(0, keepdim=True) + 1e-6)


model = nn.Sequential(nn.Linear(11, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
opt = torch.optim.Adam(model.parameters(), lr=LR)
crit = nn.CrossEntropyLoss()

step = 0
for epoch in range(1, 4):
    model.train()
    for xb, yb in dl:
        xb = standardize(xb)
        loss = crit(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 10 == 0 or torch.isnan(loss):
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        out = model(standardize(Xva))
        va = crit(out, yva).item()
        acc = (out.argmax(1) == yva).float().mean().item()
    print(f"--- epoch {epoch} val_loss {va:.4f} val_acc {acc:.3f}")
