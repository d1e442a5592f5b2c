import argparse
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import wandb


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--warmup-steps", type=int, default=100)
    ap.add_argument("--bs", type=int, default=128)
    args = ap.parse_args()
    torch.manual_seed(123)
    tr, va = np.load("data/train.npz"), np.load("data/val.npz")
    xtr, ytr = torch.from_numpy(tr["x"]), torch.from_numpy(tr["y"])
    xva, yva = torch.from_numpy(va["x"]), torch.from_numpy(va["y"])
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=args.bs, shuffle=True)
    model = nn.Sequential(nn.Linear(xtr.shape[1], 256), nn.GELU(), nn.Linear(256, 256), nn.GELU(), nn.Linear(256, 12))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
    total = args.epochs * len(dl)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / args.warmup_steps) * 0.5 * (1 + math.cos(math.pi * min(s, total) / total)))
    wandb.init(project="gesture-kws", config=vars(args))
    step = 0
    for epoch in range(args.epochs):
        model.train()
        tl, n = 0.0, 0
        for x, y in dl:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tl += loss.item() * len(y)
            n += len(y)
            step += 1
            if step % 25 == 0:
                wandb.log({"train/loss_step": loss.item(), "lr": sched.get_last_lr()[0]}, step=step)
        model.eval()
        with torch.no_grad():
            vo = model(xva)
            vl = F.cross_entropy(vo, yva).item()
            vacc = (vo.argmax(1) == yva).float().mean().item()
        wandb.log({"epoch": epoch, "train/loss": tl / n, "val/loss": vl, "val/acc": vacc}, step=step)
        print(f"epoch {epoch + 1:2d}/{args.epochs}  lr {sched.get_last_lr()[0]:.2e}  train_loss {tl / n:.4f}  "
              f"val_loss {vl:.4f}  val_acc {vacc:.4f}")
    wandb.finish()


if __name__ == "__main__":
    main()
