import argparse
import os
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--n_epochs", type=int, default=30, help="number of epochs of training")
parser.add_argument("--batch_size", type=int, default=64, help="size of the batches")
parser.add_argument("--lr", type=float, default=0.0002, help="adam: learning rate")
parser.add_argument("--b1", type=float, default=0.5, help="adam: decay of first order momentum of gradient")
parser.add_argument("--b2", type=float, default=0.999, help="adam: decay of first order momentum of gradient")
parser.add_argument("--latent_dim", type=int, default=32, help="dimensionality of the latent space")
parser.add_argument("--img_size", type=int, default=8, help="size of each image dimension")
parser.add_argument("--sample_interval", type=int, default=230, help="interval betwen image samples")
opt = parser.parse_args()
print(opt)
torch.manual_seed(4)
torch.set_num_threads(1)
os.makedirs("images", exist_ok=True)
img_shape = (1, opt.img_size, opt.img_size)

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


def load_digit_images():
    X, y = make_digits(3000, seed=4)
    return np.round(X * 255).astype(np.uint8), y


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()

        def block(in_feat, out_feat, normalize=True):
            layers = [nn.Linear(in_feat, out_feat)]
            if normalize:
                layers.append(nn.BatchNorm1d(out_feat, 0.8))
            layers.append(nn.LeakyReLU(0.2, inplace=True))
            return layers

        self.model = nn.Sequential(
            *block(opt.latent_dim, 128, normalize=False),
            *block(128, 256),
            nn.Linear(256, int(np.prod(img_shape))),
            nn.Tanh()
        )

    def forward(self, z):
        img = self.model(z)
        return img.view(img.size(0), *img_shape)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.model = nn.Sequential(
            nn.Linear(int(np.prod(img_shape)), 256),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(256, 128),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(128, 1),
        )

    def forward(self, img):
        return self.model(img.view(img.size(0), -1))


adversarial_loss = nn.BCEWithLogitsLoss()
generator = Generator()
discriminator = Discriminator()

X, y = load_digit_images()
dataset = TensorDataset(torch.tensor(X, dtype=torch.float32).view(-1, *img_shape))
dataloader = DataLoader(dataset, batch_size=opt.batch_size, shuffle=True)
X_eval = torch.tensor(X, dtype=torch.float32).view(-1, 64) / 255.0
scorer = train_scorer(X_eval, torch.tensor(y))

optimizer_G = torch.optim.Adam(generator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))

for epoch in range(opt.n_epochs):
    for i, (imgs,) in enumerate(dataloader):
        valid = torch.ones(imgs.size(0), 1)
        fake = torch.zeros(imgs.size(0), 1)
        real_imgs = imgs

        #  Train Generator
        optimizer_G.zero_grad()
        z = torch.randn(imgs.shape[0], opt.latent_dim)
        gen_imgs = generator(z)
        g_loss = adversarial_loss(discriminator(gen_imgs), valid)
        g_loss.backward()
        optimizer_G.step()

        #  Train Discriminator
        optimizer_D.zero_grad()
        real_loss = adversarial_loss(discriminator(real_imgs), valid)
        fake_loss = adversarial_loss(discriminator(gen_imgs.detach()), fake)
        d_loss = (real_loss + fake_loss) / 2
        d_loss.backward()
        optimizer_D.step()

        if i % 15 == 0:
            print("[Epoch %d/%d] [Batch %d/%d] [D loss: %f] [G loss: %f]"
                  % (epoch, opt.n_epochs, i, len(dataloader), d_loss.item(), g_loss.item()))

        batches_done = epoch * len(dataloader) + i
        if batches_done % opt.sample_interval == 0 and batches_done > 0:
            generator.eval()
            with torch.no_grad():
                s = (generator(torch.randn(1000, opt.latent_dim)).view(-1, 64) + 1) / 2
            generator.train()
            np.save("images/%d.npy" % batches_done, s[:25].view(-1, 8, 8).numpy())
            n_cls, hist, fd = score_samples(scorer, s, X_eval[:1000])
            print("[Eval] batches_done=%d distinct_classes=%d/10 fd=%.2f hist=%s" % (batches_done, n_cls, fd, hist))
