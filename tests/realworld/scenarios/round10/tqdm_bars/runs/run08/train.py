import argparse
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

parser = argparse.ArgumentParser()
parser.add_argument("--csv", default="data/loans.csv")
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--bs", type=int, default=64)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--hidden", type=int, default=64)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
torch.manual_seed(args.seed)
torch.set_num_threads(1)

df = pd.read_csv(args.csv)
pd.set_option("display.width", 140)
print(df.describe().T[["mean", "std", "min", "max"]])

features = [c for c in df.columns if c != "default"]
X = df[features].values.astype(np.float32)
y = df["default"].values.astype(np.float32)

rng = np.random.default_rng(args.seed)
idx = rng.permutation(len(df))
split = int(0.8 * len(df))
tr, va = idx[:split], idx[split:]
train_dl = DataLoader(TensorDataset(torch.from_numpy(X[tr]), torch.from_numpy(y[tr])), batch_size=args.bs, shuffle=True)
Xva, yva = torch.from_numpy(X[va]), torch.from_numpy(y[va])

model = nn.Sequential(
    nn.Linear(len(features), args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, 1),
)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
loss_fn = nn.BCEWithLogitsLoss()

for epoch in range(1, args.epochs + 1):
    model.train()
    losses = []
    loop = tqdm(train_dl, desc=f"Epoch {epoch}")
    for xb, yb in loop:
        logits = model(xb).squeeze(1)
        loss = loss_fn(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        loop.set_postfix(loss=np.mean(losses[-20:]), refresh=False)
    model.eval()
    with torch.no_grad():
        vlog = model(Xva).squeeze(1)
        vloss = loss_fn(vlog, yva).item()
        vacc = ((vlog > 0).float() == yva).float().mean().item()
    print(f"Epoch {epoch}: train_loss={np.mean(losses):.4f} val_loss={vloss:.4f} val_acc={vacc:.4f}")
