# DQN on a gridworld with goal-direction features (single file, cleanrl/dqn.py layout)
import argparse
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.tensorboard import SummaryWriter


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--exp-name", type=str, default="dqn")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--grid-size", type=int, default=12)
    p.add_argument("--max-episode-steps", type=int, default=80)
    p.add_argument("--total-timesteps", type=int, default=40000)
    p.add_argument("--learning-rate", type=float, default=2.5e-4)
    p.add_argument("--buffer-size", type=int, default=10000)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--target-network-frequency", type=int, default=500)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--start-e", type=float, default=1.0)
    p.add_argument("--end-e", type=float, default=0.05)
    p.add_argument("--exploration-fraction", type=float, default=0.5)
    p.add_argument("--learning-starts", type=int, default=1000)
    p.add_argument("--train-frequency", type=int, default=4)
    p.add_argument("--logdir", type=str, default="runs")
    return p.parse_args()


class GoalGridEnv:
    """Agent starts in the top-left cell of a size x size grid and has to reach the goal in the
    bottom-right corner. Observation: normalised (row, col) plus the unit vector pointing to the goal.
    actions: 0 up, 1 right, 2 down, 3 left; reward +1 at the goal, -0.01 per step."""

    MOVES = np.array([[-1, 0], [0, 1], [1, 0], [0, -1]])

    def __init__(self, size, max_steps, seed):
        self.size, self.max_steps = size, max_steps
        self.rng = np.random.default_rng(seed)
        self.goal = np.array([size - 1, size - 1])
        self.observation_shape = (4,)
        self.n_actions = 4

    def _obs(self):
        delta = (self.goal - self.pos).astype(np.float32)
        direction = delta / np.linalg.norm(delta)
        return np.concatenate([self.pos / (self.size - 1), direction]).astype(np.float32)

    def reset(self):
        self.pos = np.array([0, 0])
        self.t, self.ret = 0, 0.0
        return self._obs()

    def step(self, action):
        self.pos = np.clip(self.pos + self.MOVES[action], 0, self.size - 1)
        self.t += 1
        at_goal = bool(np.array_equal(self.pos, self.goal))
        reward = 1.0 if at_goal else -0.01
        self.ret += reward
        obs = self._obs()
        terminated, truncated = at_goal, self.t >= self.max_steps
        info = {}
        if terminated or truncated:
            info = {"episode": {"r": round(self.ret, 2), "l": self.t}, "final_observation": obs}
            obs = self.reset()
        return obs, reward, terminated, truncated, info


class QNetwork(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.network = nn.Sequential(nn.Linear(obs_dim, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, n_actions))

    def forward(self, x):
        return self.network(x)


def linear_schedule(start_e, end_e, duration, t):
    slope = (end_e - start_e) / duration
    return max(slope * t + start_e, end_e)


class ReplayBuffer:
    def __init__(self, size, obs_dim):
        self.obs = np.zeros((size, obs_dim), np.float32)
        self.next_obs = np.zeros((size, obs_dim), np.float32)
        self.actions = np.zeros(size, np.int64)
        self.rewards = np.zeros(size, np.float32)
        self.dones = np.zeros(size, np.float32)
        self.size, self.pos, self.full = size, 0, False

    def add(self, obs, next_obs, action, reward, done):
        self.obs[self.pos], self.next_obs[self.pos] = obs, next_obs
        self.actions[self.pos], self.rewards[self.pos], self.dones[self.pos] = action, reward, done
        self.pos = (self.pos + 1) % self.size
        self.full = self.full or self.pos == 0

    def sample(self, batch_size):
        idx = np.random.randint(0, self.size if self.full else self.pos, batch_size)
        return (torch.as_tensor(self.obs[idx]), torch.as_tensor(self.actions[idx]), torch.as_tensor(self.next_obs[idx]),
                torch.as_tensor(self.dones[idx]), torch.as_tensor(self.rewards[idx]))


if __name__ == "__main__":
    args = parse_args()
    run_name = f"GoalGrid-{args.grid_size}x{args.grid_size}__{args.exp_name}__{args.seed}__{int(time.time())}"
    writer = SummaryWriter(f"{args.logdir}/{run_name}")
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    env = GoalGridEnv(args.grid_size, args.max_episode_steps, args.seed)
    q_network = QNetwork(4, env.n_actions)
    optimizer = optim.Adam(q_network.parameters(), lr=args.learning_rate)
    target_network = QNetwork(4, env.n_actions)
    target_network.load_state_dict(q_network.state_dict())
    rb = ReplayBuffer(args.buffer_size, 4)
    start_time = time.time()

    obs = env.reset()
    for global_step in range(args.total_timesteps):
        epsilon = linear_schedule(args.start_e, args.end_e, args.exploration_fraction * args.total_timesteps, global_step)
        if random.random() < epsilon:
            action = random.randrange(env.n_actions)
        else:
            q_values = q_network(torch.as_tensor(obs)[None])
            action = int(torch.argmax(q_values, dim=1)[0])

        next_obs, reward, terminated, truncated, info = env.step(action)
        if "episode" in info:
            print(f"global_step={global_step}, episodic_return={info['episode']['r']}")
            writer.add_scalar("charts/episodic_return", info["episode"]["r"], global_step)
            writer.add_scalar("charts/episodic_length", info["episode"]["l"], global_step)
            writer.add_scalar("charts/epsilon", epsilon, global_step)

        real_next_obs = info["final_observation"] if (terminated or truncated) else next_obs
        rb.add(obs, real_next_obs, action, reward, float(terminated))
        obs = next_obs

        if global_step > args.learning_starts:
            if global_step % args.train_frequency == 0:
                b_obs, b_actions, b_next_obs, b_dones, b_rewards = rb.sample(args.batch_size)
                with torch.no_grad():
                    target_max, _ = target_network(b_next_obs).max(dim=1)
                    td_target = b_rewards + args.gamma * target_max * (1 - b_dones)
                old_val = q_network(b_obs).gather(1, b_actions[:, None]).squeeze()
                loss = F.mse_loss(td_target, old_val)

                if global_step % 100 == 0:
                    writer.add_scalar("losses/td_loss", loss, global_step)
                    writer.add_scalar("losses/q_values", old_val.mean().item(), global_step)
                    writer.add_scalar("charts/SPS", int(global_step / (time.time() - start_time)), global_step)
                if global_step % 500 == 0:
                    print(f"global_step={global_step}, td_loss={loss.item():.5f}, q_values={old_val.mean().item():.4f}, epsilon={epsilon:.3f}")
                    print("SPS:", int(global_step / (time.time() - start_time)))

                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            if global_step % args.target_network_frequency == 0:
                target_network.load_state_dict(q_network.state_dict())

    writer.close()
