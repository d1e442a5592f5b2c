import argparse
import pprint
import time
from collections import deque

import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--task", type=str, default="MiniMaze-v0")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--num-levels", type=int, default=@NUMLEVELS@)
    parser.add_argument("--start-level", type=int, default=0)
    parser.add_argument("--test-start-level", type=int, default=10000)
    parser.add_argument("--eps-test", type=float, default=0.05)
    parser.add_argument("--eps-train", type=float, default=0.1)
    parser.add_argument("--buffer-size", type=int, default=20000)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--gamma", type=float, default=0.95)
    parser.add_argument("--target-update-freq", type=int, default=300)
    parser.add_argument("--epoch", type=int, default=@EPOCHS@)
    parser.add_argument("--step-per-epoch", type=int, default=3000)
    parser.add_argument("--step-per-collect", type=int, default=10)
    parser.add_argument("--update-per-step", type=float, default=0.1)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--hidden-sizes", type=int, nargs="*", default=[128, 128])
    parser.add_argument("--training-num", type=int, default=4)
    parser.add_argument("--test-num", type=int, default=50)
    parser.add_argument("--logdir", type=str, default="log")
    return parser.parse_known_args()[0]


class MiniMaze:
    """7x7 maze with walls, start and goal generated from a level seed. obs = walls|agent|goal planes."""
    N = 7
    MOVES = ((-1, 0), (1, 0), (0, -1), (0, 1))

    def __init__(self, level_sampler, max_steps=40):
        self.level_sampler = level_sampler
        self.max_steps = max_steps
        self.reset()

    @classmethod
    def generate(cls, level):
        rng = np.random.default_rng(level)
        while True:
            walls = rng.random((cls.N, cls.N)) < 0.25
            walls[0, :] = walls[-1, :] = walls[:, 0] = walls[:, -1] = True
            free = np.argwhere(~walls)
            s, g = free[rng.choice(len(free), 2, replace=False)]
            dist = cls.bfs(walls, tuple(s))
            if tuple(g) in dist and dist[tuple(g)] >= 4:
                return walls, tuple(s), tuple(g)

    @classmethod
    def bfs(cls, walls, s):
        dist, q = {s: 0}, deque([s])
        while q:
            c = q.popleft()
            for dr, dc in cls.MOVES:
                n = (c[0] + dr, c[1] + dc)
                if not walls[n] and n not in dist:
                    dist[n] = dist[c] + 1
                    q.append(n)
        return dist

    def obs(self):
        o = np.zeros((3, self.N, self.N), dtype=np.float32)
        o[0] = self.walls
        o[1][self.pos] = 1.0
        o[2][self.goal] = 1.0
        return o.reshape(-1)

    def reset(self):
        self.level = self.level_sampler()
        self.walls, self.pos, self.goal = self.generate(self.level)
        self.t = 0
        return self.obs()

    def step(self, a):
        dr, dc = self.MOVES[a]
        n = (self.pos[0] + dr, self.pos[1] + dc)
        if not self.walls[n]:
            self.pos = n
        self.t += 1
        done = self.pos == self.goal
        r = 1.0 if done else -0.01
        trunc = self.t >= self.max_steps
        return self.obs(), r, done, trunc


def main():
    torch.set_num_threads(1)
    args = get_args()
    print(args)
    np.random.seed(args.seed); torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    train_sampler = lambda: args.start_level + int(rng.integers(args.num_levels))
    train_envs = [MiniMaze(train_sampler) for _ in range(args.training_num)]
    obs_dim = 3 * MiniMaze.N * MiniMaze.N

    def net():
        layers, d = [], obs_dim
        for h in args.hidden_sizes:
            layers += [nn.Linear(d, h), nn.ReLU()]
            d = h
        return nn.Sequential(*layers, nn.Linear(d, 4))

    q, q_targ = net(), net()
    q_targ.load_state_dict(q.state_dict())
    optim = torch.optim.Adam(q.parameters(), lr=args.lr)
    writer = SummaryWriter(f"{args.logdir}/{args.task}/dqn")

    N = args.buffer_size
    B_o = np.zeros((N, obs_dim), np.float32); B_o2 = np.zeros((N, obs_dim), np.float32)
    B_a = np.zeros(N, np.int64); B_r = np.zeros(N, np.float32); B_d = np.zeros(N, np.float32)
    ptr, size = 0, 0

    def act(o, eps):
        if rng.random() < eps:
            return int(rng.integers(4))
        with torch.no_grad():
            return int(q(torch.tensor(o)).argmax())

    def test(epoch):
        rews, lens = [], []
        for i in range(args.test_num):
            lvl = args.test_start_level + i
            e = MiniMaze(lambda: lvl)
            o, done, trunc, R, L = e.obs(), False, False, 0.0, 0
            while not (done or trunc):
                o, r, done, trunc = e.step(act(o, args.eps_test))
                R += r; L += 1
            rews.append(R); lens.append(L)
        return np.array(rews), np.array(lens)

    obs = [e.reset() for e in train_envs]
    ep_r = [0.0] * len(train_envs); ep_l = [0] * len(train_envs)
    env_step, grad_step, n_updates_owed = 0, 0, 0.0
    tr, _ = test(0)
    best, best_std, best_ep = tr.mean(), tr.std(), 0
    print(f"Epoch #0: test_reward: {best:.6f} ± {best_std:.6f}, best_reward: {best:.6f} ± {best_std:.6f} in #0")
    t_start = time.time()
    all_eps = 0
    for epoch in range(1, args.epoch + 1):
        t0 = time.time()
        last_loss = 0.0
        while env_step < epoch * args.step_per_epoch:
            fin_r, fin_l = [], []
            for _ in range(args.step_per_collect // args.training_num + 1):
                for i, e in enumerate(train_envs):
                    a = act(obs[i], args.eps_train)
                    o2, r, done, trunc = e.step(a)
                    B_o[ptr], B_o2[ptr], B_a[ptr], B_r[ptr], B_d[ptr] = obs[i], o2, a, r, float(done)
                    ptr = (ptr + 1) % N; size = min(size + 1, N)
                    ep_r[i] += r; ep_l[i] += 1; env_step += 1
                    obs[i] = o2
                    if done or trunc:
                        fin_r.append(ep_r[i]); fin_l.append(ep_l[i]); all_eps += 1
                        writer.add_scalar("train/reward", ep_r[i], env_step)
                        writer.add_scalar("train/length", ep_l[i], env_step)
                        ep_r[i], ep_l[i] = 0.0, 0
                        obs[i] = e.reset()
            if fin_r:
                last_r, last_l, last_n = float(np.mean(fin_r)), int(np.mean(fin_l)), len(fin_r)
            n_updates_owed += args.update_per_step * args.step_per_collect
            while n_updates_owed >= 1 and size >= args.batch_size:
                n_updates_owed -= 1
                idx = rng.integers(0, size, args.batch_size)
                with torch.no_grad():
                    tq = torch.tensor(B_r[idx]) + args.gamma * (1 - torch.tensor(B_d[idx])) * q_targ(torch.tensor(B_o2[idx])).max(1).values
                qv = q(torch.tensor(B_o[idx])).gather(1, torch.tensor(B_a[idx]).view(-1, 1)).squeeze(1)
                loss = ((qv - tq) ** 2).mean()
                optim.zero_grad(); loss.backward(); optim.step()
                grad_step += 1
                last_loss = loss.item()
                if grad_step % args.target_update_freq == 0:
                    q_targ.load_state_dict(q.state_dict())
                if grad_step % 10 == 0:
                    writer.add_scalar("update/loss", last_loss, env_step)
        dt = time.time() - t0
        its = args.step_per_epoch
        print(f"Epoch #{epoch}: {its + 1}it [{dt // 60:02.0f}:{dt % 60:02.0f}, {its / dt:.2f}it/s, env_step={env_step}, "
              f"len={last_l}, loss={last_loss:.3f}, n/ep={last_n}, n/st={args.step_per_collect}, rew={last_r:.2f}]")
        tr, tl = test(epoch)
        writer.add_scalar("test/reward", tr.mean(), env_step)
        writer.add_scalar("test/reward_std", tr.std(), env_step)
        writer.add_scalar("test/length", tl.mean(), env_step)
        if tr.mean() > best:
            best, best_std, best_ep = tr.mean(), tr.std(), epoch
        print(f"Epoch #{epoch}: test_reward: {tr.mean():.6f} ± {tr.std():.6f}, best_reward: {best:.6f} ± {best_std:.6f} in #{best_ep}", flush=True)
    writer.close()
    dur = time.time() - t_start
    pprint.pprint({"best_result": f"{best:.2f} ± {best_std:.2f}", "best_reward": float(best), "duration": f"{dur:.2f}s",
                   "train_step": env_step, "train_episode": all_eps, "gradient_step": grad_step})
    torch.save(q.state_dict(), f"{args.logdir}/{args.task}/dqn/policy.pth")


if __name__ == "__main__":
    main()
