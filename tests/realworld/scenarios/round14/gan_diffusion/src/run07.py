import argparse
import time
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--dataset", default="grid25")
parser.add_argument("--batchSize", type=int, default=128)
parser.add_argument("--nz", type=int, default=2)
parser.add_argument("--hidden", type=int, default=128)
parser.add_argument("--niter", type=int, default=1000, help="generator iterations")
parser.add_argument("--Diters", type=int, default=5)
parser.add_argument("--lrD", type=float, default=1e-3)
parser.add_argument("--lrG", type=float, default=1e-4)
parser.add_argument("--beta1", type=float, default=0.5)
parser.add_argument("--beta2", type=float, default=0.9)
parser.add_argument("--manualSeed", type=int, default=0)
parser.add_argument("--log_every", type=int, default=20)
opt = parser.parse_args()
print(opt)
torch.manual_seed(opt.manualSeed)
torch.set_num_threads(1)


def grid25(n, std=0.05):
    k = torch.randint(0, 25, (n,))
    c = torch.stack([(k // 5).float() - 2, (k % 5).float() - 2], 1)
    return c + std * torch.randn(n, 2)


netG = nn.Sequential(nn.Linear(opt.nz, opt.hidden), nn.ReLU(), nn.Linear(opt.hidden, opt.hidden), nn.ReLU(), nn.Linear(opt.hidden, 2))
netD = nn.Sequential(nn.Linear(2, opt.hidden), nn.ReLU(), nn.Linear(opt.hidden, opt.hidden), nn.ReLU(), nn.Linear(opt.hidden, 1))
print(netG)
print(netD)
optimizerD = torch.optim.Adam(netD.parameters(), lr=opt.lrD, betas=(opt.beta1, opt.beta2))
optimizerG = torch.optim.Adam(netG.parameters(), lr=opt.lrG, betas=(opt.beta1, opt.beta2))

t0 = time.time()
for gen_iter in range(opt.niter + 1):
    for _ in range(opt.Diters):
        real = grid25(opt.batchSize)
        fake = netG(torch.randn(opt.batchSize, opt.nz)).detach()
        errD_real = netD(real).mean()
        errD_fake = netD(fake).mean()
        errD = errD_fake - errD_real
        optimizerD.zero_grad()
        errD.backward()
        gnD = torch.norm(torch.stack([p.grad.norm() for p in netD.parameters()])).item()
        optimizerD.step()
    errG = -netD(netG(torch.randn(opt.batchSize, opt.nz))).mean()
    optimizerG.zero_grad()
    errG.backward()
    gnG = torch.norm(torch.stack([p.grad.norm() for p in netG.parameters()])).item()
    optimizerG.step()
    if gen_iter % opt.log_every == 0:
        wmax = max(p.abs().max().item() for p in netD.parameters())
        print("[%d/%d] Loss_D: %.4g Loss_G: %.4g Loss_D_real: %.4g Loss_D_fake: %.4g | gnorm_D: %.4g gnorm_G: %.4g | max|w_D|: %.3f | %.1fs"
              % (gen_iter, opt.niter, errD.item(), errG.item(), errD_real.item(), errD_fake.item(), gnD, gnG, wmax, time.time() - t0))

with torch.no_grad():
    s = netG(torch.randn(2500, opt.nz))
c = torch.stack(torch.meshgrid(torch.arange(-2, 3.0), torch.arange(-2, 3.0), indexing="ij"), -1).view(-1, 2)
d = torch.cdist(s, c).min(1)
hq = d.values < 0.15
print("final: modes covered %d/25, high-quality samples %.1f%%, mean dist to nearest mode %.3f"
      % ((torch.bincount(d.indices[hq], minlength=25) >= 10).sum().item(), 100 * hq.float().mean().item(), d.values.mean().item()))
torch.save({"netG": netG.state_dict(), "netD": netD.state_dict()}, "wgan_grid25.pth")
