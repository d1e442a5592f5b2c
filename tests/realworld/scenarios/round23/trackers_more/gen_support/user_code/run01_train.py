import argparse

import comet_ml  # noqa: F401  (must be imported before torch for auto-logging)
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from features import load_split


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch_size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--weight_decay", type=float, default=5e-4)
    p.add_argument("--lr_step_size", type=int, default=10)
    p.add_argument("--lr_gamma", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--seed", type=int, default=7)
    return p.parse_args()


def evaluate(model, X, y):
    model.eval()
    with torch.no_grad():
        logits = model(X)
        loss = F.cross_entropy(logits, y).item()
        acc = (logits.argmax(1) == y).float().mean().item()
    model.train()
    return loss, acc


def main():
    args = get_args()
    exp = comet_ml.OfflineExperiment(project_name="sensor-fault-clf", workspace="dmitri-k",
                                     offline_directory="/home/dmitri/.cometml-runs")
    exp.set_name("mlp-h128-sgd")
    exp.log_parameters(vars(args))
    torch.manual_seed(args.seed)

    Xtr, ytr = load_split("train")
    Xva, yva = load_split("val")
    n_classes = int(ytr.max()) + 1
    train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.batch_size, shuffle=True)

    model = nn.Sequential(
        nn.Linear(Xtr.shape[1], args.hidden), nn.ReLU(),
        nn.Linear(args.hidden, args.hidden), nn.ReLU(),
        nn.Linear(args.hidden, n_classes),
    )
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                          weight_decay=args.weight_decay)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=args.lr_step_size, gamma=args.lr_gamma)

    step = 0
    for epoch in range(1, args.epochs + 1):
        total, n = 0.0, 0
        for xb, yb in train_dl:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            scheduler.step()

            step += 1
            total += loss.item() * len(xb)
            n += len(xb)
            if step % 25 == 0:
                exp.log_metric("batch_loss", loss.item(), step=step, epoch=epoch)

        val_loss, val_acc = evaluate(model, Xva, yva)
        lr = opt.param_groups[0]["lr"]
        exp.log_metrics({"train_loss": total / n, "val_loss": val_loss, "val_acc": val_acc, "lr": lr},
                        step=step, epoch=epoch)
        print(f"epoch {epoch:02d} | train_loss {total / n:.4f} | val_loss {val_loss:.4f} | "
              f"val_acc {val_acc:.4f} | lr {lr:.3e}")

    torch.save(model.state_dict(), "mlp_h128.pt")
    exp.end()


if __name__ == "__main__":
    main()
