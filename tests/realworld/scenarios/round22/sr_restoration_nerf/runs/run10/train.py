import logging
import math
import os
import sys
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

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


OPT = {
    "task": "dncnn_bn_color_s25",
    "sigma": 25,
    "H_size": 16,
    "batch_size": 16,
    "nc": 32,
    "nb": 6,
    "dropout": 0.1,
    "lr": 1e-3,
    "milestones": [700],
    "iters": 1000,
    "checkpoint_print": 20,
    "checkpoint_test": 100,
}


class DnCNN(nn.Module):
    """DnCNN with BatchNorm (KAIR mode 'BR') plus a bit of spatial dropout"""
    def __init__(self, in_nc=3, nc=64, nb=17, p=0.1):
        super().__init__()
        layers = [nn.Conv2d(in_nc, nc, 3, 1, 1), nn.ReLU(inplace=True)]
        for _ in range(nb - 2):
            layers += [nn.Conv2d(nc, nc, 3, 1, 1, bias=False), nn.BatchNorm2d(nc, momentum=0.9, eps=1e-4),
                       nn.ReLU(inplace=True), nn.Dropout2d(p)]
        layers += [nn.Conv2d(nc, in_nc, 3, 1, 1)]
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return x - self.model(x)


def calculate_psnr(img1, img2, border=0):
    img1 = img1.astype(np.float64); img2 = img2.astype(np.float64)
    mse = np.mean((img1 - img2) ** 2)
    if mse == 0:
        return float("inf")
    return 20 * math.log10(255.0 / math.sqrt(mse))


def tensor2uint(t):
    return (t.squeeze(0).clamp(0, 1).permute(1, 2, 0).numpy() * 255.0).round().astype(np.uint8)


def test(model, test_L, test_H, logger, tag):
    avg = 0.0
    with torch.no_grad():
        for idx, (L, H) in enumerate(zip(test_L, test_H)):
            E = model(L[None])
            p = calculate_psnr(tensor2uint(E), tensor2uint(H[None]))
            logger.info("{:->4d}--> {:>12s} | {:<4.2f}dB".format(idx + 1, "img_%03d.png" % (idx + 1), p))
            avg += p
    return avg / len(test_H)


def main():
    opt = OPT
    logging.basicConfig(level=logging.INFO, format="%(asctime)s.%(msecs)03d : %(message)s", datefmt="%y-%m-%d %H:%M:%S",
                        handlers=[logging.FileHandler("train.log", mode="w"), logging.StreamHandler(sys.stdout)])
    logger = logging.getLogger()
    for k, v in opt.items():
        logger.info("  {}: {}".format(k, v))
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    train_H = torch.tensor(np.stack([synth_image(rng, 48, 48) for _ in range(64)]))
    trng = np.random.default_rng(5)
    test_H = torch.tensor(np.stack([synth_image(trng, 32, 32) for _ in range(8)]))
    g = torch.Generator().manual_seed(5)
    test_L = test_H + torch.randn(test_H.shape, generator=g) * opt["sigma"] / 255.0

    model = DnCNN(3, opt["nc"], opt["nb"], opt["dropout"])
    logger.info("Params number: {}".format(sum(p.numel() for p in model.parameters())))
    optimizer = torch.optim.Adam(model.parameters(), lr=opt["lr"])
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, opt["milestones"], 0.5)
    bs, ps = opt["batch_size"], opt["H_size"]
    iters_per_epoch = math.ceil(len(train_H) / bs)
    best_psnr, best_step = -1, -1
    os.makedirs("models", exist_ok=True)
    for step in range(1, opt["iters"] + 1):
        epoch = (step - 1) // iters_per_epoch
        idx = rng.integers(0, len(train_H), bs)
        ys = rng.integers(0, 48 - ps + 1, bs); xs = rng.integers(0, 48 - ps + 1, bs)
        H = torch.stack([train_H[i, :, y:y + ps, x:x + ps] for i, y, x in zip(idx, ys, xs)])
        L = H + torch.randn_like(H) * opt["sigma"] / 255.0
        optimizer.zero_grad()
        E = model(L)
        G_loss = F.l1_loss(E, H)
        G_loss.backward()
        optimizer.step()
        scheduler.step()
        if step % opt["checkpoint_print"] == 0:
            logger.info("<epoch:{:3d}, iter:{:8,d}, lr:{:.3e}> G_loss: {:.3e} ".format(epoch, step, optimizer.param_groups[0]["lr"], G_loss.item()))
        if step % opt["checkpoint_test"] == 0:
            avg_psnr = test(model, test_L, test_H, logger, "val")
            logger.info("<epoch:{:3d}, iter:{:8,d}, Average PSNR : {:<.2f}dB\n".format(epoch, step, avg_psnr))
            if avg_psnr > best_psnr:
                best_psnr, best_step = avg_psnr, step
                torch.save(model.state_dict(), "models/best_G.pth")
                logger.info("Saving the model (best so far).")
    logger.info("Best: {:.2f}dB @ iter {:,d}".format(best_psnr, best_step))
    final = DnCNN(3, opt["nc"], opt["nb"], opt["dropout"])
    final.load_state_dict(torch.load("models/best_G.pth"))
    logger.info("Re-testing models/best_G.pth (iter {:,d}) on the same images:".format(best_step))
    avg_psnr = test(final, test_L, test_H, logger, "retest")
    logger.info("Average PSNR (best_G.pth): {:<.2f}dB".format(avg_psnr))


if __name__ == "__main__":
    main()
