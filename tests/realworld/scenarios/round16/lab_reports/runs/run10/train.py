import argparse
import json

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument("--depth", type=int, default=5)
parser.add_argument("--width", type=int, default=128)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--out", default="history.json")
args = parser.parse_args()

torch.manual_seed(4)
rs = np.random.RandomState(4)

# ------------------------------------------------------------------ data
N, D, K = 4000, 24, 5
centers = rs.randn(K, 8) * 1.5
y = rs.randint(0, K, N)
z = centers[y] + rs.randn(N, 8)
X = np.hstack([z @ rs.randn(8, 16) * 0.4, rs.randn(N, D - 16)])
X = (X - X.mean(0)) / X.std(0)
X, y = torch.tensor(X, dtype=torch.float32), torch.tensor(y)
X_train, y_train, X_val, y_val = X[:3200], y[:3200], X[3200:], y[3200:]


# ------------------------------------------------------------------ model
class MLP(nn.Module):
    def __init__(self, d_in, width, depth, n_out):
        super().__init__()
        dims = [d_in] + [width] * depth
        self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.head = nn.Linear(width, n_out)
        for layer in self.hidden:
            nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
            nn.init.constant_(layer.bias, -1.0)

    def forward(self, x, return_acts=False):
        acts = []
        for layer in self.hidden:
            x = F.relu(layer(x))
            acts.append(x)
        out = self.head(x)
        return (out, acts) if return_acts else out


model = MLP(D, args.width, args.depth, K)
opt = torch.optim.Adam(model.parameters(), lr=args.lr)

hist = []
for epoch in range(1, args.epochs + 1):
    model.train()
    perm = torch.randperm(len(X_train))
    losses = []
    for i in range(0, len(perm), 64):
        idx = perm[i:i + 64]
        loss = F.cross_entropy(model(X_train[idx]), y_train[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        out, acts = model(X_val, return_acts=True)
        dead = [((a > 0).sum(0) == 0).float().mean().item() for a in acts]
        val_loss = F.cross_entropy(out, y_val).item()
        val_acc = (out.argmax(1) == y_val).float().mean().item()
    rec = {"epoch": epoch, "train_loss": float(np.mean(losses)), "val_loss": val_loss,
           "val_acc": val_acc, "inactive_units": dead}
    hist.append(rec)
    print(f"epoch {epoch:02d} train_loss={rec['train_loss']:.4f} val_loss={val_loss:.4f} val_acc={val_acc:.4f} "
          f"inactive_units=[{', '.join(f'{d:.2f}' for d in dead)}]")

json.dump(hist, open(args.out, "w"))
