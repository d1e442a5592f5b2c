import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)

with open("lenet_config.yaml") as f:
    cfg = yaml.safe_load(f)


def make_images(n, k=10, size=16, seed=1, noise=0.35):
    prng = np.random.RandomState(1234)
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


class LeNet5BN(nn.Module):
    def __init__(self, num_class=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.bn1 = nn.BatchNorm2d(6)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.bn2 = nn.BatchNorm2d(16)
        self.fc1 = nn.Linear(16 * 2 * 2, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_class)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


torch.manual_seed(cfg["seed"])
xtr, ytr = make_images(4000, seed=1)
xte, yte = make_images(1000, seed=2)
Xtr = (torch.tensor(xtr, dtype=torch.float32).unsqueeze(1) / 255 - 0.1307) / 0.3081
Xte = (torch.tensor(xte, dtype=torch.float32).unsqueeze(1) / 255 - 0.1307) / 0.3081
Ytr, Yte = torch.tensor(ytr), torch.tensor(yte)

net = LeNet5BN(cfg["num_classes"])
opt = torch.optim.SGD(net.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
bs = cfg["batch_size"]
steps = len(Xtr) // bs

print("============== Starting Training ==============")
for epoch in range(1, cfg["epoch_size"] + 1):
    t0 = time.time()
    perm = torch.randperm(len(Xtr))
    for step in range(1, steps + 1):
        idx = perm[(step - 1) * bs:step * bs]
        loss = F.cross_entropy(net(Xtr[idx]), Ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % cfg["per_print_times"] == 0:
            print("epoch: {} step: {}, loss is {}".format(epoch, step, loss.item()))
    dt = (time.time() - t0) * 1000
    print("epoch time: {:.3f} ms, per step time: {:.3f} ms".format(dt, dt / steps))
print("============== Starting Testing ==============")
with torch.no_grad():
    acc = (net(Xte).argmax(1) == Yte).float().mean().item()
print("============== {} ==============".format({"Accuracy": acc}))
