import argparse, time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

class Net(nn.Module):
    def __init__(self, d_in, n_cls, h=128):
        super().__init__()
        self.fc1 = nn.Linear(d_in, h)
        self.bn1 = nn.BatchNorm1d(h)
        self.fc2 = nn.Linear(h, h)
        self.bn2 = nn.BatchNorm1d(h)
        self.head = nn.Linear(h, n_cls)

    def forward(self, x):
        x = torch.relu(self.bn1(self.fc1(x)))
        x = torch.relu(self.bn2(self.fc2(x)))
        return self.head(x)

p = argparse.ArgumentParser()
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--epochs", type=int, default=3)
p.add_argument("--data", default="data/features.npz")
args = p.parse_args()
torch.manual_seed(0)
d = np.load(args.data)
train_ds = TensorDataset(torch.tensor(d["x_train"]), torch.tensor(d["y_train"]))
Xva, yva = torch.tensor(d["x_val"]), torch.tensor(d["y_val"])
loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)
print(f"train samples: {len(train_ds)}  batch_size: {args.batch_size}  steps/epoch: {len(loader)}", flush=True)
model = Net(Xva.shape[1], 10)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(1, args.epochs + 1):
    model.train()
    t0 = time.time()
    for step, (xb, yb) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 50 == 0:
            print(f"epoch {epoch} [{step:4d}/{len(loader)}] loss={loss.item():.4f}", flush=True)
    model.eval()
    with torch.no_grad():
        acc = (model(Xva).argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch} finished in {time.time()-t0:.1f}s  val_acc={acc:.4f}", flush=True)
