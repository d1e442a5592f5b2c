import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
torch.manual_seed(4)
rng = np.random.default_rng(4)

def shapes(n):
    # square / plus / ring on 16x16 with noise and random placement
    X = rng.normal(0, 0.5, (n, 1, 16, 16)).astype(np.float32)
    y = rng.integers(0, 3, n)
    yy, xx = np.mgrid[0:16, 0:16]
    for i in range(n):
        cy, cx = rng.integers(5, 11, 2)
        if y[i] == 0: m = (abs(yy - cy) <= 3) & (abs(xx - cx) <= 3) & ~((abs(yy - cy) <= 2) & (abs(xx - cx) <= 2))
        elif y[i] == 1: m = ((yy == cy) & (abs(xx - cx) <= 3)) | ((xx == cx) & (abs(yy - cy) <= 3))
        else: m = np.abs(np.hypot(yy - cy, xx - cx) - 3) < 0.7
        X[i, 0][m] += 1.0
    return torch.tensor(X), torch.tensor(y)

Xtr, ytr = shapes(2000)
Xva, yva = shapes(500)
model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(32 * 16, 64), nn.ReLU(), nn.Linear(64, 3))
EPOCHS = 15
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS)
writer = SummaryWriter("lightning_logs/version_0")
step = 0
for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), 64):
        idx = perm[i:i + 64]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 10 == 0:
            writer.add_scalar("train_loss_step", loss.item(), step)
        step += 1
    model.eval()
    with torch.no_grad():
        out = model(Xva)
    writer.add_scalar("val_loss", F.cross_entropy(out, yva).item(), step)
    writer.add_scalar("val_acc", (out.argmax(1) == yva).float().mean().item(), step)
    writer.add_scalar("lr-AdamW", opt.param_groups[0]["lr"], step)
    sched.step()
writer.close()
