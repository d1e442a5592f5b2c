import argparse
import json
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

p = argparse.ArgumentParser()
p.add_argument("--seed", type=int, default=11)
p.add_argument("--updates", type=int, default=40)
p.add_argument("--rollout", type=int, default=1024)
p.add_argument("--envs", type=int, default=8)
p.add_argument("--epochs", type=int, default=4)
p.add_argument("--minibatch", type=int, default=256)
p.add_argument("--lr", type=float, default=0.001)
p.add_argument("--momentum", type=float, default=0.9)
p.add_argument("--gamma", type=float, default=0.99)
p.add_argument("--lam", type=float, default=0.95)
p.add_argument("--clip", type=float, default=0.2)
p.add_argument("--vf_coef", type=float, default=1.0)
p.add_argument("--ent_coef", type=float, default=0.0)
p.add_argument("--reward_scale", type=float, default=25.0)
args = p.parse_args()

class CartPoleLite:
    """Vectorised cart-pole (classic-control equations), 200 step time limit."""

    def __init__(self, num_envs, seed=0, max_steps=200):
        self.num_envs = num_envs
        self.max_steps = max_steps
        self.rng = np.random.default_rng(seed)
        self.obs_dim = 4
        self.n_actions = 2
        self.state = self.rng.uniform(-0.05, 0.05, size=(num_envs, 4))
        self.t = np.zeros(num_envs, dtype=np.int64)
        self.ep_ret = np.zeros(num_envs)
        self.ep_len = np.zeros(num_envs, dtype=np.int64)

    def reset(self):
        return self.state.astype(np.float32)

    def step(self, actions):
        x, x_dot, th, th_dot = self.state.T
        force = np.where(np.asarray(actions) == 1, 10.0, -10.0)
        cos, sin = np.cos(th), np.sin(th)
        temp = (force + 0.05 * th_dot ** 2 * sin) / 1.1
        th_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * th_acc * cos / 1.1
        x = x + 0.02 * x_dot
        x_dot = x_dot + 0.02 * x_acc
        th = th + 0.02 * th_dot
        th_dot = th_dot + 0.02 * th_acc
        self.state = np.stack([x, x_dot, th, th_dot], axis=1)
        self.t += 1
        reward = np.ones(self.num_envs)
        terminated = (np.abs(x) > 2.4) | (np.abs(th) > 0.2095)
        truncated = (self.t >= self.max_steps) & ~terminated
        self.ep_ret += reward
        self.ep_len += 1
        done = terminated | truncated
        info = {"episode": []}
        for i in np.nonzero(done)[0]:
            info["episode"].append({"r": float(self.ep_ret[i]), "l": int(self.ep_len[i])})
            self.state[i] = self.rng.uniform(-0.05, 0.05, size=4)
            self.t[i] = 0
            self.ep_ret[i] = 0.0
            self.ep_len[i] = 0
        return self.state.astype(np.float32), reward.astype(np.float32), terminated, truncated, info


class Net(nn.Module):
    def __init__(self, obs_dim, n_act):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU())
        self.pi = nn.Linear(128, n_act)
        self.v = nn.Linear(128, 1)

    def forward(self, x):
        h = self.body(x)
        return self.pi(h), self.v(h).squeeze(-1)


torch.set_num_threads(1)
torch.manual_seed(args.seed)
np.random.seed(args.seed)
env = CartPoleLite(args.envs, seed=args.seed)
net = Net(env.obs_dim, env.n_actions)
opt = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=args.momentum)
tb = SummaryWriter("tb")
print(json.dumps(vars(args)))

T = args.rollout // args.envs
obs = torch.tensor(env.reset())
ep_returns = []
step = 0
n_opt_steps = 0
t0 = time.time()
for upd in range(1, args.updates + 1):
    O, A, LP, R, D, V = [], [], [], [], [], []
    with torch.no_grad():
        for t in range(T):
            logits, v = net(obs)
            dist = torch.distributions.Categorical(logits=logits)
            a = dist.sample()
            nobs, r, term, trunc, info = env.step(a.numpy())
            O.append(obs); A.append(a); LP.append(dist.log_prob(a)); V.append(v)
            R.append(torch.tensor(r) * args.reward_scale); D.append(torch.tensor(term | trunc, dtype=torch.float32))
            ep_returns += [e["r"] for e in info["episode"]]
            obs = torch.tensor(nobs)
            step += args.envs
        _, last_v = net(obs)
    adv = torch.zeros(T, args.envs)
    gae = torch.zeros(args.envs)
    for t in reversed(range(T)):
        nv = last_v if t == T - 1 else V[t + 1]
        delta = R[t] + args.gamma * nv * (1 - D[t]) - V[t]
        gae = delta + args.gamma * args.lam * (1 - D[t]) * gae
        adv[t] = gae
    V = torch.stack(V)
    ret = (adv + V).flatten()
    O = torch.stack(O).flatten(0, 1); A = torch.stack(A).flatten(); LP = torch.stack(LP).flatten()
    adv = adv.flatten()
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)

    pl, vl, en, gn = [], [], [], []
    for _ in range(args.epochs):
        perm = torch.randperm(len(O))
        for i in range(0, len(O), args.minibatch):
            idx = perm[i:i + args.minibatch]
            logits, v = net(O[idx])
            dist = torch.distributions.Categorical(logits=logits)
            ratio = torch.exp(dist.log_prob(A[idx]) - LP[idx])
            pg = -torch.min(ratio * adv[idx], torch.clamp(ratio, 1 - args.clip, 1 + args.clip) * adv[idx]).mean()
            v_loss = ((v - ret[idx]) ** 2).mean()
            ent = dist.entropy().mean()
            loss = pg + args.vf_coef * v_loss - args.ent_coef * ent
            opt.zero_grad()
            loss.backward()
            g = torch.norm(torch.stack([q.grad.norm() for q in net.parameters()]))
            opt.step()
            pl.append(pg.item()); vl.append(v_loss.item()); en.append(ent.item()); gn.append(g.item())
            n_opt_steps += 1
            tb.add_scalar("grad/global_norm_step", g.item(), n_opt_steps)
            tb.add_scalar("loss/value_step", v_loss.item(), n_opt_steps)

    mean_ret = float(np.mean(ep_returns[-20:])) if ep_returns else float("nan")
    tb.add_scalar("train/mean_return", mean_ret, step)
    tb.add_scalar("loss/policy", np.mean(pl), step)
    tb.add_scalar("loss/value", np.mean(vl), step)
    tb.add_scalar("loss/entropy", np.mean(en), step)
    tb.add_scalar("grad/global_norm", np.mean(gn), step)
    tb.add_scalar("grad/global_norm_max", np.max(gn), step)
    print(f"[{upd:03d}] steps={step} return={mean_ret:.1f} pg={np.mean(pl):.4f} vf={np.mean(vl):.4g} "
          f"ent={np.mean(en):.3f} gnorm={np.mean(gn):.4g} (max {np.max(gn):.4g}) t={time.time()-t0:.0f}s", flush=True)
tb.close()
torch.save(net.state_dict(), "ppo_cartpole.pt")
