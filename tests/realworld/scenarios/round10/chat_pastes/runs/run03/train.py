import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(3)
rng = np.random.default_rng(3)

SIZE = 16


def make_shapes(n):
    imgs = np.zeros((n, 1, SIZE, SIZE), dtype=np.float32)
    labels = rng.integers(0, 4, size=n)
    for i, c in enumerate(labels):
        r, s = rng.integers(4, SIZE - 4, size=2)
        if c == 0:
            imgs[i, 0, r, 2:-2] = 1.0
        elif c == 1:
            imgs[i, 0, 2:-2, s] = 1.0
        elif c == 2:
            imgs[i, 0, r - 3:r + 4, s - 3] = imgs[i, 0, r - 3:r + 4, s + 3] = 1.0
            imgs[i, 0, r - 3, s - 3:s + 4] = imgs[i, 0, r + 3, s - 3:s + 4] = 1.0
        else:
            imgs[i, 0, r, s - 3:s + 4] = 1.0
            imgs[i, 0, r - 3:r + 4, s] = 1.0
    imgs += rng.normal(0, 0.3, size=imgs.shape).astype(np.float32)
    return torch.from_numpy(imgs), torch.from_numpy(labels)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


x_train, y_train = make_shapes(2000)
x_val, y_val = make_shapes(500)

model = Net()
lr = 2e-4
optimizer = torch.optim.SGD(model.parameters(), lr=lr)

for ep in range(1, 21):
    model.train()
    perm = torch.randperm(len(x_train))
    losses = []
    for i in range(0, len(x_train), 32):
        idx = perm[i:i + 32]
        loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        acc = (model(x_val).argmax(1) == y_val).float().mean().item()
    print(f"[ep {ep:2d}] lr={lr:.1e} loss={np.mean(losses):.4f} val_acc={acc * 100:.1f}%")
