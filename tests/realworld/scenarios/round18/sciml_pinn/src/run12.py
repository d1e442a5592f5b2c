import json
import math
import time

import numpy as np
import torch

torch.set_num_threads(1)
torch.manual_seed(8)
np.random.seed(8)

params = {
    "ode": "x'' + 2*zeta*w0*x' + w0^2*x = 0",
    "zeta": 0.2,
    "w0": 8.0,
    "x0": 1.0,
    "v0": 0.0,
    "t_domain": [0.0, 1.0],
    "num_domain": 200,
    "num_test": 500,
    "layers": [1, 48, 48, 48, 1],
    "activation": "tanh",
    "initializer": "Glorot uniform",
    "adam": {"lr": 2e-3, "iterations": 2000, "display_every": 200},
    "lbfgs": {"maxiter": 2000, "precision": "float64"},
    "loss_weights": [1e-3, 1.0, 1.0],
    "metrics": ["l2 relative error"],
}
json.dump(params, open("config.json", "w"), indent=2)

zeta, w0 = params["zeta"], params["w0"]
wd = w0 * math.sqrt(1 - zeta ** 2)


def sol(t):
    return np.exp(-zeta * w0 * t) * (np.cos(wd * t) + zeta * w0 / wd * np.sin(wd * t))


net = torch.nn.Sequential()
L = params["layers"]
for i in range(len(L) - 1):
    lin = torch.nn.Linear(L[i], L[i + 1])
    torch.nn.init.xavier_uniform_(lin.weight)
    torch.nn.init.zeros_(lin.bias)
    net.append(lin)
    if i < len(L) - 2:
        net.append(torch.nn.Tanh())

t_train = torch.tensor(np.sort(np.random.rand(params["num_domain"], 1), 0), dtype=torch.float32)
t_test_np = np.linspace(0, 1, params["num_test"]).reshape(-1, 1)
x_test = sol(t_test_np)
t_test = torch.tensor(t_test_np, dtype=torch.float32)
t_init = torch.zeros(1, 1)


def compute_losses(t_pts):
    t = t_pts.clone().requires_grad_(True)
    x = net(t)
    x_t = torch.autograd.grad(x.sum(), t, create_graph=True)[0]
    x_tt = torch.autograd.grad(x_t.sum(), t, create_graph=True)[0]
    r = x_tt + 2 * zeta * w0 * x_t + w0 ** 2 * x
    ti = t_init.clone().requires_grad_(True)
    xi = net(ti)
    vi = torch.autograd.grad(xi.sum(), ti, create_graph=True)[0]
    return [(r ** 2).mean(), ((xi - params["x0"]) ** 2).mean(), ((vi - params["v0"]) ** 2).mean()]


def weighted(terms):
    return sum(w * t for w, t in zip(params["loss_weights"], terms))


def s(v):
    return "[" + ", ".join(f"{e:.2e}" for e in v) + "]"


rows = []


def show(step):
    tr = [weighted_t.item() * w for weighted_t, w in zip(compute_losses(t_train), params["loss_weights"])]
    te = [weighted_t.item() * w for weighted_t, w in zip(compute_losses(t_test), params["loss_weights"])]
    with torch.no_grad():
        pred = net(t_test.to(next(net.parameters()).dtype)).numpy()
    met = [np.linalg.norm(pred - x_test) / np.linalg.norm(x_test)]
    rows.append([step] + tr + te + met)
    print(f"{step:<10}{s(tr):<38}{s(te):<38}{s(met)}", flush=True)


def start():
    print("Compiling model...")
    print("'compile' took 0.000455 s\n")
    print("Training model...\n")
    print(f"{'Step':<10}{'Train loss':<38}{'Test loss':<38}Test metric")


start()
opt = torch.optim.Adam(net.parameters(), lr=params["adam"]["lr"])
tic = time.time()
for it in range(params["adam"]["iterations"] + 1):
    if it % params["adam"]["display_every"] == 0:
        show(it)
    if it == params["adam"]["iterations"]:
        break
    opt.zero_grad()
    weighted(compute_losses(t_train)).backward()
    opt.step()
print(f"\n'train' took {time.time() - tic:.6f} s\n")
np.savetxt("loss.dat", np.array(rows), header="step, loss_train, loss_test, metrics_test")

print("Set the default float type to float64")
net = net.double()
start()
lbfgs = torch.optim.LBFGS(net.parameters(), lr=1, max_iter=100, line_search_fn="strong_wolfe",
                          tolerance_grad=1e-12, tolerance_change=1e-15)


def closure():
    lbfgs.zero_grad()
    loss = weighted(compute_losses(t_train))
    loss.backward()
    return loss


tic = time.time()
done = 0
while done < params["lbfgs"]["maxiter"]:
    lbfgs.step(closure)
    n = lbfgs.state[lbfgs._params[0]]["n_iter"]
    if n == done + 1:
        break
    done = n
    show(params["adam"]["iterations"] + n)
print(f"\n'train' took {time.time() - tic:.6f} s\n")
np.savetxt("loss.dat", np.array(rows), header="step, loss_train, loss_test, metrics_test")
