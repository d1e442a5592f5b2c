import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
torch.manual_seed(5)
rng = np.random.default_rng(5)
N, D, K = 2000, 12, 6
centers = rng.normal(0, 2.2, (K, D))
y = rng.integers(0, K, N)
X = centers[y] + rng.normal(0, 1.0, (N, D))
# annotations
flip = rng.random(N) < 0.4
y[flip] = rng.integers(0, K, flip.sum())
X = torch.tensor(X, dtype=torch.float32); y = torch.tensor(y)
Xtr, ytr, Xva, yva = X[:1600], y[:1600], X[1600:], y[1600:]

writer = SummaryWriter("lightning_logs/version_3")
model = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, K))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
step = 0
for epoch in range(100):
    model.train(); tl = tc = 0
    perm = torch.randperm(1600)
    for i in range(0, 1600, 100):
        idx = perm[i:i + 100]
        out = model(Xtr[idx]); loss = crit(out, ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(idx); tc += (out.argmax(1) == ytr[idx]).sum().item(); step += 1
    model.eval()
    with torch.no_grad():
        out = model(Xva)
    writer.add_scalar("train_loss", tl / 1600, step)
    writer.add_scalar("train_acc", tc / 1600, step)
    writer.add_scalar("val_loss", crit(out, yva).item(), step)
    writer.add_scalar("val_acc", (out.argmax(1) == yva).float().mean().item(), step)
    writer.add_scalar("epoch", epoch, step)
writer.close()
