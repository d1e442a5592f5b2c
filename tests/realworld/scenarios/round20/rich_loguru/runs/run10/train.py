import numpy as np
import torch
import torch.nn as nn
from loguru import logger

torch.set_num_threads(1)

CLASSES = ["circle", "square", "triangle", "star"]
PER_CLASS = 500
EPOCHS = 10
BATCH = 50
LOG_EVERY = 4


def load_split(rng, n_per_class):
    protos = np.random.default_rng(99).normal(0, 1.0, (len(CLASSES), 16))
    xs, ys = [], []
    for c, name in enumerate(CLASSES):
        xs.append(protos[c] + rng.normal(0, 1.6, (n_per_class, 16)))
        ys.append(np.full(n_per_class, c))
    X = np.concatenate(xs).astype(np.float32)
    y = np.concatenate(ys)
    return torch.from_numpy(X), torch.from_numpy(y)


def main():
    torch.manual_seed(17)
    rng = np.random.default_rng(17)
    Xtr, ytr = load_split(rng, PER_CLASS)
    Xva, yva = load_split(rng, 150)
    logger.info("train {} samples, val {} samples, classes {}", len(Xtr), len(Xva), CLASSES)

    train_ds = torch.utils.data.TensorDataset(Xtr, ytr)
    train_dl = torch.utils.data.DataLoader(train_ds, batch_size=BATCH)

    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, len(CLASSES)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(1, EPOCHS + 1):
        model.train()
        for xb, yb in train_dl:
            opt.zero_grad()
            out = model(xb)
            loss = loss_fn(out, yb)
            loss.backward()
            opt.step()
            step += 1
            if step % LOG_EVERY == 0:
                acc = (out.argmax(1) == yb).float().mean().item()
                logger.info("ep {:02d} step {:04d} | train/loss {:.4f} | train/acc {:.2f}", epoch, step, loss.item(), acc)
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            vloss = loss_fn(out, yva).item()
            pred = out.argmax(1)
            vacc = (pred == yva).float().mean().item()
            counts = torch.bincount(pred, minlength=len(CLASSES)).tolist()
        logger.success("ep {:02d} | val/loss {:.4f} | val/acc {:.3f} | pred_counts {}", epoch, vloss, vacc, counts)


if __name__ == "__main__":
    main()
