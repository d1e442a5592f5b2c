import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
torch.manual_seed(3)
rng = np.random.default_rng(3)

def make_images(n):
    # 4 classes: horizontal bar, vertical bar, diagonal, anti-diagonal on 16x16 noise
    X = rng.normal(0, 1.0, (n, 1, 16, 16)).astype(np.float32)
    y = rng.integers(0, 4, n)
    for i in range(n):
        p = rng.integers(2, 14)
        if y[i] == 0: X[i, 0, p, :] += 1.0
        elif y[i] == 1: X[i, 0, :, p] += 1.0
        elif y[i] == 2: X[i, 0, np.arange(16), np.arange(16)] += 1.0
        else: X[i, 0, np.arange(16), 15 - np.arange(16)] += 1.0
    return torch.tensor(X), torch.tensor(y)

Xtr, ytr = make_images(1600)
Xva, yva = make_images(400)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 4 * 4, 4)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))

EPOCHS = 30
BATCH = 64
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
# halve the lr every 10 epochs
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
writer = SummaryWriter("runs/bars_cnn_steplr")

step = 0
for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), BATCH):
        idx = perm[i:i + BATCH]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        if step % 5 == 0:
            writer.add_scalar("Loss/train", loss.item(), step)
            writer.add_scalar("LR", optimizer.param_groups[0]["lr"], step)
        step += 1
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        writer.add_scalar("Loss/val", F.cross_entropy(out, yva).item(), step)
        writer.add_scalar("Accuracy/val", (out.argmax(1) == yva).float().mean().item(), step)
writer.close()
