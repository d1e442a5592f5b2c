import yaml
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import load_tabular

cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(10)

train_ds, val_ds = load_tabular(cfg["data"]["path"])
train_loader = DataLoader(train_ds, batch_size=cfg["data"]["batch_size"], shuffle=True)
val_loader = DataLoader(val_ds, batch_size=1000)

h = cfg["model"]["hidden"]
model = nn.Sequential(nn.Linear(16, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 8))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"],
                            momentum=cfg["optim"]["momentum"],
                            weight_decay=cfg["optim"]["weight_decay"])
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg["schedule"]["step_size"],
                                            gamma=cfg["schedule"]["gamma"])

for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    total, n = 0.0, 0
    for xb, yb in train_loader:
        loss = criterion(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        total += loss.item() * len(yb)
        n += len(yb)

    model.eval()
    correct = m = 0
    with torch.no_grad():
        for xb, yb in val_loader:
            correct += (model(xb).argmax(1) == yb).sum().item()
            m += len(yb)
    lr = optimizer.param_groups[0]["lr"]
    print(f"epoch {epoch:3d} | lr {lr:.2e} | train_loss {total / n:.4f} | val_acc {correct / m:.4f}")
