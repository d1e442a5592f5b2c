import argparse, time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/teacher_k10.npz")
p.add_argument("--weight-decay", type=float, default=0.0)
p.add_argument("--epochs", type=int, default=6)
p.add_argument("--workers", type=int, default=4)
args = p.parse_args()
torch.manual_seed(0)
d = np.load(args.data)
train_ds = TensorDataset(torch.tensor(d["x_train"]), torch.tensor(d["y_train"]))
val_ds = TensorDataset(torch.tensor(d["x_val"]), torch.tensor(d["y_val"]))
train_loader = DataLoader(train_ds, batch_size=128, shuffle=True, num_workers=args.workers, persistent_workers=True)
val_loader = DataLoader(val_ds, batch_size=1000)
model = nn.Sequential(nn.Linear(train_ds.tensors[0].shape[1], 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=args.weight_decay)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)
print(f"weight_decay={args.weight_decay} workers={args.workers} epochs={args.epochs}", flush=True)
for epoch in range(1, args.epochs + 1):
    t0 = time.time()
    model.train()
    tl = n = 0
    for xb, yb in train_loader:
        loss = nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(xb); n += len(xb)
    sched.step()
    model.eval()
    vl = c = m = 0
    with torch.no_grad():
        for xb, yb in val_loader:
            out = model(xb)
            vl += nn.functional.cross_entropy(out, yb, reduction="sum").item()
            c += (out.argmax(1) == yb).sum().item(); m += len(yb)
    print(f"epoch {epoch}/{args.epochs}  lr {sched.get_last_lr()[0]:.2e}  train_loss {tl/n:.4f}  "
          f"val_loss {vl/m:.4f}  val_acc {c/m:.4f}  [{time.time()-t0:.1f}s]", flush=True)
torch.save(model.state_dict(), f"model_wd{args.weight_decay:g}.pt")
