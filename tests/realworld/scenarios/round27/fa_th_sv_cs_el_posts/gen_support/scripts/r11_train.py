import json
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

cfg = dict(epochs=25, batch_size=128, lr=1e-3, weight_decay=1e-4, dropout=0.4, hidden=256)
torch.manual_seed(17)

tr = np.load("data/train.npz")
va = np.load("data/val.npz")
train_dl = DataLoader(TensorDataset(torch.from_numpy(tr["X"]), torch.from_numpy(tr["y"])),
                      batch_size=cfg["batch_size"], shuffle=True)
Xv, yv = torch.from_numpy(va["X"]), torch.from_numpy(va["y"])

model = nn.Sequential(
    nn.Linear(Xv.shape[1], cfg["hidden"]), nn.ReLU(), nn.Dropout(cfg["dropout"]),
    nn.Linear(cfg["hidden"], cfg["hidden"]), nn.ReLU(), nn.Dropout(cfg["dropout"]),
    nn.Linear(cfg["hidden"], 7),
)
opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
crit = nn.CrossEntropyLoss()
print("config:", json.dumps(cfg))
print(f"train samples: {len(tr['y'])}, val samples: {len(yv)}")

step = 0
for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    t0 = time.time()
    run_loss, run_ok, run_n = 0.0, 0, 0
    for xb, yb in train_dl:
        out = model(xb)
        loss = crit(out, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        run_loss += loss.item() * len(yb)
        run_ok += (out.argmax(1) == yb).sum().item()
        run_n += len(yb)
        if step % 20 == 0:
            print(f"  step {step:5d}  loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        vout = model(Xv)
        vloss = crit(vout, yv).item()
        vacc = (vout.argmax(1) == yv).float().mean().item()
    print(f"epoch {epoch:2d}  train_loss {run_loss / run_n:.4f}  train_acc {run_ok / run_n:.4f}  "
          f"val_loss {vloss:.4f}  val_acc {vacc:.4f}  time {time.time() - t0:.1f}s")
    torch.save(model.state_dict(), "model_last.pt")
