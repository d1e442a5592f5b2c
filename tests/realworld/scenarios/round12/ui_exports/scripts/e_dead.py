import numpy as np
import torch
import torch.nn as nn
import wandb

torch.set_num_threads(1)
torch.manual_seed(7)
rng = np.random.default_rng(7)
N, D, K = 3000, 20, 5
centers = rng.normal(0, 0.55, (K, D))
y = rng.integers(0, K, N)
X = centers[y] + rng.normal(0, 1.0, (N, D))
X = (X - X.mean(0)) / X.std(0)
X = torch.tensor(X, dtype=torch.float32); y = torch.tensor(y)
Xtr, ytr, Xva, yva = X[:2400], y[:2400], X[2400:], y[2400:]

cfg = dict(lr=0.7, momentum=0.9, batch_size=64, epochs=12, hidden=256)
wandb.init(project="tab-clf", config=cfg)
l1, l2, l3 = nn.Linear(D, 256), nn.Linear(256, 256), nn.Linear(256, K)
model = nn.Sequential(l1, nn.ReLU(), l2, nn.ReLU(), l3)
opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
loss_fn = nn.CrossEntropyLoss()
step = 0
for epoch in range(cfg["epochs"]):
    model.train()
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), 64):
        idx = perm[i:i + 64]
        loss = loss_fn(model(Xtr[idx]), ytr[idx])
        opt.zero_grad(); loss.backward()
        gn = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
        opt.step()
        if step % 3 == 0:
            wandb.log({"train/loss": loss.item(), "train/grad_norm": gn.item()})
        step += 1
    model.eval()
    with torch.no_grad():
        h1 = torch.relu(l1(Xva)); h2 = torch.relu(l2(h1)); out = l3(h2)
        d1 = (h1.max(0).values == 0).float().mean().item()
        d2 = (h2.max(0).values == 0).float().mean().item()
    wandb.log({"val/loss": loss_fn(out, yva).item(), "val/acc": (out.argmax(1) == yva).float().mean().item(),
               "act/frac_inactive_fc1": d1, "act/frac_inactive_fc2": d2})
wandb.finish()
