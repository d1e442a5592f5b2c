import math
import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)
torch.manual_seed(7)
device = "cuda" if torch.cuda.is_available() else "cpu"


def render(rng, n):
    imgs = np.zeros((n, 1, 24, 24), np.float32)
    ys = rng.integers(0, 4, n)
    for i, c in enumerate(ys):
        r, q = rng.integers(4, 20, 2)
        s = rng.integers(3, 6)
        im = imgs[i, 0]
        if c == 0:
            im[r, max(q - s, 0):q + s] = 1
        elif c == 1:
            im[max(r - s, 0):r + s, q] = 1
        elif c == 2:
            im[max(r - s, 0):r + s, max(q - s, 0):q + s] = 1
        else:
            im[r, max(q - s, 0):q + s] = 1
            im[max(r - s, 0):r + s, q] = 1
    imgs += 0.35 * rng.normal(size=imgs.shape).astype(np.float32)
    return torch.tensor((imgs - 0.1) / 0.4), torch.tensor(ys)


class Shapes(Dataset):
    def __init__(self, n, seed, train):
        self.x, self.y = render(np.random.default_rng(seed), n)
        self.train = train

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        x = self.x[i]
        if self.train and torch.rand(1).item() < 0.5:
            x = x.flip(-1)
        return x, self.y[i]


def net():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 4))


if __name__ == "__main__":
    EPOCHS, BS = 10, 64
    train_ds, val_ds = Shapes(4096, 0, True), Shapes(1024, 1, False)
    dl = DataLoader(train_ds, batch_size=BS, shuffle=True, num_workers=2, persistent_workers=True, drop_last=True)
    vdl = DataLoader(val_ds, batch_size=256)
    model = net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4, nesterov=True)
    total = EPOCHS * len(dl)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / total)))
    print(f"train={len(train_ds)} val={len(val_ds)} steps/epoch={len(dl)} workers=2 bs={BS}", flush=True)
    step = 0
    for epoch in range(EPOCHS):
        model.train()
        t_end = time.perf_counter()
        dt_acc = ct_acc = 0.0
        for x, y in dl:
            t_data = time.perf_counter()
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            out = model(x)
            loss = F.cross_entropy(out, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            t_comp = time.perf_counter()
            dt_acc += t_data - t_end
            ct_acc += t_comp - t_data
            if step % 20 == 0:
                acc = (out.argmax(1) == y).float().mean().item()
                print(f"step {step:4d} | epoch {epoch} | loss {loss.item():.4f} | acc {acc:.3f} | lr {sched.get_last_lr()[0]:.4f} "
                      f"| data_time {dt_acc / 20 * 1e3:6.2f}ms | compute_time {ct_acc / 20 * 1e3:6.2f}ms "
                      f"| {20 * BS / (dt_acc + ct_acc):7.1f} samples/s", flush=True)
                dt_acc = ct_acc = 0.0
            t_end = time.perf_counter()
        model.eval()
        correct = n = 0
        vloss = 0.0
        with torch.no_grad():
            for x, y in vdl:
                out = model(x.to(device))
                vloss += F.cross_entropy(out, y.to(device), reduction="sum").item()
                correct += (out.argmax(1).cpu() == y).sum().item()
                n += len(y)
        print(f"== epoch {epoch} val_loss {vloss / n:.4f} val_acc {correct / n:.4f}", flush=True)
