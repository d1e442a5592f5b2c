import os
import time

import numpy as np
import torch
import torch.nn as nn
import wandb

DATA_ROOT = "data/har_windows"
CLASSES = ["walking", "jogging", "upstairs", "downstairs", "sitting", "standing"]
EPOCHS = 8
BATCH = 64
LR = 2e-3


def load_split(split):
    xs, ys = [], []
    for label, name in enumerate(CLASSES):
        arr = np.load(os.path.join(DATA_ROOT, split, f"{name}.npy"))
        xs.append(arr)
        ys.append(np.full(len(arr), label, dtype=np.int64))
    return torch.from_numpy(np.concatenate(xs)), torch.from_numpy(np.concatenate(ys))


class Net(nn.Module):
    def __init__(self, d_in=40, n_cls=len(CLASSES)):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU())
        self.head = nn.Linear(128, n_cls)

    def forward(self, x):
        return self.head(self.body(x))


def main():
    torch.manual_seed(0)
    X_train, y_train = load_split("train")
    X_val, y_val = load_split("val")
    mu, sd = X_train.mean(0), X_train.std(0)
    X_train, X_val = (X_train - mu) / sd, (X_val - mu) / sd
    print(f"train windows: {len(X_train)}  val windows: {len(X_val)}")

    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    wandb.init(project="har-imu", config={"epochs": EPOCHS, "batch_size": BATCH, "lr": LR, "optimizer": "adam",
                                          "classes": CLASSES, "hidden": 128})

    step = 0
    for epoch in range(EPOCHS):
        t0 = time.time()
        model.train()
        for i in range(0, len(X_train), BATCH):
            xb, yb = X_train[i:i + BATCH], y_train[i:i + BATCH]
            loss = loss_fn(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            wandb.log({"train/loss": loss.item()}, step=step)
            if step % 25 == 0:
                print(f"[ep {epoch} it {step:5d}] loss={loss.item():.4f}")
            step += 1
        model.eval()
        with torch.no_grad():
            pred = model(X_val).argmax(1)
            acc = (pred == y_val).float().mean().item()
            per_cls = [(pred[y_val == k] == k).float().mean().item() for k in range(len(CLASSES))]
        wandb.log({"val/acc": acc, "epoch": epoch}, step=step)
        print(f"epoch {epoch} done in {time.time() - t0:.1f}s  val_acc={acc:.4f}  per-class="
              + " ".join(f"{c}:{a:.2f}" for c, a in zip(CLASSES, per_cls)))
    torch.save(model.state_dict(), "har_mlp.pt")
    wandb.finish()


if __name__ == "__main__":
    main()
