import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--bs", type=int, default=64)
args = parser.parse_args()

torch.manual_seed(7)


class Classifier(nn.Module):
    def __init__(self, n_in, n_classes):
        super().__init__()
        self.fc1 = nn.Linear(n_in, 128)
        self.fc2 = nn.Linear(128, 128)
        self.fc3 = nn.Linear(128, n_classes)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        h = F.relu(self.fc2(h))
        return F.softmax(self.fc3(h), dim=1)


d = np.load("data/dataset.npz")
train_ds = TensorDataset(torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"]))
val_x, val_y = torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"])
train_loader = DataLoader(train_ds, batch_size=args.bs, shuffle=True)

model = Classifier(val_x.shape[1], 10)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

print(f"lr={args.lr} epochs={args.epochs} batch_size={args.bs}")
for epoch in range(args.epochs):
    model.train()
    running, correct, seen = 0.0, 0, 0
    t0 = time.time()
    for xb, yb in train_loader:
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        optimizer.step()
        running += loss.item() * xb.size(0)
        correct += (out.argmax(1) == yb).sum().item()
        seen += xb.size(0)
    model.eval()
    with torch.no_grad():
        vout = model(val_x)
        vloss = criterion(vout, val_y).item()
        vacc = (vout.argmax(1) == val_y).float().mean().item()
    print(f"Epoch {epoch + 1:2d}/{args.epochs} | loss: {running / seen:.4f} | acc: {correct / seen:.4f} "
          f"| val_loss: {vloss:.4f} | val_acc: {vacc:.4f} | {time.time() - t0:.1f}s")
