import csv, math, os
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)

hparams = {"latent_dim": 8, "hidden_dim": 400, "lr": 0.1, "batch_size": 100, "max_epochs": 25,
           "optimizer": "Adam", "betas": [0.9, 0.999], "likelihood": "bernoulli", "log_every_n_steps": 10, "seed": 11}

FONT = {
    0: ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
    1: ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
    2: ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
    3: ["11110", "00001", "00001", "01110", "00001", "00001", "11110"],
    4: ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
    5: ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],
    6: ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
    7: ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
    8: ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],
    9: ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
}


def load_digits(n, seed):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, 8, 8), np.float32)
    y = rng.integers(0, 10, n)
    for i in range(n):
        g = np.array([[int(c) for c in row] for row in FONT[int(y[i])]], np.float32)
        r0, c0 = rng.integers(0, 2), rng.integers(0, 4)
        X[i, r0:r0 + 7, c0:c0 + 5] = g * rng.uniform(0.7, 1.0)
    X = np.clip(X + rng.normal(0, 0.08, X.shape), 0, 1)
    return (np.round(X * 16) / 16.0).reshape(n, 64).astype(np.float32), y


class LitVAE(nn.Module):
    def __init__(self, d, h, z):
        super().__init__()
        self.fc1 = nn.Linear(d, h)
        self.fc21 = nn.Linear(h, z)
        self.fc22 = nn.Linear(h, z)
        self.fc3 = nn.Linear(z, h)
        self.fc4 = nn.Linear(h, d)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        mu, logvar = self.fc21(h), self.fc22(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.fc4(F.relu(self.fc3(z))), mu, logvar

    def step(self, x):
        logits, mu, logvar = self(x)
        recon = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / x.shape[0]
        kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.shape[0]
        return recon, kl


def main():
    torch.manual_seed(hparams["seed"])
    X, _ = load_digits(5000, hparams["seed"])
    X = torch.from_numpy(X)
    train, val = X[:4500], X[4500:]
    model = LitVAE(64, hparams["hidden_dim"], hparams["latent_dim"])
    opt = torch.optim.Adam(model.parameters(), lr=hparams["lr"], betas=tuple(hparams["betas"]))
    logdir = "lightning_logs/version_3"
    os.makedirs(logdir, exist_ok=True)
    with open(os.path.join(logdir, "hparams.yaml"), "w") as fh:
        yaml.safe_dump(hparams, fh)
    cols = ["epoch", "step", "train/recon_loss", "train/kl", "train/elbo", "train/grad_norm", "lr-Adam", "val/recon_loss", "val/kl", "val/elbo"]
    rows = []
    bs = hparams["batch_size"]
    gstep = 0
    for epoch in range(hparams["max_epochs"]):
        model.train()
        perm = torch.randperm(len(train))
        for i in range(0, len(train), bs):
            x = train[perm[i:i + bs]]
            recon, kl = model.step(x)
            loss = recon + kl
            opt.zero_grad()
            loss.backward()
            gn = torch.sqrt(sum((p.grad.detach() ** 2).sum() for p in model.parameters()))
            opt.step()
            if (gstep + 1) % hparams["log_every_n_steps"] == 0:
                rows.append({"epoch": epoch, "step": gstep, "train/recon_loss": f"{recon.item():.5g}", "train/kl": f"{kl.item():.5g}",
                             "train/elbo": f"{-loss.item():.5g}", "train/grad_norm": f"{gn.item():.5g}", "lr-Adam": hparams["lr"]})
            gstep += 1
        model.eval()
        with torch.no_grad():
            vr, vk = model.step(val)
        rows.append({"epoch": epoch, "step": gstep - 1, "val/recon_loss": f"{vr.item():.5g}", "val/kl": f"{vk.item():.5g}",
                     "val/elbo": f"{-(vr + vk).item():.5g}"})
    with open(os.path.join(logdir, "metrics.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
