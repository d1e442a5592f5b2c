import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn
import wandb

from model import LeafNet


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/leaf_features")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--bs", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--out", default="runs/leafnet")
    args = ap.parse_args()
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"

    tr = np.load(os.path.join(args.data, "train.npz"))
    va = np.load(os.path.join(args.data, "val.npz"))
    mean, std = tr["x"].mean(0), tr["x"].std(0) + 1e-6
    os.makedirs(args.out, exist_ok=True)
    json.dump({"mean": mean.tolist(), "std": std.tolist()}, open(os.path.join(args.out, "norm.json"), "w"))
    xtr = torch.from_numpy((tr["x"] - mean) / std).float()
    xva = torch.from_numpy((va["x"] - mean) / std).float()
    ytr, yva = torch.from_numpy(tr["y"]), torch.from_numpy(va["y"])

    model = LeafNet(in_dim=xtr.shape[1], n_classes=10)
    model = nn.DataParallel(model).to(device)
    print(model)
    print(f"params: {sum(p.numel() for p in model.parameters()):,}")
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    crit = nn.CrossEntropyLoss()
    wandb.init(project="leaf-disease", job_type="train", config=vars(args))

    best = 0.0
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=args.bs, shuffle=True)
    for epoch in range(args.epochs):
        model.train()
        for x, y in dl:
            x, y = x.to(device), y.to(device)
            loss = crit(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            out = model(xva.to(device))
            val_acc = (out.argmax(1).cpu() == yva).float().mean().item()
            val_loss = crit(out, yva.to(device)).item()
        wandb.log({"train/loss": loss.item(), "val/loss": val_loss, "val/acc": val_acc, "epoch": epoch})
        print(f"epoch {epoch:2d}  loss {loss.item():.4f}  val_loss {val_loss:.4f}  val_acc {val_acc:.4f}")
        if val_acc > best:
            best = val_acc
            torch.save(model.state_dict(), os.path.join(args.out, "best.pt"))
            print(f"  saved {args.out}/best.pt (val_acc {val_acc:.4f})")
    wandb.summary["best_val_acc"] = best
    wandb.finish()


if __name__ == "__main__":
    main()
