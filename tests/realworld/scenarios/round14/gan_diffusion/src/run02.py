# GAN on 8x8 digits, ported from the Keras-GAN gan.py example
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)
torch.set_num_threads(1)

#%DIGITS%

#%EVAL%


class GAN:
    def __init__(self, latent_dim=32, img_dim=64):
        self.latent_dim = latent_dim
        self.generator = nn.Sequential(
            nn.Linear(latent_dim, 128), nn.LeakyReLU(0.2), nn.BatchNorm1d(128, momentum=0.2),
            nn.Linear(128, 256), nn.LeakyReLU(0.2), nn.BatchNorm1d(256, momentum=0.2),
            nn.Linear(256, img_dim), nn.Tanh())
        self.discriminator = nn.Sequential(
            nn.Linear(img_dim, 256), nn.LeakyReLU(0.2), nn.Dropout(0.3),
            nn.Linear(256, 128), nn.LeakyReLU(0.2), nn.Dropout(0.3),
            nn.Linear(128, 1))
        self.opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
        self.opt_g = torch.optim.Adam(self.generator.parameters(), lr=2e-4, betas=(0.5, 0.999))

    def train(self, epochs, batch_size=64, sample_interval=500):
        X, y = make_digits(3000)
        X = torch.tensor(X).view(-1, 64)
        y = torch.tensor(y)
        scorer = train_scorer(X, y)
        X_train = X * 2 - 1
        valid = torch.ones(batch_size, 1)
        fake = torch.zeros(batch_size, 1)
        for epoch in range(epochs + 1):
            # ---------------------
            #  Train Discriminator
            # ---------------------
            idx = torch.randint(0, X_train.shape[0], (batch_size,))
            imgs = X_train[idx]
            noise = torch.randn(batch_size, self.latent_dim)
            gen_imgs = self.generator(noise)
            out_real = self.discriminator(imgs)
            out_fake = self.discriminator(gen_imgs.detach())
            d_loss_real = F.binary_cross_entropy_with_logits(out_real, valid)
            d_loss_fake = F.binary_cross_entropy_with_logits(out_fake, fake)
            d_loss = 0.5 * (d_loss_real + d_loss_fake)
            self.opt_d.zero_grad()
            d_loss.backward()
            self.opt_d.step()
            acc = 0.5 * ((out_real > 0).float().mean() + (out_fake < 0).float().mean())
            # ---------------------
            #  Train Generator
            # ---------------------
            g_loss = F.binary_cross_entropy_with_logits(self.discriminator(gen_imgs), valid)
            self.opt_g.zero_grad()
            g_loss.backward()
            self.opt_g.step()

            if epoch % 15 == 0:
                print("%d [D loss: %f, acc.: %.2f%%] [G loss: %f]" % (epoch, d_loss.item(), 100 * acc.item(), g_loss.item()))
            if epoch % sample_interval == 0 and epoch > 0:
                self.generator.eval()
                with torch.no_grad():
                    samples = (self.generator(torch.randn(1000, self.latent_dim)) + 1) / 2
                self.generator.train()
                n_cls, hist, fd = score_samples(scorer, samples, X[:1000])
                print("  sample check @%d: distinct classes %d/10, hist %s, FD %.2f" % (epoch, n_cls, hist, fd))
                np.save("images/%d.npy" % epoch, samples[:25].view(-1, 8, 8).numpy())


if __name__ == "__main__":
    import os
    os.makedirs("images", exist_ok=True)
    gan = GAN()
    gan.train(epochs=3000, batch_size=64, sample_interval=500)
