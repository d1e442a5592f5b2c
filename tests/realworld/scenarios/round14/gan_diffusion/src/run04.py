import math
import os
import time
import yaml
import numpy as np
import torch
import torch.nn as nn

cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
torch.set_num_threads(1)


def ring_dataset(n, modes=8, radius=2.0, std=0.05):
    k = torch.randint(0, modes, (n,))
    a = k.float() * 2 * math.pi / modes
    return torch.stack([radius * torch.cos(a), radius * torch.sin(a)], 1) + std * torch.randn(n, 2)


def mode_stats(x, modes=8, radius=2.0, std=0.05):
    ang = torch.arange(modes) * 2 * math.pi / modes
    c = torch.stack([radius * torch.cos(ang), radius * torch.sin(ang)], 1)
    d = torch.cdist(x, c).min(1)
    hq = d.values < 3 * std
    cnt = torch.bincount(d.indices[hq], minlength=modes)
    return int((cnt >= 0.01 * len(x)).sum()), hq.float().mean().item(), cnt.tolist()


class Generator(nn.Module):
    def __init__(self, z, h):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 2))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 1))

    def forward(self, x):
        return self.net(x)


data = ring_dataset(cfg["data"]["n"], std=cfg["data"]["std"])
loader = torch.utils.data.DataLoader(data, batch_size=cfg["batch_size"], shuffle=True, drop_last=True)
print("data: %d points, mean (%.2f, %.2f), std (%.2f, %.2f)" % (len(data), data[:, 0].mean(), data[:, 1].mean(), data[:, 0].std(), data[:, 1].std()))
G = Generator(cfg["latent_dim"], cfg["hidden"])
D = Discriminator(cfg["hidden"])
opt_G = torch.optim.Adam(G.parameters(), lr=cfg["lr_G"], betas=tuple(cfg["betas"]))
opt_D = torch.optim.Adam(D.parameters(), lr=cfg["lr_D"], betas=tuple(cfg["betas"]))
adv = nn.BCEWithLogitsLoss()

n_epochs = cfg["n_epochs"]
for epoch in range(n_epochs):
    for i, real in enumerate(loader):
        b = real.size(0)
        valid, fake = torch.ones(b, 1), torch.zeros(b, 1)
        # discriminator
        z = torch.randn(b, cfg["latent_dim"])
        gen = G(z).detach()
        d_loss = (adv(D(real), valid) + adv(D(gen), fake)) / 2
        opt_D.zero_grad()
        d_loss.backward()
        opt_D.step()
        # generator
        for _ in range(cfg["n_gen_steps"]):
            z = torch.randn(b, cfg["latent_dim"])
            g_loss = adv(D(G(z)), valid)
            opt_G.zero_grad()
            g_loss.backward()
            opt_G.step()
        if i % cfg["log_interval"] == 0:
            print("[Epoch %d/%d] [Batch %d/%d] [D loss: %.4f] [G loss: %.4f]"
                  % (epoch, n_epochs, i, len(loader), d_loss.item(), g_loss.item()))
    with torch.no_grad():
        s = G(torch.randn(2000, cfg["latent_dim"]))
    n_modes, hq, cnt = mode_stats(s, std=cfg["data"]["std"])
    print("[Epoch %d/%d] eval: modes %d/8, high-quality %.1f%%, sample mean (%.2f, %.2f), sample std (%.2f, %.2f)"
          % (epoch, n_epochs, n_modes, 100 * hq, s[:, 0].mean(), s[:, 1].mean(), s[:, 0].std(), s[:, 1].std()))
    if epoch == n_epochs - 1:
        np.savetxt("samples_final.csv", s[:500].numpy(), delimiter=",", fmt="%.4f", header="x,y", comments="")
torch.save({"G": G.state_dict(), "D": D.state_dict()}, "gan_ring8.pt")
