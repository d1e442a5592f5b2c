"""Actor-critic for a 1-D reach task: push a cart left/right so it ends up on a random target."""
import argparse
import random
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--exp-name", type=str, default="a2c_reach")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--total-timesteps", type=int, default=600000)
    p.add_argument("--num-envs", type=int, default=4)
    p.add_argument("--num-steps", type=int, default=128)
    p.add_argument("--learning-rate", type=float, default=3e-3)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--ent-coef", type=float, default=0.001)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--log-every", type=int, default=1)
    p.add_argument("--logdir", type=str, default="runs")
    return p.parse_args()


class ReachEnvs:
    """Cart on a rail [-1, 1]; obs = (position, target, velocity); action 0 = push left, 1 = push right.
    reward = -|position - target| each step; episodes last 40-80 steps."""

    def __init__(self, n, seed):
        self.n = n
        self.rng = np.random.default_rng(seed)

    def _new(self, idx):
        self.pos[idx] = self.rng.uniform(-1, 1, len(idx))
        self.target[idx] = self.rng.uniform(-1, 1, len(idx))
        self.vel[idx] = 0.0
        self.limit[idx] = self.rng.integers(40, 81, len(idx))
        self.t[idx], self.ret[idx] = 0, 0.0

    def _obs(self):
        return np.stack([self.pos, self.target, self.vel], 1).astype(np.float32)

    def reset(self):
        self.pos, self.target, self.vel = np.zeros(self.n), np.zeros(self.n), np.zeros(self.n)
        self.limit, self.t, self.ret = np.zeros(self.n, np.int64), np.zeros(self.n, np.int64), np.zeros(self.n)
        self._new(np.arange(self.n))
        return self._obs()

    def step(self, action):
        force = np.where(action == 1, 1.0, -1.0)
        self.vel = 0.8 * self.vel + 0.05 * force
        self.pos = np.clip(self.pos + self.vel, -1, 1)
        self.t += 1
        reward = -np.abs(self.pos - self.target)
        self.ret += reward
        done = self.t >= self.limit
        infos = [{"env": i, "episode": {"r": float(self.ret[i]), "l": int(self.t[i])}} for i in np.nonzero(done)[0]]
        if done.any():
            self._new(np.nonzero(done)[0])
        return self._obs(), reward.astype(np.float32), done, infos


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(3, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
        self.critic = nn.Sequential(nn.Linear(3, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))

    def policy(self, x):
        # probability of pushing right
        return torch.sigmoid(self.actor(x)).squeeze(-1)

    def evaluate(self, x, action):
        p = self.policy(x)
        log_prob = action * torch.log(p) + (1 - action) * torch.log(1 - p)
        entropy = -(p * torch.log(p) + (1 - p) * torch.log(1 - p))
        return log_prob, entropy, self.critic(x).squeeze(-1)


if __name__ == "__main__":
    args = parse_args()
    run_name = f"Reach1D__{args.exp_name}__{args.seed}__{int(time.time())}"
    writer = SummaryWriter(f"{args.logdir}/{run_name}")
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    envs = ReachEnvs(args.num_envs, args.seed)
    agent = Agent()
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate)

    obs = envs.reset()
    global_step = 0
    start_time = time.time()
    num_updates = args.total_timesteps // (args.num_envs * args.num_steps)
    for update in range(1, num_updates + 1):
        b_obs, b_actions, b_rewards, b_dones = [], [], [], []
        for _ in range(args.num_steps):
            with torch.no_grad():
                p = agent.policy(torch.as_tensor(obs))
            action = torch.bernoulli(p)
            next_obs, reward, done, infos = envs.step(action.numpy())
            global_step += args.num_envs
            b_obs.append(obs)
            b_actions.append(action.numpy())
            b_rewards.append(reward)
            b_dones.append(done)
            for info in infos:
                writer.add_scalar("charts/episodic_return", info["episode"]["r"], global_step)
                writer.add_scalar("charts/episodic_length", info["episode"]["l"], global_step)
                if info["env"] == 0:
                    print(f"global_step={global_step}, episodic_return={info['episode']['r']:.3f}")
            obs = next_obs

        with torch.no_grad():
            next_value = agent.critic(torch.as_tensor(obs)).squeeze(-1).numpy()
        returns = np.zeros((args.num_steps, args.num_envs), np.float32)
        R = next_value
        for t in reversed(range(args.num_steps)):
            R = b_rewards[t] + args.gamma * R * (1.0 - b_dones[t])
            returns[t] = R

        x = torch.as_tensor(np.array(b_obs)).reshape(-1, 3)
        a = torch.as_tensor(np.array(b_actions)).reshape(-1)
        ret = torch.as_tensor(returns).reshape(-1)
        log_prob, entropy, value = agent.evaluate(x, a)
        advantage = ret - value.detach()
        policy_loss = -(log_prob * advantage).mean()
        value_loss = 0.5 * (ret - value).pow(2).mean()
        entropy = entropy.mean()
        loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if update % args.log_every == 0:
            sps = int(global_step / (time.time() - start_time))
            print(f"update={update} global_step={global_step} loss={loss.item():.4f} policy_loss={policy_loss.item():.4f} "
                  f"value_loss={value_loss.item():.4f} entropy={entropy.item():.4f} SPS={sps}")
            writer.add_scalar("losses/policy_loss", policy_loss.item(), global_step)
            writer.add_scalar("losses/value_loss", value_loss.item(), global_step)
            writer.add_scalar("losses/entropy", entropy.item(), global_step)
            writer.add_scalar("charts/SPS", sps, global_step)
    writer.close()
