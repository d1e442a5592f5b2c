import time, json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

CFG = dict(latent_dim=8, lr=1e-3, epochs=30, batch_size=64, beta=1.0, n_train=3000, n_val=500, seed=0)


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
    return X


class ConvVAE(nn.Module):
    def __init__(self, zdim):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(1, 16, 4, 2, 1), nn.ReLU(),
            nn.Conv2d(16, 32, 4, 2, 1), nn.ReLU(),
            nn.Flatten(), nn.Linear(32 * 4 * 4, 128), nn.ReLU())
        self.mu = nn.Linear(128, zdim)
        self.logvar = nn.Linear(128, zdim)
        self.dec_fc = nn.Sequential(nn.Linear(zdim, 128), nn.ReLU(), nn.Linear(128, 32 * 4 * 4), nn.ReLU())
        self.dec = nn.Sequential(
            nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(16, 1, 4, 2, 1))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        logits = self.dec(self.dec_fc(z).view(-1, 32, 4, 4))
        return logits, mu, logvar


def loss_fn(logits, x, mu, logvar):
    recon = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / x.size(0)
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
    return recon, kl


def main():
    torch.manual_seed(CFG["seed"])
    X = torch.from_numpy(make_shapes(CFG["n_train"] + CFG["n_val"], seed=CFG["seed"])).unsqueeze(1)
    Xtr, Xva = X[:CFG["n_train"]], X[CFG["n_train"]:]
    model = ConvVAE(CFG["latent_dim"])
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    print("config:", json.dumps(CFG))
    with open("config.json", "w") as fh:
        json.dump(CFG, fh, indent=2)
    print(f"train {tuple(Xtr.shape)}  val {tuple(Xva.shape)}  params {sum(p.numel() for p in model.parameters())}")
    for epoch in range(1, CFG["epochs"] + 1):
        t0 = time.time()
        model.train()
        perm = torch.randperm(len(Xtr))
        tot_r = tot_k = 0.0
        nb = 0
        for i in range(0, len(Xtr), CFG["batch_size"]):
            x = Xtr[perm[i:i + CFG["batch_size"]]]
            logits, mu, logvar = model(x)
            recon, kl = loss_fn(logits, x, mu, logvar)
            loss = recon + CFG["beta"] * kl
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot_r += recon.item(); tot_k += kl.item(); nb += 1
        model.eval()
        with torch.no_grad():
            logits, mu, logvar = model(Xva)
            vr, vk = loss_fn(logits, Xva, mu, logvar)
        r, k = tot_r / nb, tot_k / nb
        print(f"Epoch {epoch:03d}/{CFG['epochs']:03d} | recon_loss {r:8.3f} | kl {k:7.3f} | elbo {-(r + k):9.3f} | "
              f"val_elbo {-(vr.item() + vk.item()):9.3f} | beta {CFG['beta']:.2f} | {time.time() - t0:.1f}s")
        if epoch % 5 == 0:
            print(f"  saved reconstructions -> samples/recon_epoch{epoch:03d}.png, prior samples -> samples/prior_epoch{epoch:03d}.png")
    print("done.")


if __name__ == "__main__":
    main()
