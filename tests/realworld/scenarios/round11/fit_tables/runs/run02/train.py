import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(21)
rng = np.random.default_rng(21)

CLASSES = ["circle", "square", "triangle", "cross", "ring"]
S = 16
yy, xx = np.mgrid[0:S, 0:S]


def draw(c, cx, cy, r):
    if c == 0:
        m = (xx - cx) ** 2 + (yy - cy) ** 2 <= r ** 2
    elif c == 1:
        m = (abs(xx - cx) <= r) & (abs(yy - cy) <= r)
    elif c == 2:
        m = (yy - cy <= r) & (yy - cy >= -r) & (abs(xx - cx) <= (yy - cy + r) / 2)
    elif c == 3:
        m = ((abs(xx - cx) <= 1) & (abs(yy - cy) <= r)) | ((abs(yy - cy) <= 1) & (abs(xx - cx) <= r))
    else:
        d = (xx - cx) ** 2 + (yy - cy) ** 2
        m = (d <= r ** 2) & (d >= (r - 2) ** 2)
    return m.astype(np.float32)


def load_split(n_per_class, seed):
    g = np.random.default_rng(seed)
    xs, ys = [], []
    for c in range(len(CLASSES)):          # one folder per class
        for _ in range(n_per_class):
            img = draw(c, g.integers(5, 11), g.integers(5, 11), g.integers(3, 6))
            img = img * g.uniform(0.5, 1.0) + g.normal(0, 0.25, (S, S))
            xs.append(img)
            ys.append(c)
    return np.stack(xs)[:, None].astype(np.float32), np.array(ys)


x_tr, y_tr = load_split(600, 1)
x_va, y_va = load_split(150, 2)
mu, sd = x_tr.mean(), x_tr.std()
x_tr, x_va = (x_tr - mu) / sd, (x_va - mu) / sd

train_loader = DataLoader(TensorDataset(torch.tensor(x_tr), torch.tensor(y_tr)), batch_size=64, shuffle=True)
train_eval_loader = DataLoader(TensorDataset(torch.tensor(x_tr), torch.tensor(y_tr)), batch_size=150, shuffle=True)
val_loader = DataLoader(TensorDataset(torch.tensor(x_va), torch.tensor(y_va)), batch_size=150, shuffle=False)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(64, len(CLASSES))

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = self.drop(F.relu(self.fc1(x.flatten(1))))
        return self.fc2(x)


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
criterion = nn.CrossEntropyLoss()
log_interval = 10


def evaluate(loader):
    total, correct, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            loss_sum += criterion(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            total += len(y)
    return correct / total, loss_sum / total


for epoch in range(1, 13):
    model.train()
    for i, (x, y) in enumerate(train_loader, 1):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        if i % log_interval == 0:
            print(f"Epoch[{epoch}] Iteration[{i}/{len(train_loader)}] Loss: {loss.item():.2f}")
    acc, avg = evaluate(train_eval_loader)
    print(f"Training Results - Epoch: {epoch}  Avg accuracy: {acc:.2f} Avg loss: {avg:.2f}")
    acc, avg = evaluate(val_loader)
    print(f"Validation Results - Epoch: {epoch}  Avg accuracy: {acc:.2f} Avg loss: {avg:.2f}", flush=True)
