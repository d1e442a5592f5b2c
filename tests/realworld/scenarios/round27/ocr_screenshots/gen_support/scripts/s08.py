import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

p = argparse.ArgumentParser()
p.add_argument("--signals", default="data/vibration_signals.npy")
p.add_argument("--labels", default="data/vibration_labels.npy")
p.add_argument("--epochs", type=int, default=100)
p.add_argument("--bs", type=int, default=32)
p.add_argument("--lr", type=float, default=3e-4)
p.add_argument("--workers", type=int, default=0)
p.add_argument("--log_every", type=int, default=5)
args = p.parse_args()
torch.manual_seed(0)


class VibrationDataset(Dataset):
    def __init__(self, sig_path, lab_path):
        self.x = np.load(sig_path, mmap_mode="r")
        self.y = np.load(lab_path)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        sig = np.asarray(self.x[i], dtype=np.float64)
        frames = []
        for s in range(0, len(sig) - 64 + 1, 16):
            w = sig[s:s + 64] * np.hanning(64)
            frames.append(np.log1p(np.abs(np.fft.rfft(w))))
        spec = np.stack(frames)
        spec = (spec - spec.mean()) / (spec.std() + 1e-6)
        return torch.tensor(spec, dtype=torch.float32), int(self.y[i])


ds = VibrationDataset(args.signals, args.labels)
dl = DataLoader(ds, batch_size=args.bs, shuffle=True, num_workers=args.workers)
x0, _ = ds[0]
model = nn.Sequential(nn.Flatten(), nn.Linear(x0.numel(), 256), nn.ReLU(), nn.Linear(256, 64), nn.ReLU(),
                      nn.Linear(64, int(ds.y.max()) + 1))
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
print(f"Dataset: {len(ds)} samples, input {tuple(x0.shape)}, {len(dl)} batches/epoch, params {sum(p.numel() for p in model.parameters()):,}")

for epoch in range(args.epochs):
    model.train()
    bt = dt = 0.0
    end = time.time()
    for i, (xb, yb) in enumerate(dl):
        data_time = time.time() - end
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        batch_time = time.time() - end
        bt += batch_time
        dt += data_time
        end = time.time()
        if i % args.log_every == 0:
            k = i + 1
            eta = (bt / k) * (len(dl) * args.epochs - (epoch * len(dl) + k))
            print(f"Train: {epoch} [{i:4d}/{len(dl)} ({100 * i / len(dl):3.0f}%)]  Loss: {loss.item():.4f}  "
                  f"Time: {batch_time:.3f}s ({bt / k:.3f}s) {args.bs / batch_time:6.1f}/s  "
                  f"Data: {data_time:.3f} ({dt / k:.3f})  ETA: {time.strftime('%H:%M:%S', time.gmtime(eta))}")
