from __future__ import print_function
import argparse
import os
import random
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

parser = argparse.ArgumentParser()
parser.add_argument('--batchSize', type=int, default=64, help='input batch size')
parser.add_argument('--nz', type=int, default=32, help='size of the latent z vector')
parser.add_argument('--ngf', type=int, default=64)
parser.add_argument('--ndf', type=int, default=64)
parser.add_argument('--niter', type=int, default=30, help='number of epochs to train for')
parser.add_argument('--lr', type=float, default=0.0002, help='learning rate, default=0.0002')
parser.add_argument('--beta1', type=float, default=0.5, help='beta1 for adam. default=0.5')
parser.add_argument('--outf', default='out', help='folder to output images and model checkpoints')
parser.add_argument('--manualSeed', type=int, default=999, help='manual seed')
opt = parser.parse_args()
print(opt)

os.makedirs(opt.outf, exist_ok=True)
print("Random Seed: ", opt.manualSeed)
random.seed(opt.manualSeed)
torch.manual_seed(opt.manualSeed)
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

X, y = make_digits(3000, seed=1)
X = torch.tensor(X).view(-1, 64)
y = torch.tensor(y)
scorer = train_scorer(X, y)
dataset = torch.utils.data.TensorDataset((X * 2 - 1).view(-1, 1, 8, 8))
dataloader = torch.utils.data.DataLoader(dataset, batch_size=opt.batchSize, shuffle=True, drop_last=True)

nz, ngf, ndf = opt.nz, opt.ngf, opt.ndf


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            nn.Linear(nz, ngf * 2), nn.LeakyReLU(0.2, True),
            nn.Linear(ngf * 2, ngf * 4), nn.LeakyReLU(0.2, True),
            nn.Linear(ngf * 4, 64), nn.Tanh())

    def forward(self, input):
        return self.main(input.view(input.size(0), -1)).view(-1, 1, 8, 8)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            nn.Linear(64, ndf * 4), nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(ndf * 4, ndf * 2), nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(ndf * 2, 1),
            nn.Sigmoid())

    def forward(self, input):
        return self.main(input.view(input.size(0), -1)).view(-1, 1).squeeze(1)


netG = Generator()
print(netG)
netD = Discriminator()
print(netD)

criterion = nn.BCEWithLogitsLoss()
fixed_noise = torch.randn(opt.batchSize, nz, 1, 1)
real_label = 1.
fake_label = 0.

optimizerD = optim.Adam(netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))

for epoch in range(opt.niter):
    for i, (data,) in enumerate(dataloader, 0):
        ############################
        # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
        ###########################
        netD.zero_grad()
        real_cpu = data
        batch_size = real_cpu.size(0)
        label = torch.full((batch_size,), real_label)
        output = netD(real_cpu)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()

        noise = torch.randn(batch_size, nz, 1, 1)
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach())
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        optimizerD.step()

        ############################
        # (2) Update G network: maximize log(D(G(z)))
        ###########################
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()

        if i % 15 == 0:
            print('[%d/%d][%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f / %.4f'
                  % (epoch, opt.niter, i, len(dataloader),
                     errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))

    netG.eval()
    with torch.no_grad():
        samples = (netG(torch.randn(1000, nz, 1, 1)).view(-1, 64) + 1) / 2
        np.save('%s/fake_samples_epoch_%03d.npy' % (opt.outf, epoch), samples[:64].view(-1, 8, 8).numpy())
    netG.train()
    if epoch % 5 == 4:
        n_cls, hist, fd = score_samples(scorer, samples, X[:1000])
        print('==> epoch %d: generated digits cover %d/10 classes, FD %.2f, class counts %s' % (epoch, n_cls, fd, hist))

    torch.save(netG.state_dict(), '%s/netG_epoch_%d.pth' % (opt.outf, epoch))
    torch.save(netD.state_dict(), '%s/netD_epoch_%d.pth' % (opt.outf, epoch))
