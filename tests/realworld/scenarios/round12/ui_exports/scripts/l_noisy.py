import numpy as np
import torch
import torch.nn as nn
import wandb

torch.set_num_threads(1)
torch.manual_seed(9)
rng = np.random.default_rng(9)

def moons(n, noise=0.3):
    t = rng.uniform(0, np.pi, n); c = rng.integers(0, 2, n)
    X = np.where(c[:, None] == 0, np.c_[np.cos(t), np.sin(t)], np.c_[1 - np.cos(t), 0.5 - np.sin(t)])
    X = X + rng.normal(0, noise, (n, 2))
    return torch.tensor(X, dtype=torch.float32), torch.tensor(c)

Xtr, ytr = moons(1000)
Xva, yva = moons(500)
config = {"lr": 0.01, "batch_size": 8, "epochs": 40, "hidden": 16}
run = wandb.init(project="moons", name="tiny-mlp-bs8", config=config)
model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=config["lr"])
crit = nn.CrossEntropyLoss()
step = 0
for epoch in range(config["epochs"]):
    model.train()
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), config["batch_size"]):
        idx = perm[i:i + config["batch_size"]]
        loss = crit(model(Xtr[idx]), ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 25 == 0:
            wandb.log({"train/loss": loss.item()}, step=step)
        step += 1
    model.eval()
    with torch.no_grad():
        out = model(Xva)
    wandb.log({"val/loss": crit(out, yva).item(), "val/accuracy": (out.argmax(1) == yva).float().mean().item(),
               "epoch": epoch}, step=step)
wandb.finish()
