import csv
import os
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

EPOCHS = 6
BATCH_SIZE = 32
LR = 1e-3
CLASSES = ["N", "S", "V", "F", "Q"]


def standardize(x):
    return (x - x.mean(dim=0, keepdim=True)) / x.std(dim=0, keepdim=True)


class BeatCNN(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(1, 16, 7, padding=3), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(32, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveMaxPool1d(8),
        )
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(32 * 8, 64), nn.ReLU(), nn.Linear(64, n_classes))

    def forward(self, x):
        return self.fc(self.conv(x))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("device:", device)

data = np.load(os.path.join("data", "beats.npz"))
X = torch.tensor(data["beats"], dtype=torch.float32).unsqueeze(1)
y = torch.tensor(data["labels"], dtype=torch.long)
dataset = TensorDataset(X, y)
train_set, val_set = random_split(dataset, [0.8, 0.2], generator=torch.Generator().manual_seed(0))
train_loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(val_set, batch_size=64)
print(f"train {len(train_set)} beats, val {len(val_set)} beats")

torch.manual_seed(0)
model = BeatCNN().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
criterion = nn.CrossEntropyLoss()

os.makedirs("logs", exist_ok=True)
with open(os.path.join("logs", "metrics.csv"), "w", newline="") as f:
    log = csv.writer(f)
    log.writerow(["epoch", "step", "train_loss"])
    step = 0
    for epoch in range(1, EPOCHS + 1):
        model.train()
        t0 = time.time()
        losses = []
        for xb, yb in train_loader:
            xb, yb = standardize(xb.to(device)), yb.to(device)
            loss = criterion(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            losses.append(loss.item())
            log.writerow([epoch, step, f"{loss.item():.6f}"])

        model.eval()
        correct, val_loss, n = 0, 0.0, 0
        with torch.no_grad():
            for xb, yb in val_loader:
                xb, yb = standardize(xb.to(device)), yb.to(device)
                out = model(xb)
                val_loss += criterion(out, yb).item() * len(xb)
                correct += (out.argmax(1) == yb).sum().item()
                n += len(xb)
        print(f"Epoch {epoch}/{EPOCHS}  train_loss={np.mean(losses):.4f}  val_loss={val_loss / n:.4f}  "
              f"val_acc={correct / n:.4f}  time={time.time() - t0:.1f}s")

torch.save(model.state_dict(), "beat_cnn.pt")
