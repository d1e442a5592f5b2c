import argparse, os, time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/teacher_k10.npz")
p.add_argument("--run-name", required=True)
p.add_argument("--epochs", type=int, default=10)
p.add_argument("--lr", type=float, default=2e-3)
args = p.parse_args()
torch.manual_seed(0)

d = np.load(args.data)
mean, std = d["x_train"].mean(0), d["x_train"].std(0)
norm = lambda a: torch.tensor((a - mean) / std, dtype=torch.float32)
train_ds = TensorDataset(norm(d["x_train"]), torch.tensor(d["y_train"]))
Xva, yva = norm(d["x_val"]), torch.tensor(d["y_val"])
loader = DataLoader(train_ds, batch_size=128, shuffle=True)
model = nn.Sequential(nn.Linear(Xva.shape[1], 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
out_dir = os.path.join("runs", args.run_name)
os.makedirs(out_dir, exist_ok=True)
best = 0.0
for epoch in range(1, args.epochs + 1):
    t0 = time.time()
    model.train()
    for xb, yb in loader:
        loss = nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad(); loss.backward(); opt.step()
    model.eval()
    with torch.no_grad():
        acc = (model(Xva).argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch:2d}  train_loss {loss.item():.4f}  val_acc {acc:.4f}  ({time.time()-t0:.1f}s)", flush=True)
    if acc > best:
        best = acc
        torch.save({"model": model.state_dict(), "epoch": epoch, "val_acc": acc,
                    "mean": mean, "std": std}, os.path.join(out_dir, "best.pt"))
        print(f"  new best val_acc {acc:.4f} -> saved {out_dir}/best.pt", flush=True)
print(f"finished. best val_acc {best:.4f}", flush=True)
