import argparse
import time

import numpy as np
import torch
import torch.nn as nn

from sim.reach2d import Reach2DEnv, rollout


def load_episodes(path):
    data = np.load(path, allow_pickle=True)
    eps = data["episodes"]
    obs = np.concatenate([e["obs"] for e in eps]).astype(np.float32)       # (N, 4): ee_x, ee_y, goal_x, goal_y
    actions = np.concatenate([e["action"] for e in eps]).astype(np.float32)  # (N, 2): vx, vy
    return eps, obs, actions


def train_val_split(x, val_frac=0.1):
    perm = np.random.permutation(len(x))
    n_val = int(len(x) * val_frac)
    return x[perm[n_val:]], x[perm[:n_val]]


class Normalizer:
    def __init__(self, x):
        self.mean, self.std = x.mean(0), x.std(0) + 1e-6

    def __call__(self, x):
        return (x - self.mean) / self.std

    def inverse(self, x):
        return x * self.std + self.mean


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/reach2d_scripted.npz")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch_size", type=int, default=128)
    args = p.parse_args()

    np.random.seed(0)
    torch.manual_seed(0)
    eps, obs, actions = load_episodes(args.data)
    print(f"loaded {len(eps)} episodes -> {len(obs)} transitions")

    obs_train, obs_val = train_val_split(obs)
    act_train, act_val = train_val_split(actions)
    print(f"train {len(obs_train)} / val {len(obs_val)}")

    obs_norm, act_norm = Normalizer(obs_train), Normalizer(act_train)
    X, Y = torch.tensor(obs_norm(obs_train)), torch.tensor(act_norm(act_train))
    Xv, Yv = torch.tensor(obs_norm(obs_val)), torch.tensor(act_norm(act_val))

    model = nn.Sequential(nn.Linear(4, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 2))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)

    for epoch in range(1, args.epochs + 1):
        t0 = time.time()
        perm = torch.randperm(len(X))
        losses, gnorms = [], []
        for i in range(0, len(X), args.batch_size):
            idx = perm[i:i + args.batch_size]
            loss = nn.functional.mse_loss(model(X[idx]), Y[idx])
            opt.zero_grad()
            loss.backward()
            gnorms.append(torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item())
            opt.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            val_loss = nn.functional.mse_loss(model(Xv), Yv).item()
        model.train()
        print(f"epoch {epoch:03d} | train_loss {np.mean(losses):.4f} | val_loss {val_loss:.4f} | "
              f"grad_norm {np.mean(gnorms):.3f} | lr {args.lr:.1e} | {time.time() - t0:.2f}s")

        if epoch % 10 == 0:
            model.eval()
            succ, ret = rollout(Reach2DEnv(), model, obs_norm, act_norm, n_episodes=50, seed=3100 + epoch)
            model.train()
            print(f"  rollout @ epoch {epoch}: success {int(succ.sum())}/50 ({100 * succ.mean():.0f}%)  mean_return {ret.mean():.2f}")

    torch.save({"model": model.state_dict(), "obs_norm": obs_norm.__dict__, "act_norm": act_norm.__dict__},
               "checkpoints/reach_bc_final.pt")


if __name__ == "__main__":
    main()
