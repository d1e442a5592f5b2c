import numpy as np
import torch

from pendulum_bc.sim import PendulumVecEnv
from train import Policy


def main(n_envs=50, seed=9100):
    ckpt = torch.load("ckpt/pendulum_bc.pt")
    stats = ckpt["stats"]
    policy = Policy()
    policy.load_state_dict(ckpt["model"])

    env = PendulumVecEnv(n_envs=n_envs, seed=seed, record_video=True)
    obs = env.reset()
    returns = np.zeros(n_envs)
    with torch.no_grad():
        for t in range(env.horizon):
            x = torch.tensor((obs - stats["obs_mean"]) / stats["obs_std"], dtype=torch.float32)
            a = policy(x).numpy() * stats["act_std"] + stats["act_mean"]
            obs, rew, done, info = env.step(a)
            returns += rew
    success = info["is_success"]
    for i in range(n_envs):
        print(f"episode {i:02d}  return {returns[i]:8.3f}  success {bool(success[i])}")
    print(f"success rate: {success.mean():.2f}   mean return: {returns.mean():.3f}")
    env.save_videos("videos/")


if __name__ == "__main__":
    main()
