import math, time
import numpy as np
import torch
import torch.nn as nn
import yaml

torch.set_num_threads(1)

with open("config.yaml") as fh:
    cfg = yaml.safe_load(fh)


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


class HeteroVAE(nn.Module):
    def __init__(self, d, h, z):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, h), nn.GELU(), nn.Linear(h, h), nn.GELU(), nn.Linear(h, 2 * z))
        self.dec = nn.Sequential(nn.Linear(z, h), nn.GELU(), nn.Linear(h, h), nn.GELU())
        self.out_mean = nn.Linear(h, d)
        self.out_logvar = nn.Linear(h, d)

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        h = self.dec(z)
        return self.out_mean(h), self.out_logvar(h), mu, logvar


def neg_elbo(x, x_mean, x_logvar, mu, logvar):
    nll = 0.5 * (x_logvar + (x - x_mean) ** 2 * torch.exp(-x_logvar) + math.log(2 * math.pi)).sum(-1).mean()
    kl = (-0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(-1)).mean()
    return nll, kl


def main():
    torch.manual_seed(cfg["seed"])
    n_tr, n_va = cfg["data"]["n_train"], cfg["data"]["n_val"]
    X = torch.from_numpy(make_shapes(n_tr + n_va, cfg["data"]["size"], cfg["seed"]))
    X = X + torch.rand_like(X) / 256.0
    train, val = X[:n_tr], X[n_tr:]
    D = X.shape[1]
    model = HeteroVAE(D, cfg["model"]["hidden"], cfg["model"]["latent_dim"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    use_amp = cfg["trainer"]["precision"] == "16-mixed"
    scaler = torch.amp.GradScaler("cpu", enabled=use_amp)
    bs = cfg["data"]["batch_size"]
    print(f"HeteroVAE D={D} latent={cfg['model']['latent_dim']} precision={cfg['trainer']['precision']} "
          f"params={sum(p.numel() for p in model.parameters())}")
    for epoch in range(1, cfg["trainer"]["max_epochs"] + 1):
        t0 = time.time()
        model.train()
        perm = torch.randperm(n_tr)
        nlls, kls, skipped, nb = [], [], 0, 0
        for i in range(0, n_tr, bs):
            x = train[perm[i:i + bs]]
            with torch.autocast("cpu", dtype=torch.float16, enabled=use_amp):
                x_mean, x_logvar, mu, logvar = model(x)
                nll, kl = neg_elbo(x, x_mean, x_logvar, mu, logvar)
                loss = nll + cfg["loss"]["beta"] * kl
            opt.zero_grad(set_to_none=True)
            before = scaler.get_scale()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            skipped += int(scaler.get_scale() < before)
            nlls.append(nll.item()); kls.append(kl.item()); nb += 1
        model.eval()
        with torch.no_grad():
            x_mean, x_logvar, mu, logvar = model(val)
            vn, vk = neg_elbo(val, x_mean, x_logvar, mu, logvar)
        n, k = float(np.mean(nlls)), float(np.mean(kls))
        bpd = (vn + vk).item() / (D * math.log(2)) + 8
        print(f"ep {epoch:03d} | nll {n:10.2f} | kl {k:7.2f} | elbo {-(n + k):10.2f} | val_elbo {-(vn + vk).item():10.2f} | "
              f"val_bpd {bpd:6.3f} | loss_scale {scaler.get_scale():.3e} | skipped {skipped}/{nb} | {time.time() - t0:.1f}s")
        if epoch % 5 == 0:
            print(f"      saved grid {cfg['trainer']['out_dir']}/samples_ep{epoch:03d}.png")


if __name__ == "__main__":
    main()
