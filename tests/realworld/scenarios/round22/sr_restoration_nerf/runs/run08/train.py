import json
import logging
import math
import os
import sys

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


def write_cards(rng, n, size):
    """stand-in for the trainsets/cards_png folder (HWC, 8-bit, as written by cv2.imwrite)"""
    return [(synth_image(rng, size, size).transpose(1, 2, 0) * 255).round().astype(np.uint8) for _ in range(n)]


def imread_uint(img_uint8):
    return img_uint8


def uint2tensor3(img):
    return torch.from_numpy(np.ascontiguousarray(img)).permute(2, 0, 1).float()


class PlainCNN(nn.Module):
    def __init__(self, in_nc=3, out_nc=3, nc=64, nb=5):
        super().__init__()
        layers = [nn.Conv2d(in_nc, nc, 3, 1, 1), nn.ReLU(inplace=True)]
        for _ in range(nb - 2):
            layers += [nn.Conv2d(nc, nc, 3, 1, 1), nn.ReLU(inplace=True)]
        layers += [nn.Conv2d(nc, out_nc, 3, 1, 1)]
        self.body = nn.Sequential(*layers)

    def forward(self, x):
        return torch.sigmoid(self.body(x))


def calculate_psnr(img1, img2):
    img1 = img1.astype(np.float64); img2 = img2.astype(np.float64)
    mse = np.mean((img1 - img2) ** 2)
    if mse == 0:
        return float("inf")
    return 20 * math.log10(255.0 / math.sqrt(mse))


def main():
    opt = json.load(open("options/train_denoise_s25.json"))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s.%(msecs)03d : %(message)s", datefmt="%y-%m-%d %H:%M:%S",
                        handlers=[logging.FileHandler("train.log", mode="w"), logging.StreamHandler(sys.stdout)])
    logger = logging.getLogger()
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    tr, te = opt["datasets"]["train"], opt["datasets"]["test"]
    train_imgs = write_cards(rng, tr["num_images"], 48)
    test_imgs = write_cards(np.random.default_rng(77), 8, 32)
    g = torch.Generator().manual_seed(77)
    test_L = [uint2tensor3(imread_uint(im)) + torch.randn(3, 32, 32, generator=g) * opt["sigma"] for im in test_imgs]
    test_H = [uint2tensor3(imread_uint(im)) for im in test_imgs]

    n = opt["netG"]
    netG = PlainCNN(n["in_nc"], n["out_nc"], n["nc"], n["nb"])
    optimizer = torch.optim.Adam(netG.parameters(), lr=opt["train"]["G_optimizer_lr"])
    bs, ps = tr["dataloader_batch_size"], tr["H_size"]
    iters_per_epoch = len(train_imgs) // bs
    logger.info("Number of train images: {:,d}, iters: {:,d}".format(len(train_imgs), iters_per_epoch))
    logger.info("Params number: {}".format(sum(p.numel() for p in netG.parameters())))
    current_step = 0
    for epoch in range(opt["train"]["epochs"]):
        order = rng.permutation(len(train_imgs))
        for b in range(iters_per_epoch):
            batch = []
            for i in order[b * bs:(b + 1) * bs]:
                y, x = rng.integers(0, 48 - ps + 1, 2)
                batch.append(uint2tensor3(imread_uint(train_imgs[i]))[:, y:y + ps, x:x + ps])
            H = torch.stack(batch)
            L = H + torch.randn_like(H) * opt["sigma"]
            current_step += 1
            optimizer.zero_grad()
            E = netG(L)
            G_loss = F.l1_loss(E, H)
            G_loss.backward()
            optimizer.step()
            if current_step % opt["train"]["checkpoint_print"] == 0:
                logger.info("<epoch:{:3d}, iter:{:8,d}, lr:{:.3e}> G_loss: {:.3e} ".format(
                    epoch, current_step, optimizer.param_groups[0]["lr"], G_loss.item()))
        if (epoch + 1) % opt["train"]["checkpoint_test_epochs"] == 0:
            netG.eval()
            avg = 0.0
            with torch.no_grad():
                for idx, (l, h) in enumerate(zip(test_L, test_H)):
                    e = netG(l[None])[0]
                    E_img = e.clamp(0, 255).round().permute(1, 2, 0).numpy()
                    H_img = h.permute(1, 2, 0).numpy()
                    p = calculate_psnr(E_img, H_img)
                    logger.info("{:->4d}--> {:>10s} | {:<4.2f}dB".format(idx + 1, "card_%02d.png" % (idx + 1), p))
                    avg += p
            netG.train()
            logger.info("<epoch:{:3d}, iter:{:8,d}, Average PSNR : {:<.2f}dB\n".format(epoch, current_step, avg / len(test_H)))
    torch.save(netG.state_dict(), "{}_G.pth".format(current_step))
    logger.info("Saving the final model.")


if __name__ == "__main__":
    main()
