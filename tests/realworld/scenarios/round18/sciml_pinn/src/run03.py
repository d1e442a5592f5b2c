import json
import math
import time

import numpy as np
import torch

torch.set_num_threads(1)
torch.manual_seed(2024)
np.random.seed(2024)

cfg = {
    "pde": "heat_1d: u_t = alpha * u_xx",
    "alpha": 0.1,
    "geometry": {"x": [0.0, 1.0], "t": [0.0, 1.0]},
    "ic": "u(x,0) = sin(pi x)",
    "bc": "u(0,t) = u(1,t) = 0",
    "num_domain": 500,
    "num_boundary": 100,
    "num_initial": 100,
    "num_test": 2500,
    "net": {"layers": [2, 32, 32, 32, 1], "activation": "tanh", "initializer": "Glorot uniform"},
    "optimizer": "adam",
    "lr": 0.05,
    "iterations": 3000,
    "display_every": 100,
    "loss_weights": [1, 1, 1],
    "metrics": ["l2 relative error"],
}
json.dump(cfg, open("config.json", "w"), indent=2)

a = cfg["alpha"]


def solution(xt):
    return np.sin(np.pi * xt[:, 0:1]) * np.exp(-a * np.pi ** 2 * xt[:, 1:2])


layers = cfg["net"]["layers"]
mods = []
for i in range(len(layers) - 1):
    lin = torch.nn.Linear(layers[i], layers[i + 1])
    torch.nn.init.xavier_uniform_(lin.weight)
    torch.nn.init.zeros_(lin.bias)
    mods.append(lin)
    if i < len(layers) - 2:
        mods.append(torch.nn.Tanh())
model = torch.nn.Sequential(*mods)

X_f = torch.tensor(np.random.rand(cfg["num_domain"], 2), dtype=torch.float32)
tb = np.random.rand(cfg["num_boundary"], 1)
xb = np.vstack([np.zeros((50, 1)), np.ones((50, 1))])
X_b = torch.tensor(np.hstack([xb, tb]), dtype=torch.float32)
xi = np.random.rand(cfg["num_initial"], 1)
X_i = torch.tensor(np.hstack([xi, np.zeros_like(xi)]), dtype=torch.float32)
u_i = torch.tensor(np.sin(np.pi * xi), dtype=torch.float32)

g = np.linspace(0, 1, 50)
GX, GT = np.meshgrid(g, g)
X_test_np = np.stack([GX.ravel(), GT.ravel()], 1)
y_test = solution(X_test_np)
X_test = torch.tensor(X_test_np, dtype=torch.float32)


def loss_terms(X):
    X = X.clone().requires_grad_(True)
    u = model(X)
    du = torch.autograd.grad(u, X, torch.ones_like(u), create_graph=True)[0]
    u_x, u_t = du[:, 0:1], du[:, 1:2]
    u_xx = torch.autograd.grad(u_x, X, torch.ones_like(u_x), create_graph=True)[0][:, 0:1]
    res = u_t - a * u_xx
    return [torch.mean(res ** 2), torch.mean(model(X_b) ** 2), torch.mean((model(X_i) - u_i) ** 2)]


def list_str(v):
    return "[" + ", ".join("{:.2e}".format(x) for x in v) + "]"


rows = []
best = None
print("Compiling model...")
print("'compile' took 0.000538 s\n")
print("Training model...\n")
print("{:<10}{:<38}{:<38}{:<12}".format("Step", "Train loss", "Test loss", "Test metric"))
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
t0 = time.time()
for step in range(cfg["iterations"] + 1):
    terms = loss_terms(X_f)
    if step % cfg["display_every"] == 0:
        tr = [t.item() for t in terms]
        te = [t.item() for t in loss_terms(X_test)]
        with torch.no_grad():
            pred = model(X_test).numpy()
        err = np.linalg.norm(y_test - pred) / np.linalg.norm(y_test)
        rows.append([step] + tr + te + [err])
        print("{:<10}{:<38}{:<38}{:<12}".format(step, list_str(tr), list_str(te), list_str([err])), flush=True)
        if best is None or sum(tr) < best[1]:
            best = (step, sum(tr), sum(te), err)
    if step == cfg["iterations"]:
        break
    loss = sum(w * t for w, t in zip(cfg["loss_weights"], terms))
    opt.zero_grad()
    loss.backward()
    opt.step()

print()
print("Best model at step {}:".format(best[0]))
print("  train loss: {:.2e}".format(best[1]))
print("  test loss: {:.2e}".format(best[2]))
print("  test metric: [{:.2e}]".format(best[3]))
print()
print("'train' took {:.6f} s\n".format(time.time() - t0))
np.savetxt("loss.dat", np.array(rows), header="step, loss_train, loss_test, metrics_test")
print("Saving loss history to loss.dat ...")
