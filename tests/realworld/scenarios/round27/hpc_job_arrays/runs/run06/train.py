import argparse, math, time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/spectra.npy")
p.add_argument("--epochs", type=int, default=10)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--latent", type=int, default=32)
args = p.parse_args()
torch.manual_seed(0)

X = torch.from_numpy(np.load(args.data))
n_val = 1000
train_loader = DataLoader(TensorDataset(X[n_val:]), batch_size=args.batch_size, shuffle=True)
Xva = X[:n_val]
D = X.shape[1]
print(f"loaded {tuple(X.shape)} spectra, {len(train_loader)} batches/epoch", flush=True)

model = nn.Sequential(nn.Linear(D, 256), nn.ReLU(), nn.Linear(256, args.latent), nn.ReLU(),
                      nn.Linear(args.latent, 256), nn.ReLU(), nn.Linear(256, D))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

def psnr(pred, target):
    mse = ((pred - target) ** 2).mean()
    return 10 * math.log10(float(target.max() - target.min()) ** 2 / mse.item())

recons, targets = [], []
for epoch in range(1, args.epochs + 1):
    t0 = time.time()
    model.train()
    for step, (xb,) in enumerate(train_loader):
        out = model(xb)
        loss = nn.functional.mse_loss(out, xb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        recons.append(out.detach())
        targets.append(xb)
        if step % 50 == 0:
            print(f"epoch {epoch:2d} step {step:4d} mse {loss.item():.5f}", flush=True)
    train_psnr = psnr(torch.cat(recons), torch.cat(targets))
    model.eval()
    with torch.no_grad():
        val_psnr = psnr(model(Xva), Xva)
    print(f"epoch {epoch:2d} done  train_psnr {train_psnr:.2f} dB  val_psnr {val_psnr:.2f} dB  "
          f"time {time.time()-t0:.1f}s", flush=True)
    torch.save(model.state_dict(), "ae_last.pt")
