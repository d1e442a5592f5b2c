"""Waveform classifier (sine / square / sawtooth / chirp) - 1D conv net."""
import argparse
import json
import math

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=25)
parser.add_argument("--lr", type=float, default=3e-3)
parser.add_argument("--bs", type=int, default=64)
parser.add_argument("--channels", type=int, default=16)
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--history", default="history.json")
cfg = parser.parse_args()

torch.manual_seed(cfg.seed)
rng = np.random.default_rng(cfg.seed)

CLASSES = ["sine", "square", "sawtooth", "chirp"]
T = 64


def synth(n, rng):
    t = np.linspace(0, 1, T)
    X = np.empty((n, T), dtype=np.float32)
    y = rng.integers(0, 4, n)
    for i in range(n):
        f = rng.uniform(2, 6)
        ph = rng.uniform(0, 2 * math.pi)
        if y[i] == 0:
            s = np.sin(2 * math.pi * f * t + ph)
        elif y[i] == 1:
            s = np.sign(np.sin(2 * math.pi * f * t + ph))
        elif y[i] == 2:
            s = 2 * ((f * t + ph / (2 * math.pi)) % 1.0) - 1
        else:
            s = np.sin(2 * math.pi * (f * t + 4 * t ** 2) + ph)
        X[i] = s * rng.uniform(0.5, 1.5) + rng.normal(0, 0.35, T)
    return torch.from_numpy(X).unsqueeze(1), torch.from_numpy(y).long()


x_train, y_train = synth(3000, rng)
x_val, y_val = synth(800, rng)


class ConvNet(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, c, 7, padding=3), nn.BatchNorm1d(c), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(c, 2 * c, 5, padding=2), nn.BatchNorm1d(2 * c), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(2 * c, 2 * c, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
        )
        self.head = nn.Linear(2 * c, 4)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


model = ConvNet(cfg.channels)
optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)
criterion = nn.CrossEntropyLoss()

history = []
for epoch in range(cfg.epochs):
    model.train()
    order = torch.randperm(len(x_train))
    run_loss, correct = 0.0, 0
    for k in range(0, len(order), cfg.bs):
        b = order[k:k + cfg.bs]
        logits = model(x_train[b])
        loss = criterion(logits, y_train[b])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        run_loss += loss.item() * len(b)
        correct += (logits.argmax(1) == y_train[b]).sum().item()
    lr_now = scheduler.get_last_lr()[0]
    scheduler.step()

    model.eval()
    with torch.no_grad():
        logits = model(x_val)
        v_loss = criterion(logits, y_val).item()
        v_acc = (logits.argmax(1) == y_val).float().mean().item()
    row = dict(epoch=epoch + 1, loss=run_loss / len(order), acc=correct / len(order),
               val_loss=v_loss, val_acc=v_acc, lr=lr_now)
    history.append(row)
    print("[epoch {epoch:02d}] loss={loss:.4f} acc={acc:.4f} val_loss={val_loss:.4f} "
          "val_acc={val_acc:.4f} lr={lr:.2e}".format(**row))

with open(cfg.history, "w") as fh:
    json.dump(history, fh)
torch.save(model.state_dict(), "waveform_cnn.pt")
