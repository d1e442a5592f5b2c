import math
import time
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
torch.set_num_threads(1)

#%DIGITS%

#%EVAL%

T = cfg["diffusion"]["timesteps"]
betas = torch.linspace(cfg["diffusion"]["beta_start"], cfg["diffusion"]["beta_end"], T)
alphas = 1 - betas
alphas_bar = torch.cumprod(alphas, 0)


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half) / half)
    a = t.float()[:, None] * freqs[None]
    return torch.cat([torch.sin(a), torch.cos(a)], 1)


class MLPDenoiser(nn.Module):
    def __init__(self, h, temb=64):
        super().__init__()
        self.temb = temb
        self.t_mlp = nn.Sequential(nn.Linear(temb, h), nn.SiLU(), nn.Linear(h, h))
        self.inp = nn.Linear(64, h)
        self.blocks = nn.ModuleList([nn.Sequential(nn.LayerNorm(h), nn.Linear(h, h), nn.SiLU(), nn.Linear(h, h)) for _ in range(3)])
        self.out = nn.Sequential(nn.LayerNorm(h), nn.Linear(h, 64))

    def forward(self, x, t):
        h = self.inp(x) + self.t_mlp(timestep_embedding(t, self.temb))
        for b in self.blocks:
            h = h + b(h)
        return self.out(h)


X, y = make_digits(cfg["data"]["n"], seed=cfg["data"]["seed"])
X = torch.tensor(X).view(-1, 64)
y = torch.tensor(y)
scorer = train_scorer(X, y)
n_val = cfg["data"]["n_val"]
x_train, x_val = X[n_val:] * 2 - 1, X[:n_val] * 2 - 1
loader = torch.utils.data.DataLoader(x_train, batch_size=cfg["train"]["batch_size"], shuffle=True, drop_last=True)

model = MLPDenoiser(cfg["model"]["hidden"])
opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=cfg["optim"]["lr_step_epochs"], gamma=cfg["optim"]["lr_gamma"])


def diffusion_loss(x0):
    t = torch.randint(0, T, (x0.size(0),))
    eps = torch.randn_like(x0)
    ab = alphas_bar[t][:, None]
    return F.mse_loss(model(ab.sqrt() * x0 + (1 - ab).sqrt() * eps, t), eps)


print(f"train {len(x_train)} val {len(x_val)} | {len(loader)} steps/epoch | params {sum(p.numel() for p in model.parameters()) / 1e3:.1f}k")
step = 0
t0 = time.time()
for epoch in range(1, cfg["train"]["epochs"] + 1):
    for x0 in loader:
        loss = diffusion_loss(x0)
        opt.zero_grad()
        loss.backward()
        gn = nn.utils.clip_grad_norm_(model.parameters(), cfg["optim"]["grad_clip"])
        opt.step()
        sched.step()
        step += 1
        if step % cfg["train"]["log_every"] == 0:
            print(f"step {step} | loss {loss.item():.4f} | lr {opt.param_groups[0]['lr']:.2e} | grad_norm {gn.item():.3f}")
    if epoch % cfg["train"]["val_every"] == 0:
        g = torch.Generator().manual_seed(0)
        with torch.no_grad():
            t = torch.randint(0, T, (len(x_val),), generator=g)
            eps = torch.randn(x_val.shape, generator=g)
            ab = alphas_bar[t][:, None]
            vl = F.mse_loss(model(ab.sqrt() * x_val + (1 - ab).sqrt() * eps, t), eps).item()
        print(f"== epoch {epoch} | val_loss {vl:.4f} | {time.time() - t0:.0f}s")


@torch.no_grad()
def ddpm_sample(n):
    x = torch.randn(n, 64)
    for i in reversed(range(T)):
        e = model(x, torch.full((n,), i))
        x = (x - betas[i] / (1 - alphas_bar[i]).sqrt() * e) / alphas[i].sqrt()
        if i > 0:
            x = x + betas[i].sqrt() * torch.randn_like(x)
    return x


samples = ((ddpm_sample(1000) + 1) / 2).clamp(0, 1)
n_cls, hist, fd = score_samples(scorer, samples, X[:1000])
print(f"eval: distinct_classes {n_cls}/10 | fd {fd:.2f} | class_hist {hist}")
torch.save(model.state_dict(), "ddpm_digits.pt")
