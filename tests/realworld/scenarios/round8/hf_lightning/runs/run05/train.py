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
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

hparams = {
    "seed": 3,
    "num_classes": 5,
    "hidden_dim": 64,
    "lr": 0.01,
    "momentum": 0.9,
    "weight_decay": 0.0001,
    "batch_size": 64,
    "max_epochs": 30,
    "class_weighting": "balanced",
    "log_every_n_steps": 25,
}


class TicketClassifier(nn.Module):
    def __init__(self, d_in, hidden, n_classes):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.net(x)


def main():
    seed_everything(hparams["seed"])
    X, y = make_classification(n_samples=4000, n_features=30, n_informative=10, n_classes=5,
                               weights=[0.82, 0.045, 0.045, 0.045, 0.045], class_sep=1.2, random_state=3)
    X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)
    scaler = StandardScaler().fit(X_tr)
    X_tr, X_va = scaler.transform(X_tr).astype(np.float32), scaler.transform(X_va).astype(np.float32)
    train_dl = DataLoader(TensorDataset(torch.tensor(X_tr), torch.tensor(y_tr)), batch_size=hparams["batch_size"], shuffle=True)
    val_dl = DataLoader(TensorDataset(torch.tensor(X_va), torch.tensor(y_va)), batch_size=256)

    counts = torch.bincount(torch.tensor(y_tr), minlength=hparams["num_classes"]).float()
    class_weights = counts / counts.sum()
    criterion = nn.CrossEntropyLoss(weight=class_weights)

    model = TicketClassifier(X.shape[1], hparams["hidden_dim"], hparams["num_classes"])
    opt = torch.optim.SGD(model.parameters(), lr=hparams["lr"], momentum=hparams["momentum"],
                          weight_decay=hparams["weight_decay"])

    logger = CSVLogger(".")
    logger.log_hyperparams(hparams)
    global_step = 0
    for epoch in range(hparams["max_epochs"]):
        model.train()
        losses = []
        for xb, yb in train_dl:
            loss = criterion(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if (global_step + 1) % hparams["log_every_n_steps"] == 0:
                logger.log_metrics({"train_loss_step": loss.item(), "epoch": epoch}, step=global_step)
            global_step += 1

        model.eval()
        preds, targets, vloss, n = [], [], 0.0, 0
        with torch.no_grad():
            for xb, yb in val_dl:
                out = model(xb)
                vloss += criterion(out, yb).item() * len(yb); n += len(yb)
                preds.append(out.argmax(-1)); targets.append(yb)
        preds, targets = torch.cat(preds), torch.cat(targets)
        logger.log_metrics({"val_loss": vloss / n, "val_acc": (preds == targets).float().mean().item(),
                            "val_f1": f1_score(targets.numpy(), preds.numpy(), average="macro", zero_division=0),
                            "epoch": epoch}, step=global_step - 1)
        logger.log_metrics({"train_loss_epoch": float(np.mean(losses)), "epoch": epoch}, step=global_step - 1)
    logger.save()


if __name__ == "__main__":
    main()
