import csv
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset


def build_model(d_in, n_out, hidden, dropout):
    return nn.Sequential(
        nn.Linear(d_in, hidden), nn.GELU(), nn.Dropout(dropout),
        nn.Linear(hidden, hidden), nn.GELU(), nn.Dropout(dropout),
        nn.Linear(hidden, n_out),
    )


def evaluate(model, loader):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            tot += nn.functional.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(-1) == y).sum().item()
            n += len(y)
    return tot / n, correct / n


def main(cfg_path="config.yaml"):
    cfg = yaml.safe_load(open(cfg_path))
    torch.manual_seed(cfg["seed"])
    d = np.load(cfg["data"]["path"])
    tr = TensorDataset(torch.tensor(d["X_tr"]), torch.tensor(d["y_tr"]))
    va = TensorDataset(torch.tensor(d["X_va"]), torch.tensor(d["y_va"]))
    train_dl = DataLoader(tr, batch_size=cfg["data"]["batch_size"], shuffle=True, drop_last=True)
    val_dl = DataLoader(va, batch_size=512)

    n_classes = int(d["y_tr"].max()) + 1
    model = build_model(d["X_tr"].shape[1], n_classes, cfg["model"]["hidden"], cfg["model"]["dropout"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                                  weight_decay=cfg["optim"]["weight_decay"])
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01,
                                               total_iters=cfg["sched"]["warmup_steps"])
    decay = torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg["sched"]["step_size"],
                                            gamma=cfg["sched"]["gamma"])
    scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, schedulers=[warmup, decay],
                                                      milestones=[cfg["sched"]["warmup_steps"]])

    writer = csv.writer(open("metrics.csv", "w", newline=""))
    writer.writerow(["epoch", "lr", "train_loss", "val_loss", "val_acc", "time_s"])
    for epoch in range(cfg["epochs"]):
        t0 = time.time()
        model.train()
        running, nb = 0.0, 0
        lr = optimizer.param_groups[0]["lr"]
        for x, y in train_dl:
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()  # per-step so the warm-up is smooth
            running += loss.item()
            nb += 1
        val_loss, val_acc = evaluate(model, val_dl)
        dt = time.time() - t0
        writer.writerow([epoch, f"{lr:.6g}", f"{running / nb:.5f}", f"{val_loss:.5f}", f"{val_acc:.4f}", f"{dt:.2f}"])
        print(f"[{epoch + 1:02d}/{cfg['epochs']}] lr={lr:.3e} train_loss={running / nb:.4f} "
              f"val_loss={val_loss:.4f} val_acc={val_acc:.4f} ({dt:.1f}s)")
        sys.stdout.flush()
    torch.save(model.state_dict(), "model.pt")


if __name__ == "__main__":
    main(*sys.argv[1:])
