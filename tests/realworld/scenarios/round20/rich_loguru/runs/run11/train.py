import logging

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from rich.logging import RichHandler

torch.set_num_threads(1)
logging.basicConfig(level="INFO", format="%(message)s", datefmt="[%X]",
                    handlers=[RichHandler(show_path=True, markup=False)])
log = logging.getLogger("train")

NUM_CLASSES = 10
DIM = 32
EPOCHS = 30
LR = 3e-3
HIDDEN = 256


def get_data(seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(0, 1.0, (NUM_CLASSES, DIM))

    def draw(n):
        y = rng.integers(0, NUM_CLASSES, n)
        x = centers[y] + rng.normal(0, 1.0, (n, DIM))
        return torch.tensor(x, dtype=torch.float32), torch.tensor(y)

    return draw(5000), draw(1000)


def cross_entropy(logits, target):
    probs = torch.softmax(logits, dim=1)
    one_hot = F.one_hot(target, NUM_CLASSES).float()
    return -(one_hot * torch.log(probs)).sum(dim=1).mean()


def main():
    torch.manual_seed(0)
    (Xtr, ytr), (Xva, yva) = get_data()
    model = nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                          nn.Linear(HIDDEN, NUM_CLASSES))
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr), batch_size=128, shuffle=True)
    log.info("train=%d val=%d classes=%d hidden=%d lr=%g", len(Xtr), len(Xva), NUM_CLASSES, HIDDEN, LR)

    for epoch in range(1, EPOCHS + 1):
        model.train()
        total, correct, seen = 0.0, 0, 0
        for xb, yb in loader:
            logits = model(xb)
            loss = cross_entropy(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(yb)
            correct += (logits.argmax(1) == yb).sum().item()
            seen += len(yb)
        model.eval()
        with torch.no_grad():
            logits = model(Xva)
            val_loss = cross_entropy(logits, yva).item()
            val_acc = (logits.argmax(1) == yva).float().mean().item()
        log.info("epoch %02d  loss=%.6f  acc=%.4f  val_loss=%.6f  val_acc=%.4f",
                 epoch, total / seen, correct / seen, val_loss, val_acc)

    torch.save(model.state_dict(), "model_final.pt")
    log.info("saved model_final.pt")


if __name__ == "__main__":
    main()
