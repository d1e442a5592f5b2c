import argparse
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/digits.npz")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--step-size", type=int, default=20, help="StepLR step size (epochs)")
    p.add_argument("--gamma", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        return self.fc(self.conv(x))


def main():
    args = get_args()
    print(args)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    d = np.load(args.data)
    Xtr = torch.tensor(d["X_train"] / 16.0, dtype=torch.float32).view(-1, 1, 8, 8)
    Xva = torch.tensor(d["X_val"] / 16.0, dtype=torch.float32).view(-1, 1, 8, 8)
    ytr, yva = torch.tensor(d["y_train"]), torch.tensor(d["y_val"])
    print(f"train: {len(Xtr)}  val: {len(Xva)}")

    train_loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(TensorDataset(Xva, yva), batch_size=256)

    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.step_size, gamma=args.gamma)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(1, args.epochs + 1):
        model.train()
        t0 = time.time()
        running, seen = 0.0, 0
        pbar = tqdm(train_loader, desc=f"Epoch {epoch}/{args.epochs}")
        for x, y in pbar:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            running += loss.item() * len(x)
            seen += len(x)
            pbar.set_postfix(loss=running / seen, lr=optimizer.param_groups[0]["lr"], refresh=False)

        model.eval()
        correct, vloss = 0, 0.0
        with torch.no_grad():
            for x, y in val_loader:
                out = model(x)
                vloss += criterion(out, y).item() * len(x)
                correct += (out.argmax(1) == y).sum().item()
        print(f"epoch {epoch:02d} | train_loss {running / seen:.4f} | val_loss {vloss / len(Xva):.4f} "
              f"| val_acc {correct / len(Xva):.4f} | {time.time() - t0:.1f}s")

    torch.save(model.state_dict(), "digits_cnn.pt")


if __name__ == "__main__":
    main()
