import csv
import math
import time

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(7)
np.random.seed(7)

T_END = 4000.0
OMEGA = 2 * math.pi / 1000.0
ZETA = 0.1
N_COLL = 400
N_OBS = 40
LR = 1e-3
N_ITERS = 3000
LOG_EVERY = 100

omega_d = OMEGA * math.sqrt(1 - ZETA ** 2)


def x_true(t):
    return np.exp(-ZETA * OMEGA * t) * (np.cos(omega_d * t) + ZETA * OMEGA / omega_d * np.sin(omega_d * t))


class PINN(nn.Module):
    def __init__(self, width=32, depth=3):
        super().__init__()
        layers = [nn.Linear(1, width), nn.Tanh()]
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.Tanh()]
        layers.append(nn.Linear(width, 1))
        self.body = nn.Sequential(*layers)

    def forward(self, t):
        return self.body(t)


model = PINN()

t_coll = torch.tensor(np.random.uniform(0, T_END, (N_COLL, 1)), dtype=torch.float32, requires_grad=True)
t_obs_np = np.linspace(0, T_END, N_OBS).reshape(-1, 1)
x_obs = torch.tensor(x_true(t_obs_np) + 0.01 * np.random.randn(N_OBS, 1), dtype=torch.float32)
t_obs = torch.tensor(t_obs_np, dtype=torch.float32)
t0 = torch.zeros(1, 1, requires_grad=True)
t_eval_np = np.linspace(0, T_END, 1000).reshape(-1, 1)
t_eval = torch.tensor(t_eval_np, dtype=torch.float32)
x_eval = x_true(t_eval_np)

print(f"collocation points: {N_COLL}, t in [{t_coll.min().item():.1f}, {t_coll.max().item():.1f}] ms")
print(f"observations: {N_OBS}, eval points: {len(t_eval_np)}")
print(f"params: {sum(p.numel() for p in model.parameters())}")

optimizer = torch.optim.Adam(model.parameters(), lr=LR)

f = open("history.csv", "w", newline="")
writer = csv.writer(f)
writer.writerow(["iter", "loss", "loss_ode", "loss_ic", "loss_data", "grad_norm", "rel_l2"])
start = time.time()
for it in range(N_ITERS + 1):
    x = model(t_coll)
    dx = torch.autograd.grad(x, t_coll, torch.ones_like(x), create_graph=True)[0]
    ddx = torch.autograd.grad(dx, t_coll, torch.ones_like(dx), create_graph=True)[0]
    loss_ode = torch.mean((ddx + 2 * ZETA * OMEGA * dx + OMEGA ** 2 * x) ** 2)

    x0 = model(t0)
    v0 = torch.autograd.grad(x0, t0, torch.ones_like(x0), create_graph=True)[0]
    loss_ic = torch.mean((x0 - 1.0) ** 2) + torch.mean(v0 ** 2)

    loss_data = torch.mean((model(t_obs) - x_obs) ** 2)
    loss = loss_ode + loss_ic + loss_data

    optimizer.zero_grad()
    loss.backward()
    gnorm = torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters())).item()
    optimizer.step()

    if it % LOG_EVERY == 0:
        with torch.no_grad():
            pred = model(t_eval).numpy()
        rel = np.linalg.norm(pred - x_eval) / np.linalg.norm(x_eval)
        writer.writerow([it, f"{loss.item():.6e}", f"{loss_ode.item():.6e}", f"{loss_ic.item():.6e}",
                         f"{loss_data.item():.6e}", f"{gnorm:.6e}", f"{rel:.6e}"])
        f.flush()
        print(f"iter {it:5d} | loss {loss.item():.4e} | ode {loss_ode.item():.3e} ic {loss_ic.item():.3e} "
              f"data {loss_data.item():.3e} | |g| {gnorm:.3e} | rel_l2 {rel:.4f}", flush=True)
f.close()
print(f"done in {time.time() - start:.1f}s")
with torch.no_grad():
    pred = model(t_eval).numpy()
np.savetxt("prediction.csv", np.hstack([t_eval_np, x_eval, pred]), delimiter=",", header="t_ms,x_true,x_pred",
           comments="")
