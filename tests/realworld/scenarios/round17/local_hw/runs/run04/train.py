import json
import os

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from model import FEATURES, WineNet

device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
print("device:", device)
torch.manual_seed(1)
np.random.seed(1)

df = pd.read_csv("data/train.csv")
idx = np.random.permutation(len(df))
n_val = int(0.15 * len(df))
val_df, train_df = df.iloc[idx[:n_val]], df.iloc[idx[n_val:]]

mean = train_df[FEATURES].values.mean(axis=0)
std = train_df[FEATURES].values.std(axis=0)


def prep(frame):
    X = ((frame[FEATURES].values - mean) / std).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(frame["quality_class"].values)


X_tr, y_tr = prep(train_df)
X_va, y_va = prep(val_df)
train_loader = DataLoader(TensorDataset(X_tr, y_tr), batch_size=64, shuffle=True)
val_loader = DataLoader(TensorDataset(X_va, y_va), batch_size=256)

model = WineNet(len(FEATURES)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
criterion = nn.CrossEntropyLoss()
os.makedirs("checkpoints", exist_ok=True)
with open("checkpoints/norm.json", "w") as f:
    json.dump({"mean": mean.tolist(), "std": std.tolist()}, f)

best = 0.0
for epoch in range(1, 31):
    model.train()
    tr_loss = 0.0
    for xb, yb in train_loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        tr_loss += loss.item() * len(xb)
    model.eval()
    correct, va_loss = 0, 0.0
    with torch.no_grad():
        for xb, yb in val_loader:
            xb, yb = xb.to(device), yb.to(device)
            logits = model(xb)
            va_loss += criterion(logits, yb).item() * len(xb)
            correct += (logits.argmax(1) == yb).sum().item()
    va_acc = correct / len(X_va)
    msg = f"epoch {epoch:2d}  train_loss {tr_loss / len(X_tr):.4f}  val_loss {va_loss / len(X_va):.4f}  val_acc {va_acc:.4f}"
    if va_acc > best:
        best = va_acc
        torch.save(model.state_dict(), "checkpoints/best.pt")
        msg += "  *saved*"
    print(msg)
print(f"best val_acc {best:.4f}")
