import json
import math
import time

import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(21)

C = 1.0
WIDTH = 64
DEPTH = 4
LR = 1e-3
STEPS = 1500
N_INT, N_BC, N_IC = 400, 100, 100

hparams = dict(pde="wave_1d", c=C, width=WIDTH, depth=DEPTH, activation="tanh", init="normal(0, 1)",
               optimizer="Adam", lr=LR, steps=STEPS, n_interior=N_INT, n_bc=N_BC, n_ic=N_IC,
               loss="pde + bc + ic_u + ic_ut")
with open("hparams.json", "w") as f:
    json.dump(hparams, f, indent=2)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        dims = [2] + [WIDTH] * DEPTH + [1]
        self.fcs = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.reset_parameters()

    def reset_parameters(self):
        for fc in self.fcs:
            nn.init.normal_(fc.weight, mean=0.0, std=1.0)
            nn.init.normal_(fc.bias, mean=0.0, std=1.0)

    def forward(self, xt):
        h = xt
        for fc in self.fcs[:-1]:
            h = torch.tanh(fc(h))
        return self.fcs[-1](h)


model = MLP()

xt_int = torch.rand(N_INT, 2)
t_bc = torch.rand(N_BC, 1)
xt_bc = torch.cat([torch.cat([torch.zeros(N_BC // 2, 1), torch.ones(N_BC // 2, 1)]), t_bc], 1)
x_ic = torch.rand(N_IC, 1)
xt_ic = torch.cat([x_ic, torch.zeros_like(x_ic)], 1)
g = torch.linspace(0, 1, 41)
gx, gt = torch.meshgrid(g, g, indexing="ij")
xt_val = torch.stack([gx.reshape(-1), gt.reshape(-1)], 1)
u_val = torch.sin(math.pi * xt_val[:, :1]) * torch.cos(C * math.pi * xt_val[:, 1:])


def grad(y, x):
    return torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)[0]


opt = torch.optim.Adam(model.parameters(), lr=LR)
logf = open("log.jsonl", "w")
t0 = time.time()
for step in range(STEPS + 1):
    xt = xt_int.clone().requires_grad_(True)
    u = model(xt)
    du = grad(u, xt)
    u_xx = grad(du[:, :1], xt)[:, :1]
    u_tt = grad(du[:, 1:], xt)[:, 1:]
    l_pde = ((u_tt - C ** 2 * u_xx) ** 2).mean()
    l_bc = (model(xt_bc) ** 2).mean()
    xi = xt_ic.clone().requires_grad_(True)
    ui = model(xi)
    l_ic = ((ui - torch.sin(math.pi * x_ic)) ** 2).mean()
    l_ict = (grad(ui, xi)[:, 1:] ** 2).mean()
    loss = l_pde + l_bc + l_ic + l_ict

    opt.zero_grad()
    loss.backward()
    gnorm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
    opt.step()

    if step % 50 == 0:
        with torch.no_grad():
            pred = model(xt_val)
            rel = ((pred - u_val).norm() / u_val.norm()).item()
        rec = {"step": step, "loss": loss.item(), "pde_residual": l_pde.item(), "bc_loss": l_bc.item(),
               "ic_loss": l_ic.item(), "ic_velocity_loss": l_ict.item(), "grad_norm": gnorm,
               "rel_l2": rel, "elapsed_s": round(time.time() - t0, 2)}
        logf.write(json.dumps(rec) + "\n")
        logf.flush()
        print(f"step {step:5d}  loss {loss.item():.3e}  (pde {l_pde.item():.2e}, bc {l_bc.item():.2e}, "
              f"ic {l_ic.item():.2e}, ic_t {l_ict.item():.2e})  grad {gnorm:.2e}  rel_l2 {rel:.3e}", flush=True)
logf.close()
