import json, math, time
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

config = {
    "model": "realnvp", "n_couplings": 6, "hidden": 64, "dataset": "two_moons", "noise": 0.08,
    "n_train": 4000, "n_val": 1000, "batch_size": 32, "optimizer": "adam", "lr": 3e-4,
    "max_steps": 2000, "log_every": 10, "val_every": 100, "seed": 6,
}


def two_moons(n, noise, rng):
    n1 = n // 2
    t1 = rng.uniform(0, np.pi, n1)
    t2 = rng.uniform(0, np.pi, n - n1)
    a = np.stack([np.cos(t1), np.sin(t1)], 1)
    b = np.stack([1 - np.cos(t2), 0.5 - np.sin(t2)], 1)
    X = np.concatenate([a, b]) + rng.normal(0, noise, (n, 2))
    X = (X - np.array([0.5, 0.25])) / np.array([0.87, 0.5])
    return rng.permutation(X).astype(np.float32)


class Coupling(nn.Module):
    def __init__(self, mask, hidden):
        super().__init__()
        self.register_buffer("mask", mask)
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 4))

    def forward(self, x):
        xm = x * self.mask
        s, t = self.net(xm).chunk(2, dim=1)
        s = torch.tanh(s) * (1 - self.mask)
        t = t * (1 - self.mask)
        y = xm + (1 - self.mask) * (x * torch.exp(s) + t)
        return y, s.sum(1)


class RealNVP(nn.Module):
    def __init__(self, n, hidden):
        super().__init__()
        masks = [torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0]) for i in range(n)]
        self.layers = nn.ModuleList([Coupling(m, hidden) for m in masks])

    def log_prob(self, x):
        logdet = torch.zeros(x.shape[0])
        for layer in self.layers:
            x, ld = layer(x)
            logdet = logdet + ld
        base = -0.5 * (x ** 2).sum(1) - math.log(2 * math.pi)
        return base + logdet


def main():
    rng = np.random.default_rng(config["seed"])
    torch.manual_seed(config["seed"])
    Xtr = torch.from_numpy(two_moons(config["n_train"], config["noise"], rng))
    Xva = torch.from_numpy(two_moons(config["n_val"], config["noise"], rng))
    flow = RealNVP(config["n_couplings"], config["hidden"])
    opt = torch.optim.Adam(flow.parameters(), lr=config["lr"])
    with open("config.json", "w") as fh:
        json.dump(config, fh, indent=2)
    print(f"RealNVP ({sum(p.numel() for p in flow.parameters())} params) on {config['dataset']}, {len(Xtr)} train / {len(Xva)} val points")
    out = open("metrics.jsonl", "w")
    t0 = time.time()
    step = 0
    while step < config["max_steps"]:
        perm = torch.randperm(len(Xtr))
        for i in range(0, len(Xtr) - config["batch_size"] + 1, config["batch_size"]):
            x = Xtr[perm[i:i + config["batch_size"]]]
            nll = -flow.log_prob(x).mean()
            opt.zero_grad()
            nll.backward()
            gn = torch.nn.utils.clip_grad_norm_(flow.parameters(), 1e9)
            opt.step()
            step += 1
            if step % config["log_every"] == 0:
                rec = {"step": step, "train/nll": round(nll.item(), 4), "train/bits_per_dim": round(nll.item() / (2 * math.log(2)), 4),
                       "grad_norm": round(gn.item(), 4), "lr": config["lr"], "time": round(time.time() - t0, 2)}
                if step % config["val_every"] == 0:
                    with torch.no_grad():
                        vn = -flow.log_prob(Xva).mean().item()
                    rec["val/nll"] = round(vn, 4)
                    rec["val/bits_per_dim"] = round(vn / (2 * math.log(2)), 4)
                    if step % 500 == 0:
                        rec["samples"] = f"samples/step_{step:05d}.png"
                out.write(json.dumps(rec) + "\n")
                out.flush()
            if step >= config["max_steps"]:
                break
    out.close()
    print(f"finished {step} steps in {time.time() - t0:.1f}s, final val_nll {vn:.4f}")


if __name__ == "__main__":
    main()
