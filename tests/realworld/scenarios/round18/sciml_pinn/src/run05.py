import csv
import math
import time

import numpy as np
import torch
from torch import nn

torch.set_num_threads(1)

CONFIG = """\
experiment: poisson1d_deep
seed: 11
pde:
  equation: "-u_xx = pi^2 sin(pi x)"
  domain: [-1.0, 1.0]
  bc: dirichlet_zero
data:
  n_collocation: 100
  n_eval: 400
model:
  hidden_layers: 12
  width: 20
  activation: sigmoid
  init: pytorch_default
optim:
  name: adam
  lr: 1.0e-3
  steps: 1500
loss_weights:
  pde: 1.0
  bc: 1.0
logging:
  every: 50
"""
open("config.yaml", "w").write(CONFIG)

torch.manual_seed(11)
HIDDEN, WIDTH, STEPS, EVERY = 12, 20, 1500, 50


def build():
    mods = [nn.Linear(1, WIDTH), nn.Sigmoid()]
    for _ in range(HIDDEN - 1):
        mods += [nn.Linear(WIDTH, WIDTH), nn.Sigmoid()]
    mods.append(nn.Linear(WIDTH, 1))
    return nn.Sequential(*mods)


net = build()
linears = [m for m in net if isinstance(m, nn.Linear)]
x_c = (torch.rand(100, 1) * 2 - 1).requires_grad_(True)
x_b = torch.tensor([[-1.0], [1.0]])
x_e = torch.linspace(-1, 1, 400).reshape(-1, 1)
u_e = torch.sin(math.pi * x_e)
opt = torch.optim.Adam(net.parameters(), lr=1e-3)

mf = open("metrics.csv", "w", newline="")
gf = open("grad_norms.csv", "w", newline="")
mw, gw = csv.writer(mf), csv.writer(gf)
mw.writerow(["step", "loss", "pde_residual", "bc_loss", "rel_l2", "grad_norm"])
gw.writerow(["step"] + [f"linear_{i}.weight" for i in range(len(linears))])

print(f"model: {HIDDEN} x {WIDTH} sigmoid, {sum(p.numel() for p in net.parameters())} params")
t0 = time.time()
for step in range(STEPS + 1):
    u = net(x_c)
    u_x = torch.autograd.grad(u.sum(), x_c, create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x.sum(), x_c, create_graph=True)[0]
    pde = ((-u_xx - math.pi ** 2 * torch.sin(math.pi * x_c)) ** 2).mean()
    bc = (net(x_b) ** 2).mean()
    loss = pde + bc
    opt.zero_grad()
    loss.backward()
    if step % EVERY == 0:
        per_layer = [m.weight.grad.norm().item() for m in linears]
        total = math.sqrt(sum(p.grad.pow(2).sum().item() for p in net.parameters()))
        with torch.no_grad():
            rel = ((net(x_e) - u_e).norm() / u_e.norm()).item()
        mw.writerow([step, f"{loss.item():.6e}", f"{pde.item():.6e}", f"{bc.item():.6e}", f"{rel:.6e}", f"{total:.6e}"])
        gw.writerow([step] + [f"{g:.4e}" for g in per_layer])
        mf.flush()
        gf.flush()
        print(f"[{step:4d}/{STEPS}] loss={loss.item():.5e} pde={pde.item():.4e} bc={bc.item():.4e} "
              f"rel_l2={rel:.4f} grad_norm={total:.3e}", flush=True)
    opt.step()
mf.close()
gf.close()
print(f"finished in {time.time() - t0:.1f}s")
