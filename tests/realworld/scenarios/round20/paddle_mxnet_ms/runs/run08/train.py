import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(0)

batch_size = 64
learning_rate = 0.01
momentum = 0.9
weight_decay = 1e-4
epochs = 5


def load_glyphs(n, k=10, size=16, seed=1):
    prng = np.random.RandomState(321)
    strokes = prng.rand(k, 4, 4) > 0.55
    protos = np.kron(strokes, np.ones((size // 4, size // 4)))
    rng = np.random.RandomState(seed)
    y = rng.randint(0, k, n)
    x = np.empty((n, 1, size, size), dtype=np.uint8)
    for i in range(n):
        img = np.roll(protos[y[i]], (rng.randint(-2, 3), rng.randint(-2, 3)), axis=(0, 1))
        img = 0.7 * img + 0.3 * rng.rand(size, size)
        x[i, 0] = (np.clip(img, 0, 1) * 255).astype(np.uint8)
    return x, y


class GlyphSet:
    def __init__(self, train, batch_size, shuffle):
        x, y = load_glyphs(6000 if train else 1000, seed=1 if train else 2)
        self.x = torch.tensor(x, dtype=torch.float32)
        self.y = torch.tensor(y)
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.total_len = len(self.y)

    def __len__(self):
        return (self.total_len + self.batch_size - 1) // self.batch_size

    def __iter__(self):
        order = torch.randperm(self.total_len) if self.shuffle else torch.arange(self.total_len)
        for i in range(len(self)):
            idx = order[i * self.batch_size:(i + 1) * self.batch_size]
            yield self.x[idx], self.y[idx]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(64 * 6 * 6, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


def train(model, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (inputs, targets) in enumerate(train_loader):
        outputs = model(inputs)
        loss = F.cross_entropy(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if batch_idx % 3 == 0:
            print("Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}".format(
                epoch, batch_idx, len(train_loader), 100. * batch_idx / len(train_loader), loss.item()), flush=True)


def val(model, val_loader, epoch):
    model.eval()
    total_acc, total_num = 0, 0
    with torch.no_grad():
        for inputs, targets in val_loader:
            pred = model(inputs).argmax(1)
            total_acc += (pred == targets).sum().item()
            total_num += len(targets)
    print("Test Epoch: {} \t Acc: {:.4f}".format(epoch, total_acc / total_num), flush=True)


train_loader = GlyphSet(train=True, batch_size=batch_size, shuffle=True)
val_loader = GlyphSet(train=False, batch_size=1, shuffle=False)
model = Model()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate, momentum=momentum, weight_decay=weight_decay)
for epoch in range(epochs):
    train(model, train_loader, optimizer, epoch)
    val(model, val_loader, epoch)
