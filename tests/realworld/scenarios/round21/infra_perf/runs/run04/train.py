import os
import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)
torch.manual_seed(11)


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


def worker_pids():
    pids = []
    for tid in os.listdir(f"/proc/{os.getpid()}/task"):
        with open(f"/proc/{os.getpid()}/task/{tid}/children") as f:
            pids += [int(p) for p in f.read().split()]
    return pids


class TileDataset(Dataset):
    def __init__(self, path):
        self.raw = np.load(path + "/images.npy", mmap_mode="r")
        self.labels = np.load(path + "/labels.npy")
        self.cache = {}

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        if i not in self.cache:
            x = torch.from_numpy(np.asarray(self.raw[i], dtype=np.float32) / 255.0)
            self.cache[i] = (x - 0.5) / 0.25
        return self.cache[i], int(self.labels[i])


model = nn.Sequential(
    nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))

if __name__ == "__main__":
    ds = TileDataset("data/tiles")
    dl = DataLoader(ds, batch_size=128, shuffle=True, num_workers=3, persistent_workers=True, prefetch_factor=4)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    print(f"samples={len(ds)} workers=3 batch=128", flush=True)
    step = 0
    for epoch in range(1, 7):
        t0 = time.time()
        for x, y in dl:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 15 == 0:
                w = [f"{rss_mb(p):.0f}" for p in worker_pids()]
                print(f"ep {epoch} it {step} loss {loss.item():.4f} | rss main {rss_mb(os.getpid()):.0f}MB workers [{', '.join(w)}]MB", flush=True)
        print(f"epoch {epoch} finished in {time.time() - t0:.1f}s", flush=True)
