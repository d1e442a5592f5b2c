import csv
import math

import torch
from torch import nn

CLASSES = ("horizontal", "vertical", "diagonal", "checker")


def make_textures(n, size=16, noise=1.8, seed=0):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, len(CLASSES), (n,), generator=g)
    freq = 0.6 + 0.8 * torch.rand(n, 1, 1, generator=g)
    phase = 2 * math.pi * torch.rand(n, 1, 1, generator=g)
    r = torch.arange(size).float().view(1, size, 1)
    c = torch.arange(size).float().view(1, 1, size)
    waves = torch.stack([
        torch.sin(freq * r + phase).expand(n, size, size),
        torch.sin(freq * c + phase).expand(n, size, size),
        torch.sin(freq * (r + c) / 1.4 + phase),
        torch.sin(freq * r + phase) * torch.sin(freq * c + phase),
    ], dim=1)
    X = waves[torch.arange(n), y] + noise * torch.randn(n, size, size, generator=g)
    return X.unsqueeze(1), y


def make_model(width=12):
    return nn.Sequential(
        nn.Conv2d(1, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(width, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(width * 16, len(CLASSES)),
    )


class Trainer:
    def __init__(self, model, lr=3e-3, epochs=12, batch_size=64, seed=0):
        self.model = model
        self.epochs = epochs
        self.batch_size = batch_size
        self.seed = seed
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=epochs)
        self.loss_fn = nn.CrossEntropyLoss()
        self.start_epoch = 1
        self.rows = []

    def save(self, path, epoch):
        torch.save({"model": self.model.state_dict(), "epoch": epoch}, path)

    def resume(self, path):
        ckpt = torch.load(path)
        self.model.load_state_dict(ckpt["model"])
        self.start_epoch = ckpt["epoch"] + 1
        print(f"resumed from {path.name} at epoch {self.start_epoch}")

    def fit(self, X, y, stop_after=None, ckpt_path=None, log_path=None):
        steps_per_epoch = math.ceil(len(X) / self.batch_size)
        for epoch in range(self.start_epoch, self.epochs + 1):
            order = torch.randperm(len(X), generator=torch.Generator().manual_seed(self.seed + epoch))
            for i in range(steps_per_epoch):
                idx = order[i * self.batch_size:(i + 1) * self.batch_size]
                self.opt.zero_grad()
                loss = self.loss_fn(self.model(X[idx]), y[idx])
                loss.backward()
                self.opt.step()
                self.rows.append({"step": (epoch - 1) * steps_per_epoch + i + 1, "epoch": epoch,
                                  "loss": round(loss.item(), 5), "lr": round(self.opt.param_groups[0]["lr"], 7)})
            self.sched.step()
            if ckpt_path is not None:
                self.save(ckpt_path, epoch)
            if stop_after is not None and epoch == stop_after:
                break
        if log_path is not None:
            with open(log_path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=["step", "epoch", "loss", "lr"])
                w.writeheader()
                w.writerows(self.rows)
        return self.rows

    def epoch_loss(self, epoch):
        losses = [r["loss"] for r in self.rows if r["epoch"] == epoch]
        return sum(losses) / len(losses)
