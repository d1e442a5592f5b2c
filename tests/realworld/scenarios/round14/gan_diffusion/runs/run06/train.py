import argparse
import csv
import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--n_epochs", type=int, default=25)
parser.add_argument("--batch_size", type=int, default=64)
parser.add_argument("--lr", type=float, default=0.0002)
parser.add_argument("--b1", type=float, default=0.5)
parser.add_argument("--b2", type=float, default=0.999)
parser.add_argument("--latent_dim", type=int, default=32)
parser.add_argument("--log_every", type=int, default=20)
parser.add_argument("--seed", type=int, default=7)
opt = parser.parse_args()
print(opt)
torch.manual_seed(opt.seed)
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


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(opt.latent_dim, 64 * 2 * 2)
        self.conv_blocks = nn.Sequential(
            nn.BatchNorm2d(64),
            nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.BatchNorm2d(32), nn.LeakyReLU(0.2),
            nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.BatchNorm2d(16), nn.LeakyReLU(0.2),
            nn.Conv2d(16, 1, 3, 1, 1), nn.Tanh())

    def forward(self, z):
        return self.conv_blocks(self.l1(z).view(-1, 64, 2, 2))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(1, 32, 4, 2, 1), nn.LeakyReLU(0.2), nn.Dropout2d(0.25),
            nn.Conv2d(32, 64, 4, 2, 1), nn.LeakyReLU(0.2), nn.Dropout2d(0.25),
            nn.Flatten(), nn.Linear(64 * 2 * 2, 1))

    def forward(self, img):
        return self.model(img)


def grad_norm(module):
    return torch.norm(torch.stack([p.grad.norm() for p in module.parameters() if p.grad is not None])).item()


X, y = make_digits(3000)
X = torch.tensor(X).view(-1, 64)
y = torch.tensor(y)
scorer = train_scorer(X, y)
imgs_all = (X * 2 - 1).view(-1, 1, 8, 8)
loader = torch.utils.data.DataLoader(imgs_all, batch_size=opt.batch_size, shuffle=True, drop_last=True)

generator = Generator()
discriminator = Discriminator()
adversarial_loss = nn.BCEWithLogitsLoss()
optimizer_G = torch.optim.Adam(generator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))

writer = csv.writer(open("metrics.csv", "w", newline=""))
writer.writerow(["epoch", "iter", "loss_D", "loss_G", "D_x", "D_G_z", "gradnorm_D", "gradnorm_G"])
t0 = time.time()
step = 0
for epoch in range(opt.n_epochs):
    for i, imgs in enumerate(loader):
        valid = torch.ones(imgs.size(0), 1)
        fake = torch.zeros(imgs.size(0), 1)

        # -----------------
        #  Train Generator
        # -----------------
        optimizer_G.zero_grad()
        z = torch.randn(imgs.size(0), opt.latent_dim)
        gen_imgs = generator(z)
        g_loss = adversarial_loss(discriminator(gen_imgs), valid)
        g_loss.backward()
        gG = grad_norm(generator)
        optimizer_G.step()

        # ---------------------
        #  Train Discriminator
        # ---------------------
        out_real = discriminator(imgs)
        out_fake = discriminator(gen_imgs.detach())
        d_loss = (adversarial_loss(out_real, valid) + adversarial_loss(out_fake, fake)) / 2
        d_loss.backward()
        gD = grad_norm(discriminator)
        optimizer_D.step()

        if step % opt.log_every == 0:
            dx, dgz = torch.sigmoid(out_real).mean().item(), torch.sigmoid(out_fake).mean().item()
            writer.writerow([epoch, step, "%.4f" % d_loss.item(), "%.4f" % g_loss.item(), "%.4f" % dx, "%.4f" % dgz, "%.4g" % gD, "%.4g" % gG])
        step += 1
    generator.eval()
    with torch.no_grad():
        samples = (generator(torch.randn(1000, opt.latent_dim)).view(-1, 64) + 1) / 2
    generator.train()
    n_cls, hist, fd = score_samples(scorer, samples, X[:1000])
    print("ep %2d/%d it %5d | loss_D %.4f loss_G %.4f | D(x) %.3f D(G(z)) %.3f | gnorm D %.4g G %.4g | classes %d/10 fd %.2f | %.0fs"
          % (epoch + 1, opt.n_epochs, step, d_loss.item(), g_loss.item(), torch.sigmoid(out_real).mean().item(),
             torch.sigmoid(out_fake).mean().item(), gD, gG, n_cls, fd, time.time() - t0))
torch.save(generator.state_dict(), "generator.pth")
