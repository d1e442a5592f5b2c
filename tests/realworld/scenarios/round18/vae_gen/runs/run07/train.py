import csv, os
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)

with open("configs/vae.yaml") as fh:
    config = yaml.safe_load(fh)


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


class VanillaVAE(nn.Module):
    def __init__(self, in_channels, latent_dim, hidden_dims=(16, 32), **kwargs):
        super().__init__()
        self.latent_dim = latent_dim
        mods, c = [], in_channels
        for h in hidden_dims:
            mods.append(nn.Sequential(nn.Conv2d(c, h, 3, 2, 1), nn.BatchNorm2d(h), nn.LeakyReLU()))
            c = h
        self.encoder = nn.Sequential(*mods)
        self.fc_mu = nn.Linear(hidden_dims[-1] * 16, latent_dim)
        self.fc_var = nn.Linear(hidden_dims[-1] * 16, latent_dim)
        self.decoder_input = nn.Linear(latent_dim, hidden_dims[-1] * 16)
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(hidden_dims[-1], hidden_dims[0], 3, 2, 1, output_padding=1), nn.BatchNorm2d(hidden_dims[0]), nn.LeakyReLU(),
            nn.ConvTranspose2d(hidden_dims[0], hidden_dims[0], 3, 2, 1, output_padding=1), nn.BatchNorm2d(hidden_dims[0]), nn.LeakyReLU())
        self.final_layer = nn.Sequential(nn.Conv2d(hidden_dims[0], in_channels, 3, padding=1), nn.Sigmoid())

    def encode(self, x):
        h = torch.flatten(self.encoder(x), 1)
        return self.fc_mu(h), self.fc_var(h)

    def decode(self, z):
        h = self.decoder_input(z).view(-1, 32, 4, 4)
        return self.final_layer(self.decoder(h))

    def reparameterize(self, mu, logvar):
        return mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)

    def forward(self, x):
        mu, log_var = self.encode(x)
        return self.decode(self.reparameterize(mu, log_var)), x, mu, log_var

    def loss_function(self, recons, input, mu, log_var, kld_weight):
        recons_loss = F.mse_loss(recons, input)
        kld_loss = torch.mean(-0.5 * torch.sum(1 + log_var - mu ** 2 - log_var.exp(), dim=1), dim=0)
        loss = recons_loss + kld_weight * kld_loss
        return {"loss": loss, "Reconstruction_Loss": recons_loss.detach(), "KLD": -kld_loss.detach()}

    def sample(self, n):
        return self.decode(torch.randn(n, self.latent_dim))


def main():
    exp = config["exp_params"]
    torch.manual_seed(exp["manual_seed"])
    X = torch.from_numpy(make_shapes(3600, config["data_params"]["patch_size"], seed=exp["manual_seed"])).unsqueeze(1)
    train, val = X[:3000], X[3000:]
    model = VanillaVAE(**config["model_params"])
    opt = torch.optim.Adam(model.parameters(), lr=exp["LR"], weight_decay=exp["weight_decay"])
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=exp["scheduler_gamma"])
    logdir = os.path.join(config["logging_params"]["save_dir"], config["model_params"]["name"], "version_0")
    os.makedirs(logdir, exist_ok=True)
    with open(os.path.join(logdir, "hparams.yaml"), "w") as fh:
        yaml.safe_dump(config, fh)
    cols = ["epoch", "step", "loss", "Reconstruction_Loss", "KLD", "val_loss", "val_Reconstruction_Loss", "val_KLD",
            "val_active_units", "val_sample_pixel_std"]
    rows = []
    bs = config["data_params"]["train_batch_size"]
    step = 0
    for epoch in range(config["trainer_params"]["max_epochs"]):
        model.train()
        perm = torch.randperm(len(train))
        for i in range(0, len(train), bs):
            x = train[perm[i:i + bs]]
            out = model.loss_function(*model(x), kld_weight=exp["kld_weight"])
            opt.zero_grad()
            out["loss"].backward()
            opt.step()
            step += 1
            if step % config["trainer_params"]["log_every_n_steps"] == 0:
                rows.append({"epoch": epoch, "step": step - 1, **{k: f"{v.item():.6g}" for k, v in out.items()}})
        model.eval()
        with torch.no_grad():
            mu, log_var = model.encode(val)
            recons = model.decode(mu)
            z = model.reparameterize(mu, log_var)
            out = model.loss_function(model.decode(z), val, mu, log_var, kld_weight=exp["kld_weight"])
            active = int((mu.var(0) > 1e-2).sum())
            samples = model.sample(64)
            pix_std = samples.std(0).mean().item()
        rows.append({"epoch": epoch, "step": step - 1, **{f"val_{k}": f"{v.item():.6g}" for k, v in out.items()},
                     "val_active_units": active, "val_sample_pixel_std": f"{pix_std:.6g}"})
        sched.step()
        print(f"Epoch {epoch}: val_loss={float(out['loss']):.4f} saved {logdir}/Reconstructions/recons_VanillaVAE_Epoch_{epoch}.png, "
              f"{logdir}/Samples/VanillaVAE_Epoch_{epoch}.png")
    with open(os.path.join(logdir, "metrics.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
