"""Training entry point."""
import argparse
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn
import yaml
import wandb


def build_model(cfg):
    layers, d = [], cfg["in_dim"]
    for h in cfg["hidden"]:
        layers += [nn.Linear(d, h), nn.ReLU()]
        d = h
    layers.append(nn.Linear(d, cfg["num_classes"]))
    return nn.Sequential(*layers)


def build_optimizer(params, cfg):
    name = cfg["name"].lower()
    if name == "adamw":
        return torch.optim.AdamW(params, lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    if name == "sgd":
        return torch.optim.SGD(params, lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    raise ValueError(f"unknown optimizer {name}")


class NpzDataset(torch.utils.data.Dataset):
    def __init__(self, path, stats=None):
        d = np.load(path)
        self.x, self.y = d["x"], d["y"]
        if stats is None:
            stats = {"mean": self.x.mean(0).tolist(), "std": self.x.std(0).tolist()}
        self.stats = stats
        self.x = (self.x - np.array(stats["mean"], dtype=np.float32)) / np.array(stats["std"], dtype=np.float32)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), int(self.y[i])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["seed"])
    np.random.seed(cfg["seed"])

    train_ds = NpzDataset(os.path.join(cfg["data_dir"], "train.npz"))
    val_ds = NpzDataset(os.path.join(cfg["data_dir"], "val.npz"), stats=train_ds.stats)
    train_dl = torch.utils.data.DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, drop_last=True)
    val_dl = torch.utils.data.DataLoader(val_ds, batch_size=1024)

    model = build_model(cfg["model"])
    opt = build_optimizer(model.parameters(), cfg["optimizer"])
    crit = nn.CrossEntropyLoss()
    run = wandb.init(project="emg-gestures", config=cfg, job_type="train")

    step = 0
    for epoch in range(1, cfg["epochs"] + 1):
        model.train()
        t0, seen, run_loss = time.time(), 0, 0.0
        for x, y in train_dl:
            logits = model(x)
            loss = crit(logits, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            run_loss += loss.item() * len(y)
            seen += len(y)
            step += 1
            if step % 20 == 0:
                wandb.log({"train/loss": loss.item(), "trainer/global_step": step})
        model.eval()
        correct, vloss, n = 0, 0.0, 0
        with torch.no_grad():
            for x, y in val_dl:
                logits = model(x)
                vloss += crit(logits, y).item() * len(y)
                correct += (logits.argmax(-1) == y).sum().item()
                n += len(y)
        wandb.log({"val/loss": vloss / n, "val/acc": correct / n, "epoch": epoch, "trainer/global_step": step})
        print(json.dumps({"epoch": epoch, "train_loss": round(run_loss / seen, 4), "val_loss": round(vloss / n, 4),
                          "val_acc": round(correct / n, 4), "sec": round(time.time() - t0, 1)}))
    os.makedirs("checkpoints", exist_ok=True)
    torch.save(model.state_dict(), "checkpoints/last.pt")
    run.finish()


if __name__ == "__main__":
    main()
