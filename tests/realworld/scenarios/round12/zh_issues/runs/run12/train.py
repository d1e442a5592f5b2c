import argparse
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)


class MLP(nn.Module):
    def __init__(self, in_dim=20, num_classes=8):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_dim, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(256, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(256, num_classes),
        )

    def forward(self, x):
        return self.net(x)


def get_loader(split, batch_size, shuffle=False):
    d = np.load(f"data/{split}.npz")
    ds = TensorDataset(torch.from_numpy(d["x"]), torch.from_numpy(d["y"]))
    return DataLoader(ds, batch_size=batch_size, shuffle=shuffle)


def validate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += len(y)
    return correct / total


def train(args):
    torch.manual_seed(args.seed)
    train_loader = get_loader("train", 128, shuffle=True)
    val_loader = get_loader("val", 256)
    model = MLP()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
    criterion = nn.CrossEntropyLoss()
    best = 0.0
    for epoch in range(1, args.epochs + 1):
        model.train()
        total_loss = 0.0
        for x, y in train_loader:
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
        acc = validate(model, val_loader)
        if acc > best:
            best = acc
            torch.save(model.state_dict(), "checkpoints/best.pt")
        print(f"Epoch {epoch:02d}  loss: {total_loss / len(train_loader):.4f}  val_acc: {acc:.4f}  best: {best:.4f}")


def test(args):
    torch.manual_seed(args.seed)
    model = MLP()
    model.load_state_dict(torch.load("checkpoints/best.pt"))
    test_loader = get_loader("test", 50)
    correct = total = 0
    with torch.no_grad():
        for x, y in test_loader:
            pred = model(x).argmax(1)
            correct += (pred == y).sum().item()
            total += len(y)
    print(f"test samples: {total}  test_acc: {correct / total:.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["train", "test"], default="train")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    if args.seed is None:
        args.seed = np.random.randint(0, 10000)
    if args.mode == "train":
        train(args)
    else:
        test(args)
