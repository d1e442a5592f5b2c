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
