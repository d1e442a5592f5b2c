import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
import wandb


class ResMLP(nn.Module):
    def __init__(self, d_in, width, depth, n_out):
        super().__init__()
        self.inp = nn.Linear(d_in, width)
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(width), nn.Linear(width, width), nn.GELU(), nn.Linear(width, width))
            for _ in range(depth))
        self.out = nn.Linear(width, n_out)

    def forward(self, x):
        h = self.inp(x)
        for b in self.blocks:
            h = h + b(h)
        return self.out(h)


def save_ckpt(path, model, opt, epoch, step):
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch, "step": step}, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/spectra.yaml")
    ap.add_argument("--resume", default=None, help="path to checkpoint")
    ap.add_argument("--wandb-id", default=None)
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["seed"])

    tr, va = np.load(cfg["train"]), np.load(cfg["val"])
    xtr, ytr = torch.from_numpy(tr["x"]), torch.from_numpy(tr["y"])
    xva, yva = torch.from_numpy(va["x"]), torch.from_numpy(va["y"])
    ds = torch.utils.data.TensorDataset(xtr, ytr)
    dl = torch.utils.data.DataLoader(ds, batch_size=cfg["batch_size"], shuffle=True, drop_last=True)

    model = ResMLP(xtr.shape[1], cfg["width"], cfg["depth"], int(ytr.max()) + 1)
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9, weight_decay=cfg["weight_decay"])
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=cfg["milestones"], gamma=0.1)

    start_epoch, step = 0, 0
    if args.resume:
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        start_epoch = ckpt["epoch"] + 1
        step = ckpt["step"]
        print(f"Resumed from {args.resume} (epoch {ckpt['epoch']}, step {step})")

    wandb.init(project="raman-spectra", config=cfg, id=args.wandb_id, resume="allow")
    os.makedirs(cfg["ckpt_dir"], exist_ok=True)
    for epoch in range(start_epoch, cfg["epochs"]):
        model.train()
        t0 = time.time()
        for x, y in dl:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 10 == 0:
                wandb.log({"train/loss": loss.item(), "train/lr": opt.param_groups[0]["lr"]}, step=step)
        sched.step()
        model.eval()
        with torch.no_grad():
            logits = model(xva)
            vl = F.cross_entropy(logits, yva).item()
            va_acc = (logits.argmax(1) == yva).float().mean().item()
        wandb.log({"val/loss": vl, "val/acc": va_acc, "epoch": epoch}, step=step)
        print(f"epoch {epoch:02d} step {step:6d} lr {opt.param_groups[0]['lr']:.4g} "
              f"loss {loss.item():.4f} val_loss {vl:.4f} val_acc {va_acc:.4f} ({time.time() - t0:.1f}s)")
        save_ckpt(os.path.join(cfg["ckpt_dir"], "last.pt"), model, opt, epoch, step)
    wandb.finish()


if __name__ == "__main__":
    main()
