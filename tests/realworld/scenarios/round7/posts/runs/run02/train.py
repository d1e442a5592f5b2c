import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(11)
rng = np.random.default_rng(11)
IMG = 16


def draw(kind):
    img = np.zeros((IMG, IMG), dtype=np.float32)
    r, c = rng.integers(2, IMG - 10, size=2)
    if kind == "hbar":
        img[r + 4, c:c + 8] = 1
    elif kind == "vbar":
        img[r:r + 8, c + 4] = 1
    elif kind == "box":
        img[r:r + 8, c] = img[r:r + 8, c + 7] = 1
        img[r, c:c + 8] = img[r + 7, c:c + 8] = 1
    elif kind == "plus":
        img[r + 4, c:c + 8] = 1
        img[r:r + 8, c + 4] = 1
    elif kind == "diag":
        for k in range(8):
            img[r + k, c + k] = 1
    elif kind == "antidiag":
        for k in range(8):
            img[r + k, c + 7 - k] = 1
    elif kind == "blob":
        img[r + 2:r + 6, c + 2:c + 6] = 1
    img += rng.normal(0, 0.3, size=img.shape).astype(np.float32)
    return img


def make_dataset(kinds, n_per_class):
    xs, ys = [], []
    for label, kind in enumerate(kinds):
        for _ in range(n_per_class):
            xs.append(draw(kind))
            ys.append(label)
    x = torch.tensor(np.stack(xs)).unsqueeze(1)
    return TensorDataset(x, torch.tensor(ys))


class ConvNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(32 * 4 * 4, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def run_epoch(model, loader, criterion, optimizer=None):
    model.train(optimizer is not None)
    tot, correct, n = 0.0, 0, 0
    with torch.set_grad_enabled(optimizer is not None):
        for xb, yb in loader:
            out = model(xb)
            loss = criterion(out, yb)
            if optimizer is not None:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            tot += loss.item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    return tot / n, correct / n


criterion = nn.CrossEntropyLoss()

# ---- stage 1: pretrain on the base shapes ----
base = make_dataset(["hbar", "vbar", "box", "plus"], 400)
model = ConvNet(n_classes=4)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
base_loader = DataLoader(base, batch_size=64, shuffle=True)
for epoch in range(4):
    loss, acc = run_epoch(model, base_loader, criterion, opt)
    print(f"pretrain epoch {epoch + 1}/4  loss {loss:.4f}  acc {acc:.3f}")
torch.save(model.state_dict(), "pretrained_shapes.pt")

# ---- stage 2: fine-tune on the new shapes ----
new_train = make_dataset(["diag", "antidiag", "blob"], 300)
new_val = make_dataset(["diag", "antidiag", "blob"], 100)
train_loader = DataLoader(new_train, batch_size=32, shuffle=True)
val_loader = DataLoader(new_val, batch_size=128)

for p in model.features.parameters():
    p.requires_grad = False
optimizer = torch.optim.Adam(model.classifier.parameters(), lr=1e-3)
model.classifier = nn.Linear(32 * 4 * 4, 3)

EPOCHS = 12
for epoch in range(EPOCHS):
    tr_loss, tr_acc = run_epoch(model, train_loader, criterion, optimizer)
    va_loss, va_acc = run_epoch(model, val_loader, criterion)
    print(f"ft epoch {epoch + 1}/{EPOCHS}  train_loss {tr_loss:.4f}  train_acc {tr_acc:.3f}  "
          f"val_loss {va_loss:.4f}  val_acc {va_acc:.3f}")
