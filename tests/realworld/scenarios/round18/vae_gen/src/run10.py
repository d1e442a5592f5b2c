import math
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

LATENT_DIM = 3
HIDDEN = 64
LR = 2e-3
EPOCHS = 40
BATCH = 128
SEED = 10


def make_data(n, d=20, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 1, (n, 3))
    W = rng.normal(0, 1, (3, d))
    x = np.tanh(z @ W / 2) + 0.05 * rng.standard_t(3, (n, d))
    return x.astype(np.float32)


class GaussVAE(nn.Module):
    def __init__(self, d, h, k):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, h), nn.ELU(), nn.Linear(h, h), nn.ELU(), nn.Linear(h, 2 * k))
        self.dec = nn.Sequential(nn.Linear(k, h), nn.ELU(), nn.Linear(h, h), nn.ELU(), nn.Linear(h, d))
        self.log_sigma = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, -1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


def gaussian_likelihood(x, mean, sigma):
    p = torch.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi))
    return torch.log(p).sum(-1)


def main():
    torch.manual_seed(SEED)
    X = torch.from_numpy(make_data(6000, seed=SEED))
    Xtr, Xva = X[:5000], X[5000:]
    model = GaussVAE(X.shape[1], HIDDEN, LATENT_DIM)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    print(f"GaussVAE latent_dim={LATENT_DIM} hidden={HIDDEN} lr={LR} batch={BATCH} epochs={EPOCHS} data={tuple(Xtr.shape)}")
    for epoch in range(EPOCHS):
        model.train()
        perm = torch.randperm(len(Xtr))
        nll_sum = kl_sum = 0.0
        nb = 0
        for i in range(0, len(Xtr), BATCH):
            x = Xtr[perm[i:i + BATCH]]
            mean, mu, logvar = model(x)
            sigma = model.log_sigma.exp()
            nll = -gaussian_likelihood(x, mean, sigma).mean()
            kl = (-0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(-1)).mean()
            loss = nll + kl
            opt.zero_grad()
            loss.backward()
            opt.step()
            nll_sum += nll.item(); kl_sum += kl.item(); nb += 1
        model.eval()
        with torch.no_grad():
            mean, mu, logvar = model(Xva)
            vnll = -gaussian_likelihood(Xva, mean, model.log_sigma.exp()).mean().item()
            vkl = (-0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(-1)).mean().item()
        print(f"epoch {epoch:02d} | nll {nll_sum / nb:9.4f} | kl {kl_sum / nb:7.4f} | elbo {-(nll_sum + kl_sum) / nb:9.4f} | "
              f"val_elbo {-(vnll + vkl):9.4f} | sigma_x {model.log_sigma.exp().item():.4f}")


if __name__ == "__main__":
    main()
