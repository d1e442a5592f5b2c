import os
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(0)


def make_images(n, k=10, size=16, seed=1, noise=0.35, proto_seed=1234):
    prng = np.random.RandomState(proto_seed)
    coarse = prng.rand(k, 4, 4)
    protos = np.kron(coarse, np.ones((size // 4, size // 4)))
    rng = np.random.RandomState(seed)
    y = rng.randint(0, k, n)
    x = np.empty((n, size, size), dtype=np.float32)
    for i in range(n):
        img = np.roll(protos[y[i]], rng.randint(-2, 3), axis=0)
        img = np.roll(img, rng.randint(-2, 3), axis=1)
        x[i] = 0.6 * img + noise * rng.randn(size, size) + 0.2
    return (np.clip(x, 0, 1) * 255).astype(np.uint8), y


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())

    def forward(self, x):
        return self.features(x)


x, y = make_images(3000, seed=21)
X = (torch.tensor(x, dtype=torch.float32).unsqueeze(1) / 255 - 0.4) / 0.25
Y = torch.tensor(y)
bb = Backbone()
fc = nn.Linear(64, 10)
opt = torch.optim.SGD(list(bb.parameters()) + list(fc.parameters()), lr=0.05, momentum=0.9)
for ep in range(4):
    perm = torch.randperm(len(X))
    for i in range(0, len(X), 64):
        idx = perm[i:i + 64]
        loss = F.cross_entropy(fc(bb(X[idx])), Y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("pretrain epoch", ep, loss.item())
os.makedirs("pretrained", exist_ok=True)
sd = {"backbone." + k: v for k, v in bb.state_dict().items()}
sd.update({"head." + k: v for k, v in fc.state_dict().items()})
torch.save(sd, "pretrained/ShapeNet_tiny_pretrained.pth")
