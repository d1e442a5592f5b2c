# train.py  (v0.4 -- config-driven)
import sys

import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

from parts.data import load_parts


def build_model(d_in, n_cls, cfg):
    layers, prev = [], d_in
    for _ in range(cfg["depth"]):
        layers += [nn.Linear(prev, cfg["hidden"]), nn.ReLU()]
        prev = cfg["hidden"]
    layers.append(nn.Linear(prev, n_cls))
    model = nn.Sequential(*layers)
    if cfg.get("init") == "kaiming_normal":
        for m in model.modules():
            if isinstance(m, nn.Linear):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                nn.init.zeros_(m.bias)
    return model


def build_optimizer(params, cfg):
    name = cfg.get("name", "sgd").lower()
    common = dict(lr=cfg["lr"], weight_decay=cfg.get("weight_decay", 0.0))
    if name == "adamw":
        return torch.optim.AdamW(params, betas=tuple(cfg.get("betas", (0.9, 0.999))), **common)
    if name == "sgd":
        return torch.optim.SGD(params, momentum=cfg.get("mom", 0.0), **common)
    raise ValueError(f"unknown optimizer {name}")


def main(cfg_path, seed):
    cfg = yaml.safe_load(open(cfg_path))
    torch.manual_seed(seed)
    (Xtr, ytr), (Xva, yva) = load_parts(cfg["data"]["path"], cfg["data"]["val_fraction"])
    train_loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=cfg["train"]["batch_size"], shuffle=True)

    model = build_model(Xtr.shape[1], int(ytr.max()) + 1, cfg["model"])
    opt = build_optimizer(model.parameters(), cfg["optimizer"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg["schedule"]["epochs"])
    crit = nn.CrossEntropyLoss()

    for epoch in range(1, cfg["schedule"]["epochs"] + 1):
        model.train()
        tot, n = 0.0, 0
        for xb, yb in train_loader:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
            tot += loss.item() * len(yb)
            n += len(yb)
        sched.step()
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = crit(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        print(f"epoch {epoch} train_loss={tot / n:.4f} val_loss={val_loss:.4f} val_acc={val_acc:.4f}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0)
