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

#%DIGITS%

#%EVAL%

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
