import argparse
import math
import time
import torch
import torch.nn as nn

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=2000)
p.add_argument("--batch_size", type=int, default=32)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--T", type=int, default=1000)
p.add_argument("--beta_max", type=float, default=0.02)
p.add_argument("--log_every", type=int, default=25)
p.add_argument("--seed", type=int, default=0)
args = p.parse_args()
torch.manual_seed(args.seed)
torch.set_num_threads(1)


def two_moons(n, noise=0.05):
    m = n // 2
    a, b = torch.rand(m) * math.pi, torch.rand(n - m) * math.pi
    x = torch.cat([torch.stack([torch.cos(a), torch.sin(a)], 1),
                   torch.stack([1 - torch.cos(b), 0.5 - torch.sin(b)], 1)])
    x = x + noise * torch.randn(n, 2)
    return (x - torch.tensor([0.5, 0.25])) * 2


# VP forward process, linear beta schedule
betas = torch.linspace(0, args.beta_max, args.T)
alphas_bar = torch.cumprod(1 - betas, 0)
sigmas = torch.sqrt(1 - alphas_bar)


class ScoreNet(nn.Module):
    def __init__(self, h=128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, h), nn.SiLU(), nn.Linear(h, h), nn.SiLU(),
                                 nn.Linear(h, h), nn.SiLU(), nn.Linear(h, 2))

    def forward(self, x, t):
        return self.net(torch.cat([x, (t.float() / args.T).unsqueeze(1)], 1))


model = ScoreNet()
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
print(vars(args))
t0 = time.time()
for step in range(1, args.steps + 1):
    x0 = two_moons(args.batch_size)
    t = torch.randint(0, args.T, (args.batch_size,))
    noise = torch.randn_like(x0)
    a = alphas_bar[t].unsqueeze(1)
    s = sigmas[t].unsqueeze(1)
    xt = a.sqrt() * x0 + s * noise
    target = -noise / s                                  # grad_x log q(x_t | x_0)
    score = model(xt, t)
    loss = (s ** 2 * (score - target) ** 2).sum(1).mean()   # lambda(t) = sigma_t^2 weighting
    opt.zero_grad()
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1e6)
    opt.step()
    if step % args.log_every == 0 or step == 1:
        print(f"step {step} | loss {loss.item():.4f} | lr {opt.param_groups[0]['lr']:.1e} | grad_norm {gn.item():.3f} | {time.time() - t0:.1f}s")


@torch.no_grad()
def sample(n):
    x = torch.randn(n, 2)
    for i in reversed(range(1, args.T)):
        tt = torch.full((n,), i)
        x = (x + betas[i] * model(x, tt)) / torch.sqrt(1 - betas[i]) + torch.sqrt(betas[i]) * torch.randn_like(x)
    return x


xs = sample(1000)
ref = two_moons(1000)
print("samples: mean (%.3f, %.3f) std (%.3f, %.3f) | data: mean (%.3f, %.3f) std (%.3f, %.3f)"
      % (*xs.mean(0).tolist(), *xs.std(0).tolist(), *ref.mean(0).tolist(), *ref.std(0).tolist()))
dirs = torch.nn.functional.normalize(torch.randn(16, 2), dim=1)
sw = torch.stack([(torch.sort(xs @ v)[0] - torch.sort(ref @ v)[0]).abs().mean() for v in dirs]).mean()
print(f"sliced W1 to data: {sw.item():.4f}")
torch.save(model.state_dict(), "score_moons.pt")
