# DQN, based on cleanrl/dqn.py, running on my corridor env
import argparse
import os
import random
import time
from distutils.util import strtobool

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.tensorboard import SummaryWriter


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exp-name", type=str, default="dqn")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--torch-deterministic", type=lambda x: bool(strtobool(x)), default=True, nargs="?", const=True)
    parser.add_argument("--env-id", type=str, default="Corridor-v0")
    parser.add_argument("--total-timesteps", type=int, default=25000)
    parser.add_argument("--learning-rate", type=float, default=2.5e-4)
    parser.add_argument("--num-envs", type=int, default=1)
    parser.add_argument("--buffer-size", type=int, default=10000)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--tau", type=float, default=1.0)
    parser.add_argument("--target-network-frequency", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--start-e", type=float, default=1)
    parser.add_argument("--end-e", type=float, default=0.05)
    parser.add_argument("--exploration-fraction", type=float, default=0.5)
    parser.add_argument("--learning-starts", type=int, default=1000)
    parser.add_argument("--train-frequency", type=int, default=4)
    args = parser.parse_args()
    return args


class Corridor:
    """Vectorised 1-D corridor. Start in the left half, goal at the right end.
    Reward +1 at the goal, -0.01 per step; time limit 4 * length."""

    def __init__(self, num_envs, length=16, seed=0, slip=0.0):
        self.num_envs = num_envs
        self.length = length
        self.slip = slip
        self.max_steps = 4 * length
        self.rng = np.random.default_rng(seed)
        self.obs_dim = length
        self.n_actions = 2
        self.pos = self.rng.integers(0, length // 2, size=num_envs)
        self.t = np.zeros(num_envs, dtype=np.int64)
        self.ep_ret = np.zeros(num_envs)
        self.ep_len = np.zeros(num_envs, dtype=np.int64)

    def _obs(self):
        o = np.zeros((self.num_envs, self.length), dtype=np.float32)
        o[np.arange(self.num_envs), self.pos] = 1.0
        return o

    def reset(self):
        return self._obs()

    def step(self, actions):
        a = np.asarray(actions)
        move = np.where(a == 1, 1, -1)
        if self.slip > 0:
            flip = self.rng.random(self.num_envs) < self.slip
            move = np.where(flip, -move, move)
        self.pos = np.clip(self.pos + move, 0, self.length - 1)
        self.t += 1
        terminated = self.pos == self.length - 1
        reward = np.where(terminated, 1.0, -0.01)
        truncated = (self.t >= self.max_steps) & ~terminated
        self.ep_ret += reward
        self.ep_len += 1
        done = terminated | truncated
        info = {"episode": []}
        for i in np.nonzero(done)[0]:
            info["episode"].append({"r": float(self.ep_ret[i]), "l": int(self.ep_len[i])})
            self.pos[i] = self.rng.integers(0, self.length // 2)
            self.t[i] = 0
            self.ep_ret[i] = 0.0
            self.ep_len[i] = 0
        return self._obs(), reward.astype(np.float32), terminated, truncated, info


class QNetwork(nn.Module):
    def __init__(self, env):
        super().__init__()
        self.network = nn.Sequential(
            nn.Linear(env.obs_dim, 120),
            nn.ReLU(),
            nn.Linear(120, 84),
            nn.ReLU(),
            nn.Linear(84, env.n_actions),
        )

    def forward(self, x):
        return self.network(x)


def linear_schedule(start_e: float, end_e: float, duration: int, t: int):
    slope = (end_e - start_e) / duration
    return max(slope * t + start_e, end_e)


class ReplayBuffer:
    def __init__(self, size, obs_dim):
        self.obs = np.zeros((size, obs_dim), dtype=np.float32)
        self.next_obs = np.zeros((size, obs_dim), dtype=np.float32)
        self.actions = np.zeros(size, dtype=np.int64)
        self.rewards = np.zeros(size, dtype=np.float32)
        self.dones = np.zeros(size, dtype=np.float32)
        self.size, self.ptr, self.full = size, 0, False

    def add(self, o, no, a, r, d):
        self.obs[self.ptr], self.next_obs[self.ptr] = o, no
        self.actions[self.ptr], self.rewards[self.ptr], self.dones[self.ptr] = a, r, d
        self.ptr = (self.ptr + 1) % self.size
        self.full = self.full or self.ptr == 0

    def sample(self, n):
        idx = np.random.randint(0, self.size if self.full else self.ptr, size=n)
        return (torch.tensor(self.obs[idx]), torch.tensor(self.actions[idx]), torch.tensor(self.next_obs[idx]),
                torch.tensor(self.dones[idx]), torch.tensor(self.rewards[idx]))


if __name__ == "__main__":
    torch.set_num_threads(1)
    args = parse_args()
    run_name = f"{args.env_id}__{args.exp_name}__{args.seed}__1718000000"
    writer = SummaryWriter(f"runs/{run_name}")
    writer.add_text(
        "hyperparameters",
        "|param|value|\n|-|-|\n%s" % ("\n".join([f"|{key}|{value}|" for key, value in vars(args).items()])),
    )

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = args.torch_deterministic

    envs = Corridor(args.num_envs, length=16, seed=args.seed)

    q_network = QNetwork(envs)
    target_network = QNetwork(envs)
    target_network.load_state_dict(q_network.state_dict())
    optimizer = optim.Adam(target_network.parameters(), lr=args.learning_rate)

    rb = ReplayBuffer(args.buffer_size, envs.obs_dim)
    start_time = time.time()

    obs = envs.reset()
    for global_step in range(args.total_timesteps):
        epsilon = linear_schedule(args.start_e, args.end_e, args.exploration_fraction * args.total_timesteps, global_step)
        if random.random() < epsilon:
            actions = np.array([random.randrange(envs.n_actions) for _ in range(envs.num_envs)])
        else:
            q_values = q_network(torch.Tensor(obs))
            actions = torch.argmax(q_values, dim=1).cpu().numpy()

        next_obs, rewards, terminated, truncated, infos = envs.step(actions)

        for item in infos["episode"]:
            print(f"global_step={global_step}, episodic_return={item['r']:.2f}")
            writer.add_scalar("charts/episodic_return", item["r"], global_step)
            writer.add_scalar("charts/episodic_length", item["l"], global_step)
            writer.add_scalar("charts/epsilon", epsilon, global_step)

        # the env auto-resets, so the stored next_obs of a finished episode is the reset obs;
        # terminal flag makes it irrelevant for the target
        for i in range(envs.num_envs):
            rb.add(obs[i], next_obs[i], actions[i], rewards[i], float(terminated[i]))
        obs = next_obs

        if global_step > args.learning_starts:
            if global_step % args.train_frequency == 0:
                b_obs, b_act, b_next, b_done, b_rew = rb.sample(args.batch_size)
                with torch.no_grad():
                    target_max, _ = target_network(b_next).max(dim=1)
                    td_target = b_rew + args.gamma * target_max * (1 - b_done)
                old_val = q_network(b_obs).gather(1, b_act.view(-1, 1)).squeeze()
                loss = F.mse_loss(td_target, old_val)

                if global_step % 100 == 0:
                    writer.add_scalar("losses/td_loss", loss, global_step)
                    writer.add_scalar("losses/q_values", old_val.mean().item(), global_step)
                    print("SPS:", int(global_step / (time.time() - start_time)))
                    writer.add_scalar("charts/SPS", int(global_step / (time.time() - start_time)), global_step)

                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            if global_step % args.target_network_frequency == 0:
                for target_network_param, q_network_param in zip(target_network.parameters(), q_network.parameters()):
                    target_network_param.data.copy_(
                        args.tau * q_network_param.data + (1.0 - args.tau) * target_network_param.data
                    )

    writer.close()
