import json
import math
import time

import numpy as np
import torch

torch.set_num_threads(1)

SEED = 42
torch.manual_seed(SEED)
np.random.seed(SEED)

# steady conduction in a rod with volumetric heating, temperature rise in K
cfg = dict(
    pde="-k u_xx = q(x), x in [0, 1], u(0) = u(1) = 0",
    k=1.0,
    q_amp=50.0,
    layers=[1, 40, 40, 40, 1],
    activation="tanh",
    initializer="Glorot normal",
    output_scale=50.0,
    num_domain=100,
    num_boundary=2,
    num_test=300,
    optimizer="adam",
    lr=1e-3,
    iterations=3000,
    display_every=250,
    lbfgs_maxiter=500,
    loss_weights=[1.0, 100.0],
    metric="l2_error",
)
with open("config.json", "w") as fp:
    json.dump(cfg, fp, indent=2)


def u_exact(x):
    return cfg["q_amp"] * np.sin(np.pi * x)


net = torch.nn.Sequential()
sizes = cfg["layers"]
for i in range(len(sizes) - 1):
    layer = torch.nn.Linear(sizes[i], sizes[i + 1])
    torch.nn.init.xavier_normal_(layer.weight)
    torch.nn.init.zeros_(layer.bias)
    net.append(layer)
    if i < len(sizes) - 2:
        net.append(torch.nn.Tanh())


def u_net(x):
    return cfg["output_scale"] * net(x)


x_train = torch.tensor(np.sort(np.random.rand(cfg["num_domain"], 1), axis=0), dtype=torch.float32)
x_bnd = torch.tensor([[0.0], [1.0]])
x_test_np = np.linspace(0, 1, cfg["num_test"]).reshape(-1, 1)
y_test = u_exact(x_test_np)
x_test = torch.tensor(x_test_np, dtype=torch.float32)


def pde_and_bc(x):
    x = x.clone().requires_grad_(True)
    u = u_net(x)
    u_x = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x.sum(), x, create_graph=True)[0]
    q = cfg["q_amp"] * math.pi ** 2 * torch.sin(math.pi * x)
    r = -cfg["k"] * u_xx - q
    return [torch.mean(r ** 2) / cfg["q_amp"] ** 2, torch.mean(u_net(x_bnd) ** 2) / cfg["q_amp"] ** 2]


def l2_error(y_true, y_pred):
    y_true = np.asarray(y_true).ravel()
    y_pred = np.asarray(y_pred).ravel()
    return float(np.linalg.norm(y_true - y_pred))


def bracket(values):
    return "[" + ", ".join(f"{v:.2e}" for v in values) + "]"


log_rows = []
CKPT = "model.pt"


def display(step):
    tr = [t.item() for t in pde_and_bc(x_train)]
    te = [t.item() for t in pde_and_bc(x_test)]
    with torch.no_grad():
        y_pred = u_net(x_test).numpy()
    m = [l2_error(y_test, y_pred)]
    log_rows.append([step, *tr, *te, *m])
    print(f"{step:<10}{bracket(tr):<26}{bracket(te):<26}{bracket(m)}", flush=True)
    return y_pred


def total_loss():
    return sum(w * t for w, t in zip(cfg["loss_weights"], pde_and_bc(x_train)))


def header():
    print("Compiling model...")
    print("'compile' took 0.000394 s\n")
    print("Training model...\n")
    print(f"{'Step':<10}{'Train loss':<26}{'Test loss':<26}{'Test metric'}")


header()
adam = torch.optim.Adam(net.parameters(), lr=cfg["lr"])
tic = time.time()
for step in range(cfg["iterations"] + 1):
    if step % cfg["display_every"] == 0:
        display(step)
    if step == cfg["iterations"]:
        break
    adam.zero_grad()
    loss = total_loss()
    loss.backward()
    adam.step()
print(f"\n'train' took {time.time() - tic:.6f} s\n")

header()
lbfgs = torch.optim.LBFGS(net.parameters(), lr=1, max_iter=50, tolerance_grad=1e-10, tolerance_change=1e-14,
                          line_search_fn="strong_wolfe")


def closure():
    lbfgs.zero_grad()
    l = total_loss()
    l.backward()
    return l


tic = time.time()
done = 0
while done < cfg["lbfgs_maxiter"]:
    lbfgs.step(closure)
    n = lbfgs.state[lbfgs._params[0]]["n_iter"]
    if n == done + 1:
        break
    done = n
    y_pred = display(cfg["iterations"] + n)
    if not np.isfinite(log_rows[-1][1]):
        break
print(f"\n'train' took {time.time() - tic:.6f} s\n")
final = log_rows[-1]
print(f"Final l2_error: {final[-1]:.4e}")
torch.save(net.state_dict(), CKPT)

np.savetxt("loss.dat", np.array(log_rows), header="step, loss_train, loss_test, metrics_test")
np.savetxt("test.dat", np.hstack([x_test_np, y_test, y_pred]), header="x, y_true, y_pred")
