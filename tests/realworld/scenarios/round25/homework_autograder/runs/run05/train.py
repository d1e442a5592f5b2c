import time

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset


def load(split):
    d = np.load(f"data/{split}.npz")
    return torch.tensor(d["X"] / 16.0, dtype=torch.float32), torch.tensor(d["y"])


def build_model(hidden):
    return nn.Sequential(
        nn.Linear(64, hidden), nn.ReLU(),
        nn.Linear(hidden, hidden), nn.ReLU(),
        nn.Linear(hidden, 10),
    )


def main():
    with open("config.yaml") as f:
        cfg = yaml.safe_load(f)
    torch.manual_seed(cfg["seed"])

    X_tr, y_tr = load("train")
    X_va, y_va = load("val")
    train_loader = DataLoader(TensorDataset(X_tr, y_tr), batch_size=cfg["batch_size"], shuffle=True)

    model = build_model(cfg["hidden"])
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg["lr_step_epochs"], gamma=cfg["lr_gamma"])
    criterion = nn.CrossEntropyLoss()

    best = 0.0
    for epoch in range(cfg["epochs"]):
        t0 = time.time()
        model.train()
        tot = 0.0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            tot += loss.item() * len(xb)
        model.eval()
        with torch.no_grad():
            val_acc = (model(X_va).argmax(1) == y_va).float().mean().item()
        if val_acc > best:
            best = val_acc
            torch.save(model.state_dict(), "best.pt")
        print(f"epoch {epoch + 1:02d}/{cfg['epochs']} | train_loss {tot / len(X_tr):.4f} | val_acc {val_acc:.4f} "
              f"| lr {scheduler.get_last_lr()[0]:.2e} | {time.time() - t0:.1f}s")
    print(f"best val_acc {best:.4f}")


if __name__ == "__main__":
    main()
