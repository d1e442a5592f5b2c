import argparse
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/segments.npz")
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--bs", type=int, default=50)
p.add_argument("--lr", type=float, default=1e-3)
args = p.parse_args()

torch.set_num_threads(1)
torch.manual_seed(0)

d = np.load(args.data)
X, y = d["X"], d["y"]
X = (X - X.mean(0)) / X.std(0)
X_train, y_train = torch.tensor(X[:2500]), torch.tensor(y[:2500])
X_val, y_val = torch.tensor(X[2500:]), torch.tensor(y[2500:])

train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=args.bs, shuffle=True)

model = nn.Sequential(
    nn.Linear(X.shape[1], 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 4),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

optimizer.zero_grad()
for epoch in range(1, args.epochs + 1):
    model.train()
    tot_loss, correct, gnorms = 0.0, 0, []
    for xb, yb in train_loader:
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        gnorms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1e9).item())
        optimizer.step()
        tot_loss += loss.item() * len(xb)
        correct += (logits.argmax(1) == yb).sum().item()
    model.eval()
    with torch.no_grad():
        vlogits = model(X_val)
        val_loss = criterion(vlogits, y_val).item()
        val_acc = (vlogits.argmax(1) == y_val).float().mean().item()
    print(f"epoch {epoch:02d}  train_loss={tot_loss / len(X_train):.4f}  train_acc={correct / len(X_train):.3f}  "
          f"val_loss={val_loss:.4f}  val_acc={val_acc:.3f}  grad_norm={np.mean(gnorms):.2f}", flush=True)

torch.save(model.state_dict(), "segments_mlp.pt")
