import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(10)
torch.set_num_threads(1)
rng = np.random.default_rng(10)

# tabular regression: predict a sale price (in dollars) from 12 numeric features
N, F = 6000, 12
X = rng.normal(size=(N, F)).astype(np.float32)
coef = rng.uniform(5_000, 15_000, size=F)
price = 90_000 + X @ coef + 4_000 * X[:, 0] * X[:, 1] + rng.normal(0, 5_000, size=N)
price = np.clip(price, 20_000, None).astype(np.float32)
X_train, X_val = torch.from_numpy(X[:5000]), torch.from_numpy(X[5000:])
y_train, y_val = torch.from_numpy(price[:5000])[:, None], torch.from_numpy(price[5000:])[:, None]

model = nn.Sequential(
    nn.Linear(F, 256), nn.ReLU(),
    nn.Linear(256, 256), nn.ReLU(),
    nn.Linear(256, 1),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cpu")
loss_fn = nn.MSELoss()
writer = SummaryWriter("tb")

EPOCHS, BS = 30, 100
step = 0
for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(X_train))
    for i in range(0, len(X_train), BS):
        idx = perm[i:i + BS]
        optimizer.zero_grad()
        with torch.autocast(device_type="cpu", dtype=torch.float16):
            pred = model(X_train[idx])
            loss = loss_fn(pred.float(), y_train[idx])
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        scaler.step(optimizer)
        scaler.update()
        writer.add_scalar("train/loss", loss.item(), step)
        writer.add_scalar("train/grad_norm", gnorm.item(), step)
        writer.add_scalar("amp/loss_scale", scaler.get_scale(), step)
        step += 1
    model.eval()
    with torch.no_grad(), torch.autocast(device_type="cpu", dtype=torch.float16):
        pv = model(X_val).float()
    rmse = torch.sqrt(((pv - y_val) ** 2).mean()).item()
    mae = (pv - y_val).abs().mean().item()
    writer.add_scalar("val/rmse", rmse, step)
    writer.add_scalar("val/mae", mae, step)
    print(f"epoch {epoch:02d} | loss {loss.item():.4g} | val_rmse {rmse:.1f} | val_mae {mae:.1f} | scale {scaler.get_scale():.3g}")
writer.close()
