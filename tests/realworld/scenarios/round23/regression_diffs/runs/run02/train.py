import argparse
import logging
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

log = logging.getLogger("train")


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/sensors.npz")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.02)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--seed", type=int, default=17)
    return p.parse_args()


class MLP(nn.Module):
    def __init__(self, d_in, n_classes, hidden=128):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, n_classes),
        )

    def forward(self, x):
        return self.net(x)


def grad_norm(model):
    total = 0.0
    for p in model.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return total ** 0.5


def train_one_epoch(model, loader, optimizer, criterion, epoch, step, log_every):
    model.train()
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        gn = grad_norm(model)
        optimizer.step()
        step += 1
        if step % log_every == 0:
            log.info("epoch %d step %d loss %.4f grad_norm %.3f lr %.4g",
                     epoch, step, loss.item(), gn, optimizer.param_groups[0]["lr"])
    return step


@torch.no_grad()
def validate(model, loader, criterion):
    model.eval()
    loss_sum, correct, n = 0.0, 0, 0
    for x, y in loader:
        out = model(x)
        loss_sum += criterion(out, y).item() * len(y)
        correct += (out.argmax(1) == y).sum().item()
        n += len(y)
    model.train()
    return loss_sum / n, correct / n


def main():
    args = get_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    torch.manual_seed(args.seed)

    d = np.load(args.data)
    train_ds = TensorDataset(torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"]))
    val_ds = TensorDataset(torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"]))
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=256)
    n_classes = int(d["y_train"].max()) + 1
    log.info("train=%d val=%d classes=%d", len(train_ds), len(val_ds), n_classes)

    model = MLP(d["x_train"].shape[1], n_classes)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    log.info("args: %s", vars(args))

    step = 0
    optimizer.zero_grad(set_to_none=True)
    for epoch in range(args.epochs):
        t0 = time.time()
        step = train_one_epoch(model, train_loader, optimizer, criterion, epoch, step, args.log_every)
        val_loss, val_acc = validate(model, val_loader, criterion)
        log.info("epoch %d done in %.1fs | val_loss %.4f val_acc %.4f",
                 epoch, time.time() - t0, val_loss, val_acc)

    torch.save(model.state_dict(), "mlp.pt")
    log.info("saved mlp.pt")


if __name__ == "__main__":
    main()
