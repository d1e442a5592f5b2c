import argparse
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--hidden", type=int, default=256)
p.add_argument("--epochs", type=int, default=10)
p.add_argument("--lr", type=float, default=1e-3)
args = p.parse_args()

torch.manual_seed(0)
torch.set_num_threads(1)
tr, va = np.load("data/train.npz"), np.load("data/val.npz")
train_dl = DataLoader(TensorDataset(torch.tensor(tr["x"]), torch.tensor(tr["y"])),
                      batch_size=128, shuffle=True)
Xva, yva = torch.tensor(va["x"]), torch.tensor(va["y"])

model = nn.Sequential(
    nn.Linear(32, args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, 10),
    nn.Softmax(dim=1),
)
criterion = nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters(), lr=args.lr)

for epoch in range(args.epochs):
    model.train()
    total = 0.0
    for x, y in train_dl:
        loss = criterion(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(x)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        val_loss = criterion(out, yva).item()
        val_acc = (out.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch+1}/{args.epochs}  train_loss {total/len(train_dl.dataset):.4f}  "
          f"val_loss {val_loss:.4f}  val_acc {val_acc:.4f}")

torch.save(model.state_dict(), f"mlp_h{args.hidden}.pt")
