import math
import time
import yaml
import torch
import torch.nn as nn

cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
torch.set_num_threads(1)


def sample_ring(n, radius=2.0, std=0.05, modes=8):
    k = torch.randint(0, modes, (n,))
    a = k.float() * 2 * math.pi / modes
    return torch.stack([radius * torch.cos(a), radius * torch.sin(a)], 1) + std * torch.randn(n, 2)


T = cfg["diffusion"]["timesteps"]
betas = torch.linspace(cfg["diffusion"]["beta_start"], cfg["diffusion"]["beta_end"], T)
alphas_bar = torch.cumprod(1 - betas, 0)


class Denoiser(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.t_emb = nn.Embedding(T, hidden)
        self.inp = nn.Linear(2, hidden)
        self.body = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(),
                                  nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 2))

    def forward(self, x, t):
        return self.body(self.inp(x) + self.t_emb(t))


model = Denoiser(cfg["model"]["hidden"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
bs = cfg["train"]["batch_size"]
log_every = cfg["train"]["log_every"]

print(f"params: {sum(p.numel() for p in model.parameters())}")
t0 = time.time()
running, gmax = 0.0, 0.0
for step in range(cfg["train"]["steps"] + 1):
    x0 = sample_ring(bs)
    t = torch.randint(0, T, (bs,))
    eps = torch.randn_like(x0)
    ab = alphas_bar[t].unsqueeze(1)
    xt = ab.sqrt() * x0 + (1 - ab).sqrt() * eps
    loss = ((model(xt, t) - eps) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
    opt.step()
    running += loss.item()
    gmax = max(gmax, gn)
    if step % log_every == 0:
        n = log_every if step else 1
        print(f"step {step:5d} | loss {running / n:.4f} | lr {opt.param_groups[0]['lr']:.1e} | grad_norm {gmax:.3f} | {time.time() - t0:.1f}s")
        running, gmax = 0.0, 0.0


@torch.no_grad()
def sample(n):
    x = torch.randn(n, 2)
    for i in reversed(range(T)):
        e = model(x, torch.full((n,), i))
        x = (x - betas[i] / (1 - alphas_bar[i]).sqrt() * e) / (1 - betas[i]).sqrt()
        if i > 0:
            x = x + betas[i].sqrt() * torch.randn_like(x)
    return x


s = sample(2000)
ang = torch.arange(8) * 2 * math.pi / 8
centers = torch.stack([2 * torch.cos(ang), 2 * torch.sin(ang)], 1)
d = torch.cdist(s, centers).min(1)
good = d.values < 0.15
counts = torch.bincount(d.indices[good], minlength=8)
print(f"eval: n=2000 on_mode={good.float().mean().item() * 100:.1f}% modes_covered={(counts >= 20).sum().item()}/8 "
      f"mean_dist_to_nearest_mode={d.values.mean().item():.3f}")
torch.save(model.state_dict(), "ckpt_final.pt")
