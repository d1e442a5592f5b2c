import argparse
import numpy as np
import torch
import torch.nn as nn

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/load_hourly.npz")
p.add_argument("--window", type=int, default=24)
p.add_argument("--epochs", type=int, default=8)
p.add_argument("--lr", type=float, default=1e-3)
args = p.parse_args()
torch.manual_seed(0)

series = np.load(args.data)["load"].astype(np.float32)
series = (series - series.mean()) / series.std()

window = args.window
X, y = [], []
for t in range(window, len(series)):
    X.append(series[t - window + 1 : t + 1])
    y.append(series[t])
X, y = torch.tensor(np.array(X)), torch.tensor(np.array(y))

split = int(0.8 * len(X))
Xtr, ytr, Xva, yva = X[:split], y[:split], X[split:], y[split:]
naive = ((torch.tensor(series[split + window - 1 : -1]) - yva) ** 2).mean().item()
print(f"train windows {len(Xtr)}  val windows {len(Xva)}  persistence baseline val_mse={naive:.4f}", flush=True)

model = nn.Sequential(nn.Linear(window, 64), nn.ReLU(), nn.Dropout(0.2),
                      nn.Linear(64, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
for epoch in range(1, args.epochs + 1):
    model.train()
    perm = torch.randperm(len(Xtr))
    tot = 0.0
    for i in range(0, len(Xtr), 64):
        idx = perm[i:i + 64]
        loss = ((model(Xtr[idx]).squeeze(1) - ytr[idx]) ** 2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item() * len(idx)
    model.eval()
    with torch.no_grad():
        vm = ((model(Xva).squeeze(1) - yva) ** 2).mean().item()
    print(f"epoch {epoch:2d} train_mse={tot/len(Xtr):.4f} val_mse={vm:.4f}", flush=True)
