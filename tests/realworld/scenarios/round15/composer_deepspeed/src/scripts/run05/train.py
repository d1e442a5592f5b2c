import argparse
import glob
import logging
import math
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from accelerate import Accelerator
from accelerate.logging import get_logger
from accelerate.utils import set_seed

torch.set_num_threads(1)
logger = get_logger(__name__)


def rotate_jitter(img, max_deg=12.0):
    h, w = img.shape
    a = math.radians(random.uniform(-max_deg, max_deg))
    ca, sa = math.cos(a), math.sin(a)
    cy, cx = (h - 1) / 2, (w - 1) / 2
    gain = random.uniform(0.85, 1.15)
    out = [[0.0] * w for _ in range(h)]
    rows = img.tolist()
    for i in range(h):
        for j in range(w):
            y = ca * (i - cy) - sa * (j - cx) + cy
            x = sa * (i - cy) + ca * (j - cx) + cx
            y0, x0 = int(math.floor(y)), int(math.floor(x))
            fy, fx = y - y0, x - x0
            acc = 0.0
            for dy, dx, wgt in ((0, 0, (1 - fy) * (1 - fx)), (0, 1, (1 - fy) * fx),
                                (1, 0, fy * (1 - fx)), (1, 1, fy * fx)):
                yy, xx = y0 + dy, x0 + dx
                if 0 <= yy < h and 0 <= xx < w:
                    acc += rows[yy][xx] * wgt
            out[i][j] = acc * gain
    return np.asarray(out, dtype=np.float32)


class PatchFolder(Dataset):
    def __init__(self, root, train=True):
        self.files = sorted(glob.glob(os.path.join(root, "*.npz")))
        self.train = train

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        rec = np.load(self.files[idx])
        img = rec["image"].astype(np.float32) / 255.0
        if self.train:
            img = rotate_jitter(img)
        img = (img - 0.5) / 0.25
        return torch.from_numpy(img)[None], int(rec["label"])


class PatchNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.fc(self.conv(x).flatten(1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data_dir", default="data/patches")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch_size", type=int, default=64)
    p.add_argument("--num_workers", type=int, default=0)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args()

    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
                        datefmt="%m/%d/%Y %H:%M:%S", level=logging.INFO)
    accelerator = Accelerator()
    logger.info(accelerator.state, main_process_only=False)
    set_seed(args.seed)

    train_ds = PatchFolder(os.path.join(args.data_dir, "train"), train=True)
    val_ds = PatchFolder(os.path.join(args.data_dir, "val"), train=False)
    train_dl = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers)
    val_dl = DataLoader(val_ds, batch_size=256, num_workers=args.num_workers)

    model = PatchNet()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    model, optimizer, train_dl, val_dl = accelerator.prepare(model, optimizer, train_dl, val_dl)
    accelerator.print(vars(args))

    step = 0
    t_data, t_compute, n_seen = 0.0, 0.0, 0
    for epoch in range(args.epochs):
        model.train()
        t_prev = time.perf_counter()
        for x, y in train_dl:
            t_loaded = time.perf_counter()
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            accelerator.backward(loss)
            optimizer.step()
            t_done = time.perf_counter()
            t_data += t_loaded - t_prev
            t_compute += t_done - t_loaded
            n_seen += len(y)
            t_prev = t_done
            step += 1
            if step % 10 == 0:
                elapsed = t_data + t_compute
                accelerator.print({"epoch": epoch, "step": step, "loss": round(loss.item(), 4),
                                   "data_time": round(t_data / 10, 4), "compute_time": round(t_compute / 10, 4),
                                   "it/s": round(10 / elapsed, 2), "samples/s": round(n_seen / elapsed, 1)})
                t_data, t_compute, n_seen = 0.0, 0.0, 0
        model.eval()
        correct = total = 0
        with torch.no_grad():
            for x, y in val_dl:
                correct += (model(x).argmax(1) == y).sum().item()
                total += len(y)
        accelerator.print({"epoch": epoch, "val_accuracy": round(correct / total, 4)})


if __name__ == "__main__":
    main()
