# exported from colab: gesture_gru.ipynb
import csv
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device)

class GestureDataset(Dataset):
    def __init__(self, path):
        d = np.load(path)
        self.x = torch.from_numpy(d["x"]).float()
        self.y = torch.from_numpy(d["y"]).long()

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]

train_ds = GestureDataset("gestures_train.npz")
val_ds = GestureDataset("gestures_val.npz")
train_loader = DataLoader(train_ds, batch_size=16, shuffle=True, num_workers=4)
val_loader = DataLoader(val_ds, batch_size=128, num_workers=4)

class GRUClassifier(nn.Module):
    def __init__(self, n_in=3, hidden=64, n_classes=4):
        super().__init__()
        self.gru = nn.GRU(n_in, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        _, h = self.gru(x)
        return self.head(h[-1])

torch.manual_seed(0)
model = GRUClassifier().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
criterion = nn.CrossEntropyLoss()
TOTAL_STEPS = 200
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 0.5 * (1 + math.cos(math.pi * s / TOTAL_STEPS)))

def evaluate():
    model.eval()
    correct, loss_sum = 0, 0.0
    with torch.no_grad():
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            out = model(x)
            loss_sum += criterion(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
    model.train()
    return loss_sum / len(val_ds), correct / len(val_ds)

log = open("log.csv", "w", newline="")
writer = csv.writer(log)
writer.writerow(["step", "loss", "lr", "val_loss", "val_acc"])
step = 0
model.train()
while step < TOTAL_STEPS:
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        step += 1
        row = [step, f"{loss.item():.4f}", f"{scheduler.get_last_lr()[0]:.5f}", "", ""]
        if step % 25 == 0:
            vl, va = evaluate()
            row[3:] = [f"{vl:.4f}", f"{va:.4f}"]
            print(f"step {step}: loss {loss.item():.4f}  val_loss {vl:.4f}  val_acc {va:.4f}")
        writer.writerow(row)
        if step >= TOTAL_STEPS:
            break
log.close()
torch.save(model.state_dict(), "gesture_gru.pt")
