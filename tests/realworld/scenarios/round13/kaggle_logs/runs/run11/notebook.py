# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %%
import numpy as np, torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader
torch.set_num_threads(1); torch.manual_seed(2)
d = np.load('/kaggle/input/glyphs16/glyphs.npz')
X = torch.tensor(d['images'][:, None] / 255.0, dtype=torch.float32); y = torch.tensor(d['labels'])
X = (X - 0.35) / 0.3
tr = DataLoader(TensorDataset(X[:2500], y[:2500]), batch_size=64, shuffle=True)
Xva, yva = X[2500:], y[2500:]

# %%
model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Dropout(0.25), nn.Linear(512, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=12)
for epoch in range(12):
    model.train(); tl = tc = 0
    for xb, yb in tr:
        opt.zero_grad(); o = model(xb); l = F.cross_entropy(o, yb); l.backward(); opt.step()
        tl += l.item() * len(yb); tc += (o.argmax(1) == yb).sum().item()
    sched.step(); model.eval()
    with torch.no_grad():
        vo = model(Xva)
    print(f"Epoch {epoch+1}/12 | lr {sched.get_last_lr()[0]:.2e} | train loss {tl/2500:.4f} acc {tc/2500:.4f} | valid loss {F.cross_entropy(vo, yva):.4f} acc {(vo.argmax(1)==yva).float().mean():.4f}")
