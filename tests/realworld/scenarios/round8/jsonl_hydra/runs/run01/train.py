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
np.random.seed(cfg["seed"])

X, y = load_digits(return_X_y=True)
X = (X / 16.0).astype(np.float32)
Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.2, random_state=cfg["seed"], stratify=y)
train_loader = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)),
                          batch_size=cfg["data"]["batch_size"], shuffle=True)
Xva, yva = torch.from_numpy(Xva), torch.from_numpy(yva)

model = nn.Sequential(
    nn.Linear(64, cfg["model"]["hidden"]), nn.ReLU(),
    nn.Linear(cfg["model"]["hidden"], cfg["model"]["hidden"] // 2), nn.ReLU(),
    nn.Linear(cfg["model"]["hidden"] // 2, 10),
)
optimizer = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"],
                            momentum=cfg["optim"]["momentum"],
                            weight_decay=cfg["optim"]["weight_decay"])
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg["sched"]["step_size"],
                                            gamma=cfg["sched"]["gamma"])

print(f"train={len(Xtr)} val={len(Xva)} batches/epoch={len(train_loader)}")
step = 0
log = open("metrics.jsonl", "w")
for epoch in range(cfg["epochs"]):
    model.train()
    running, n = 0.0, 0
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        scheduler.step()
        step += 1
        running += loss.item() * len(xb)
        n += len(xb)
        if step % cfg["log_every"] == 0:
            log.write(json.dumps({"step": step, "epoch": epoch, "loss": round(loss.item(), 5),
                                  "lr": optimizer.param_groups[0]["lr"]}) + "\n")
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        val_loss = F.cross_entropy(out, yva).item()
        val_acc = (out.argmax(1) == yva).float().mean().item()
    log.write(json.dumps({"step": step, "epoch": epoch, "val_loss": round(val_loss, 5),
                          "val_acc": round(val_acc, 4)}) + "\n")
    log.flush()
    print(f"epoch {epoch:3d} | train_loss {running / n:.4f} | val_loss {val_loss:.4f} | "
          f"val_acc {val_acc:.3f} | lr {optimizer.param_groups[0]['lr']:.3g}")
log.close()
torch.save(model.state_dict(), "model.pt")
print("done")
