import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from dvclive import Live

SEED = 5
N_TRAIN, N_VAL, LENGTH = 1500, 300, 64
BATCH_SIZE = 32
EPOCHS = 40
LR = 1e-3


def make_snippets(n, length, rng):
    y = rng.randint(0, 3, n)
    t = np.arange(length)
    freq = np.array([0.07, 0.115, 0.16])[y] + rng.normal(0, 0.012, n)
    phase = rng.uniform(0, 2 * np.pi, n)
    amp = rng.uniform(0.4, 0.8, n)
    x = amp[:, None] * np.sin(2 * np.pi * freq[:, None] * t[None] + phase[:, None])
    x = x + rng.normal(0, 1.0, (n, length))
    return torch.tensor(x[:, None], dtype=torch.float32), torch.tensor(y)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(1, 16, 7, padding=3)
        self.c2 = nn.Conv1d(16, 32, 5, padding=2)
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(32, 3)

    def forward(self, x):
        x = F.max_pool1d(F.relu(self.c1(x)), 2)
        x = F.relu(self.c2(x))
        x = x.mean(-1)
        return self.fc(self.drop(x))


def main():
    rng = np.random.RandomState(SEED)
    torch.manual_seed(SEED)
    Xtr, ytr = make_snippets(N_TRAIN, LENGTH, rng)
    Xva, yva = make_snippets(N_VAL, LENGTH, rng)
    model = ConvNet()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS)

    live = Live()
    live.log_params({"seed": SEED, "n_train": N_TRAIN, "length": LENGTH, "batch_size": BATCH_SIZE,
                     "epochs": EPOCHS, "lr": LR, "scheduler": "cosine", "dropout": 0.3})
    for epoch in range(EPOCHS):
        model.train()
        perm = torch.randperm(N_TRAIN)
        tot, correct = 0.0, 0
        for i in range(0, N_TRAIN, BATCH_SIZE):
            idx = perm[i:i + BATCH_SIZE]
            out = model(Xtr[idx])
            loss = F.cross_entropy(out, ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
            correct += (out.argmax(1) == ytr[idx]).sum().item()
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = F.cross_entropy(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        live.log_metric("train/loss", tot / N_TRAIN)
        live.log_metric("train/accuracy", correct / N_TRAIN)
        live.log_metric("val/loss", val_loss)
        live.log_metric("val/accuracy", val_acc)
        live.log_metric("lr", sched.get_last_lr()[0])
        sched.step()
        live.next_step()
        print(f"{epoch:02d} train_loss={tot / N_TRAIN:.4f} val_loss={val_loss:.4f} val_acc={val_acc:.3f}")
    live.end()


if __name__ == "__main__":
    main()
