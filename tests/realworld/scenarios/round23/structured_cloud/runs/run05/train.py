import argparse

import numpy as np
import psutil
import structlog
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

structlog.configure(processors=[structlog.processors.add_log_level,
                                structlog.processors.TimeStamper(fmt="iso", utc=True),
                                structlog.processors.JSONRenderer()])
log = structlog.get_logger()
proc = psutil.Process()

MEAN = np.array([0.485, 0.456, 0.406]).reshape(3, 1, 1)
STD = np.array([0.229, 0.224, 0.225]).reshape(3, 1, 1)


class TileDataset(Dataset):
    def __init__(self, images, labels, mean, std):
        self.images = images
        self.labels = labels
        self.mean = mean
        self.std = std
        self._cache = {}  # normalising every epoch was slow, keep the result

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        if i not in self._cache:
            x = (self.images[i].astype(np.float64) / 255.0 - self.mean) / self.std
            self._cache[i] = x
        return torch.from_numpy(self._cache[i]).float(), int(self.labels[i])


def build_model(k):
    return nn.Sequential(
        nn.Conv2d(3, 16, 5, stride=4), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, k),
    )


def rss_mb():
    return round(proc.memory_info().rss / 2**20, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/data/tiles_v3.npz")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--val-size", type=int, default=400)
    args = ap.parse_args()

    d = np.load(args.data)
    images, labels = d["images"], d["labels"]
    tr_img, tr_lab = images[args.val_size:], labels[args.val_size:]
    log.info("dataset loaded", path=args.data, n_train=len(tr_img), n_val=args.val_size,
             shape=list(images.shape[1:]), dtype=str(images.dtype), nbytes_mb=round(images.nbytes / 2**20, 1))

    ds = TileDataset(tr_img, tr_lab, MEAN, STD)
    dl = DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=0)
    model = build_model(int(labels.max()) + 1)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    log.info("start training", epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
             steps_per_epoch=len(dl), mem_rss_mb=rss_mb())

    step = 0
    for epoch in range(1, args.epochs + 1):
        model.train()
        for x, y in dl:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 10 == 0:
                log.info("train_step", epoch=epoch, step=step, loss=round(loss.item(), 4), mem_rss_mb=rss_mb())
        log.info("epoch done", epoch=epoch, step=step, mem_rss_mb=rss_mb())
        torch.save(model.state_dict(), f"/ckpt/epoch_{epoch:03d}.pt")


if __name__ == "__main__":
    main()
