import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(9)
rng = np.random.default_rng(9)


def draw(c, img, r, s):
    if c == 0:
        img[r, 2:-2] = 1
    elif c == 1:
        img[2:-2, s] = 1
    elif c == 2:
        img[r - 3:r + 4, s - 3] = img[r - 3:r + 4, s + 3] = 1
        img[r - 3, s - 3:s + 4] = img[r + 3, s - 3:s + 4] = 1
    elif c == 3:
        img[r, s - 3:s + 4] = 1
        img[r - 3:r + 4, s] = 1
    elif c == 4:
        for k in range(-3, 4):
            img[r + k, s + k] = 1
    else:
        for k in range(-3, 4):
            img[r + k, s - k] = 1


def make_shapes(n, n_classes):
    x = np.zeros((n, 1, 16, 16), dtype=np.float32)
    y = rng.integers(0, n_classes, size=n)
    for i in range(n):
        r, s = rng.integers(4, 12, size=2)
        draw(y[i], x[i, 0], r, s)
    x += rng.normal(0, 0.3, size=x.shape).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y)


class SmallCNN(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(),
        )
        self.head = nn.Linear(32 * 4 * 4, n_classes)

    def forward(self, x):
        return self.head(self.features(x))


def train_one_epoch(model, optimizer, x, y, bs=64):
    model.train()
    perm = torch.randperm(len(x))
    total = 0.0
    for i in range(0, len(x), bs):
        idx = perm[i:i + bs]
        loss = F.cross_entropy(model(x[idx]), y[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(idx)
    return total / len(x)


@torch.no_grad()
def evaluate(model, x, y):
    model.eval()
    out = model(x)
    return F.cross_entropy(out, y).item(), (out.argmax(1) == y).float().mean().item()


model = SmallCNN(n_classes=4)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

xp, yp = make_shapes(3000, 4)
xp_val, yp_val = make_shapes(500, 4)
print("pretraining on 4 shape classes")
for ep in range(1, 6):
    loss = train_one_epoch(model, optimizer, xp, yp)
    vl, va = evaluate(model, xp_val, yp_val)
    print(f"pretrain ep {ep}: loss {loss:.4f} val_loss {vl:.4f} val_acc {va:.3f}")

xf, yf = make_shapes(1200, 6)
xf_val, yf_val = make_shapes(400, 6)
model.head = nn.Linear(32 * 4 * 4, 6)
for p in model.features.parameters():
    p.requires_grad = False

print("finetuning on 6 classes")
for ep in range(1, 9):
    loss = train_one_epoch(model, optimizer, xf, yf)
    vl, va = evaluate(model, xf_val, yf_val)
    print(f"finetune ep {ep}: loss {loss:.4f} val_loss {vl:.4f} val_acc {va:.3f}")
