import datetime
import logging
import math
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)

def synth_image(rng, h, w):
    """procedural test card: colour ramps, soft blobs, hard-edged boxes, fine stripes"""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.zeros((3, h, w), np.float32)
    c0, c1 = rng.uniform(0, 1, 3), rng.uniform(0, 1, 3)
    t = (xx * np.cos(rng.uniform(0, 6.28)) + yy * np.sin(rng.uniform(0, 6.28))) / max(h, w)
    img += c0[:, None, None] * (1 - t) * 0.6 + c1[:, None, None] * t * 0.6
    for _ in range(rng.integers(3, 7)):
        cx, cy, s = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(2, w / 4)
        img += rng.uniform(-0.5, 0.5, 3)[:, None, None] * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * s * s))
    for _ in range(rng.integers(2, 5)):
        x0, y0 = rng.integers(0, w - 4), rng.integers(0, h - 4)
        bw, bh = rng.integers(3, w // 2), rng.integers(3, h // 2)
        img[:, y0:y0 + bh, x0:x0 + bw] = rng.uniform(0, 1, 3)[:, None, None]
    f = rng.uniform(0.3, 1.2); ang = rng.uniform(0, 3.14)
    img += 0.08 * np.sin(f * (xx * np.cos(ang) + yy * np.sin(ang)))[None]
    return np.clip(img, 0, 1)


class PSNRLoss(nn.Module):
    """NAFNet-style PSNR loss (returns -PSNR scaled by loss_weight)"""
    def __init__(self, loss_weight=1.0):
        super().__init__()
        self.loss_weight = loss_weight
        self.scale = 10 / math.log(10)

    def forward(self, pred, target):
        mse = ((pred - target) ** 2).mean(dim=(1, 2, 3))
        return self.loss_weight * self.scale * torch.log(mse).mean()


class BiasFreeResBlock(nn.Module):
    def __init__(self, nf):
        super().__init__()
        self.conv1 = nn.Conv2d(nf, nf, 3, 1, 1, bias=False)
        self.conv2 = nn.Conv2d(nf, nf, 3, 1, 1, bias=False)

    def forward(self, x):
        return x + self.conv2(F.relu(self.conv1(x)))


class BiasFreeSRNet(nn.Module):
    """bias-free conv net (scales with the input, generalises across intensities)"""
    def __init__(self, num_feat=64, num_block=8, upscale=2):
        super().__init__()
        self.upscale = upscale
        self.head = nn.Conv2d(3, num_feat, 3, 1, 1, bias=False)
        self.body = nn.Sequential(*[BiasFreeResBlock(num_feat) for _ in range(num_block)])
        self.up = nn.Sequential(nn.Conv2d(num_feat, 3 * upscale * upscale, 3, 1, 1, bias=False), nn.PixelShuffle(upscale))

    def forward(self, x):
        base = F.interpolate(x, scale_factor=self.upscale, mode="bilinear", align_corners=False)
        return base + self.up(self.body(self.head(x)))


def make_frames(rng, n, h, w):
    frames = []
    for i in range(n):
        f = synth_image(rng, h, w)
        if rng.random() < 0.02:          # some shots are letterboxed
            f[:, :16] = 0.0
            f[:, -16:] = 0.0
        frames.append(f)
    return torch.tensor(np.stack(frames))


def calc_psnr(sr, hr):
    mse = F.mse_loss(sr.clamp(0, 1), hr).item()
    return 10 * math.log10(1.0 / mse)


def main():
    opt = yaml.safe_load(open("options/train_bfsr_x2.yml"))
    seed = opt["manual_seed"]
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    logger = logging.getLogger("bfsr")
    logger.setLevel(logging.INFO)
    for h in (logging.FileHandler(f"train_{opt['name']}_{time.strftime('%Y%m%d_%H%M%S')}.log"), logging.StreamHandler(sys.stdout)):
        h.setFormatter(logging.Formatter("%(asctime)s INFO: %(message)s"))
        logger.addHandler(h)

    dt, dv = opt["datasets"]["train"], opt["datasets"]["val"]
    fh, fw = dt["frame_hw"]
    frames = make_frames(rng, dt["num_frames"], fh, fw)
    vrng = np.random.default_rng(4242)
    val_hr = torch.tensor(np.stack([synth_image(vrng, 32, 32) for _ in range(dv["num_frames"])]))
    val_lr = F.avg_pool2d(val_hr, 2)

    n = opt["network_g"]
    net = BiasFreeSRNet(n["num_feat"], n["num_block"], n["upscale"])
    o = opt["train"]["optim_g"]
    optim = torch.optim.AdamW(net.parameters(), lr=o["lr"], weight_decay=o["weight_decay"], betas=tuple(o["betas"]))
    crit = PSNRLoss(opt["train"]["pixel_opt"]["loss_weight"])
    logger.info(f"frames: {len(frames)} ({fh}x{fw}), params: {sum(p.numel() for p in net.parameters()):,d}")
    total = opt["train"]["total_iter"]
    gs, bs = dt["gt_size"], dt["batch_size"]
    start = time.time()
    for it in range(1, total + 1):
        t0 = time.time()
        idx = rng.integers(0, len(frames), bs)
        ys = rng.integers(0, (fh - gs) // 2 + 1, bs) * 2
        xs = rng.integers(0, (fw - gs) // 2 + 1, bs) * 2
        hr = torch.stack([frames[i, :, y:y + gs, x:x + gs] for i, y, x in zip(idx, ys, xs)])
        lr = F.avg_pool2d(hr, 2)
        sr = net(lr)
        l_psnr = crit(sr, hr)
        optim.zero_grad()
        l_psnr.backward()
        optim.step()
        if it % opt["logger"]["print_freq"] == 0:
            eta = (time.time() - start) / it * (total - it)
            logger.info(f"[bfsr_..][epoch:{(it - 1) // 12:3d}, iter:{it:8,d}, lr:({optim.param_groups[0]['lr']:.3e},)] "
                        f"[eta: {datetime.timedelta(seconds=int(eta))}, time (data): {time.time() - t0:.3f} (0.001)] l_psnr: {l_psnr.item():.4e} ")
        if it % opt["val"]["val_freq"] == 0:
            net.eval()
            with torch.no_grad():
                p = np.mean([calc_psnr(net(val_lr[i:i + 1]), val_hr[i:i + 1]) for i in range(len(val_hr))])
            net.train()
            logger.info(f"Validation {dv['name']}\n\t # psnr: {p:.4f}")
    torch.save({"params": net.state_dict()}, "net_g_latest.pth")
    logger.info("End of training.")


if __name__ == "__main__":
    main()
