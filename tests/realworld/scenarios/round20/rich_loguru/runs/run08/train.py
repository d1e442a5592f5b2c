import math

import numpy as np
import structlog
import torch
import torch.nn as nn

torch.set_num_threads(1)
structlog.configure(processors=[
    structlog.processors.add_log_level,
    structlog.processors.TimeStamper(fmt="iso"),
    structlog.processors.JSONRenderer(),
])
log = structlog.get_logger()

SEED = 2024
torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)


def two_moons(n, noise):
    t = rng.uniform(0, math.pi, n)
    lab = rng.integers(0, 2, n)
    x = np.where(lab == 0, np.cos(t), 1 - np.cos(t))
    y = np.where(lab == 0, np.sin(t), 0.5 - np.sin(t))
    X = np.stack([x, y], 1) + rng.normal(0, noise, (n, 2))
    return torch.tensor(X, dtype=torch.float32), torch.tensor(lab)


Xtr, ytr = two_moons(1600, 0.35)
Xva, yva = two_moons(800, 0.35)
mu, sd = Xtr.mean(0), Xtr.std(0)
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd

model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.02)
loss_fn = nn.CrossEntropyLoss()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr), batch_size=8, shuffle=True)
log.info("start", model="mlp-2x32-tanh", optimizer="sgd", lr=0.02, batch_size=8, epochs=40,
         n_train=len(Xtr), n_val=len(Xva))

step = 0
for epoch in range(40):
    model.train()
    window = []
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        step += 1
        window.append(loss.item())
        if step % 100 == 0:
            log.info("train", step=step, epoch=epoch, loss=round(loss.item(), 4),
                     loss_avg100=round(sum(window) / len(window), 4))
            window = []
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        val_loss = loss_fn(out, yva).item()
        val_acc = (out.argmax(1) == yva).float().mean().item()
    log.info("eval", step=step, epoch=epoch, val_loss=round(val_loss, 4), val_acc=round(val_acc, 4))

torch.save(model.state_dict(), "moons_mlp.pt")
log.info("saved", path="moons_mlp.pt", step=step)
