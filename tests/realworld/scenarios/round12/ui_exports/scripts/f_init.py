import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
torch.manual_seed(21)
rng = np.random.default_rng(21)

def spirals(n, k=3):
    t = rng.uniform(0.2, 1, n); c = rng.integers(0, k, n)
    a = 6 * t + 2 * np.pi * c / k
    X = np.c_[t * np.cos(a), t * np.sin(a)] + rng.normal(0, 0.06, (n, 2))
    return torch.tensor(X, dtype=torch.float32), torch.tensor(c)

Xtr, ytr = spirals(3000)
Xva, yva = spirals(600)

class DeepMLP(nn.Module):
    def __init__(self, width=256, depth=6):
        super().__init__()
        layers = [nn.Linear(2, width)] + [nn.Linear(width, width) for _ in range(depth - 1)]
        self.layers = nn.ModuleList(layers)
        self.out = nn.Linear(width, 3)
        self.apply(self.init_weights)
    def init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, mean=0.0, std=1.0)
            nn.init.zeros_(m.bias)
    def forward(self, x):
        for l in self.layers:
            x = F.relu(l(x))
        return self.out(x)

model = DeepMLP()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
writer = SummaryWriter("runs/spiral_deepmlp")
step = 0
for epoch in range(15):
    model.train()
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), 128):
        idx = perm[i:i + 128]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad(); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        opt.step()
        writer.add_scalar("train/loss", loss.item(), step)
        writer.add_scalar("train/grad_norm", gn.item(), step)
        step += 1
    model.eval()
    with torch.no_grad():
        out = model(Xva)
    writer.add_scalar("val/loss", F.cross_entropy(out, yva).item(), step)
    writer.add_scalar("val/acc", (out.argmax(1) == yva).float().mean().item(), step)
writer.close()
