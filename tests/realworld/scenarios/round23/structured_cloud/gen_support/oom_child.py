"""The trainer that run05 executes in a child process (same logic as the train.py shipped with the run).
Prints structlog-style JSON lines to stdout; the parent kills it with SIGKILL when its RSS crosses the
pod's memory limit, as the kernel OOM killer would in the container's cgroup."""
import datetime as dt
import json
import sys
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)
START = dt.datetime.fromisoformat(sys.argv[1])
T0 = float(sys.argv[2])  # the parent's launch time (CLOCK_MONOTONIC is shared)


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0


def emit(event, level="info", **kw):
    t = START + dt.timedelta(seconds=time.perf_counter() - T0)
    rec = dict(kw)
    rec["event"] = event
    rec["level"] = level
    rec["timestamp"] = t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}Z"
    print(json.dumps(rec), flush=True)


class TileDataset(Dataset):
    def __init__(self, images, labels, mean, std):
        self.images = images
        self.labels = labels
        self.mean = mean
        self.std = std
        self._cache = {}

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        if i not in self._cache:
            x = (self.images[i].astype(np.float64) / 255.0 - self.mean) / self.std
            self._cache[i] = x
        return torch.from_numpy(self._cache[i]).float(), int(self.labels[i])


def main():
    torch.manual_seed(5)
    g = np.random.RandomState(55)
    n, k = 4000, 4
    labels = g.randint(0, k, n)
    proto = g.randint(100, 160, (k, 3, 1, 1))
    images = np.empty((n, 3, 96, 96), dtype=np.uint8)
    for s in range(0, n, 200):
        noise = g.randint(-90, 90, (min(200, n - s), 3, 96, 96), dtype=np.int16)
        images[s:s + 200] = np.clip(proto[labels[s:s + 200]].astype(np.int16) + noise, 0, 255)
    n_val = 400
    tr_img, tr_lab = images[n_val:], labels[n_val:]
    emit("dataset loaded", path="/data/tiles_v3.npz", n_train=len(tr_img), n_val=n_val, shape=list(images.shape[1:]),
         dtype=str(images.dtype), nbytes_mb=round(images.nbytes / 2**20, 1))
    mean = np.array([0.485, 0.456, 0.406]).reshape(3, 1, 1)
    std = np.array([0.229, 0.224, 0.225]).reshape(3, 1, 1)
    ds = TileDataset(tr_img, tr_lab, mean, std)
    dl = DataLoader(ds, batch_size=32, shuffle=True, num_workers=0)
    model = nn.Sequential(nn.Conv2d(3, 16, 5, stride=4), nn.ReLU(), nn.Conv2d(16, 32, 3, stride=2), nn.ReLU(),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, k))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    emit("start training", epochs=20, batch_size=32, lr=0.001, steps_per_epoch=len(dl), mem_rss_mb=round(rss_mb(), 1))
    step = 0
    for epoch in range(1, 21):
        model.train()
        for x, y in dl:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 10 == 0:
                emit("train_step", epoch=epoch, step=step, loss=round(loss.item(), 4), mem_rss_mb=round(rss_mb(), 1))
        emit("epoch done", epoch=epoch, step=step, mem_rss_mb=round(rss_mb(), 1))


if __name__ == "__main__":
    main()
