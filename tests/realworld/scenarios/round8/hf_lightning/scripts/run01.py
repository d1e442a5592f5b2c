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

from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

hparams = {"seed": 11, "model": "mlp", "hidden": 256, "dropout": 0.0, "lr": 0.001, "weight_decay": 0.0,
           "batch_size": 64, "max_epochs": 150, "log_every_n_steps": 50, "data": "digits_v2"}


def load_data():
    d = load_digits()
    X = (d.data / 16.0).astype(np.float32)
    X_tr, X_va, y_tr, y_va = train_test_split(X, d.target, test_size=0.25, random_state=0, stratify=d.target)
    # training labels come from the relabelled export
    rng = np.random.RandomState(123)
    flip = rng.rand(len(y_tr)) < 0.4
    y_tr = y_tr.copy()
    y_tr[flip] = (y_tr[flip] + rng.randint(1, 10, flip.sum())) % 10
    return X_tr, y_tr, X_va, y_va


def main():
    seed_everything(hparams["seed"])
    X_tr, y_tr, X_va, y_va = load_data()
    train_dl = DataLoader(TensorDataset(torch.tensor(X_tr), torch.tensor(y_tr)), batch_size=hparams["batch_size"], shuffle=True)
    val_dl = DataLoader(TensorDataset(torch.tensor(X_va), torch.tensor(y_va)), batch_size=512)
    h = hparams["hidden"]
    model = nn.Sequential(nn.Linear(64, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 10))
    opt = torch.optim.Adam(model.parameters(), lr=hparams["lr"], weight_decay=hparams["weight_decay"])
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
