import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

X, y = load_breast_cancer(return_X_y=True)
Xtr, Xte, ytr, yte = train_test_split(X.astype(np.float32), y.astype(np.float32),
                                      test_size=cfg["data"]["test_size"], random_state=cfg["seed"])
train_loader = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)),
                          batch_size=cfg["data"]["batch_size"], shuffle=True)
test_loader = DataLoader(TensorDataset(torch.from_numpy(Xte), torch.from_numpy(yte)), batch_size=256)


class Standardize(nn.Module):
    def forward(self, x):
        return (x - x.mean(dim=0)) / (x.std(dim=0) + 1e-6)


class TabNet(nn.Module):
    def __init__(self, d_in, hidden):
        super().__init__()
        self.norm = Standardize()
        self.mlp = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.mlp(self.norm(x)).squeeze(-1)


model = TabNet(X.shape[1], cfg["model"]["hidden"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
print(f"n_train={len(Xtr)} n_test={len(Xte)} steps/epoch={len(train_loader)}")

global_step = 0
with open("metrics.jsonl", "w") as mf:
    for epoch in range(cfg["epochs"]):
        model.train()
        for xb, yb in train_loader:
            logits = model(xb)
            loss = F.binary_cross_entropy_with_logits(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            global_step += 1
            mf.write(json.dumps({"global_step": global_step, "train_loss": loss.item(),
                                 "batch_size": len(xb), "lr": cfg["optim"]["lr"]}) + "\n")
        model.eval()
        correct, tot, tl = 0, 0, 0.0
        with torch.no_grad():
            for xb, yb in test_loader:
                lo = model(xb)
                tl += F.binary_cross_entropy_with_logits(lo, yb, reduction="sum").item()
                correct += ((lo > 0).float() == yb).sum().item()
                tot += len(yb)
        mf.write(json.dumps({"global_step": global_step, "epoch": epoch, "val_loss": tl / tot,
                             "val_acc": correct / tot}) + "\n")
        print(f"epoch {epoch} | step {global_step} | train_loss {loss.item():.4f} | val_loss {tl / tot:.4f} | val_acc {correct / tot:.3f}")
