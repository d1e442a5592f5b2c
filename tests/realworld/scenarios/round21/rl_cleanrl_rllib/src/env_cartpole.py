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
