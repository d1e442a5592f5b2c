import argparse
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from loguru import logger

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--momentum", type=float, default=0.9)
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--seed", type=int, default=7)
args = parser.parse_args()

logger.remove()
logger.add(sys.stderr, colorize=True, level="DEBUG")


def make_glyphs(n, rng, templates):
    y = rng.integers(0, len(templates), size=n)
    X = np.zeros((n, 1, 12, 12), dtype=np.float32)
    for i, c in enumerate(y):
        dx, dy = rng.integers(0, 5, size=2)
        X[i, 0, dy:dy + 8, dx:dx + 8] = templates[c]
    X += rng.normal(0, 0.35, size=X.shape).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(y).long()


class SmallCNN(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 3 * 3, 64)
        self.fc2 = nn.Linear(64, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


def evaluate(model, X, y):
    model.eval()
    with torch.no_grad():
        out = model(X)
        loss = F.cross_entropy(out, y).item()
        acc = (out.argmax(1) == y).float().mean().item()
    model.train()
    return loss, acc


def main():
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    templates = (rng.random((10, 8, 8)) > 0.55).astype(np.float32)
    Xtr, ytr = make_glyphs(4000, rng, templates)
    Xva, yva = make_glyphs(800, rng, templates)
    logger.info("train={} val={} input={}", len(Xtr), len(Xva), tuple(Xtr.shape[1:]))

    model = SmallCNN()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    logger.info("model params: {}", sum(p.numel() for p in model.parameters()))
    logger.info("optimizer: SGD lr={} momentum={}", args.lr, args.momentum)

    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr),
                                         batch_size=args.batch_size, shuffle=True)
    step = 0
    for epoch in range(1, args.epochs + 1):
        t0 = time.time()
        tot, correct, n, gn_sum = 0.0, 0, 0, 0.0
        for xb, yb in loader:
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            loss.backward()
            gn = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
            opt.step()
            step += 1
            tot += loss.item() * len(xb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(xb)
            gn_sum += gn
            if step % 25 == 0:
                logger.debug("step {} | loss {:.4f} | grad_norm {:.3f}", step, loss.item(), gn)
        vl, va = evaluate(model, Xva, yva)
        logger.info("epoch {} | loss {:.4f} | acc {:.3f} | val_loss {:.4f} | val_acc {:.3f} | grad_norm {:.2f} | {:.1f}s",
                    epoch, tot / n, correct / n, vl, va, gn_sum / len(loader), time.time() - t0)
    logger.success("done, last val_acc {:.3f}", va)


if __name__ == "__main__":
    main()
