import argparse
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)


class SmallCNN(nn.Module):
    def __init__(self, channels=(16, 32), dropout=0.1, n_classes=10):
        super().__init__()
        c1, c2 = channels
        self.conv1 = nn.Conv2d(1, c1, 3, padding=1)
        self.conv2 = nn.Conv2d(c1, c2, 3, padding=1)
        self.drop = nn.Dropout(dropout)
        self.fc = nn.Linear(c2 * 2 * 2, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = self.drop(x.flatten(1))
        return self.fc(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["data"]["seed"])

    digits = load_digits()
    X = (digits.images / 16.0).astype(np.float32)[:, None]
    y = digits.target.astype(np.int64)
    Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=cfg["data"]["val_fraction"],
                                          random_state=cfg["data"]["seed"], stratify=y)
    tcfg = cfg["train"]
    train_loader = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)),
                              batch_size=tcfg["batch_size"], shuffle=True)
    val_loader = DataLoader(TensorDataset(torch.from_numpy(Xva), torch.from_numpy(yva)),
                            batch_size=256)

    model = SmallCNN(cfg["model"]["channels"], cfg["model"]["dropout"])
    optimizer = torch.optim.SGD(model.parameters(), lr=tcfg["lr"], momentum=tcfg["momentum"],
                                weight_decay=tcfg["weight_decay"])
    sch = tcfg["scheduler"]
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=sch["step_size"], gamma=sch["gamma"])

    for epoch in range(1, tcfg["epochs"] + 1):
        model.train()
        total, n = 0.0, 0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            total += loss.item() * len(yb)
            n += len(yb)

        model.eval()
        correct, vloss, m = 0, 0.0, 0
        with torch.no_grad():
            for xb, yb in val_loader:
                out = model(xb)
                vloss += F.cross_entropy(out, yb, reduction="sum").item()
                correct += (out.argmax(1) == yb).sum().item()
                m += len(yb)
        lr = optimizer.param_groups[0]["lr"]
        print(f"epoch {epoch:3d} | train_loss {total / n:.4f} | val_loss {vloss / m:.4f} "
              f"| val_acc {correct / m:.4f} | lr {lr:.2e}", flush=True)


if __name__ == "__main__":
    main()
