import json, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

with open("config.json") as fh:
    cfg = json.load(fh)


def make_shapes(n, size=16, seed=0):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, size, size), np.float32)
    yy, xx = np.mgrid[0:size, 0:size]
    for i in range(n):
        kind = rng.integers(3)
        cx, cy = rng.uniform(4, size - 4, 2)
        r = rng.uniform(2, 5)
        v = rng.uniform(0.6, 1.0)
        if kind == 0:
            m = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
        elif kind == 1:
            m = (abs(xx - cx) <= r) & (abs(yy - cy) <= r * 0.6)
        else:
            m = ((abs(xx - cx) <= 1) & (abs(yy - cy) <= r)) | ((abs(yy - cy) <= 1) & (abs(xx - cx) <= r))
        X[i][m] = v
    return X.reshape(n, -1)


class Augment:
    def __init__(self, brightness, noise_std):
        self.lo, self.hi = brightness
        self.noise_std = noise_std

    def __call__(self, x):
        scale = torch.empty(x.shape[0], 1).uniform_(self.lo, self.hi)
        return x * scale + self.noise_std * torch.randn_like(x)


class MLPVAE(nn.Module):
    def __init__(self, d, h, z):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU())
        self.mu = nn.Linear(h, z)
        self.logvar = nn.Linear(h, z)
        self.dec = nn.Sequential(nn.Linear(z, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, d), nn.Sigmoid())

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


def elbo_terms(x_hat, x, mu, logvar):
    recon = F.binary_cross_entropy(x_hat, x, reduction="sum") / x.size(0)
    kl = (-0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1)).mean()
    return recon, kl


def main():
    torch.manual_seed(cfg["seed"])
    X = torch.from_numpy(make_shapes(cfg["n_train"] + cfg["n_val"], seed=cfg["seed"]))
    train, val = X[:cfg["n_train"]], X[cfg["n_train"]:]
    model = MLPVAE(X.shape[1], cfg["hidden"], cfg["latent_dim"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    aug = Augment(cfg["augment"]["brightness"], cfg["augment"]["noise_std"])
    print(f"[{time.strftime('%H:%M:%S')}] starting run '{cfg['run_name']}' with {json.dumps(cfg)}")
    step = 0
    for epoch in range(1, cfg["epochs"] + 1):
        model.train()
        perm = torch.randperm(len(train))
        sums = np.zeros(2)
        nb = 0
        for i in range(0, len(train), cfg["batch_size"]):
            x = train[perm[i:i + cfg["batch_size"]]]
            if epoch >= cfg["augment"]["start_epoch"]:
                x = aug(x)
            x_hat, mu, logvar = model(x)
            recon, kl = elbo_terms(x_hat, x, mu, logvar)
            beta = min(1.0, step / cfg["kl_warmup_steps"])
            loss = recon + beta * kl
            opt.zero_grad()
            loss.backward()
            opt.step()
            sums += [recon.item(), kl.item()]
            nb += 1
            step += 1
            if step % 50 == 0:
                print(f"  step {step:5d}  recon {recon.item():.3f}  kl {kl.item():.3f}  beta {beta:.3f}")
        model.eval()
        with torch.no_grad():
            x_hat, mu, logvar = model(val)
            vr, vk = elbo_terms(x_hat, val, mu, logvar)
        r, k = sums / nb
        print(f"[{time.strftime('%H:%M:%S')}] epoch {epoch}/{cfg['epochs']}  train: recon {r:.3f} kl {k:.3f} -elbo {r + k:.3f} | "
              f"val: recon {vr.item():.3f} kl {vk.item():.3f} -elbo {(vr + vk).item():.3f}  beta {beta:.3f}")
        print(f"  -> samples written to out/{cfg['run_name']}/grid_ep{epoch:02d}.png")


if __name__ == "__main__":
    main()
