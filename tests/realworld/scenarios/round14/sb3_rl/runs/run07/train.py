# REINFORCE with a learned baseline on CartPole (numpy re-implementation of CartPole-v1 physics)
import argparse
import math
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions import Categorical


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=4)
    p.add_argument("--episodes", type=int, default=700)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--log-interval", type=int, default=10)
    return p.parse_args()


class CartPole:
    """CartPole-v1: same constants, termination and 500-step limit as gym."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, 4)
        self.t = 0
        return self.state.astype(np.float32)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        costheta, sintheta = math.cos(theta), math.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sintheta) / 1.1
        thetaacc = (9.8 * sintheta - costheta * temp) / (0.5 * (4.0 / 3.0 - 0.1 * costheta ** 2 / 1.1))
        xacc = temp - 0.05 * thetaacc * costheta / 1.1
        x, x_dot = x + 0.02 * x_dot, x_dot + 0.02 * xacc
        theta, theta_dot = theta + 0.02 * theta_dot, theta_dot + 0.02 * thetaacc
        self.state = np.array([x, x_dot, theta, theta_dot])
        self.t += 1
        terminated = abs(x) > 2.4 or abs(theta) > 12 * 2 * math.pi / 360
        truncated = self.t >= 500
        return self.state.astype(np.float32), 1.0, terminated, truncated


class Policy(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, hidden), nn.ReLU())
        self.action_head = nn.Linear(hidden, 2)
        self.value_head = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return self.action_head(h), self.value_head(h).squeeze(-1)


if __name__ == "__main__":
    args = parse_args()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    env = CartPole(args.seed)
    policy = Policy(args.hidden)
    optimizer = optim.Adam(policy.parameters(), lr=args.lr)
    eps = np.finfo(np.float32).eps.item()

    global_step = 0
    running_reward = 10.0
    start_time = time.time()
    for episode in range(1, args.episodes + 1):
        obs = env.reset()
        observations, actions, rewards = [], [], []
        while True:
            with torch.no_grad():
                logits, _ = policy(torch.as_tensor(obs))
            action = Categorical(logits=logits).sample().item()
            observations.append(obs)
            actions.append(action)
            obs, reward, terminated, truncated = env.step(action)
            rewards.append(reward)
            global_step += 1
            if terminated or truncated:
                break
        ep_return = sum(rewards)
        print(f"global_step={global_step}, episodic_return={ep_return}")

        returns, R = [], 0.0
        for r in reversed(rewards):
            R = r + args.gamma * R
            returns.insert(0, R)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        logits, values = policy(torch.as_tensor(np.array(observations)))
        log_probs = Categorical(logits=logits).log_prob(torch.as_tensor(actions))
        advantage = returns - values.detach()
        policy_loss = -(log_probs * advantage).sum()
        value_loss = nn.functional.smooth_l1_loss(values, returns, reduction="sum")
        optimizer.zero_grad()
        (policy_loss + value_loss).backward()
        optimizer.step()

        running_reward = 0.05 * ep_return + 0.95 * running_reward
        if episode % args.log_interval == 0:
            print(f"Episode {episode}\tLast reward: {ep_return:.2f}\tAverage reward: {running_reward:.2f}\t"
                  f"policy_loss: {policy_loss.item():.3f}\tvalue_loss: {value_loss.item():.3f}\t"
                  f"SPS: {int(global_step / (time.time() - start_time))}")
