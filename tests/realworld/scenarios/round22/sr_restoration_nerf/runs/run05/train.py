import math
import os
import sys
import time
import datetime
import logging

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


class DnCNN(nn.Module):
    def __init__(self, in_nc=3, nc=64, depth=17):
        super().__init__()
        layers = [nn.Conv2d(in_nc, nc, 3, padding=1), nn.ReLU(inplace=True)]
        for _ in range(depth - 2):
            layers += [nn.Conv2d(nc, nc, 3, padding=1), nn.ReLU(inplace=True)]
        layers += [nn.Conv2d(nc, in_nc, 3, padding=1)]
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return x - self.model(x)


def psnr(a, b):
    mse = F.mse_loss(a.clamp(0, 1), b).item()
    return 10 * math.log10(1.0 / mse)


def main():
    opt = yaml.safe_load(open("options/denoise_dncnn_s25.yml"))
    torch.manual_seed(opt["seed"])
    rng = np.random.default_rng(opt["seed"])

    logger = logging.getLogger("train")
    logger.setLevel(logging.INFO)
    fh = logging.FileHandler(f"train_{opt['name']}_{time.strftime('%Y%m%d_%H%M%S')}.log")
    fh.setFormatter(logging.Formatter("%(asctime)s INFO: %(message)s"))
    logger.addHandler(fh)
    logger.addHandler(logging.StreamHandler(sys.stdout))

    d = opt["data"]
    # training patches cut from procedurally generated test cards
    cards = [synth_image(rng, 48, 48) for _ in range(50)]
    patches = []
    for i in range(d["num_train_patches"]):
        c = cards[i % len(cards)]
        y, x = rng.integers(0, 48 - d["patch_size"] + 1, 2)
        patches.append(c[:, y:y + d["patch_size"], x:x + d["patch_size"]])
    train_clean = torch.tensor(np.stack(patches))
    vrng = np.random.default_rng(999)
    val_clean = torch.tensor(np.stack([synth_image(vrng, d["val_size"], d["val_size"]) for _ in range(d["num_val_images"])]))
    g = torch.Generator().manual_seed(999)
    val_noisy = val_clean + torch.randn(val_clean.shape, generator=g) * d["sigma"] / 255.0

    n = opt["network"]
    model = DnCNN(n["in_nc"], n["nc"], n["depth"])
    t = opt["train"]
    optimizer = torch.optim.Adam(model.parameters(), lr=t["lr"], betas=tuple(t["betas"]))
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=t["lr_step"], gamma=t["lr_gamma"])

    iters_per_epoch = len(train_clean) // t["batch_size"]
    logger.info(f"train patches: {len(train_clean)}, val images: {len(val_clean)}, iters/epoch: {iters_per_epoch}, epochs: {t['epochs']}")
    logger.info(f"params: {sum(p.numel() for p in model.parameters()):,d}")
    current_iter = 0
    start = time.time()
    for epoch in range(t["epochs"]):
        perm = torch.randperm(len(train_clean))
        for b in range(iters_per_epoch):
            t0 = time.time()
            clean = train_clean[perm[b * t["batch_size"]:(b + 1) * t["batch_size"]]]
            noisy = clean + torch.randn_like(clean) * d["sigma"] / 255.0
            out = model(noisy)
            loss = F.l1_loss(out, clean)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            current_iter += 1
            if current_iter % opt["log"]["print_freq"] == 0:
                elapsed = time.time() - start
                eta = elapsed / current_iter * (t["epochs"] * iters_per_epoch - current_iter)
                lr = optimizer.param_groups[0]["lr"]
                logger.info(f"[epoch:{epoch:3d}, iter:{current_iter:8,d}, lr:({lr:.3e},)] "
                            f"[eta: {datetime.timedelta(seconds=int(eta))}, time: {time.time() - t0:.3f}] l_pix: {loss.item():.4e}")
        if (epoch + 1) % opt["log"]["val_every_epochs"] == 0:
            model.eval()
            with torch.no_grad():
                scores = [psnr(model(val_noisy[i:i + 1]), val_clean[i:i + 1]) for i in range(len(val_clean))]
                noisy_ref = [psnr(val_noisy[i:i + 1], val_clean[i:i + 1]) for i in range(len(val_clean))]
            model.train()
            logger.info(f"Validation epoch {epoch + 1}: psnr: {np.mean(scores):.4f} (noisy input: {np.mean(noisy_ref):.4f})")
    torch.save(model.state_dict(), f"{opt['name']}_final.pth")
    logger.info("done.")


if __name__ == "__main__":
    main()
