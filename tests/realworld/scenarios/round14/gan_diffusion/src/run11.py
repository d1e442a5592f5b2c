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

#%DIGITS%

#%EVAL%


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
