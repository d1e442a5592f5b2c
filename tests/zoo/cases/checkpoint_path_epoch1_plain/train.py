"""Train the classifier; keeps the best checkpoint by validation accuracy."""
import json
import os

import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, TensorDataset

from data import fit_normalizer, load_dataset, normalize, split
from model import Classifier


def LOG(epoch, train_loss, val_acc):
    print(f"epoch {epoch:2d} | train_loss {train_loss:.4f} | val_acc {val_acc:.4f}", flush=True)


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    torch.manual_seed(cfg["seed"])
    (xtr, ytr), _ = split(*load_dataset(cfg), cfg)
    n_val = len(xtr) // 10
    stats = fit_normalizer(xtr[n_val:])
    xv, yv = normalize(xtr[:n_val], stats), ytr[:n_val]
    loader = DataLoader(TensorDataset(normalize(xtr[n_val:], stats), ytr[n_val:]), batch_size=cfg["batch_size"], shuffle=True)
    model = Classifier(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    os.makedirs("checkpoints", exist_ok=True)
    best = 0.0
    for epoch in range(1, cfg["epochs"] + 1):
        model.train()
        tot = 0.0
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(y)
        model.eval()
        with torch.no_grad():
            val_acc = (model(xv).argmax(-1) == yv).float().mean().item()
        LOG(epoch, tot / len(loader.dataset), val_acc)
        ckpt = {"model": model.state_dict(), "normalizer": stats, "epoch": epoch}
        torch.save(ckpt, f"checkpoints/epoch_{epoch}.pt")
        if val_acc > best:
            best = val_acc
            torch.save(ckpt, "checkpoints/best.pt")


if __name__ == "__main__":
    main()
