import os
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

latent_size = cfg["latent_size"]
hidden_size = cfg["hidden_size"]
image_size = 64
num_epochs = cfg["num_epochs"]
batch_size = cfg["batch_size"]

X, y = make_digits(3000, seed=2)
X = torch.tensor(X).view(-1, 64)
y = torch.tensor(y)
scorer = train_scorer(X, y)
data_loader = torch.utils.data.DataLoader(X * 2 - 1, batch_size=batch_size, shuffle=True)

D = nn.Sequential(
    nn.Linear(image_size, hidden_size), nn.LeakyReLU(0.2),
    nn.Linear(hidden_size, hidden_size), nn.LeakyReLU(0.2),
    nn.Linear(hidden_size, 1))
G = nn.Sequential(
    nn.Linear(latent_size, hidden_size), nn.ReLU(),
    nn.Linear(hidden_size, hidden_size), nn.ReLU(),
    nn.Linear(hidden_size, image_size), nn.Tanh())


def init_weights(m):
    if isinstance(m, nn.Linear):
        if cfg["init"]["type"] == "normal":
            nn.init.normal_(m.weight, mean=0.0, std=cfg["init"]["std"])
        elif cfg["init"]["type"] == "xavier":
            nn.init.xavier_normal_(m.weight)
        nn.init.zeros_(m.bias)


D.apply(init_weights)
G.apply(init_weights)

criterion = nn.BCEWithLogitsLoss()
d_optimizer = torch.optim.Adam(D.parameters(), lr=cfg["lr"], betas=tuple(cfg["betas"]))
g_optimizer = torch.optim.Adam(G.parameters(), lr=cfg["lr"], betas=tuple(cfg["betas"]))
os.makedirs("samples", exist_ok=True)

total_step = len(data_loader)
for epoch in range(num_epochs):
    for i, images in enumerate(data_loader):
        b = images.size(0)
        real_labels = torch.ones(b, 1)
        fake_labels = torch.zeros(b, 1)

        outputs = D(images)
        d_loss_real = criterion(outputs, real_labels)
        real_score = torch.sigmoid(outputs)
        z = torch.randn(b, latent_size)
        fake_images = G(z)
        outputs = D(fake_images.detach())
        d_loss_fake = criterion(outputs, fake_labels)
        fake_score = torch.sigmoid(outputs)
        d_loss = d_loss_real + d_loss_fake
        d_optimizer.zero_grad()
        d_loss.backward()
        d_optimizer.step()

        outputs = D(fake_images)
        g_loss = criterion(outputs, real_labels)
        g_optimizer.zero_grad()
        g_loss.backward()
        g_optimizer.step()

        if (i + 1) % cfg["log_step"] == 0:
            print("Epoch [{}/{}], Step [{}/{}], d_loss: {:.4f}, g_loss: {:.4f}, D(x): {:.2f}, D(G(z)): {:.2f}"
                  .format(epoch, num_epochs, i + 1, total_step, d_loss.item(), g_loss.item(),
                          real_score.mean().item(), fake_score.mean().item()))
    if (epoch + 1) % cfg["eval_every"] == 0:
        with torch.no_grad():
            samples = (G(torch.randn(1000, latent_size)) + 1) / 2
        n_cls, hist, fd = score_samples(scorer, samples, X[:1000])
        frac_sat = (samples.sub(0.5).abs() > 0.49).float().mean().item()
        print("  eval epoch {}: classes {}/10, FD {:.2f}, saturated pixels {:.1f}%".format(epoch + 1, n_cls, fd, 100 * frac_sat))
        np.save("samples/fake_images-{}.npy".format(epoch + 1), samples[:64].view(-1, 8, 8).numpy())

torch.save(G.state_dict(), "G.ckpt")
torch.save(D.state_dict(), "D.ckpt")
