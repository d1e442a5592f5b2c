import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Encoder(nn.Module):
    def __init__(self, n_in=48, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Linear(n_in, 128), nn.ReLU(),
            nn.Linear(128, 64), nn.ReLU(),
        )
        self.head = nn.Linear(64, n_classes)

    def forward(self, x):
        return self.head(self.features(x))


parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--epochs", type=int, default=8)
parser.add_argument("--ckpt", default="pretrained/encoder_src10.pt")
args = parser.parse_args()

torch.manual_seed(0)
tr, va = np.load("data/target_train.npz"), np.load("data/target_val.npz")
train_loader = DataLoader(TensorDataset(torch.from_numpy(tr["x"]), torch.from_numpy(tr["y"])),
                          batch_size=64, shuffle=True)
val_x, val_y = torch.from_numpy(va["x"]), torch.from_numpy(va["y"])

model = Encoder()
model.load_state_dict(torch.load(args.ckpt))

# keep the pretrained features fixed, only train the classifier
for p in model.features.parameters():
    p.requires_grad = False

optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
criterion = nn.CrossEntropyLoss()

# new task has 5 classes
model.head = nn.Linear(64, 5)

step = 0
for epoch in range(args.epochs):
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        gn = nn.utils.clip_grad_norm_(optimizer.param_groups[0]["params"], max_norm=5.0)
        optimizer.step()
        step += 1
        if step % 20 == 0:
            print(f"ep {epoch} it {step:4d} loss {loss.item():.4f} gnorm {gn.item():.4f}")
    model.eval()
    with torch.no_grad():
        out = model(val_x)
        vloss = criterion(out, val_y).item()
        vacc = (out.argmax(1) == val_y).float().mean().item()
    print(f"---- epoch {epoch} val_loss {vloss:.4f} val_acc {vacc:.4f}")
