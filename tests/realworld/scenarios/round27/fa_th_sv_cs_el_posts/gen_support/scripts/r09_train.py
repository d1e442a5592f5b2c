import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

# config
EPOCHS = 30
BATCH_SIZE = 64
LR = 0.1
LR_STEP = 10      # ลด lr ลงครึ่งนึงทุก 10 epoch
LR_GAMMA = 0.5

torch.manual_seed(2024)
d = np.load("data/shop_features.npz")
train_ds = TensorDataset(torch.from_numpy(d["X_train"]), torch.from_numpy(d["y_train"]))
Xv, yv = torch.from_numpy(d["X_val"]), torch.from_numpy(d["y_val"])
loader = DataLoader(train_ds, batch_size=BATCH_SIZE, shuffle=True)

model = nn.Sequential(
    nn.Linear(Xv.shape[1], 256), nn.ReLU(),
    nn.Linear(256, 256), nn.ReLU(),
    nn.Linear(256, 12),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=LR_STEP, gamma=LR_GAMMA)

print(f"train {len(train_ds)} | val {len(Xv)} | lr {LR} | epochs {EPOCHS}")
for epoch in range(EPOCHS):
    model.train()
    t0 = time.time()
    tot, n = 0.0, 0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        scheduler.step()
        tot += loss.item() * len(xb)
        n += len(xb)
    model.eval()
    with torch.no_grad():
        out = model(Xv)
        vloss = criterion(out, yv).item()
        vacc = (out.argmax(1) == yv).float().mean().item()
    print(f"[{epoch + 1:02d}/{EPOCHS}] lr={scheduler.get_last_lr()[0]:.2e} train_loss={tot / n:.4f} val_loss={vloss:.4f} "
          f"val_acc={vacc:.4f} ({time.time() - t0:.1f}s)")
