import numpy as np
import torch
import torch.nn as nn

from pendulum_bc.data import load_demos


class Policy(nn.Module):
    def __init__(self, d_in=3, d_out=1, hidden=256, p_drop=0.1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p_drop),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p_drop),
            nn.Linear(hidden, d_out),
        )

    def forward(self, x):
        return self.net(x)


def main():
    torch.manual_seed(9)
    (obs, act), (obs_v, act_v) = load_demos("data/pendulum_demos.npz", n_train=60, n_val=10)
    print(f"loaded 60 train episodes ({len(obs)} frames), 10 val episodes ({len(obs_v)} frames)")
    stats = {"obs_mean": obs.mean(0), "obs_std": obs.std(0) + 1e-6, "act_mean": act.mean(0), "act_std": act.std(0) + 1e-6}
    print(f"obs mean {np.round(stats['obs_mean'], 4).tolist()} std {np.round(stats['obs_std'], 4).tolist()}")
    print(f"act mean {np.round(stats['act_mean'], 4).tolist()} std {np.round(stats['act_std'], 4).tolist()}")
    X = torch.tensor((obs - stats["obs_mean"]) / stats["obs_std"], dtype=torch.float32)
    Y = torch.tensor((act - stats["act_mean"]) / stats["act_std"], dtype=torch.float32)
    Xv = torch.tensor((obs_v - stats["obs_mean"]) / stats["obs_std"], dtype=torch.float32)
    Yv = torch.tensor((act_v - stats["act_mean"]) / stats["act_std"], dtype=torch.float32)

    policy = Policy()
    opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
    for epoch in range(1, 21):
        policy.train()
        perm = torch.randperm(len(X))
        losses = []
        for i in range(0, len(X) - 63, 64):
            idx = perm[i:i + 64]
            loss = nn.functional.mse_loss(policy(X[idx]), Y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        policy.eval()
        with torch.no_grad():
            val = nn.functional.mse_loss(policy(Xv), Yv).item()
        msg = f"Epoch {epoch:2d}/20 | train mse {np.mean(losses):.5f} | val mse {val:.5f}"
        if epoch % 5 == 0:
            torch.save({"model": policy.state_dict(), "stats": stats}, "ckpt/pendulum_bc.pt")
            msg += "  * best, saved ckpt/pendulum_bc.pt"
        print(msg)


if __name__ == "__main__":
    main()
