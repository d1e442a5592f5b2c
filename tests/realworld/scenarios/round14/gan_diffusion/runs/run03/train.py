"""pix2pix-style digit completion: the bottom rows of each 8x8 digit are masked, G fills them in.
Stripped down from pytorch-CycleGAN-and-pix2pix (options / model / train loop in one file)."""
import argparse
import os
import time
import numpy as np
import torch
import torch.nn as nn

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


def get_opt():
    p = argparse.ArgumentParser()
    p.add_argument("--name", default="digits_inpaint_pix2pix")
    p.add_argument("--checkpoints_dir", default="./checkpoints")
    p.add_argument("--model", default="pix2pix")
    p.add_argument("--direction", default="AtoB")
    p.add_argument("--input_nc", type=int, default=1)
    p.add_argument("--output_nc", type=int, default=1)
    p.add_argument("--ngf", type=int, default=32)
    p.add_argument("--ndf", type=int, default=32)
    p.add_argument("--netG", default="unet_8")
    p.add_argument("--netD", default="basic")
    p.add_argument("--norm", default="batch")
    p.add_argument("--init_type", default="normal")
    p.add_argument("--init_gain", type=float, default=0.02)
    p.add_argument("--gan_mode", default="vanilla")
    p.add_argument("--lambda_L1", type=float, default=100.0)
    p.add_argument("--batch_size", type=int, default=16)
    p.add_argument("--lr", type=float, default=0.0002)
    p.add_argument("--beta1", type=float, default=0.5)
    p.add_argument("--n_epochs", type=int, default=8)
    p.add_argument("--n_epochs_decay", type=int, default=4)
    p.add_argument("--mask_rows", type=int, default=3)
    p.add_argument("--print_freq", type=int, default=400)
    p.add_argument("--save_epoch_freq", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


def print_options(opt, parser_defaults=None):
    msg = "----------------- Options ---------------\n"
    for k, v in sorted(vars(opt).items()):
        msg += "{:>25}: {:<30}\n".format(str(k), str(v))
    msg += "----------------- End -------------------"
    print(msg)
    os.makedirs(os.path.join(opt.checkpoints_dir, opt.name), exist_ok=True)
    with open("opt.txt", "w") as f:
        f.write(msg + "\n")


class UnetG(nn.Module):
    def __init__(self, ngf):
        super().__init__()
        self.e1 = nn.Sequential(nn.Conv2d(1, ngf, 3, 1, 1), nn.LeakyReLU(0.2))
        self.e2 = nn.Sequential(nn.Conv2d(ngf, ngf * 2, 4, 2, 1), nn.BatchNorm2d(ngf * 2), nn.LeakyReLU(0.2))
        self.e3 = nn.Sequential(nn.Conv2d(ngf * 2, ngf * 4, 4, 2, 1), nn.BatchNorm2d(ngf * 4), nn.LeakyReLU(0.2))
        self.d3 = nn.Sequential(nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1), nn.BatchNorm2d(ngf * 2), nn.ReLU())
        self.d2 = nn.Sequential(nn.ConvTranspose2d(ngf * 4, ngf, 4, 2, 1), nn.BatchNorm2d(ngf), nn.ReLU())
        self.out = nn.Sequential(nn.Conv2d(ngf * 2, 1, 3, 1, 1), nn.Tanh())

    def forward(self, x):
        h1 = self.e1(x)
        h2 = self.e2(h1)
        h3 = self.e3(h2)
        u3 = self.d3(h3)
        u2 = self.d2(torch.cat([u3, h2], 1))
        return self.out(torch.cat([u2, h1], 1))


class PatchD(nn.Module):
    def __init__(self, ndf):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(2, ndf, 4, 2, 1), nn.LeakyReLU(0.2),
            nn.Conv2d(ndf, ndf * 2, 3, 1, 1), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2),
            nn.Conv2d(ndf * 2, 1, 3, 1, 1))

    def forward(self, x):
        return self.model(x)


def init_weights(net, gain):
    def f(m):
        if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
            nn.init.normal_(m.weight, 0.0, gain)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.BatchNorm2d):
            nn.init.normal_(m.weight, 1.0, gain)
            nn.init.zeros_(m.bias)
    net.apply(f)


class Pix2PixModel:
    def __init__(self, opt):
        self.opt = opt
        self.netG = UnetG(opt.ngf)
        self.netD = PatchD(opt.ndf)
        init_weights(self.netG, opt.init_gain)
        init_weights(self.netD, opt.init_gain)
        self.criterionGAN = nn.BCEWithLogitsLoss()
        self.criterionL1 = nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
        rule = lambda ep: 1.0 - max(0, ep + 1 - opt.n_epochs) / float(opt.n_epochs_decay + 1)
        self.schedulers = [torch.optim.lr_scheduler.LambdaLR(o, rule) for o in (self.optimizer_G, self.optimizer_D)]
        self.loss_names = ["G_GAN", "G_L1", "D_real", "D_fake"]

    def set_input(self, A, B):
        self.real_A, self.real_B = A, B

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    @staticmethod
    def set_requires_grad(nets, requires_grad=False):
        if not isinstance(nets, list):
            nets = [nets]
        for net in nets:
            for p in net.parameters():
                p.requires_grad = requires_grad

    def gan_loss(self, pred, is_real):
        return self.criterionGAN(pred, torch.full_like(pred, 1.0 if is_real else 0.0))

    def backward_D(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        self.loss_D_fake = self.gan_loss(self.netD(fake_AB.detach()), False)
        real_AB = torch.cat((self.real_A, self.real_B), 1)
        self.loss_D_real = self.gan_loss(self.netD(real_AB), True)
        self.loss_D = (self.loss_D_fake + self.loss_D_real) * 0.5
        self.loss_D.backward()

    def backward_G(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        self.loss_G_GAN = self.gan_loss(self.netD(fake_AB), True)
        self.loss_G_L1 = self.criterionL1(self.fake_B, self.real_B) * self.opt.lambda_L1
        self.loss_G = self.loss_G_GAN + self.loss_G_L1
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        # update D
        self.set_requires_grad(self.netD, True)
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        # update G
        self.set_requires_grad(self.netG, False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()

    def update_learning_rate(self):
        old_lr = self.optimizer_G.param_groups[0]["lr"]
        for s in self.schedulers:
            s.step()
        lr = self.optimizer_G.param_groups[0]["lr"]
        print("learning rate %.7f -> %.7f" % (old_lr, lr))

    def get_current_losses(self):
        return {k: getattr(self, "loss_" + k).item() for k in self.loss_names}

    def save_networks(self, epoch):
        d = os.path.join(self.opt.checkpoints_dir, self.opt.name)
        torch.save(self.netG.state_dict(), os.path.join(d, "%s_net_G.pth" % epoch))
        torch.save(self.netD.state_dict(), os.path.join(d, "%s_net_D.pth" % epoch))


def print_current_losses(epoch, iters, losses, t_comp, t_data):
    message = "(epoch: %d, iters: %d, time: %.3f, data: %.3f) " % (epoch, iters, t_comp, t_data)
    for k, v in losses.items():
        message += "%s: %.3f " % (k, v)
    print(message)
    with open("loss_log.txt", "a") as log_file:
        log_file.write("%s\n" % message)


def main():
    opt = get_opt()
    torch.manual_seed(opt.seed)
    torch.set_num_threads(1)
    print_options(opt)
    X, _ = make_digits(2600, seed=opt.seed)
    B = torch.tensor(X).unsqueeze(1) * 2 - 1
    A = B.clone()
    A[:, :, 8 - opt.mask_rows:, :] = -1.0
    A_train, B_train, A_val, B_val = A[:2400], B[:2400], A[2400:], B[2400:]
    print("dataset [AlignedDataset] was created")
    print("The number of training images = %d" % len(A_train))
    model = Pix2PixModel(opt)
    n_params = sum(p.numel() for p in model.netG.parameters())
    print("[Network G] Total number of parameters : %.3f M" % (n_params / 1e6))
    n_params = sum(p.numel() for p in model.netD.parameters())
    print("[Network D] Total number of parameters : %.3f M" % (n_params / 1e6))
    with open("loss_log.txt", "a") as log_file:
        log_file.write("================ Training Loss (%s) ================\n" % time.strftime("%c"))
    for epoch in range(1, opt.n_epochs + opt.n_epochs_decay + 1):
        epoch_start = time.time()
        perm = torch.randperm(len(A_train))
        epoch_iter = 0
        iter_data_time = time.time()
        for i in range(0, len(A_train), opt.batch_size):
            idx = perm[i:i + opt.batch_size]
            iter_start = time.time()
            t_data = iter_start - iter_data_time
            epoch_iter += len(idx)
            model.set_input(A_train[idx], B_train[idx])
            model.optimize_parameters()
            if epoch_iter % opt.print_freq == 0:
                t_comp = (time.time() - iter_start) / opt.batch_size
                print_current_losses(epoch, epoch_iter, model.get_current_losses(), t_comp, t_data)
            iter_data_time = time.time()
        model.netG.eval()
        with torch.no_grad():
            pred = model.netG(A_val)
        model.netG.train()
        hole = slice(8 - opt.mask_rows, 8)
        val_l1 = (pred[:, :, hole] - B_val[:, :, hole]).abs().mean().item()
        print("validation: L1 on masked rows %.4f (whole image %.4f)" % (val_l1, (pred - B_val).abs().mean().item()))
        if epoch % opt.save_epoch_freq == 0:
            print("saving the model at the end of epoch %d, iters %d" % (epoch, epoch * len(A_train)))
            model.save_networks(epoch)
        print("End of epoch %d / %d \t Time Taken: %d sec" % (epoch, opt.n_epochs + opt.n_epochs_decay, time.time() - epoch_start))
        model.update_learning_rate()


if __name__ == "__main__":
    main()
