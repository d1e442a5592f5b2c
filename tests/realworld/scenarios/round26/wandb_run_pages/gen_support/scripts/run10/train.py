import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import wandb
import yaml


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["seed"])
    tr, va = np.load(cfg["train"]), np.load(cfg["val"])
    xtr, ytr = torch.from_numpy(tr["x"]), torch.from_numpy(tr["y"])
    xva, yva = torch.from_numpy(va["x"]), torch.from_numpy(va["y"])
    print(f"train: {len(ytr)} samples ({cfg['train']}), val: {len(yva)} samples ({cfg['val']})")
    print("train label counts:", np.bincount(tr["y"]).tolist())
    w = cfg["width"]
    model = nn.Sequential(nn.Linear(xtr.shape[1], w), nn.ReLU(), nn.Linear(w, w), nn.ReLU(),
                          nn.Linear(w, w), nn.ReLU(), nn.Linear(w, cfg["num_classes"]))
    print(f"model params: {sum(p.numel() for p in model.parameters()):,}")
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=cfg["batch_size"], shuffle=True)
    wandb.init(project="defect-classifier", config=cfg)
    for epoch in range(1, cfg["epochs"] + 1):
        t0 = time.time()
        model.train()
        tl, tc, n = 0.0, 0, 0
        for i, (xb, yb) in enumerate(dl):
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(yb)
            tc += (out.argmax(1) == yb).sum().item()
            n += len(yb)
            if (i + 1) % 10 == 0:
                print(f"  {i + 1:3d}/{len(dl)} [{'=' * int(20 * (i + 1) / len(dl)):<20}] loss: {loss.item():.4f}")
        model.eval()
        with torch.no_grad():
            vo = model(xva)
            vl = F.cross_entropy(vo, yva).item()
            vacc = (vo.argmax(1) == yva).float().mean().item()
        wandb.log({"epoch": epoch, "train/loss": tl / n, "train/acc": tc / n, "val/loss": vl, "val/acc": vacc})
        print(f"Epoch {epoch:3d}/{cfg['epochs']} - {time.time() - t0:.2f}s - loss: {tl / n:.4f} - acc: {tc / n:.4f} "
              f"- val_loss: {vl:.4f} - val_acc: {vacc:.4f}")
    wandb.finish()


if __name__ == "__main__":
    main()
