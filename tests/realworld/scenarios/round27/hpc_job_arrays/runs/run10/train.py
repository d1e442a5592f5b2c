import argparse, time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/merged.npz")
p.add_argument("--seed", type=int, default=0)
p.add_argument("--epochs", type=int, default=6)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--batch-size", type=int, default=50)
args = p.parse_args()
torch.manual_seed(args.seed)

def make_loader(x, y, bs, train):
    ds = TensorDataset(torch.tensor(x), torch.tensor(y))
    return DataLoader(ds, batch_size=bs, drop_last=train, num_workers=0)

d = np.load(args.data)
train_loader = make_loader(d["x_train"], d["y_train"], args.batch_size, train=True)
val_loader = make_loader(d["x_val"], d["y_val"], 500, train=False)
model = nn.Sequential(nn.Linear(d["x_train"].shape[1], 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
print(f"seed={args.seed} lr={args.lr} bs={args.batch_size} steps/epoch={len(train_loader)}", flush=True)
for epoch in range(1, args.epochs + 1):
    model.train()
    for step, (xb, yb) in enumerate(train_loader):
        loss = nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 4 == 0:
            print(f"e{epoch} it{step:4d} loss={loss.item():.4f}", flush=True)
    model.eval()
    correct = n = 0
    vloss = 0.0
    with torch.no_grad():
        for xb, yb in val_loader:
            out = model(xb)
            vloss += nn.functional.cross_entropy(out, yb, reduction="sum").item()
            correct += (out.argmax(1) == yb).sum().item(); n += len(yb)
    print(f"*** epoch {epoch}: val_loss={vloss/n:.4f} val_acc={correct/n:.4f}", flush=True)
