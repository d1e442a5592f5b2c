import glob
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

LR = 0.05
EPOCHS = 8
BATCH = 50


def load_dir(pattern):
    xs, ys = [], []
    for f in sorted(glob.glob(pattern)):
        arr = np.loadtxt(f, delimiter=",", skiprows=1, dtype=np.float32)
        xs.append(arr[:, :-1])
        ys.append(arr[:, -1].astype(np.int64))
    return np.concatenate(xs), np.concatenate(ys)


X, y = load_dir("data/train/soort_*.csv")      # one csv per bird species, 5 species
Xv, yv = load_dir("data/val/*.csv")
mu, sd = X.mean(0), X.std(0)
X, Xv = (X - mu) / sd, (Xv - mu) / sd

train_loader = DataLoader(TensorDataset(torch.from_numpy(X), torch.from_numpy(y)), batch_size=BATCH)

torch.manual_seed(1)
model = nn.Sequential(nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 5))
opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
crit = nn.CrossEntropyLoss()

log = open("loss_per_step.csv", "w")
log.write("step,epoch,loss\n")
step = 0
for epoch in range(1, EPOCHS + 1):
    for xb, yb in train_loader:
        loss = crit(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        log.write(f"{step},{epoch},{loss.item():.5f}\n")
    with torch.no_grad():
        pred = model(torch.from_numpy(Xv)).argmax(1)
        acc = (pred == torch.from_numpy(yv)).float().mean().item()
    print(f"epoch {epoch}: last loss {loss.item():.4f}  val_acc {acc:.4f}")
