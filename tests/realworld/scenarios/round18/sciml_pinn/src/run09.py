import json
import math
import time

import numpy as np
import torch

torch.set_num_threads(1)
torch.manual_seed(5)
rng = np.random.default_rng(5)

config = {
    "pde": "burgers: u_t + u u_x = nu u_xx",
    "nu": 0.05 / math.pi,
    "geometry": "x in [-1, 1], t in [0, 1]",
    "ic": "u(x, 0) = -sin(pi x)",
    "bc": "u(-1, t) = u(1, t) = 0",
    "num_domain": 1500,
    "num_boundary": 80,
    "num_initial": 80,
    "layer_sizes": [2, 6, 1],
    "activation": "tanh",
    "initializer": "Glorot normal",
    "optimizer": ["adam", "L-BFGS"],
    "lr": 1e-3,
    "iterations": 3000,
    "display_every": 300,
    "lbfgs_maxiter": 600,
    "loss_weights": [1, 1, 1],
    "metrics": ["l2 relative error"],
}
with open("config.json", "w") as fh:
    json.dump(config, fh, indent=2)
nu = config["nu"]


def reference(x, t, n=80):
    z, w = np.polynomial.hermite.hermgauss(n)
    out = -np.sin(np.pi * x)
    m = t > 0
    xm, tm = x[m][:, None], t[m][:, None]
    y = xm - np.sqrt(4 * nu * tm) * z[None, :]
    f = np.exp(-np.cos(np.pi * y) / (2 * np.pi * nu))
    out[m] = -(w * np.sin(np.pi * y) * f).sum(1) / (w * f).sum(1)
    return out


class Net(torch.nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.hidden = torch.nn.ModuleList()
        for a, b in zip(sizes[:-2], sizes[1:-1]):
            self.hidden.append(torch.nn.Linear(a, b))
        self.out = torch.nn.Linear(sizes[-2], sizes[-1])
        for lin in list(self.hidden) + [self.out]:
            torch.nn.init.xavier_normal_(lin.weight)
            torch.nn.init.zeros_(lin.bias)

    def forward(self, x):
        for h in self.hidden:
            x = torch.tanh(h(x))
        return self.out(x)


net = Net(config["layer_sizes"])

X_dom = torch.tensor(np.column_stack([rng.uniform(-1, 1, 1500), rng.uniform(0, 1, 1500)]), dtype=torch.float32)
tb = rng.uniform(0, 1, 80)
X_bc = torch.tensor(np.column_stack([np.where(np.arange(80) % 2 == 0, -1.0, 1.0), tb]), dtype=torch.float32)
x0 = rng.uniform(-1, 1, 80)
X_ic = torch.tensor(np.column_stack([x0, np.zeros(80)]), dtype=torch.float32)
u_ic = torch.tensor(-np.sin(np.pi * x0)[:, None], dtype=torch.float32)

xs, ts = np.meshgrid(np.linspace(-1, 1, 101), np.linspace(0, 1, 26))
X_test_np = np.column_stack([xs.ravel(), ts.ravel()])
u_test = reference(X_test_np[:, 0], X_test_np[:, 1])[:, None]
X_test = torch.tensor(X_test_np, dtype=torch.float32)


def terms(X):
    X = X.clone().requires_grad_(True)
    u = net(X)
    g = torch.autograd.grad(u.sum(), X, create_graph=True)[0]
    u_x, u_t = g[:, 0:1], g[:, 1:2]
    u_xx = torch.autograd.grad(u_x.sum(), X, create_graph=True)[0][:, 0:1]
    f = u_t + u * u_x - nu * u_xx
    return [(f ** 2).mean(), (net(X_bc) ** 2).mean(), ((net(X_ic) - u_ic) ** 2).mean()]


def loss_fn():
    return sum(w * t for w, t in zip(config["loss_weights"], terms(X_dom)))


def fmt(v):
    return "[" + ", ".join("%.2e" % e for e in v) + "]"


history = []
best = [None, np.inf, None, None]


def report(step):
    tr = [t.item() for t in terms(X_dom)]
    te = [t.item() for t in terms(X_test)]
    with torch.no_grad():
        pred = net(X_test).numpy()
    err = float(np.linalg.norm(pred - u_test) / np.linalg.norm(u_test))
    history.append([step] + tr + te + [err])
    if sum(tr) < best[1]:
        best[:] = [step, sum(tr), sum(te), err]
    print("%-10d%-38s%-38s%s" % (step, fmt(tr), fmt(te), fmt([err])), flush=True)


def banner():
    print("Compiling model...")
    print("'compile' took 0.000611 s\n")
    print("Training model...\n")
    print("%-10s%-38s%-38s%s" % ("Step", "Train loss", "Test loss", "Test metric"))


def summary(t0):
    print("\nBest model at step %d:" % best[0])
    print("  train loss: %.2e" % best[1])
    print("  test loss: %.2e" % best[2])
    print("  test metric: [%.2e]" % best[3])
    print("\n'train' took %f s\n" % (time.time() - t0))


banner()
opt = torch.optim.Adam(net.parameters(), lr=config["lr"])
t0 = time.time()
for i in range(config["iterations"] + 1):
    if i % config["display_every"] == 0:
        report(i)
    if i == config["iterations"]:
        break
    opt.zero_grad()
    l = loss_fn()
    l.backward()
    opt.step()
summary(t0)

banner()
lbfgs = torch.optim.LBFGS(net.parameters(), lr=1, max_iter=100, history_size=50, tolerance_grad=1e-8,
                          tolerance_change=0, line_search_fn="strong_wolfe")


def closure():
    lbfgs.zero_grad()
    l = loss_fn()
    l.backward()
    return l


t0 = time.time()
prev = 0
while prev < config["lbfgs_maxiter"]:
    lbfgs.step(closure)
    n = lbfgs.state[lbfgs._params[0]]["n_iter"]
    if n == prev + 1:
        break
    prev = n
    report(config["iterations"] + n)
summary(t0)
np.savetxt("loss.dat", np.array(history), header="step, loss_train, loss_test, metrics_test")
with torch.no_grad():
    np.savetxt("test.dat", np.hstack([X_test_np, u_test, net(X_test).numpy()]), header="x, t, y_true, y_pred")
print("Saving loss history to loss.dat ...")
print("Saving test data to test.dat ...")
