# PPO (discrete), adapted from cleanrl/ppo.py for my own vectorised envs
import argparse
import os
import random
import time
from distutils.util import strtobool

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions.categorical import Categorical
from torch.utils.tensorboard import SummaryWriter


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exp-name", type=str, default=os.path.basename(__file__).rstrip(".py"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--torch-deterministic", type=lambda x: bool(strtobool(x)), default=True, nargs="?", const=True)
    parser.add_argument("--env-id", type=str, default="Corridor-v0")
    parser.add_argument("--total-timesteps", type=int, default=20000)
    parser.add_argument("--learning-rate", type=float, default=0.00025)
    parser.add_argument("--num-envs", type=int, default=4)
    parser.add_argument("--num-steps", type=int, default=128)
    parser.add_argument("--anneal-lr", type=lambda x: bool(strtobool(x)), default=True, nargs="?", const=True)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--num-minibatches", type=int, default=4)
    parser.add_argument("--update-epochs", type=int, default=4)
    parser.add_argument("--norm-adv", type=lambda x: bool(strtobool(x)), default=True, nargs="?", const=True)
    parser.add_argument("--clip-coef", type=float, default=0.2)
    parser.add_argument("--clip-vloss", type=lambda x: bool(strtobool(x)), default=True, nargs="?", const=True)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--target-kl", type=float, default=None)
    args = parser.parse_args()
    args.batch_size = int(args.num_envs * args.num_steps)
    args.minibatch_size = int(args.batch_size // args.num_minibatches)
    return args


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


def make_env(env_id, num_envs, seed):
    if env_id == "CartPoleLite-v0":
        return CartPoleLite(num_envs, seed=seed)
    if env_id == "Corridor-v0":
        return Corridor(num_envs, length=16, seed=seed)
    raise ValueError(env_id)


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, envs):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(envs.obs_dim, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(envs.obs_dim, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, envs.n_actions), std=100.0),
        )

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        logits = self.actor(x)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


if __name__ == "__main__":
    torch.set_num_threads(1)
    args = parse_args()
    run_name = f"{args.env_id}__{args.exp_name}__{args.seed}__1718000003"
    writer = SummaryWriter(f"runs/{run_name}")
    writer.add_text(
        "hyperparameters",
        "|param|value|\n|-|-|\n%s" % ("\n".join([f"|{key}|{value}|" for key, value in vars(args).items()])),
    )

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = args.torch_deterministic
    device = torch.device("cpu")

    envs = make_env(args.env_id, args.num_envs, args.seed)
    agent = Agent(envs).to(device)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((args.num_steps, args.num_envs, envs.obs_dim)).to(device)
    actions = torch.zeros((args.num_steps, args.num_envs)).to(device)
    logprobs = torch.zeros((args.num_steps, args.num_envs)).to(device)
    rewards = torch.zeros((args.num_steps, args.num_envs)).to(device)
    dones = torch.zeros((args.num_steps, args.num_envs)).to(device)
    values = torch.zeros((args.num_steps, args.num_envs)).to(device)

    global_step = 0
    start_time = time.time()
    next_obs = torch.Tensor(envs.reset()).to(device)
    next_done = torch.zeros(args.num_envs).to(device)
    num_updates = args.total_timesteps // args.batch_size

    for update in range(1, num_updates + 1):
        if args.anneal_lr:
            frac = 1.0 - (update - 1.0) / num_updates
            lrnow = frac * args.learning_rate
            optimizer.param_groups[0]["lr"] = lrnow

        for step in range(0, args.num_steps):
            global_step += 1 * args.num_envs
            obs[step] = next_obs
            dones[step] = next_done

            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
                values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob

            next_obs, reward, terminated, truncated, info = envs.step(action.cpu().numpy())
            done = np.logical_or(terminated, truncated)
            rewards[step] = torch.tensor(reward).to(device).view(-1)
            next_obs, next_done = torch.Tensor(next_obs).to(device), torch.Tensor(done).to(device)
            for item in info["episode"]:
                print(f"global_step={global_step}, episodic_return={item['r']}")
                writer.add_scalar("charts/episodic_return", item["r"], global_step)
                writer.add_scalar("charts/episodic_length", item["l"], global_step)

        # bootstrap value if not done
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards).to(device)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values

        b_obs = obs.reshape((-1, envs.obs_dim))
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape(-1)
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        b_values = values.reshape(-1)

        b_inds = np.arange(args.batch_size)
        clipfracs = []
        for epoch in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for start in range(0, args.batch_size, args.minibatch_size):
                end = start + args.minibatch_size
                mb_inds = b_inds[start:end]

                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb_inds], b_actions.long()[mb_inds])
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()

                with torch.no_grad():
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]

                mb_advantages = b_advantages[mb_inds]
                if args.norm_adv:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)

                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()

                newvalue = newvalue.view(-1)
                if args.clip_vloss:
                    v_loss_unclipped = (newvalue - b_returns[mb_inds]) ** 2
                    v_clipped = b_values[mb_inds] + torch.clamp(
                        newvalue - b_values[mb_inds],
                        -args.clip_coef,
                        args.clip_coef,
                    )
                    v_loss_clipped = (v_clipped - b_returns[mb_inds]) ** 2
                    v_loss_max = torch.max(v_loss_unclipped, v_loss_clipped)
                    v_loss = 0.5 * v_loss_max.mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb_inds]) ** 2).mean()

                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

            if args.target_kl is not None:
                if approx_kl > args.target_kl:
                    break

        y_pred, y_true = b_values.cpu().numpy(), b_returns.cpu().numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y

        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
        writer.add_scalar("losses/value_loss", v_loss.item(), global_step)
        writer.add_scalar("losses/policy_loss", pg_loss.item(), global_step)
        writer.add_scalar("losses/entropy", entropy_loss.item(), global_step)
        writer.add_scalar("losses/old_approx_kl", old_approx_kl.item(), global_step)
        writer.add_scalar("losses/approx_kl", approx_kl.item(), global_step)
        writer.add_scalar("losses/clipfrac", np.mean(clipfracs), global_step)
        writer.add_scalar("losses/explained_variance", explained_var, global_step)
        print("SPS:", int(global_step / (time.time() - start_time)))
        writer.add_scalar("charts/SPS", int(global_step / (time.time() - start_time)), global_step)

    writer.close()
