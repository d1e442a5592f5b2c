import time
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
torch.set_num_threads(1)

#%DIGITS%

#%EVAL%


class VAE(nn.Module):
    def __init__(self, zdim, h):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(64, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU())
        self.mu = nn.Linear(h, zdim)
        self.logvar = nn.Linear(h, zdim)
        self.dec = nn.Sequential(nn.Linear(zdim, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 64))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


def losses(model, x):
    logits, mu, logvar = model(x)
    recon = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / len(x)
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / len(x)
    return recon, kl


X, y = make_digits(cfg["data"]["n"], seed=cfg["data"]["seed"])
X = torch.tensor(X).view(-1, 64)
y = torch.tensor(y)
n_val = cfg["data"]["n_val"]
Xtr, Xval = X[n_val:], X[:n_val]
scorer = train_scorer(X, y)
model = VAE(cfg["model"]["z_dim"], cfg["model"]["hidden"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
bs = cfg["train"]["batch_size"]
print(f"train {len(Xtr)} val {len(Xval)} | params {sum(p.numel() for p in model.parameters())}")
for epoch in range(1, cfg["train"]["epochs"] + 1):
    t0 = time.time()
    perm = torch.randperm(len(Xtr))
    tot_r = tot_k = 0.0
    nb = 0
    for i in range(0, len(Xtr), bs):
        xb = Xtr[perm[i:i + bs]]
        recon, kl = losses(model, xb)
        loss = recon + kl
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot_r += recon.item()
        tot_k += kl.item()
        nb += 1
    model.eval()
    with torch.no_grad():
        vr, vk = losses(model, Xval)
    model.train()
    r, k = tot_r / nb, tot_k / nb
    print(f"epoch {epoch} recon {r:.2f} kl {k:.2f} elbo {-(r + k):.2f} | val recon {vr.item():.2f} kl {vk.item():.2f} elbo {-(vr + vk).item():.2f} | {time.time() - t0:.1f}s")
    if epoch % cfg["train"]["sample_every"] == 0:
        with torch.no_grad():
            samples = torch.sigmoid(model.dec(torch.randn(1000, cfg["model"]["z_dim"])))
        n_cls, hist, fd = score_samples(scorer, samples, X[:1000])
        print(f"  [samples] epoch {epoch}: distinct_classes={n_cls}/10 fd={fd:.2f} class_hist={hist}")
torch.save(model.state_dict(), "vae_digits.pt")
