import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
BS, EPOCHS, LR = 128, 3, 1e-3

d = np.load("data/turbine_windows.npz")        # 24 aggregate features per 10-min window, 5 health states
Xtr, ytr = torch.from_numpy(d["X_train"]).float(), torch.from_numpy(d["y_train"]).long()
Xva, yva = torch.from_numpy(d["X_val"]).float(), torch.from_numpy(d["y_val"]).long()
print(f"train {tuple(Xtr.shape)} val {tuple(Xva.shape)}")
assert not torch.isnan(Xtr).any() and not torch.isnan(Xva).any()

train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=BS, shuffle=True)

model = nn.Sequential(nn.Linear(24, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 5))
opt = torch.optim.Adam(model.parameters(), lr=LR)


def standardize(x):
    # sensors have wildly different units; normalise each feature over the batch
    return (x - x.mean(0, keepdim=True)) / (x.std(0, keepdim=True) + 1e-6)


for epoch in range(1, EPOCHS + 1):
    model.train()
    tot, n = 0.0, 0
    for step, (xb, yb) in enumerate(train_dl, 1):
        xb = standardize(xb)
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item(); n += 1
        if step % 20 == 0:
            print(f"epoch {epoch} step {step}/{len(train_dl)} loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        out = model(standardize(Xva))
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch} train_loss {tot / n:.4f} val_loss {vl:.4f} val_acc {va:.4f}")
