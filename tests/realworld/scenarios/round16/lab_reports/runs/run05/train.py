import argparse
import json
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(5)
np.random.seed(5)

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=15)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--dropout", type=float, default=0.5)
args = parser.parse_args()
EPOCHS = args.epochs
BATCH_SIZE = args.batch_size


def glyph_images(n, seed, noise=4.0):
    tr = np.random.RandomState(1234)
    base = (tr.rand(10, 10, 10) > 0.55).astype(np.float32)
    base = (base + np.roll(base, 1, 1) + np.roll(base, 1, 2)) / 3.0
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 10, n)
    X = np.zeros((n, 1, 8, 8), np.float32)
    for i in range(n):
        dy, dx = rng.randint(0, 3, 2)
        X[i, 0] = base[y[i], dy:dy + 8, dx:dx + 8]
    X = (np.clip(X * 16 + rng.randn(n, 1, 8, 8) * noise, 0, 16) / 16.0).astype(np.float32)
    return torch.tensor(X), torch.tensor(y)


x_tr, y_tr = glyph_images(2000, 10)
x_te, y_te = glyph_images(600, 20)
train_loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=BATCH_SIZE, shuffle=True)


class SmallCNN(nn.Module):
    def __init__(self, p_drop):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.drop = nn.Dropout(p_drop)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = self.drop(x.flatten(1))
        x = self.drop(F.relu(self.fc1(x)))
        return self.fc2(x)


def evaluate(model, x, y, batch_size=256):
    correct, total_loss = 0, 0.0
    with torch.no_grad():
        for i in range(0, len(x), batch_size):
            out = model(x[i:i + batch_size])
            total_loss += F.cross_entropy(out, y[i:i + batch_size], reduction="sum").item()
            correct += (out.argmax(1) == y[i:i + batch_size]).sum().item()
    return total_loss / len(x), correct / len(x)


model = SmallCNN(args.dropout)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

history = []
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    tot, cor, n = 0.0, 0, 0
    for xb, yb in train_loader:
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(yb)
        cor += (out.argmax(1) == yb).sum().item()
        n += len(yb)
    test_loss, test_acc = evaluate(model, x_te, y_te)
    history.append({"epoch": epoch, "train_loss": tot / n, "train_acc": cor / n,
                    "test_loss": test_loss, "test_acc": test_acc})
    print(f"Epoch {epoch}/{EPOCHS} - {time.time() - t0:.1f}s - loss: {tot / n:.4f} - acc: {cor / n:.4f}"
          f" - test_loss: {test_loss:.4f} - test_acc: {test_acc:.4f}")

torch.save(model.state_dict(), "glyph_cnn.pt")

# sanity check before handing over to the serving team
checks = []
for bs in [256, 32, 4, 1]:
    for repeat in range(2):
        torch.manual_seed(100 + repeat)
        loss_, acc_ = evaluate(model, x_te, y_te, batch_size=bs)
        checks.append({"batch_size": bs, "repeat": repeat + 1, "test_loss": loss_, "test_acc": acc_})
        print(f"inference check: batch_size={bs:3d} repeat={repeat + 1} test_acc={acc_:.4f} test_loss={loss_:.4f}")

json.dump({"history": history, "checks": checks}, open("history.json", "w"), indent=1)
