import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
import wandb

torch.set_num_threads(1)
torch.manual_seed(5)

config = {"lr": 0.02, "momentum": 0.9, "batch_size": 50, "epochs": 5, "hidden": 64}

parts = [np.load(f"data/class_{k}.npy") for k in range(4)]
X = np.concatenate(parts).astype(np.float32)
y = np.concatenate([np.full(len(p), k) for k, p in enumerate(parts)]).astype(np.int64)
val = np.load("data/val.npz")
X_val, y_val = val["X"].astype(np.float32), val["y"].astype(np.int64)

mu, sigma = X.mean(0), X.std(0)
X = (X - mu) / sigma
X_val = (X_val - mu) / sigma

train_ds = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
train_loader = DataLoader(train_ds, batch_size=config["batch_size"], shuffle=False)
X_val, y_val = torch.from_numpy(X_val), torch.from_numpy(y_val)

model = nn.Sequential(nn.Linear(X.shape[1], config["hidden"]), nn.ReLU(), nn.Linear(config["hidden"], 4))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=config["momentum"])

wandb.init(project="blob-classifier", config=config, mode="offline")
global_step = 0
for epoch in range(config["epochs"]):
    model.train()
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        wandb.log({"train/loss": loss.item(), "epoch": epoch}, step=global_step)
        global_step += 1
    model.eval()
    with torch.no_grad():
        logits = model(X_val)
        val_loss = criterion(logits, y_val).item()
        val_acc = (logits.argmax(1) == y_val).float().mean().item()
    wandb.log({"val/loss": val_loss, "val/accuracy": val_acc}, step=global_step - 1)
    print(f"epoch {epoch}  last_batch_loss {loss.item():.4f}  val_loss {val_loss:.4f}  val_acc {val_acc:.4f}")
wandb.finish()
