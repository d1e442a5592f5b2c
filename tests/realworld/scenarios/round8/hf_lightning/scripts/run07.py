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

from sklearn.datasets import make_classification

hparams = {"seed": 42, "n_train": 300, "n_features": 40, "hidden": 256, "depth": 2, "lr": 0.0002,
           "batch_size": 32, "max_epochs": 200, "log_every_n_steps": 50}


def main():
    seed_everything(hparams["seed"])
    X, y = make_classification(n_samples=1800, n_features=40, n_informative=8, n_redundant=10, flip_y=0.05,
                               class_sep=0.8, random_state=8)
    X = ((X - X.mean(0)) / X.std(0)).astype(np.float32)
    n = hparams["n_train"]
    train_dl = DataLoader(TensorDataset(torch.tensor(X[:n]), torch.tensor(y[:n])), batch_size=hparams["batch_size"], shuffle=True)
    val_dl = DataLoader(TensorDataset(torch.tensor(X[n:]), torch.tensor(y[n:])), batch_size=1500)
    layers, d = [], 40
    for _ in range(hparams["depth"]):
        layers += [nn.Linear(d, hparams["hidden"]), nn.ReLU()]; d = hparams["hidden"]
    model = nn.Sequential(*layers, nn.Linear(d, 2))
    opt = torch.optim.Adam(model.parameters(), lr=hparams["lr"])
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
        model.eval()
        with torch.no_grad():
            xb, yb = next(iter(val_dl)); out = model(xb)
            vl = nn.functional.cross_entropy(out, yb).item(); va = (out.argmax(-1) == yb).float().mean().item()
        logger.log_metrics({"val_loss": vl, "val_acc": va, "epoch": epoch}, step=step - 1)
        logger.log_metrics({"train_loss_epoch": tl / tn, "train_acc_epoch": tc / tn, "epoch": epoch}, step=step - 1)
    logger.save()


if __name__ == "__main__":
    main()
