"""Advantage actor-critic on CartPole (n-step returns, synchronous envs, numpy CartPole-v1 physics)."""
import math
import argparse
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--exp-name", type=str, default="a2c")
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--total-timesteps", type=int, default=120000)
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--num-steps", type=int, default=5)
    p.add_argument("--learning-rate", type=float, default=7e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--ent-coef", type=float, default=0.0)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--log-every", type=int, default=100)
    p.add_argument("--logdir", type=str, default="runs")
    return p.parse_args()


class CartPoleEnvs:
    """n CartPole-v1 copies (same physics / limits as gym), auto-reset, returns finished episodes."""

    def __init__(self, n, seed):
        self.n = n
        self.rng = np.random.default_rng(seed)
        self.single_observation_shape = (4,)
        self.n_actions = 2

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, (self.n, 4))
        self.steps = np.zeros(self.n, dtype=np.int64)
        self.returns = np.zeros(self.n)
        return self.state.astype(np.float32)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state.T
        force = np.where(action == 1, 10.0, -10.0)
        costheta, sintheta = np.cos(theta), np.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sintheta) / 1.1
        thetaacc = (9.8 * sintheta - costheta * temp) / (0.5 * (4.0 / 3.0 - 0.1 * costheta ** 2 / 1.1))
        xacc = temp - 0.05 * thetaacc * costheta / 1.1
        x, x_dot = x + 0.02 * x_dot, x_dot + 0.02 * xacc
        theta, theta_dot = theta + 0.02 * theta_dot, theta_dot + 0.02 * thetaacc
        self.state = np.stack([x, x_dot, theta, theta_dot], 1)
        self.steps += 1
        reward = np.ones(self.n, dtype=np.float32)
        self.returns += reward
        done = (np.abs(x) > 2.4) | (np.abs(theta) > 12 * 2 * math.pi / 360) | (self.steps >= 500)
        episodes = []
        for i in np.nonzero(done)[0]:
            episodes.append({"episode": {"r": float(self.returns[i]), "l": int(self.steps[i])}})
            self.state[i] = self.rng.uniform(-0.05, 0.05, 4)
            self.steps[i], self.returns[i] = 0, 0.0
        return self.state.astype(np.float32), reward, done, episodes


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return self.pi(h), self.v(h).squeeze(-1)


if __name__ == "__main__":
    args = parse_args()
    run_name = f"CartPole-v1__{args.exp_name}__{args.seed}__{int(time.time())}"
    writer = SummaryWriter(f"{args.logdir}/{run_name}")
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    envs = CartPoleEnvs(args.num_envs, args.seed)
    model = ActorCritic(4, envs.n_actions)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate)

    obs = torch.as_tensor(envs.reset())
    global_step = 0
    start_time = time.time()
    num_updates = args.total_timesteps // (args.num_envs * args.num_steps)
    recent = []
    for update in range(1, num_updates + 1):
        log_probs, values, rewards, masks, entropies = [], [], [], [], []
        for _ in range(args.num_steps):
            logits, value = model(obs)
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            next_obs, reward, done, infos = envs.step(action.numpy())
            global_step += args.num_envs
            log_probs.append(dist.log_prob(action))
            entropies.append(dist.entropy())
            values.append(value)
            rewards.append(torch.as_tensor(reward))
            masks.append(torch.as_tensor(1.0 - done.astype(np.float32)))
            for info in infos:
                print(f"global_step={global_step}, episodic_return={info['episode']['r']}")
                writer.add_scalar("charts/episodic_return", info["episode"]["r"], global_step)
                writer.add_scalar("charts/episodic_length", info["episode"]["l"], global_step)
                recent.append(info["episode"]["r"])
            obs = torch.as_tensor(next_obs)

        with torch.no_grad():
            _, next_value = model(obs)
        returns = []
        R = next_value
        for step in reversed(range(args.num_steps)):
            R = rewards[step] + args.gamma * R * masks[step]
            returns.insert(0, R)
        returns = torch.stack(returns)
        values = torch.stack(values)
        log_probs = torch.stack(log_probs)
        advantages = returns - values

        policy_loss = -(log_probs * advantages.detach()).mean()
        value_loss = advantages.pow(2).mean()
        entropy = torch.stack(entropies).mean()
        loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy

        loss.backward()
        grad_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()]))
        optimizer.step()

        if update % args.log_every == 0:
            sps = int(global_step / (time.time() - start_time))
            mean_ret = np.mean(recent[-100:]) if recent else float("nan")
            print(f"update {update}/{num_updates} | step {global_step} | mean_return(100) {mean_ret:.1f} | "
                  f"policy_loss {policy_loss.item():.4f} | value_loss {value_loss.item():.4f} | "
                  f"entropy {entropy.item():.4f} | grad_norm {grad_norm.item():.4f}")
            print("SPS:", sps)
            writer.add_scalar("losses/policy_loss", policy_loss.item(), global_step)
            writer.add_scalar("losses/value_loss", value_loss.item(), global_step)
            writer.add_scalar("losses/entropy", entropy.item(), global_step)
            writer.add_scalar("losses/grad_norm", grad_norm.item(), global_step)
            writer.add_scalar("charts/SPS", sps, global_step)
    writer.close()
