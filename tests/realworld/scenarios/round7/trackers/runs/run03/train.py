import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import wandb

torch.set_num_threads(1)
torch.manual_seed(1)

config = dict(epochs=15, batch_size=32, lr=0.01, momentum=0.9, hidden=128, log_every=10)

d = np.load("data/digits8x8.npz")
X_train = torch.tensor(d["X_train"]).reshape(-1, 64) / 16.0
y_train = torch.tensor(d["y_train"])
X_val = torch.tensor(d["X_val"]).reshape(-1, 64) / 16.0
y_val = torch.tensor(d["y_val"])

model = nn.Sequential(nn.Linear(64, config["hidden"]), nn.ReLU(), nn.Linear(config["hidden"], 10))
optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=config["momentum"])

wandb.init(project="digits-mlp", config=config, mode="offline")
step = 0
optimizer.zero_grad()
for epoch in range(config["epochs"]):
    model.train()
    perm = torch.randperm(len(X_train))
    for i in range(0, len(X_train), config["batch_size"]):
        idx = perm[i:i + config["batch_size"]]
        logits = model(X_train[idx])
        loss = F.cross_entropy(logits, y_train[idx])
        loss.backward()
        grad_norm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
        optimizer.step()
        if step % config["log_every"] == 0:
            wandb.log({"train_loss": loss.item(), "grad_norm": grad_norm.item()}, step=step)
        step += 1
    model.eval()
    with torch.no_grad():
        out = model(X_val)
        val_loss = F.cross_entropy(out, y_val).item()
        val_acc = (out.argmax(1) == y_val).float().mean().item()
    wandb.log({"val_loss": val_loss, "val_acc": val_acc, "epoch": epoch}, step=step)
    print(f"epoch {epoch}: train_loss {loss.item():.4f} grad_norm {grad_norm.item():.2f} val_loss {val_loss:.4f} val_acc {val_acc:.3f}")
wandb.finish()
