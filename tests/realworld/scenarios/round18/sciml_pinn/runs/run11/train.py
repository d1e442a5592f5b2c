import math
import time

import numpy as np
import pandas as pd
import torch
from torch import nn

torch.set_num_threads(1)

cfg = {
    "seed": 99,
    "n_interior": 4096,
    "n_boundary": 512,
    "batch_size": 256,
    "epochs": 100,
    "lr": 1e-3,
    "lr_decay": 0.98,
    "hidden": [40, 40, 40, 40],
    "activation": "tanh",
    "w_pde": 1.0,
    "w_bc": 10.0,
}
pd.Series(cfg).to_json("config.json", indent=2)
torch.manual_seed(cfg["seed"])


def source(xy):
    x, y = xy[:, :1], xy[:, 1:]
    return 2 * math.pi ** 2 * torch.sin(math.pi * x) * torch.sin(math.pi * y)


def exact(xy):
    return torch.sin(math.pi * xy[:, :1]) * torch.sin(math.pi * xy[:, 1:])


def boundary_points(n):
    s = torch.rand(n, 1)
    side = torch.randint(0, 4, (n, 1))
    x = torch.where(side == 0, torch.zeros_like(s), torch.where(side == 1, torch.ones_like(s), s))
    y = torch.where(side == 2, torch.zeros_like(s), torch.where(side == 3, torch.ones_like(s), s))
    y = torch.where(side < 2, s, y)
    return torch.cat([x, y], 1)


layers = []
d_in = 2
for h in cfg["hidden"]:
    layers += [nn.Linear(d_in, h), nn.Tanh()]
    d_in = h
layers.append(nn.Linear(d_in, 1))
model = nn.Sequential(*layers)

interior = torch.rand(cfg["n_interior"], 2)
bnd = boundary_points(cfg["n_boundary"])
g = torch.linspace(0, 1, 64)
gx, gy = torch.meshgrid(g, g, indexing="ij")
xy_val = torch.stack([gx.flatten(), gy.flatten()], 1)
u_val = exact(xy_val)

optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=cfg["lr_decay"])
n_batches = cfg["n_interior"] // cfg["batch_size"]
bnd_bs = cfg["n_boundary"] // n_batches


def residual(xy):
    xy = xy.clone().requires_grad_(True)
    u = model(xy)
    du = torch.autograd.grad(u.sum(), xy, create_graph=True)[0]
    u_xx = torch.autograd.grad(du[:, 0].sum(), xy, create_graph=True)[0][:, :1]
    u_yy = torch.autograd.grad(du[:, 1].sum(), xy, create_graph=True)[0][:, 1:]
    return -(u_xx + u_yy) - source(xy)


rows = []
t_start = time.time()
for epoch in range(1, cfg["epochs"] + 1):
    perm = torch.randperm(cfg["n_interior"])
    bperm = torch.randperm(cfg["n_boundary"])
    ep_pde, ep_bc = 0.0, 0.0
    lr_epoch = optimizer.param_groups[0]["lr"]
    for b in range(n_batches):
        idx = perm[b * cfg["batch_size"]:(b + 1) * cfg["batch_size"]]
        bidx = bperm[b * bnd_bs:(b + 1) * bnd_bs]
        l_pde = residual(interior[idx]).pow(2).mean()
        l_bc = model(bnd[bidx]).pow(2).mean()
        loss = cfg["w_pde"] * l_pde + cfg["w_bc"] * l_bc
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        ep_pde += l_pde.item() / n_batches
        ep_bc += l_bc.item() / n_batches
    with torch.no_grad():
        rel = ((model(xy_val) - u_val).norm() / u_val.norm()).item()
    rows.append({"epoch": epoch, "lr": lr_epoch, "loss": cfg["w_pde"] * ep_pde + cfg["w_bc"] * ep_bc,
                 "pde_residual": ep_pde, "bc_loss": ep_bc, "rel_l2": rel})
    if epoch == 1 or epoch % 5 == 0:
        print(f"epoch {epoch:3d}/{cfg['epochs']}  lr={lr_epoch:.3e}  loss={rows[-1]['loss']:.4e}  "
              f"pde={ep_pde:.4e}  bc={ep_bc:.4e}  rel_l2={rel:.4f}", flush=True)
    pd.DataFrame(rows).to_csv("metrics.csv", index=False)
print(f"training time {time.time() - t_start:.1f}s, final rel_l2 {rows[-1]['rel_l2']:.4f}")
