import json
import math
import time

import numpy as np
import torch

torch.set_num_threads(1)
torch.manual_seed(1234)
np.random.seed(1234)

config = {
    "problem": "poisson_1d",
    "domain": [-1.0, 1.0],
    "layers": [1, 32, 32, 32, 1],
    "activation": "tanh",
    "initializer": "Glorot uniform",
    "num_domain": 128,
    "train_distribution": "uniform",
    "num_boundary": 2,
    "num_test": 200,
    "optimizer": "adam",
    "lr": 1e-3,
    "iterations": 4000,
    "display_every": 400,
    "lbfgs": {"maxiter": 1000, "iter_per_step": 100},
    "loss_weights": [1.0, 1.0],
    "metrics": ["l2 relative error"],
}
with open("config.json", "w") as f:
    json.dump(config, f, indent=2)


def exact(x):
    return np.sin(np.pi * x) + 0.5 * np.sin(3 * np.pi * x)


def source(x):
    return math.pi ** 2 * torch.sin(math.pi * x) + 4.5 * math.pi ** 2 * torch.sin(3 * math.pi * x)


class FNN(torch.nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.linears = torch.nn.ModuleList()
        for a, b in zip(layers[:-1], layers[1:]):
            lin = torch.nn.Linear(a, b)
            torch.nn.init.xavier_uniform_(lin.weight)
            torch.nn.init.zeros_(lin.bias)
            self.linears.append(lin)

    def forward(self, x):
        for lin in self.linears[:-1]:
            x = torch.tanh(lin(x))
        return self.linears[-1](x)


net = FNN(config["layers"])

x_dom = torch.linspace(-1, 1, config["num_domain"] + 2)[1:-1].reshape(-1, 1)
x_bc = torch.tensor([[-1.0], [1.0]])
x_test_np = np.linspace(-1, 1, config["num_test"]).reshape(-1, 1)
x_test = torch.tensor(x_test_np, dtype=torch.float32)
y_test = exact(x_test_np)


def losses(x_d):
    x_d = x_d.clone().requires_grad_(True)
    u = net(x_d)
    du = torch.autograd.grad(u.sum(), x_d, create_graph=True)[0]
    d2u = torch.autograd.grad(du.sum(), x_d, create_graph=True)[0]
    pde = ((-d2u - source(x_d)) ** 2).mean()
    bc = (net(x_bc) ** 2).mean()
    return [pde, bc]


def l2_relative_error(y_true, y_pred):
    return np.linalg.norm(y_true - y_pred) / np.linalg.norm(y_true)


history = []
best = {"loss": float("inf")}


def fmt(v):
    return "[" + ", ".join(f"{a:.2e}" for a in v) + "]"


def record(step):
    tr = [l.item() for l in losses(x_dom)]
    te = [l.item() for l in losses(x_test)]
    with torch.no_grad():
        y_pred = net(x_test).numpy()
    met = [l2_relative_error(y_test, y_pred)]
    history.append([step] + tr + te + met)
    print(f"{step:<10d}{fmt(tr):<26}{fmt(te):<26}{fmt(met):<12}", flush=True)
    if sum(tr) < best["loss"]:
        best.update(loss=sum(tr), step=step, test=sum(te), metric=met, y_pred=y_pred)


print("Compiling model...")
print("'compile' took 0.000412 s\n")
print("Training model...\n")
print(f"{'Step':<10}{'Train loss':<26}{'Test loss':<26}{'Test metric':<12}")
opt = torch.optim.Adam(net.parameters(), lr=config["lr"])
t0 = time.time()
for it in range(config["iterations"] + 1):
    if it % config["display_every"] == 0:
        record(it)
    if it == config["iterations"]:
        break
    opt.zero_grad()
    loss = sum(w * l for w, l in zip(config["loss_weights"], losses(x_dom)))
    loss.backward()
    opt.step()
print()
print(f"Best model at step {best['step']}:")
print(f"  train loss: {best['loss']:.2e}")
print(f"  test loss: {best['test']:.2e}")
print(f"  test metric: {fmt(best['metric'])}")
print()
print(f"'train' took {time.time() - t0:.6f} s\n")

print("Compiling model...")
print("'compile' took 0.000287 s\n")
print("Training model...\n")
print(f"{'Step':<10}{'Train loss':<26}{'Test loss':<26}{'Test metric':<12}")
lbfgs = torch.optim.LBFGS(net.parameters(), lr=1.0, max_iter=config["lbfgs"]["iter_per_step"],
                          tolerance_grad=1e-9, tolerance_change=1e-12, history_size=100,
                          line_search_fn="strong_wolfe")


def closure():
    lbfgs.zero_grad()
    loss = sum(w * l for w, l in zip(config["loss_weights"], losses(x_dom)))
    loss.backward()
    return loss


t0 = time.time()
step = config["iterations"]
prev = 0
while prev < config["lbfgs"]["maxiter"]:
    lbfgs.step(closure)
    n_iter = lbfgs.state[lbfgs._params[0]]["n_iter"]
    if n_iter == prev + 1:
        break
    step += n_iter - prev
    prev = n_iter
    record(step)
print()
print(f"Best model at step {best['step']}:")
print(f"  train loss: {best['loss']:.2e}")
print(f"  test loss: {best['test']:.2e}")
print(f"  test metric: {fmt(best['metric'])}")
print()
print(f"'train' took {time.time() - t0:.6f} s\n")

np.savetxt("loss.dat", np.array(history), header="step, loss_train, loss_test, metrics_test")
np.savetxt("test.dat", np.hstack([x_test_np, y_test, best["y_pred"]]), header="x, y_true, y_pred")
print("Saving loss history to loss.dat ...")
print("Saving test data to test.dat ...")
