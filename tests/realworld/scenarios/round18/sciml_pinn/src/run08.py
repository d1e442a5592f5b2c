"""Draining tank (Torricelli): dh/dt = -k * sqrt(h), h(0) = h0."""
import argparse
import csv
import math

import numpy as np
import torch

torch.set_num_threads(1)

p = argparse.ArgumentParser()
p.add_argument("--k", type=float, default=1.0)
p.add_argument("--h0", type=float, default=1.0)
p.add_argument("--t_end", type=float, default=2.5)
p.add_argument("--n_colloc", type=int, default=256)
p.add_argument("--width", type=int, default=32)
p.add_argument("--lr", type=float, default=2e-4)
p.add_argument("--iters", type=int, default=5000)
p.add_argument("--w_data", type=float, default=1.0)
p.add_argument("--seed", type=int, default=0)
p.add_argument("--log_every", type=int, default=10)
args = p.parse_args()
print(vars(args))

torch.manual_seed(args.seed)
np.random.seed(args.seed)


def h_exact(t):
    return np.clip(math.sqrt(args.h0) - args.k * t / 2, 0, None) ** 2


mlp = torch.nn.Sequential(
    torch.nn.Linear(1, args.width), torch.nn.Tanh(),
    torch.nn.Linear(args.width, args.width), torch.nn.Tanh(),
    torch.nn.Linear(args.width, 1),
)


def h_model(t):
    s = t / args.t_end
    return args.h0 + s * mlp(s)


t_col = torch.linspace(0, args.t_end, args.n_colloc).reshape(-1, 1).requires_grad_(True)
t_obs_np = np.linspace(0.2, 1.6, 8).reshape(-1, 1)
h_obs = torch.tensor(h_exact(t_obs_np) + 0.005 * np.random.randn(8, 1), dtype=torch.float32)
t_obs = torch.tensor(t_obs_np, dtype=torch.float32)
t_val_np = np.linspace(0, args.t_end, 500).reshape(-1, 1)
h_val = h_exact(t_val_np)
t_val = torch.tensor(t_val_np, dtype=torch.float32)

opt = torch.optim.Adam(mlp.parameters(), lr=args.lr)
out = open("train_log.csv", "w", newline="")
w = csv.writer(out)
w.writerow(["it", "loss", "pde_residual", "data_loss", "grad_norm", "rel_l2"])

for it in range(args.iters + 1):
    h = h_model(t_col)
    dh = torch.autograd.grad(h, t_col, torch.ones_like(h), create_graph=True)[0]
    res = dh + args.k * torch.sqrt(h)
    pde = (res ** 2).mean()
    data = ((h_model(t_obs) - h_obs) ** 2).mean()
    loss = pde + args.w_data * data

    opt.zero_grad()
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(mlp.parameters(), float("inf")).item()

    bad = not math.isfinite(loss.item())
    if it % args.log_every == 0 or bad:
        with torch.no_grad():
            rel = float(np.linalg.norm(h_model(t_val).numpy() - h_val) / np.linalg.norm(h_val))
        w.writerow([it, f"{loss.item():.6e}", f"{pde.item():.6e}", f"{data.item():.6e}", f"{gn:.6e}", f"{rel:.6e}"])
        out.flush()
        print(f"it={it:5d} loss={loss.item():.4e} pde={pde.item():.4e} data={data.item():.4e} "
              f"gnorm={gn:.3e} rel_l2={rel:.4f}", flush=True)
    if bad:
        print(f"non-finite loss at iteration {it}, stopping")
        break
    opt.step()
out.close()
