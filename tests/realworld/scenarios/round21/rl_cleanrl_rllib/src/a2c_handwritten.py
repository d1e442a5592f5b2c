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

#@ENV@


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

@BACKWARD@
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
