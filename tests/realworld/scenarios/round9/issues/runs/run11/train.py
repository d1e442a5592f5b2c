import time
import math
import random
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
random.seed(cfg["seed"])
np.random.seed(cfg["seed"])


def bilinear_resize(img, out_h, out_w):
    in_h, in_w = len(img), len(img[0])
    out = [[0.0] * out_w for _ in range(out_h)]
    for i in range(out_h):
        y = (i + 0.5) * in_h / out_h - 0.5
        y0 = max(0, min(in_h - 1, int(math.floor(y))))
        y1 = min(in_h - 1, y0 + 1)
        wy = y - y0
        for j in range(out_w):
            x = (j + 0.5) * in_w / out_w - 0.5
            x0 = max(0, min(in_w - 1, int(math.floor(x))))
            x1 = min(in_w - 1, x0 + 1)
            wx = x - x0
            top = img[y0][x0] * (1 - wx) + img[y0][x1] * wx
            bot = img[y1][x0] * (1 - wx) + img[y1][x1] * wx
            out[i][j] = top * (1 - wy) + bot * wy
    return out


def random_rotate(img, max_deg=15):
    h, w = len(img), len(img[0])
    a = math.radians(random.uniform(-max_deg, max_deg))
    ca, sa = math.cos(a), math.sin(a)
    cy, cx = (h - 1) / 2, (w - 1) / 2
    out = [[0.0] * w for _ in range(h)]
    for i in range(h):
        for j in range(w):
            ys = ca * (i - cy) - sa * (j - cx) + cy
            xs = sa * (i - cy) + ca * (j - cx) + cx
            yi, xi = int(round(ys)), int(round(xs))
            if 0 <= yi < h and 0 <= xi < w:
                out[i][j] = img[yi][xi]
    return out


class BlobImages(Dataset):
    """raw 64x64 uint8 images with 1-4 gaussian blobs; label = number of blobs - 1"""

    def __init__(self, n, raw_size, input_size, augment):
        rng = np.random.RandomState(cfg["seed"])
        self.labels = rng.randint(0, 4, size=n)
        yy, xx = np.mgrid[0:raw_size, 0:raw_size]
        self.raw = []
        for k in self.labels:
            im = np.zeros((raw_size, raw_size))
            for _ in range(k + 1):
                cy, cx = rng.uniform(8, raw_size - 8, size=2)
                im += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * 3.0 ** 2))
            im += 0.1 * rng.rand(raw_size, raw_size)
            self.raw.append((255 * im / im.max()).astype(np.uint8))
        self.input_size = input_size
        self.augment = augment

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        img = self.raw[idx].tolist()
        img = [[p / 255.0 for p in row] for row in img]
        if self.augment:
            img = random_rotate(img)
        img = bilinear_resize(img, self.input_size, self.input_size)
        flat = [p for row in img for p in row]
        mean = sum(flat) / len(flat)
        std = (sum((p - mean) ** 2 for p in flat) / len(flat)) ** 0.5
        img = [[(p - mean) / (std + 1e-6) for p in row] for row in img]
        return torch.tensor(img, dtype=torch.float32).unsqueeze(0), int(self.labels[idx])


dc, tc = cfg["data"], cfg["train"]
ds = BlobImages(dc["n_images"], dc["raw_size"], dc["input_size"], dc["augment"])
loader = DataLoader(ds, batch_size=tc["batch_size"], shuffle=True, num_workers=dc["num_workers"])

w = cfg["model"]["base_width"]
model = nn.Sequential(
    nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(w, 2 * w, 3, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(2 * w, 4 * w, 3, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * w, 4),
)
opt = torch.optim.Adam(model.parameters(), lr=tc["lr"])

print(f"dataset: {len(ds)} images, {len(loader)} batches/epoch, num_workers={dc['num_workers']}")
for epoch in range(tc["epochs"]):
    model.train()
    ep_start = time.time()
    data_t, comp_t, losses, correct, seen = 0.0, 0.0, [], 0, 0
    end = time.time()
    for i, (x, y) in enumerate(loader):
        t_data = time.time() - end
        t0 = time.time()
        out = model(x)
        loss = F.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        t_comp = time.time() - t0
        data_t += t_data
        comp_t += t_comp
        losses.append(loss.item())
        correct += (out.argmax(1) == y).sum().item()
        seen += len(y)
        if i % tc["print_freq"] == 0:
            print(f"Epoch [{epoch}][{i:3d}/{len(loader)}]  loss {loss.item():.4f}  "
                  f"data {t_data:.3f}s  compute {t_comp:.3f}s  batch {t_data + t_comp:.3f}s")
        end = time.time()
    ep_time = time.time() - ep_start
    print(f"Epoch {epoch} done in {ep_time:.1f}s  ({seen / ep_time:.1f} img/s)  loss {np.mean(losses):.4f}  "
          f"acc {correct / seen:.3f}  | total data {data_t:.1f}s  total compute {comp_t:.1f}s")
