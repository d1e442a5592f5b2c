import numpy as np
import torch
import torch.nn as nn
import wandb

torch.set_num_threads(1)
torch.manual_seed(31)
rng = np.random.default_rng(31)

def rings(n):
    r = rng.integers(0, 4, n)
    rad = 0.5 + r + rng.normal(0, 0.15, n)
    a = rng.uniform(0, 2 * np.pi, n)
    X = np.c_[rad * np.cos(a), rad * np.sin(a), rng.normal(0, 1, (n, 6))]
    return torch.tensor(X, dtype=torch.float32), torch.tensor(r)

Xtr, ytr = rings(3000)
Xva, yva = rings(600)

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                                     nn.Linear(128, 32), nn.ReLU())
        self.head = nn.Linear(32, 4)
    def forward(self, x):
        return self.head(self.encoder(x))

cfg = dict(lr=3e-3, epochs=30, warmup_head_epochs=3, bs=100)
wandb.init(project="rings", name="enc-head-warmup", config=cfg)
model = Model()
# train the head alone first, then the whole model
for p in model.encoder.parameters():
    p.requires_grad = False
opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=cfg["lr"])
crit = nn.CrossEntropyLoss()

def norm(params, grad=False):
    vals = [(p.grad if grad else p) for p in params]
    vals = [v for v in vals if v is not None]
    return torch.sqrt(sum((v ** 2).sum() for v in vals)).item() if vals else 0.0

step = 0
for epoch in range(cfg["epochs"]):
    if epoch == cfg["warmup_head_epochs"]:
        for p in model.encoder.parameters():
            p.requires_grad = True
    model.train()
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), cfg["bs"]):
        idx = perm[i:i + cfg["bs"]]
        out = model(Xtr[idx]); loss = crit(out, ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 5 == 0:
            wandb.log({"train/loss": loss.item(),
                       "grad_norm/encoder": norm(model.encoder.parameters(), grad=True),
                       "grad_norm/head": norm(model.head.parameters(), grad=True),
                       "param_norm/encoder": norm(model.encoder.parameters())}, step=step)
        step += 1
    model.eval()
    with torch.no_grad():
        out = model(Xva)
    wandb.log({"val/loss": crit(out, yva).item(), "val/acc": (out.argmax(1) == yva).float().mean().item()}, step=step)
wandb.finish()
