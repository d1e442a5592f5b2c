"""Minimal re-implementation of the training loop (the repo's hydra setup doesn't run on our cluster)."""
import sys, yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def build_model(cfg, d_in):
    layers, last = [], d_in
    for _ in range(cfg["depth"]):
        layers += [nn.Linear(last, cfg["hidden"]), nn.ReLU()]
        last = cfg["hidden"]
    return nn.Sequential(*layers, nn.Linear(last, cfg["num_classes"]))


def build_optimizer(cfg, params):
    name = cfg["name"].lower()
    if name == "adamw":
        return torch.optim.AdamW(params, lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    if name == "sgd":
        return torch.optim.SGD(params, lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    raise ValueError(name)


def main(path):
    cfg = yaml.safe_load(open(path))
    torch.manual_seed(cfg["seed"])
    d = np.load(cfg["data"]["path"])
    Xtr, ytr = torch.tensor(d["X_train"]), torch.tensor(d["y_train"])
    Xva, yva = torch.tensor(d["X_val"]), torch.tensor(d["y_val"])
    dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=cfg["train"]["batch_size"], shuffle=True)
    model = build_model({**cfg["model"], "num_classes": cfg["data"]["num_classes"]}, Xtr.shape[1])
    opt = build_optimizer(cfg["optim"], model.parameters())
    print(f"config {path} | train {len(Xtr)} | val {len(Xva)} | optim {cfg['optim']['name']} lr {cfg['optim']['lr']}")
    step = 0
    for epoch in range(1, cfg["train"]["epochs"] + 1):
        model.train()
        run = 0.0
        for xb, yb in dl:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            step += 1
            run += loss.item()
            if step % cfg["train"]["log_every"] == 0:
                print(f"  step {step:4d}  loss {loss.item():.4f}")
        model.eval()
        with torch.no_grad():
            out = model(Xva)
        print(f"epoch {epoch:2d}/{cfg['train']['epochs']}  train_loss {run / len(dl):.4f}  "
              f"val_loss {F.cross_entropy(out, yva).item():.4f}  val_acc {(out.argmax(1) == yva).float().mean().item():.4f}")


if __name__ == "__main__":
    main(sys.argv[1])
