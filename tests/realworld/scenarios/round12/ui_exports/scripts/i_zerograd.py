import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
torch.manual_seed(17)
rng = np.random.default_rng(17)
N, D, K = 4000, 32, 8
W = rng.normal(0, 1, (D, K))
X = rng.normal(0, 1, (N, D))
y = (X @ W + rng.gumbel(0, 1.0, (N, K))).argmax(1)
X = torch.tensor(X, dtype=torch.float32); y = torch.tensor(y)
Xtr, ytr, Xva, yva = X[:3200], y[:3200], X[3200:], y[3200:]

model = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, K))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
crit = nn.CrossEntropyLoss()
writer = SummaryWriter("runs/mlp8_sgd")
step = 0
for epoch in range(10):
    model.train()
    perm = torch.randperm(3200)
    for i in range(0, 3200, 64):
        idx = perm[i:i + 64]
        loss = crit(model(Xtr[idx]), ytr[idx])
        loss.backward()
        gn = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
        opt.step()
        writer.add_scalar("loss", loss.item(), step)
        writer.add_scalar("grad_norm", gn.item(), step)
        step += 1
    model.eval()
    with torch.no_grad():
        out = model(Xva)
    writer.add_scalar("val_loss", crit(out, yva).item(), step)
    writer.add_scalar("val_acc", (out.argmax(1) == yva).float().mean().item(), step)
writer.close()
