import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/defects_5cls.npz")
p.add_argument("--pretrained", default="checkpoints/backbone_10cls.pt")
p.add_argument("--num_classes", type=int, default=5)
p.add_argument("--epochs", type=int, default=8)
p.add_argument("--lr", type=float, default=1e-3)
args = p.parse_args()
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self, in_dim=32, n_classes=10):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU())
        self.head = nn.Linear(128, n_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


d = np.load(args.data)
Xtr, ytr = torch.tensor(d["x_train"]), torch.tensor(d["y_train"])
Xva, yva = torch.tensor(d["x_val"]), torch.tensor(d["y_val"])
train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True)

model = Net()
model.load_state_dict(torch.load(args.pretrained))
# keep the pretrained features, only train the classifier
for p_ in model.backbone.parameters():
    p_.requires_grad = False
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
model.head = nn.Linear(128, args.num_classes)

n_train = sum(p_.numel() for p_ in model.parameters() if p_.requires_grad)
print(f"lr={args.lr}  trainable params: {n_train}")

for epoch in range(1, args.epochs + 1):
    model.train()
    tot, n = 0.0, 0
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(xb)
        n += len(xb)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch}  train_loss {tot / n:.4f}  val_loss {vl:.4f}  val_acc {va:.4f}")
