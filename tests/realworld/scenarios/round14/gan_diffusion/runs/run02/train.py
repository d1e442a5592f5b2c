# GAN on 8x8 digits, ported from the Keras-GAN gan.py example
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)
torch.set_num_threads(1)

GLYPHS = {
    0: ["..####..", ".##..##.", ".##..##.", ".##..##.", ".##..##.", ".##..##.", "..####..", "........"],
    1: ["...##...", "..###...", "...##...", "...##...", "...##...", "...##...", "..####..", "........"],
    2: ["..####..", ".##..##.", ".....##.", "....##..", "...##...", "..##....", ".######.", "........"],
    3: ["..####..", ".##..##.", ".....##.", "...###..", ".....##.", ".##..##.", "..####..", "........"],
    4: [".....##.", "....###.", "...####.", "..##.##.", ".######.", ".....##.", ".....##.", "........"],
    5: [".######.", ".##.....", ".#####..", ".....##.", ".....##.", ".##..##.", "..####..", "........"],
    6: ["...###..", "..##....", ".##.....", ".#####..", ".##..##.", ".##..##.", "..####..", "........"],
    7: [".######.", ".....##.", "....##..", "...##...", "..##....", "..##....", "..##....", "........"],
    8: ["..####..", ".##..##.", ".##..##.", "..####..", ".##..##.", ".##..##.", "..####..", "........"],
    9: ["..####..", ".##..##.", ".##..##.", "..#####.", ".....##.", "....##..", "..###...", "........"],
}


def make_digits(n=3000, seed=0):
    """8x8 handwritten-ish digits: glyphs with random stroke intensity, shift, blur and noise. Pixels in [0, 1]."""
    rng = np.random.RandomState(seed)
    base = np.stack([np.array([[c == "#" for c in row] for row in GLYPHS[d]], dtype=np.float32) for d in range(10)])
    y = rng.randint(0, 10, size=n)
    X = np.zeros((n, 8, 8), dtype=np.float32)
    k = np.array([[0.05, 0.1, 0.05], [0.1, 0.4, 0.1], [0.05, 0.1, 0.05]], dtype=np.float32)
    for i in range(n):
        img = base[y[i]] * rng.uniform(0.6, 1.0, size=(8, 8))
        img = np.roll(img, rng.randint(-1, 2), axis=1)
        img = np.roll(img, rng.randint(0, 2), axis=0)
        p = np.pad(img, 1)
        img = sum(k[a, b] * p[a:a + 8, b:b + 8] for a in range(3) for b in range(3)) / 0.8
        img = img + rng.normal(0, 0.04, size=(8, 8))
        X[i] = np.clip(img, 0, 1)
    return X, y

def train_scorer(X, y, epochs=10):
    """small classifier used to score generated digits"""
    clf = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    o = torch.optim.Adam(clf.parameters(), 1e-3)
    for _ in range(epochs):
        for i in range(0, len(X), 64):
            l = F.cross_entropy(clf(X[i:i + 64]), y[i:i + 64])
            o.zero_grad()
            l.backward()
            o.step()
    return clf


def frechet(a, b):
    a, b = a.double().numpy(), b.double().numpy()
    m1, m2 = a.mean(0), b.mean(0)
    c1, c2 = np.cov(a, rowvar=False), np.cov(b, rowvar=False)
    w, v = np.linalg.eigh(c1)
    s1 = (v * np.sqrt(np.clip(w, 0, None))) @ v.T
    w2 = np.linalg.eigvalsh(s1 @ c2 @ s1)
    return float(((m1 - m2) ** 2).sum() + np.trace(c1) + np.trace(c2) - 2 * np.sqrt(np.clip(w2, 0, None)).sum())


@torch.no_grad()
def score_samples(clf, imgs01, real01):
    """imgs01, real01: (N, 64) in [0, 1]. returns (#distinct predicted classes, class histogram, FD on scorer features)"""
    pred = clf(imgs01).argmax(1)
    hist = torch.bincount(pred, minlength=10)
    f = lambda z: clf[1](clf[0](z))
    return int((hist >= 0.02 * len(pred)).sum()), hist.tolist(), frechet(f(imgs01), f(real01))


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
