"""Tiny vectorised numpy simulators + scripted experts (reach2d, push2d, pendulum)."""
import numpy as np


# ---------------------------------------------------------------- reach 2-D
class Reach2D:
    obs_dim, act_dim, horizon = 4, 2, 50
    dt, thresh = 0.1, 0.05

    def reset(self, rng, n):
        self.pos = rng.uniform(-1, 1, (n, 2))
        self.goal = rng.uniform(-1, 1, (n, 2))
        self.done = np.zeros(n, bool)
        return self.obs()

    def obs(self):
        return np.concatenate([self.pos, self.goal], 1).astype(np.float32)

    def step(self, a):
        a = np.clip(a, -1, 1)
        self.pos = np.clip(self.pos + self.dt * a, -1.2, 1.2)
        d = np.linalg.norm(self.pos - self.goal, axis=1)
        r = np.clip(1.0 - d, 0, 1)
        self.done |= d < self.thresh
        return self.obs(), r

    def expert(self, o, rng, noise=0.05):
        a = np.clip(4.0 * (o[:, 2:4] - o[:, 0:2]), -1, 1)
        return a + noise * rng.standard_normal(a.shape)


# ---------------------------------------------------------------- push 2-D
class Push2D:
    obs_dim, act_dim, horizon = 6, 2, 80
    dt, rad, thresh = 0.05, 0.1, 0.08

    def reset(self, rng, n):
        self.agent = rng.uniform(-1, 1, (n, 2))
        self.block = rng.uniform(-0.5, 0.5, (n, 2))
        self.target = rng.uniform(-0.6, 0.6, (n, 2))
        self.done = np.zeros(n, bool)
        return self.obs()

    def obs(self):
        return np.concatenate([self.agent, self.block, self.target], 1).astype(np.float32)

    def step(self, a):
        a = np.clip(a, -1, 1)
        self.agent = np.clip(self.agent + self.dt * a, -1.2, 1.2)
        diff = self.block - self.agent
        d = np.linalg.norm(diff, axis=1, keepdims=True) + 1e-8
        touch = (d < self.rad)[:, 0]
        self.block[touch] = self.agent[touch] + self.rad * diff[touch] / d[touch]
        e = np.linalg.norm(self.block - self.target, axis=1)
        r = np.clip(1.0 - e, 0, 1)
        self.done |= e < self.thresh
        return self.obs(), r

    def expert(self, o, rng, noise=0.05):
        ag, bl, tg = o[:, 0:2], o[:, 2:4], o[:, 4:6]
        u = tg - bl
        u = u / (np.linalg.norm(u, axis=1, keepdims=True) + 1e-8)
        behind = bl - 0.13 * u
        to_b = behind - ag
        dist_b = np.linalg.norm(to_b, axis=1, keepdims=True)
        # side-step around the block if approaching from the wrong side
        side = np.sum((ag - bl) * u, axis=1, keepdims=True) > -0.02
        perp = np.stack([-u[:, 1], u[:, 0]], 1)
        sgn = np.sign(np.sum((ag - bl) * perp, axis=1, keepdims=True) + 1e-6)
        detour = bl + 0.2 * sgn * perp - 0.1 * u - ag
        approach = np.where(side, detour, to_b)
        push = u
        a = np.where(dist_b < 0.04, push, 6.0 * approach)
        a = np.clip(a, -1, 1)
        return a + noise * rng.standard_normal(a.shape)


# ---------------------------------------------------------------- pendulum
class Pendulum:
    """Inverted pendulum, theta=0 upright. obs=[cos, sin, thetadot], action=torque."""
    obs_dim, act_dim, horizon = 3, 1, 100
    dt, umax = 0.05, 8.0

    def reset(self, rng, n):
        self.th = rng.uniform(-0.8, 0.8, n)
        self.thd = rng.uniform(-1.0, 1.0, n)
        self.done = np.zeros(n, bool)
        self.t = 0
        return self.obs()

    def obs(self):
        return np.stack([np.cos(self.th), np.sin(self.th), self.thd], 1).astype(np.float32)

    def step(self, a):
        u = np.clip(a[:, 0], -self.umax, self.umax)
        thdd = 9.81 * np.sin(self.th) + u - 0.1 * self.thd
        self.thd = np.clip(self.thd + self.dt * thdd, -8, 8)
        self.th = self.th + self.dt * self.thd
        self.th = (self.th + np.pi) % (2 * np.pi) - np.pi
        self.t += 1
        ok = (np.abs(self.th) < 0.1) & (np.abs(self.thd) < 0.5)
        r = np.cos(self.th) - 0.01 * u ** 2 / 8
        if self.t >= self.horizon:
            self.done = ok
        return self.obs(), r

    def expert(self, o, rng, noise=0.2):
        th = np.arctan2(o[:, 1], o[:, 0])
        u = np.clip(-22.0 * th - 6.0 * o[:, 2], -self.umax, self.umax)
        return (u + noise * rng.standard_normal(u.shape))[:, None]


ENVS = {"reach": Reach2D, "push": Push2D, "pendulum": Pendulum}


def collect(env_name, n_eps, seed, noise=None):
    """Roll the scripted expert; returns list of episodes dicts (obs, action, reward)."""
    env = ENVS[env_name]()
    rng = np.random.default_rng(seed)
    o = env.reset(rng, n_eps)
    O, A, R = [], [], []
    for t in range(env.horizon):
        a = env.expert(o, rng) if noise is None else env.expert(o, rng, noise)
        O.append(o); A.append(a.astype(np.float32))
        o, r = env.step(a)
        R.append(r)
    O, A, R = np.stack(O, 1), np.stack(A, 1), np.stack(R, 1)
    return [dict(obs=O[i], action=A[i], reward=R[i], success=bool(env.done[i])) for i in range(n_eps)]


def rollout(env_name, policy, n, seed):
    """policy: np obs (n,d) -> np action (n,k). Returns success (n,), sum_reward (n,), max_reward (n,)."""
    env = ENVS[env_name]()
    rng = np.random.default_rng(seed)
    o = env.reset(rng, n)
    tot = np.zeros(n); mx = np.zeros(n)
    for t in range(env.horizon):
        a = policy(o)
        o, r = env.step(a)
        tot += r; mx = np.maximum(mx, r)
    return env.done.copy(), tot, mx
