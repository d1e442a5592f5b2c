import argparse
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
import wandb


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--name", default=None)
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["seed"])
    device = "cuda" if torch.cuda.is_available() else "cpu"
    use_amp = cfg["precision"] == "fp16"

    d = np.load(cfg["data"])
    x, y = torch.from_numpy(d["x"]), torch.from_numpy(d["y"]).unsqueeze(1)
    n_val = cfg["n_val"]
    xtr, ytr, xva, yva = x[n_val:], y[n_val:], x[:n_val], y[:n_val]
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=cfg["batch_size"],
                                     shuffle=True, drop_last=True)
    w = cfg["hidden"]
    model = nn.Sequential(nn.Linear(x.shape[1], w), nn.ReLU(), nn.Linear(w, w), nn.ReLU(), nn.Linear(w, 1)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    scaler = torch.amp.GradScaler(device, enabled=use_amp)
    wandb.init(project="eta-model", name=args.name, config=cfg)

    step = 0
    for epoch in range(cfg["epochs"]):
        t0 = time.time()
        for xb, yb in dl:
            xb, yb = xb.to(device), yb.to(device)
            with torch.autocast(device_type=device, dtype=torch.float16, enabled=use_amp):
                pred = model(xb)
                loss = F.mse_loss(pred.float(), yb)
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            step += 1
            if step % 5 == 0:
                log = {"train/loss": loss.item(), "train/rmse_s": math.sqrt(loss.item()) if loss.item() == loss.item() else float("nan")}
                if use_amp:
                    log["amp/loss_scale"] = scaler.get_scale()
                wandb.log(log, step=step)
        with torch.no_grad(), torch.autocast(device_type=device, dtype=torch.float16, enabled=use_amp):
            vp = model(xva.to(device)).float()
            vmae = (vp - yva.to(device)).abs().mean().item()
        wandb.log({"val/mae_s": vmae, "epoch": epoch}, step=step)
        print(f"epoch {epoch} step {step} loss {loss.item():.4e} val_mae_s {vmae:.1f} time {time.time() - t0:.1f}s")
    wandb.finish()


if __name__ == "__main__":
    main()
