import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
torch.manual_seed(13)
rng = np.random.default_rng(13)

def blobs_images(n):
    # 3 classes: bright blob in top-left / centre / bottom-right quadrant
    X = rng.normal(0, 0.6, (n, 1, 12, 12)).astype(np.float32)
    y = rng.integers(0, 3, n)
    yy, xx = np.mgrid[0:12, 0:12]
    for i in range(n):
        cy, cx = [(3, 3), (6, 6), (8, 8)][y[i]] + rng.normal(0, 0.7, 2)
        X[i, 0] += 1.2 * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 6.0)
    return torch.tensor(X), torch.tensor(y)

Xtr, ytr = blobs_images(1500)
Xva, yva = blobs_images(400)

class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1); self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1); self.bn2 = nn.BatchNorm2d(32)
        self.drop = nn.Dropout(0.5)
        self.fc1 = nn.Linear(32 * 3 * 3, 64); self.fc2 = nn.Linear(64, 3)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = self.drop(F.relu(self.fc1(x.flatten(1))))
        return self.fc2(x)

def evaluate(model, X, y, bs=8):
    losses, correct = [], 0
    with torch.no_grad():
        for i in range(0, len(X), bs):
            out = model(X[i:i + bs])
            losses.append(F.cross_entropy(out, y[i:i + bs], reduction="sum").item())
            correct += (out.argmax(1) == y[i:i + bs]).sum().item()
    return sum(losses) / len(X), correct / len(X)

model = SmallCNN()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
writer = SummaryWriter("runs/quadrant_cnn")
step = 0
for epoch in range(15):
    model.train(); tl = tc = 0
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), 64):
        idx = perm[i:i + 64]
        out = model(Xtr[idx]); loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(idx); tc += (out.argmax(1) == ytr[idx]).sum().item(); step += 1
    vl, va = evaluate(model, Xva, yva)
    writer.add_scalar("loss/train", tl / len(Xtr), epoch)
    writer.add_scalar("acc/train", tc / len(Xtr), epoch)
    writer.add_scalar("loss/val", vl, epoch)
    writer.add_scalar("acc/val", va, epoch)
writer.close()
