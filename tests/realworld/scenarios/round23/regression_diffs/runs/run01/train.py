import argparse

import numpy as np
import torch
import torch.nn as nn
import wandb
import yaml
from torch.utils.data import DataLoader, TensorDataset


def load_split(root, split, classes):
    """One .npy shard per class, written by export_shards.py."""
    xs, ys = [], []
    for label, name in enumerate(classes):
        arr = np.load(f"{root}/{split}/{name}.npy")
        xs.append(arr)
        ys.append(np.full(len(arr), label))
    return TensorDataset(torch.from_numpy(np.concatenate(xs)).float(),
                         torch.from_numpy(np.concatenate(ys)).long())


def make_model(d_in, hidden, n_out):
    layers, d = [], d_in
    for h in hidden:
        layers += [nn.Linear(d, h), nn.ReLU()]
        d = h
    layers.append(nn.Linear(d, n_out))
    return nn.Sequential(*layers)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/har.yaml")
    ap.add_argument("--name", default=None)
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["seed"])

    classes = cfg["data"]["classes"]
    train_ds = load_split(cfg["data"]["root"], "train", classes)
    val_ds = load_split(cfg["data"]["root"], "val", classes)
    train_dl = DataLoader(train_ds, **{**cfg["loader"], **cfg["train_loader"]})
    val_dl = DataLoader(val_ds, **{**cfg["loader"], **cfg["val_loader"]})

    model = make_model(train_ds.tensors[0].shape[1], cfg["model"]["hidden"], len(classes))
    opt = torch.optim.AdamW(model.parameters(), **cfg["optimizer"])
    wandb.init(project="har-imu", name=args.name or cfg["run_name"], config=cfg)

    step = 0
    for epoch in range(cfg["epochs"]):
        model.train()
        for x, y in train_dl:
            logits = model(x)
            loss = nn.functional.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            acc = (logits.argmax(1) == y).float().mean().item()
            wandb.log({"train/loss": loss.item(), "train/batch_acc": acc, "epoch": epoch}, step=step)
            step += 1
        model.eval()
        correct, n, vloss = 0, 0, 0.0
        with torch.no_grad():
            for x, y in val_dl:
                out = model(x)
                vloss += nn.functional.cross_entropy(out, y, reduction="sum").item()
                correct += (out.argmax(1) == y).sum().item()
                n += len(y)
        wandb.log({"val/loss": vloss / n, "val/acc": correct / n}, step=step - 1)
        print(f"epoch {epoch}: val_loss={vloss / n:.4f} val_acc={correct / n:.4f}")
    wandb.finish()


if __name__ == "__main__":
    main()
