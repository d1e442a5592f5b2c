"""Contextual bandit: decide whether to show the promo (action 1) or not (action 0) for each user.
Plain REINFORCE with a Bernoulli policy."""
import json
import time

import numpy as np
import torch
import torch.nn as nn

CONFIG = dict(
    seed=7,
    context_dim=8,
    hidden=64,
    batch_size=256,
    lr=0.0005,
    ent_coef=0.01,
    iterations=400,
    log_every=10,
)


class PromoBandit:
    def __init__(self, dim, seed):
        self.rng = np.random.default_rng(seed)
        self.w = self.rng.normal(size=dim)
        self.dim = dim

    def sample_users(self, n):
        return self.rng.normal(size=(n, self.dim)).astype(np.float32)

    def reward(self, ctx, action):
        should_show = (ctx @ self.w) > 0
        correct = (action == 1) == should_show
        return np.where(correct, 1.0, -1.0).astype(np.float32), should_show


class Policy(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        return torch.sigmoid(self.head(self.body(x))).squeeze(-1)


def main():
    torch.set_num_threads(1)
    cfg = CONFIG
    print(json.dumps(cfg))
    torch.manual_seed(cfg["seed"])
    env = PromoBandit(cfg["context_dim"], cfg["seed"])
    policy = Policy(cfg["context_dim"], cfg["hidden"])
    opt = torch.optim.Adam(policy.parameters(), lr=cfg["lr"])

    t0 = time.time()
    hist = []
    for it in range(1, cfg["iterations"] + 1):
        ctx = env.sample_users(cfg["batch_size"])
        p = policy(torch.from_numpy(ctx))
        a = (torch.rand_like(p) < p.detach()).float()
        r, should_show = env.reward(ctx, a.numpy().astype(int))
        r = torch.from_numpy(r)

        log_prob = a * torch.log(p) + (1 - a) * torch.log(1 - p)
        entropy = -(p * torch.log(p) + (1 - p) * torch.log(1 - p))
        loss = -(log_prob * r).mean() - cfg["ent_coef"] * entropy.mean()

        opt.zero_grad()
        loss.backward()
        opt.step()

        hist.append((r.mean().item(), loss.item(), entropy.mean().item(), ((p > 0.5).numpy() == should_show).mean()))
        if it % cfg["log_every"] == 0:
            h = np.array(hist)
            hist = []
            print(f"iter {it:5d} | mean_reward {h[:,0].mean():+.4f} | loss {h[:,1].mean():.5f} | "
                  f"entropy {h[:,2].mean():.4f} | greedy_acc {h[:,3].mean():.3f} | "
                  f"max_p {p.max().item():.6f} | {time.time()-t0:.1f}s", flush=True)
    torch.save(policy.state_dict(), "policy.pt")


if __name__ == "__main__":
    main()
