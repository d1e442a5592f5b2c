import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

p = argparse.ArgumentParser()
p.add_argument("--train", default="data/transactions_train.csv")
p.add_argument("--val", default="data/transactions_val.csv")
p.add_argument("--epochs", type=int, default=10)
p.add_argument("--bs", type=int, default=128)
p.add_argument("--lr", type=float, default=1e-3)
args = p.parse_args()
torch.manual_seed(0)


class CSVData(Dataset):
    def __init__(self, path):
        arr = np.genfromtxt(path, delimiter=",", skip_header=1, dtype=np.float32)
        self.x = arr[:, :-1]
        self.y = arr[:, -1].astype(np.int64)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def collate(batch):
    x = torch.stack([torch.from_numpy(b[0]) for b in batch])
    y = torch.tensor([b[1] for b in batch])
    # standardise features (scales differ a lot between columns)
    x = (x - x.mean(dim=0)) / x.std(dim=0)
    return x, y


train_ds, val_ds = CSVData(args.train), CSVData(args.val)
train_dl = DataLoader(train_ds, batch_size=args.bs, shuffle=True, collate_fn=collate)
val_dl = DataLoader(val_ds, batch_size=256, collate_fn=collate)
print(f"loaded {len(train_ds)} train rows, {len(val_ds)} val rows, {train_ds.x.shape[1]} features")

model = nn.Sequential(nn.Linear(train_ds.x.shape[1], 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
opt = torch.optim.Adam(model.parameters(), lr=args.lr)

for epoch in range(1, args.epochs + 1):
    model.train()
    losses = []
    for i, (xb, yb) in enumerate(train_dl):
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if i % 4 == 0:
            print(f"  epoch {epoch} batch {i:3d}/{len(train_dl)}  loss {loss.item():.4f}")
    model.eval()
    correct, vl, n = 0, 0.0, 0
    with torch.no_grad():
        for xb, yb in val_dl:
            out = model(xb)
            vl += F.cross_entropy(out, yb, reduction="sum").item()
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    print(f"epoch {epoch}: train_loss={np.mean(losses):.4f} val_loss={vl / n:.4f} val_acc={correct / n:.4f}")
