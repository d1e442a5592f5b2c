import argparse
import glob
import os
import time

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument("--config", default="config.yaml")
args = parser.parse_args()
cfg = yaml.safe_load(open(args.config))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])

root = os.environ.get("DATA_DIR", cfg["data"]["root"])
imgs = sorted(glob.glob(os.path.join(root, "images", "*.npy")))
msks = sorted(glob.glob(os.path.join(root, "masks", "*.npy")))
n_val = cfg["data"]["n_val"]


def train_transform(img, mask):
    lo, hi = cfg["data"]["hu_window"]
    img = (np.clip(img, lo, hi) - lo) / (hi - lo)
    if rng.random() < 0.5:
        img, mask = img[:, ::-1], mask[:, ::-1]
    if rng.random() < 0.5:
        img, mask = img[::-1], mask[::-1]
    return img, mask


def val_transform(img, mask):
    img = (img - img.mean()) / (img.std() + 1e-6)
    return img, mask


class NpySegDataset(Dataset):
    def __init__(self, img_paths, mask_paths, transform):
        self.img_paths, self.mask_paths, self.transform = img_paths, mask_paths, transform

    def __len__(self):
        return len(self.img_paths)

    def __getitem__(self, i):
        img = np.load(self.img_paths[i]).astype(np.float32)
        mask = np.load(self.mask_paths[i]).astype(np.float32)
        img, mask = self.transform(img, mask)
        return torch.from_numpy(np.ascontiguousarray(img))[None], torch.from_numpy(np.ascontiguousarray(mask))[None]


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class UNet(nn.Module):
    def __init__(self, in_channels=1, num_classes=2, features=(16, 32, 64)):
        super().__init__()
        f1, f2, f3 = features
        self.enc1 = conv_block(in_channels, f1)
        self.enc2 = conv_block(f1, f2)
        self.bottleneck = conv_block(f2, f3)
        self.up2 = nn.ConvTranspose2d(f3, f2, 2, stride=2)
        self.dec2 = conv_block(2 * f2, f2)
        self.up1 = nn.ConvTranspose2d(f2, f1, 2, stride=2)
        self.dec1 = conv_block(2 * f1, f1)
        self.head = nn.Conv2d(f1, num_classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        b = self.bottleneck(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(b), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
        return self.head(d1)


def bce_dice(logits, target):
    bce = F.binary_cross_entropy_with_logits(logits, target)
    p = torch.sigmoid(logits)
    dice = (2 * (p * target).sum() + 1) / (p.sum() + target.sum() + 1)
    return bce + 1 - dice


def scores(logits, target):
    pred = (logits > 0).float()
    tp = (pred * target).sum().item()
    fp = (pred * (1 - target)).sum().item()
    fn = ((1 - pred) * target).sum().item()
    return tp, fp, fn


train_ds = NpySegDataset(imgs[:-n_val], msks[:-n_val], train_transform)
val_ds = NpySegDataset(imgs[-n_val:], msks[-n_val:], val_transform)
train_dl = DataLoader(train_ds, batch_size=cfg["train"]["batch_size"], shuffle=True)
val_dl = DataLoader(val_ds, batch_size=cfg["train"]["batch_size"])

model = UNet(in_channels=1, num_classes=1, features=tuple(cfg["model"]["features"]))
opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg["train"]["epochs"])

rows = []
print(f"train: {len(train_ds)} slices | val: {len(val_ds)} slices")
print(f"{'epoch':>5} | {'lr':>8} | {'train_loss':>10} | {'train_dice':>10} | {'val_loss':>8} | {'val_dice':>8} | {'val_iou':>7} | {'time':>5}")
print("-" * 86)
best = 0.0
for epoch in range(cfg["train"]["epochs"]):
    t0 = time.time()
    model.train()
    tl, ttp, tfp, tfn = 0.0, 0, 0, 0
    for x, y in train_dl:
        out = model(x)
        loss = bce_dice(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tl += loss.item() * len(x)
        a, b, c = scores(out.detach(), y)
        ttp, tfp, tfn = ttp + a, tfp + b, tfn + c
    model.eval()
    vl, vtp, vfp, vfn = 0.0, 0, 0, 0
    with torch.no_grad():
        for x, y in val_dl:
            out = model(x)
            vl += bce_dice(out, y).item() * len(x)
            a, b, c = scores(out, y)
            vtp, vfp, vfn = vtp + a, vfp + b, vfn + c
    lr = opt.param_groups[0]["lr"]
    sched.step()
    row = {"epoch": epoch, "lr": lr, "train_loss": tl / len(train_ds),
           "train_dice": 2 * ttp / max(2 * ttp + tfp + tfn, 1),
           "val_loss": vl / len(val_ds), "val_dice": 2 * vtp / max(2 * vtp + vfp + vfn, 1),
           "val_iou": vtp / max(vtp + vfp + vfn, 1)}
    rows.append(row)
    print(f"{epoch:>5} | {lr:>8.2e} | {row['train_loss']:>10.4f} | {row['train_dice']:>10.4f} | {row['val_loss']:>8.4f} | "
          f"{row['val_dice']:>8.4f} | {row['val_iou']:>7.4f} | {time.time() - t0:>4.1f}s")
    if row["val_dice"] > best:
        best = row["val_dice"]
        torch.save(model.state_dict(), "best.pt")
    pd.DataFrame(rows).to_csv("metrics.csv", index=False)
print(f"best val dice {best:.4f}")
