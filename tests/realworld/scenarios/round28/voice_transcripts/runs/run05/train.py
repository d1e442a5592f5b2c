import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from dataset import SensorWindows

torch.manual_seed(5)


class ActivityNet(nn.Module):
    def __init__(self, n_in=24, hidden=128, n_classes=10):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(n_in, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.head = nn.Sequential(nn.Linear(hidden, n_classes), nn.Softmax(dim=-1))

    def forward(self, x):
        return self.head(self.body(x))


train_ds = SensorWindows("data/har", split="train")
val_ds = SensorWindows("data/har", split="val")
train_loader = DataLoader(train_ds, batch_size=64, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=512)

model = ActivityNet()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(1, 21):
    model.train()
    total, n = 0.0, 0
    for xb, yb in train_loader:
        probs = model(xb)
        loss = criterion(probs, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(yb)
        n += len(yb)
    model.eval()
    with torch.no_grad():
        vl = va = m = 0
        for xb, yb in val_loader:
            probs = model(xb)
            vl += criterion(probs, yb).item() * len(yb)
            va += (probs.argmax(-1) == yb).sum().item()
            m += len(yb)
    print(f"epoch {epoch:2d}  train_loss {total / n:.4f}  val_loss {vl / m:.4f}  val_acc {va / m:.4f}")
