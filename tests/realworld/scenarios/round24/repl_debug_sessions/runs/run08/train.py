import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(8)


class Classifier(nn.Module):
    def __init__(self, d_in, n_classes):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, 128), nn.ReLU(),
            nn.Linear(128, 128), nn.ReLU(),
            nn.Linear(128, n_classes),
        )
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        return self.softmax(self.net(x))


d = np.load("data/signals.npz")
Xtr, ytr = torch.from_numpy(d["X_train"]), torch.from_numpy(d["y_train"])
Xva, yva = torch.from_numpy(d["X_val"]), torch.from_numpy(d["y_val"])
train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True)

model = Classifier(Xtr.shape[1], 10)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(15):
    model.train()
    losses = []
    for xb, yb in train_dl:
        out = model(xb)
        loss = criterion(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
        val_loss = criterion(vo, yva).item()
        val_acc = (vo.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch:2d} | train loss {np.mean(losses):.4f} | val loss {val_loss:.4f} | val acc {val_acc:.3f}")
