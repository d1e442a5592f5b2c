import argparse

import numpy as np
import tabio
import torch
import torch.nn as nn
import wandb
import yaml


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["seed"])
    cols, y = tabio.load_table(cfg["table"])
    X = np.stack([cols[c] for c in cfg["features"]], 1).astype(np.float32)
    rng = np.random.default_rng(cfg["seed"])
    idx = rng.permutation(len(y))
    n_val = int(len(y) * cfg["val_frac"])
    va, tr = idx[:n_val], idx[n_val:]
    mu, sd = X[tr].mean(0), X[tr].std(0) + 1e-6
    X = (X - mu) / sd
    xtr, ytr = torch.from_numpy(X[tr]), torch.from_numpy(y[tr]).float()
    xva, yva = torch.from_numpy(X[va]), torch.from_numpy(y[va]).float()
    print(f"rows: train={len(tr)} val={len(va)}  churn rate train={ytr.mean():.3f} val={yva.mean():.3f}")
    model = nn.Sequential(nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Dropout(cfg["dropout"]),
                          nn.Linear(64, 64), nn.ReLU(), nn.Dropout(cfg["dropout"]), nn.Linear(64, 1))
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"], weight_decay=1e-5)
    crit = nn.BCEWithLogitsLoss()
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=cfg["batch_size"], shuffle=True)
    wandb.init(project="churn-nn", config=cfg)
    for epoch in range(cfg["epochs"]):
        model.train()
        tl, tc, n = 0.0, 0, 0
        for xb, yb in dl:
            out = model(xb).squeeze(1)
            loss = crit(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(yb)
            tc += ((out > 0).float() == yb).sum().item()
            n += len(yb)
        model.eval()
        with torch.no_grad():
            vo = model(xva).squeeze(1)
            vl = crit(vo, yva).item()
            vacc = ((vo > 0).float() == yva).float().mean().item()
            p = torch.sigmoid(vo)
            # AUC via rank statistic
            order = torch.argsort(p)
            ranks = torch.empty_like(p)
            ranks[order] = torch.arange(1, len(p) + 1, dtype=p.dtype)
            npos = yva.sum()
            auc = ((ranks[yva == 1].sum() - npos * (npos + 1) / 2) / (npos * (len(yva) - npos))).item()
        wandb.log({"epoch": epoch, "train/loss": tl / n, "train/acc": tc / n, "val/loss": vl, "val/acc": vacc,
                   "val/auc": auc})
        print(f"epoch {epoch:2d} train_loss {tl / n:.4f} train_acc {tc / n:.4f} val_loss {vl:.4f} val_acc {vacc:.4f} val_auc {auc:.4f}")
    wandb.finish()


if __name__ == "__main__":
    main()
