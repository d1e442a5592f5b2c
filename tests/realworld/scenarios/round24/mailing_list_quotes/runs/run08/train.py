import sys
import time

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

cfg = yaml.safe_load(open(sys.argv[1] if len(sys.argv) > 1 else "config.yaml"))
tc = cfg["train"]
torch.manual_seed(cfg["seed"])


def load(path):
    d = np.load(path)
    return TensorDataset(torch.from_numpy(d["x"]), torch.from_numpy(d["y"]))


train_ds, val_ds = load(cfg["data"]["train"]), load(cfg["data"]["val"])
train_loader = DataLoader(train_ds, batch_size=tc["batch_size"], shuffle=True, drop_last=True)
val_loader = DataLoader(val_ds, batch_size=512)

n_in = train_ds.tensors[0].shape[1]
n_cls = int(train_ds.tensors[1].max()) + 1
layers, prev = [], n_in
for h in cfg["model"]["hidden"]:
    layers += [nn.Linear(prev, h), nn.ReLU(), nn.Dropout(cfg["model"]["dropout"])]
    prev = h
layers.append(nn.Linear(prev, n_cls))
model = nn.Sequential(*layers)

optimizer = torch.optim.SGD(model.parameters(), lr=tc["lr"], momentum=tc["momentum"],
                            weight_decay=tc["weight_decay"])
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=tc["lr_step_epochs"],
                                            gamma=tc["lr_gamma"])
criterion = nn.CrossEntropyLoss()

for epoch in range(tc["epochs"]):
    t0 = time.time()
    model.train()
    total, n = 0.0, 0
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        total += loss.item() * len(y)
        n += len(y)
    model.eval()
    vl, correct, vn = 0.0, 0, 0
    with torch.no_grad():
        for x, y in val_loader:
            out = model(x)
            vl += criterion(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            vn += len(y)
    print(f"Epoch {epoch + 1:3d}/{tc['epochs']}  lr {optimizer.param_groups[0]['lr']:.3e}  "
          f"train_loss {total / n:.4f}  val_loss {vl / vn:.4f}  val_acc {correct / vn:.4f}  "
          f"[{time.time() - t0:.2f}s]")
