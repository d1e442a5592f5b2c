import json

import numpy as np
import torch
import torch.nn as nn

from push_rig.sim import PushEnvMM, rollout

MAX_SPEED_MM_S = 250.0


def load(path):
    d = np.load(path)
    # observation.state: agent_x, agent_y, block_x, block_y, target_x, target_y   [mm, table frame]
    obs = d["observation.state"].astype(np.float32)
    # action: commanded velocity in mm/s -> scale to [-1, 1]
    act = np.clip(d["action"] / MAX_SPEED_MM_S, -1, 1).astype(np.float32)
    return obs, act


def main():
    torch.manual_seed(10)
    obs, act = load("data/push_train.npz")
    obs_v, act_v = load("data/push_val.npz")
    print(f"train frames: {len(obs)}  val frames: {len(obs_v)}")
    print(f"obs[0]: {np.round(obs[0], 1).tolist()}")
    print(f"act[0]: {np.round(act[0], 3).tolist()}")
    X, Y = torch.tensor(obs), torch.tensor(act)
    Xv, Yv = torch.tensor(obs_v), torch.tensor(act_v)

    model = nn.Sequential(nn.Linear(6, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for ep in range(1, 21):
        perm = torch.randperm(len(X))
        losses, gnorms = [], []
        for i in range(0, len(X), 64):
            idx = perm[i:i + 64]
            loss = nn.functional.mse_loss(model(X[idx]), Y[idx])
            opt.zero_grad()
            loss.backward()
            gnorms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item())
            opt.step()
            losses.append(loss.item())
        with torch.no_grad():
            val = nn.functional.mse_loss(model(Xv), Yv).item()
        print(f"ep {ep:2d}  loss {np.mean(losses):.4f}  val {val:.4f}  |grad| mean {np.mean(gnorms):.1f} max {np.max(gnorms):.1f}")

    succ, ret = rollout(PushEnvMM(), lambda o: model(torch.tensor(o, dtype=torch.float32)).numpy() * MAX_SPEED_MM_S,
                        n_episodes=50, seed=10100)
    print(f"rollouts: {int(succ.sum())}/50 success, mean return {ret.mean():.2f}")
    torch.save(model.state_dict(), "push_mlp.pt")


if __name__ == "__main__":
    main()
