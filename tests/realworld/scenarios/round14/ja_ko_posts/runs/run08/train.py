import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(0)


class FeatureNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(512, 64), nn.ReLU(),
        )

    def forward(self, x):
        return self.conv(x)


class Classifier(nn.Module):
    def __init__(self, backbone, num_classes):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, num_classes))

    def forward(self, x):
        return self.head(self.backbone(x))


train = np.load("shapes_train.npz")
val = np.load("shapes_val.npz")
train_loader = DataLoader(TensorDataset(torch.tensor(train["x"]), torch.tensor(train["y"])), batch_size=32, shuffle=True)
val_loader = DataLoader(TensorDataset(torch.tensor(val["x"]), torch.tensor(val["y"])), batch_size=250)
num_classes = int(train["y"].max()) + 1

backbone = FeatureNet()
backbone.load_state_dict(torch.load("backbone.pt"))
for p in backbone.parameters():
    p.requires_grad = False

model = Classifier(backbone, num_classes)
optimizer = torch.optim.Adam(backbone.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

print(f"num_classes={num_classes}, train={len(train['y'])}, val={len(val['y'])}")
for epoch in range(1, 16):
    model.train()
    total, correct, seen = 0.0, 0, 0
    for x, y in train_loader:
        optimizer.zero_grad()
        logits = model(x)
        loss = criterion(logits, y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(y)
        correct += (logits.argmax(1) == y).sum().item()
        seen += len(y)
    model.eval()
    v_total, v_correct = 0.0, 0
    with torch.no_grad():
        for x, y in val_loader:
            logits = model(x)
            v_total += criterion(logits, y).item() * len(y)
            v_correct += (logits.argmax(1) == y).sum().item()
    n_val = len(val_loader.dataset)
    print(f"epoch {epoch:02d} | train_loss {total / seen:.4f} | train_acc {correct / seen:.3f} | "
          f"val_loss {v_total / n_val:.4f} | val_acc {v_correct / n_val:.3f}")
