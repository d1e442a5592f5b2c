import math
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

torch.manual_seed(6)
torch.set_num_threads(1)

d = load_digits()
Xtr, Xva, ytr, yva = train_test_split(d.data / 16.0, d.target, test_size=0.2, random_state=6)
train_dl = DataLoader(TensorDataset(torch.tensor(Xtr, dtype=torch.float32), torch.tensor(ytr)),
                      batch_size=64, shuffle=True)
Xva, yva = torch.tensor(Xva, dtype=torch.float32), torch.tensor(yva)


config = dict(lr=0.55, momentum=0.9, epochs=12, hidden=256, log_every=5)
model = nn.Sequential(nn.Linear(64, config["hidden"]), nn.ReLU(),
                      nn.Linear(config["hidden"], config["hidden"]), nn.ReLU(),
                      nn.Linear(config["hidden"], 10))
optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=config["momentum"])
criterion = nn.CrossEntropyLoss()
config


step = 0
for epoch in range(config["epochs"]):
    model.train()
    for xb, yb in train_dl:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        grad_norm = math.sqrt(sum(p.grad.pow(2).sum().item() for p in model.parameters()))
        optimizer.step()
        step += 1
        if step % config["log_every"] == 0:
            print(f"step {step:4d} | loss {loss.item():7.4f} | grad_norm {grad_norm:8.3f} | lr {optimizer.param_groups[0]['lr']}")
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        print(f"== epoch {epoch + 1} val_loss {criterion(out, yva).item():.4f} "
              f"val_acc {(out.argmax(1) == yva).float().mean().item():.4f}")
