import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

X, y = load_digits(return_X_y=True)
X = (X.reshape(-1, 1, 8, 8) / 16.0).astype(np.float32)
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=cfg["seed"], stratify=y)
train_dl = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)),
                      batch_size=cfg["data"]["batch_size"], shuffle=cfg["data"]["shuffle"])
Xte, yte = torch.from_numpy(Xte), torch.from_numpy(yte)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


model = SmallCNN()
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg["epochs"])

out_f = open("metrics.jsonl", "w")
step = 0
for epoch in range(cfg["epochs"]):
    model.train()
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 4 == 0:
            out_f.write(json.dumps({"step": step, "loss": round(loss.item(), 5), "lr": round(sched.get_last_lr()[0], 7)}) + "\n")
    sched.step()
    model.eval()
    with torch.no_grad():
        logits = model(Xte)
        vloss = F.cross_entropy(logits, yte).item()
        vacc = (logits.argmax(1) == yte).float().mean().item()
    out_f.write(json.dumps({"step": step, "val/loss": round(vloss, 5), "val/acc": round(vacc, 4)}) + "\n")
    out_f.flush()
    print(f"ep {epoch + 1:02d} step {step:4d} loss {loss.item():.4f} val/loss {vloss:.4f} val/acc {vacc:.4f}")
out_f.close()
torch.save(model.state_dict(), "last.pt")
