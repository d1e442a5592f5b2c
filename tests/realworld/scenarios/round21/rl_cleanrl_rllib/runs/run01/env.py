import numpy as np


class TankLevelEnv:
    """Water tank: keep the level (litres) near the setpoint by choosing the outlet valve.
    obs = [level_l, setpoint_l, inflow_l_per_min]; actions: 0 closed, 1 half open, 2 open."""

    OUTFLOW = (0.0, 600.0, 1200.0)

    def __init__(self, num_envs, seed=0, max_steps=100):
        self.num_envs = num_envs
        self.rng = np.random.default_rng(seed)
        self.max_steps = max_steps
        self.obs_dim = 3
        self.n_actions = 3
        self.level = np.zeros(num_envs); self.sp = np.zeros(num_envs); self.inflow = np.zeros(num_envs)
        self.t = np.zeros(num_envs, dtype=np.int64)
        self.ep_ret = np.zeros(num_envs); self.ep_len = np.zeros(num_envs, dtype=np.int64)
        for i in range(num_envs):
            self._reset_one(i)

    def _reset_one(self, i):
        self.level[i] = self.rng.uniform(1000, 4000)
        self.sp[i] = self.rng.uniform(1500, 3500)
        self.inflow[i] = self.rng.uniform(300, 900)
        self.t[i] = 0; self.ep_ret[i] = 0.0; self.ep_len[i] = 0

    def _obs(self):
        return np.stack([self.level, self.sp, self.inflow], axis=1).astype(np.float32)

    def reset(self):
        return self._obs()

    def step(self, actions):
        out = np.asarray(self.OUTFLOW)[np.asarray(actions)]
        self.inflow = np.clip(self.inflow + self.rng.normal(0, 40, self.num_envs), 200, 1000)
        self.level = self.level + 0.5 * (self.inflow - out)
        err = np.abs(self.level - self.sp)
        reward = np.where(err < 150, 1.0, 0.0) - err / 5000.0
        terminated = (self.level <= 0) | (self.level >= 5000)
        reward = np.where(terminated, -10.0, reward)
        self.t += 1
        truncated = (self.t >= self.max_steps) & ~terminated
        self.ep_ret += reward; self.ep_len += 1
        info = {"episode": []}
        for i in np.nonzero(terminated | truncated)[0]:
            info["episode"].append({"r": float(self.ep_ret[i]), "l": int(self.ep_len[i])})
            self._reset_one(i)
        return self._obs(), reward.astype(np.float32), terminated, truncated, info
