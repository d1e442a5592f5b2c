import argparse
import time

import comet_ml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

p = argparse.ArgumentParser()
p.add_argument("--precision", choices=["fp32", "fp16", "bf16"], default="fp16")
p.add_argument("--steps", type=int, default=600)
p.add_argument("--batch_size", type=int, default=128)
p.add_argument("--lr", type=float, default=3e-3)
p.add_argument("--hidden", type=int, default=128)
p.add_argument("--eval_every", type=int, default=100)
p.add_argument("--seed", type=int, default=0)
args = p.parse_args()

exp = comet_ml.OfflineExperiment(project_name="site-load-forecast", workspace="dmitri-k",
                                 offline_directory="/home/dmitri/.cometml-runs")
exp.set_name(f"mlp-{args.precision}")
exp.log_parameters(vars(args))
device = "cuda"
torch.manual_seed(args.seed)

d = np.load("data/site_load_v3.npz")          # hourly features -> next-day load in kW
X = torch.tensor(d["X_train"], dtype=torch.float32)
y = torch.tensor(d["y_train"], dtype=torch.float32)[:, None]
Xv = torch.tensor(d["X_val"], dtype=torch.float32).to(device)
yv = torch.tensor(d["y_val"], dtype=torch.float32)[:, None].to(device)
mu, sd = X.mean(0), X.std(0)
X, Xv = (X - mu) / sd, (Xv - mu.to(device)) / sd.to(device)
X, y = X.to(device), y.to(device)

model = nn.Sequential(
    nn.Linear(X.shape[1], args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, 1),
).to(device)
opt = torch.optim.Adam(model.parameters(), lr=args.lr)

amp_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[args.precision]
scaler = torch.cuda.amp.GradScaler(enabled=args.precision == "fp16")

t0 = time.time()
for step in range(args.steps):
    idx = torch.randint(0, len(X), (args.batch_size,), device=device)
    with torch.autocast(device_type="cuda", dtype=amp_dtype, enabled=args.precision != "fp32"):
        pred = model(X[idx])
        loss = F.mse_loss(pred.float(), y[idx])
    opt.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()

    if step % 10 == 0:
        exp.log_metric("train_loss", loss.item(), step=step)
        exp.log_metric("loss_scale", scaler.get_scale(), step=step)
    if step % args.eval_every == 0 or step == args.steps - 1:
        with torch.no_grad(), torch.autocast(device_type="cuda", dtype=amp_dtype,
                                             enabled=args.precision != "fp32"):
            rmse = F.mse_loss(model(Xv).float(), yv).sqrt().item()
        exp.log_metric("val_rmse_kw", rmse, step=step)
        print(f"[{args.precision}] step {step:4d}  loss {loss.item():.4e}  val_rmse {rmse:9.1f} kW  "
              f"scale {scaler.get_scale():.3e}  ({time.time() - t0:.1f}s)")

exp.end()
