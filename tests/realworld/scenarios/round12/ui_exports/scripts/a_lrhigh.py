import numpy as np
import torch
import torch.nn as nn
import wandb

torch.set_num_threads(1)
torch.manual_seed(7)
rng = np.random.default_rng(7)

# synthetic house-price style regression
N, D = 4000, 16
X = rng.normal(0, 1, (N, D))
w = rng.normal(0, 1, D)
y = X @ w + 0.8 * np.sin(2 * X[:, 0]) * X[:, 1] + 0.5 * X[:, 2] ** 2 + rng.normal(0, 0.5, N)
y = (y - y.mean()) / y.std()
X = torch.tensor(X, dtype=torch.float32)
y = torch.tensor(y, dtype=torch.float32).unsqueeze(1)
Xtr, ytr, Xva, yva = X[:3200], y[:3200], X[3200:], y[3200:]

cfg = dict(lr=0.2, momentum=0.9, batch_size=64, epochs=8, hidden=128)
run = wandb.init(project="price-reg", name="mlp-sgd-bs64", config=cfg)

model = nn.Sequential(nn.Linear(D, cfg["hidden"]), nn.Tanh(),
                      nn.Linear(cfg["hidden"], cfg["hidden"]), nn.Tanh(),
                      nn.Linear(cfg["hidden"], 1))
opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
loss_fn = nn.MSELoss()

step = 0
for epoch in range(cfg["epochs"]):
    model.train()
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), cfg["batch_size"]):
        idx = perm[i:i + cfg["batch_size"]]
        loss = loss_fn(model(Xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        gn = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
        opt.step()
        wandb.log({"train/loss": loss.item(), "train/grad_norm": gn.item(),
                   "train/lr": opt.param_groups[0]["lr"]}, step=step)
        step += 1
    model.eval()
    with torch.no_grad():
        vl = loss_fn(model(Xva), yva).item()
    wandb.log({"val/loss": vl, "epoch": epoch}, step=step - 1)
wandb.finish()
