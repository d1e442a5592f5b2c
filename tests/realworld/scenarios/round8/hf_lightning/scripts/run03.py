import csv, math, os, random, time
import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)


class CSVLogger:
    """Writes lightning_logs/version_N/{metrics.csv,hparams.yaml} in the same layout as Lightning's CSVLogger."""

    def __init__(self, save_dir=".", name="lightning_logs", version=0):
        self.log_dir = os.path.join(save_dir, name, f"version_{version}")
        os.makedirs(self.log_dir, exist_ok=True)
        self.rows = []

    def log_hyperparams(self, params):
        with open(os.path.join(self.log_dir, "hparams.yaml"), "w") as f:
            yaml.safe_dump(params, f, sort_keys=False)

    def log_metrics(self, metrics, step):
        row = {k: (float(v) if isinstance(v, (float, np.floating)) or torch.is_tensor(v) else v) for k, v in metrics.items()}
        row["step"] = step
        self.rows.append(row)

    def save(self):
        keys = sorted(set().union(*self.rows))
        with open(os.path.join(self.log_dir, "metrics.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(self.rows)


def seed_everything(seed):
    random.seed(seed); np.random.seed(seed); torch.manual_seed(seed)



hparams = {"seed": 5, "img_size": 16, "num_classes": 3, "channels": [16, 32], "lr": 0.05, "momentum": 0.9,
           "batch_size": 4, "max_epochs": 10, "log_every_n_steps": 10, "noise_std": 0.25}


def make_shapes(n, rng, S=16):
    X = np.zeros((n, 1, S, S), np.float32); y = rng.randint(0, 3, n)
    yy, xx = np.mgrid[:S, :S]
    for i in range(n):
        cx, cy = rng.uniform(5, S - 5, 2); r = rng.uniform(2.5, 4.5)
        if y[i] == 0:
            img = ((xx - cx) ** 2 + (yy - cy) ** 2 <= r ** 2)
        elif y[i] == 1:
            img = (np.abs(xx - cx) <= r * 0.8) & (np.abs(yy - cy) <= r * 0.8)
        else:
            img = ((np.abs(xx - cx) <= 0.8) & (np.abs(yy - cy) <= r)) | ((np.abs(yy - cy) <= 0.8) & (np.abs(xx - cx) <= r))
        X[i, 0] = img * rng.uniform(0.6, 1.0) + rng.normal(0, hparams["noise_std"], (S, S))
    return X, y


class ShapeNet(nn.Module):
    def __init__(self, ch, n_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, ch[0], 3, padding=1), nn.BatchNorm2d(ch[0]), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(ch[0], ch[1], 3, padding=1), nn.BatchNorm2d(ch[1]), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(ch[1] * 16, 64), nn.BatchNorm1d(64), nn.ReLU(),
                                        nn.Linear(64, n_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


def main():
    seed_everything(hparams["seed"])
    rng = np.random.RandomState(0)
    X, y = make_shapes(2000, rng)
    train_dl = DataLoader(TensorDataset(torch.tensor(X[:1500]), torch.tensor(y[:1500])), batch_size=hparams["batch_size"], shuffle=True)
    val_dl = DataLoader(TensorDataset(torch.tensor(X[1500:]), torch.tensor(y[1500:])), batch_size=250)
    model = ShapeNet(hparams["channels"], hparams["num_classes"])
    opt = torch.optim.SGD(model.parameters(), lr=hparams["lr"], momentum=hparams["momentum"])
    logger = CSVLogger(".")
    logger.log_hyperparams(hparams)
    step = 0
    for epoch in range(hparams["max_epochs"]):
        model.train(); tl, tc, tn = 0.0, 0, 0
        for xb, yb in train_dl:
            out = model(xb); loss = nn.functional.cross_entropy(out, yb)
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(yb); tc += (out.argmax(-1) == yb).sum().item(); tn += len(yb)
            if (step + 1) % hparams["log_every_n_steps"] == 0:
                logger.log_metrics({"train_loss_step": loss.item(), "epoch": epoch}, step=step)
            step += 1
        model.eval(); vl, vc, vn = 0.0, 0, 0
        with torch.no_grad():
            for xb, yb in val_dl:
                out = model(xb)
                vl += nn.functional.cross_entropy(out, yb, reduction="sum").item(); vc += (out.argmax(-1) == yb).sum().item(); vn += len(yb)
        logger.log_metrics({"val_loss": vl / vn, "val_acc": vc / vn, "epoch": epoch}, step=step - 1)
        logger.log_metrics({"train_loss_epoch": tl / tn, "train_acc_epoch": tc / tn, "epoch": epoch}, step=step - 1)
    logger.save()


if __name__ == "__main__":
    main()
