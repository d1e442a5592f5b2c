import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from dvclive import Live

CLASSES = ["idle", "walking", "running"]


class ActivityWindows(Dataset):
    """Accelerometer feature windows."""

    def __init__(self, split, n_per_class, seed):
        rng = np.random.RandomState(seed + (0 if split == "train" else 1000))
        feats, labels = [], []
        for label, name in enumerate(CLASSES):
            feats.append(self._record(label, n_per_class, rng))
            labels.append(np.full(n_per_class, label))
        self.x = torch.tensor(np.concatenate(feats), dtype=torch.float32)
        self.y = torch.tensor(np.concatenate(labels))

    @staticmethod
    def _record(label, n, rng):
        energy = 0.6 + 0.7 * label + rng.normal(0, 0.45, n)
        cadence = np.array([0.2, 1.8, 2.7])[label] + rng.normal(0, 0.5, n)
        other = rng.normal(0, 1, (n, 10))
        x = np.column_stack([energy, cadence, energy * cadence, other])
        return x + rng.normal(0, 0.3, x.shape)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--n-per-class", type=int, default=640)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    train_ds = ActivityWindows("train", args.n_per_class, args.seed)
    val_ds = ActivityWindows("val", 200, args.seed)
    mu, sd = train_ds.x.mean(0), train_ds.x.std(0)
    train_ds.x = (train_ds.x - mu) / sd
    val_ds.x = (val_ds.x - mu) / sd

    train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=False)
    val_loader = DataLoader(val_ds, batch_size=256)

    model = nn.Sequential(nn.Linear(13, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    with Live(dir="dvclive") as live:
        live.log_params(vars(args))
        for epoch in range(args.epochs):
            model.train()
            for xb, yb in train_loader:
                loss = loss_fn(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                live.log_metric("train/loss", loss.item())
                live.next_step()
            model.eval()
            correct, total, vloss = 0, 0, 0.0
            with torch.no_grad():
                for xb, yb in val_loader:
                    out = model(xb)
                    vloss += loss_fn(out, yb).item() * len(yb)
                    correct += (out.argmax(1) == yb).sum().item()
                    total += len(yb)
            live.log_metric("eval/loss", vloss / total)
            live.log_metric("eval/accuracy", correct / total)
            live.log_metric("epoch", epoch)
            print(f"epoch {epoch}: val_loss={vloss / total:.4f} val_acc={correct / total:.3f}")


if __name__ == "__main__":
    main()
