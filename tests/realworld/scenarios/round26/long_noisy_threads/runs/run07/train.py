import argparse, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/meters_daily.npz")
p.add_argument("--lr", type=float, default=1e-2)
p.add_argument("--epochs", type=int, default=11)
p.add_argument("--bs", type=int, default=64)
p.add_argument("--amp", type=int, default=1)
p.add_argument("--log_every", type=int, default=25)
args = p.parse_args()
torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
use_amp = bool(args.amp) and device == "cuda"

d = np.load(args.data)
# features are z-scored in the export; target = next-day consumption of the site in Wh
Xtr, ytr = torch.tensor(d["X_train"]), torch.tensor(d["y_train"])
Xva, yva = torch.tensor(d["X_val"]), torch.tensor(d["y_val"])
dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.bs, shuffle=True)

model = nn.Sequential(nn.Linear(Xtr.shape[1], 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
scaler = torch.cuda.amp.GradScaler(enabled=use_amp)
print(f"device={device} amp={use_amp} lr={args.lr} bs={args.bs} train={len(Xtr)} val={len(Xva)}")

step = 0
for epoch in range(1, args.epochs + 1):
    model.train()
    for xb, yb in dl:
        xb, yb = xb.to(device), yb.to(device)
        with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
            pred = model(xb).squeeze(1)
            loss = F.mse_loss(pred, yb)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        step += 1
        if step % args.log_every == 0:
            print(f"step {step:5d} | loss {loss.item():.4e} | scale {scaler.get_scale():.3e} | lr {args.lr:.1e}")
    model.eval()
    with torch.no_grad(), torch.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
        pv = model(Xva.to(device)).squeeze(1).float()
    rmse = (pv - yva.to(device)).pow(2).mean().sqrt().item()
    print(f"epoch {epoch:3d} | val_rmse {rmse:.1f} Wh")
torch.save(model.state_dict(), "ckpt/mlp_energy.pt")
