"""n-step advantage actor-critic on my numpy cart-pole."""
import csv
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 3
NUM_ENVS = 8
N_STEPS = 5
TOTAL_STEPS = 40_000
GAMMA = 0.99
LR = 7e-4
VALUE_COEF = 0.5
ENTROPY_COEF = 0.01
LOG_EVERY = 20  # updates

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


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh())
        self.pi = nn.Linear(64, n_actions)
        self.v = nn.Linear(64, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.pi(h), self.v(h).squeeze(-1)


def main():
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    np.random.seed(SEED)
    env = CartPoleLite(NUM_ENVS, seed=SEED)
    net = ActorCritic(env.obs_dim, env.n_actions)
    optimizer = torch.optim.RMSprop(net.parameters(), lr=LR, alpha=0.99, eps=1e-5)

    obs = torch.tensor(env.reset())
    recent_returns = []
    stats = []
    f = open("metrics.csv", "w", newline="")
    w = csv.writer(f)
    w.writerow(["update", "global_step", "mean_return_last20", "policy_loss", "value_loss", "entropy", "grad_norm"])
    t0 = time.time()
    global_step = 0
    n_updates = TOTAL_STEPS // (NUM_ENVS * N_STEPS)
    for update in range(1, n_updates + 1):
        logps, values, ents, rews, masks = [], [], [], [], []
        for _ in range(N_STEPS):
            logits, value = net(obs)
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            next_obs, reward, term, trunc, info = env.step(action.numpy())
            global_step += NUM_ENVS
            for ep in info["episode"]:
                recent_returns.append(ep["r"])
            logps.append(dist.log_prob(action))
            ents.append(dist.entropy())
            values.append(value)
            rews.append(torch.tensor(reward))
            masks.append(torch.tensor(1.0 - term.astype(np.float32)))
            obs = torch.tensor(next_obs)

        with torch.no_grad():
            _, next_value = net(obs)
        returns = []
        R = next_value
        for t in reversed(range(N_STEPS)):
            R = rews[t] + GAMMA * R * masks[t]
            returns.insert(0, R)
        returns = torch.stack(returns)
        values = torch.stack(values)
        logps = torch.stack(logps)
        adv = returns - values.detach()

        policy_loss = -(logps * adv).mean()
        value_loss = F.mse_loss(values, returns)
        entropy = torch.stack(ents).mean()
        loss = policy_loss + VALUE_COEF * value_loss - ENTROPY_COEF * entropy

        loss.backward()
        grad_norm = torch.norm(torch.stack([p.grad.norm() for p in net.parameters()]))
        optimizer.step()

        stats.append([policy_loss.item(), value_loss.item(), entropy.item(), grad_norm.item()])
        if update % LOG_EVERY == 0:
            s = np.mean(stats, axis=0)
            stats = []
            mr = np.mean(recent_returns[-20:]) if recent_returns else float("nan")
            w.writerow([update, global_step, f"{mr:.2f}", f"{s[0]:.5f}", f"{s[1]:.5f}", f"{s[2]:.5f}", f"{s[3]:.5f}"])
            print(f"upd {update:5d} step {global_step:6d} ret(last20) {mr:7.2f} pi_loss {s[0]:+.4f} "
                  f"v_loss {s[1]:.4f} ent {s[2]:.4f} grad_norm {s[3]:.3f} ({time.time()-t0:.0f}s)", flush=True)
    f.close()
    torch.save(net.state_dict(), "a2c_cartpole.pt")


if __name__ == "__main__":
    main()
