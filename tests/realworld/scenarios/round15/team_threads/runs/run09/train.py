import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(8)

d = np.load("data/shapes16_v2.npz")
train_ds = TensorDataset(torch.tensor(d["x_train"]), torch.tensor(d["y_train"]))
val_ds = TensorDataset(torch.tensor(d["x_val"]), torch.tensor(d["y_val"]))
train_dl = DataLoader(train_ds, batch_size=64, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=256)


class ShapeCNN(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


model = ShapeCNN()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)


def evaluate(dl):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in dl:
            out = model(xb)
            tot += F.cross_entropy(out, yb, reduction="sum").item()
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    return tot / n, correct / n


for epoch in range(1, 16):
    model.train()
    run, n = 0.0, 0
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        run += loss.item() * len(yb)
        n += len(yb)
    tr_loss, tr_acc = evaluate(train_dl)
    va_loss, va_acc = evaluate(val_dl)
    print(f"Epoch {epoch:2d} | train_loss {run / n:.4f} | train_acc {tr_acc:.4f} | val_loss {va_loss:.4f} | val_acc {va_acc:.4f}",
          flush=True)

torch.save(model.state_dict(), "shape_cnn.pt")
