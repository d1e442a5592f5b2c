import argparse
import logging
import os

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(format="%(asctime)s | %(levelname)s | %(message)s", level=logging.INFO)
logger = logging.getLogger(__name__)


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/land_cover.npz")
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--bs", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--wd", type=float, default=1e-4)
    p.add_argument("--log-interval", type=int, default=10)
    p.add_argument("--out-dir", default="runs/latest")
    return p.parse_args()


def build_model(d_in, n_cls):
    return nn.Sequential(
        nn.Linear(d_in, 192), nn.ReLU(), nn.Dropout(0.2),
        nn.Linear(192, 192), nn.ReLU(), nn.Dropout(0.2),
        nn.Linear(192, n_cls),
    )


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    loss, correct, n = 0.0, 0, 0
    for x, y in loader:
        out = model(x)
        loss += nn.functional.cross_entropy(out, y, reduction="sum").item()
        correct += (out.argmax(1) == y).sum().item()
        n += len(y)
    return loss / n, correct / n


def main():
    args = parse()
    d = np.load(args.data)
    train_dl = DataLoader(TensorDataset(torch.tensor(d["x_train"]), torch.tensor(d["y_train"])),
                          batch_size=args.bs, shuffle=True)
    val_dl = DataLoader(TensorDataset(torch.tensor(d["x_val"]), torch.tensor(d["y_val"])), batch_size=500)
    model = build_model(d["x_train"].shape[1], int(d["y_train"].max()) + 1)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.wd)
    logger.info("model params: %d", sum(p.numel() for p in model.parameters()))
    os.makedirs(args.out_dir, exist_ok=True)
    history = open(os.path.join(args.out_dir, "history.csv"), "w")
    history.write("epoch,val_loss,val_acc\n")
    best_acc = 0.0

    step = 0
    for epoch in range(1, args.epochs + 1):
        model.train()
        for x, y in train_dl:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % args.log_interval == 0:
                logger.info("epoch %d | step %5d | loss %.4f", epoch, step, loss.item())
        val_loss, val_acc = evaluate(model, val_dl)
        logger.info("epoch %d | val_loss %.4f | val_acc %.4f", epoch, val_loss, val_acc)
        history.write(f"{epoch},{val_loss:.5f},{val_acc:.5f}\n")
        history.flush()
        if val_acc > best_acc:
            best_acc = val_acc
            torch.save({"epoch": epoch, "model": model.state_dict(), "opt": opt.state_dict()},
                       os.path.join(args.out_dir, "best.pt"))
            logger.info("saved new best checkpoint (val_acc %.4f)", best_acc)

    torch.save(model.state_dict(), os.path.join(args.out_dir, "final.pt"))
    history.close()
    logger.info("done. final val_acc %.4f | best val_acc %.4f", val_acc, best_acc)


if __name__ == "__main__":
    main()
