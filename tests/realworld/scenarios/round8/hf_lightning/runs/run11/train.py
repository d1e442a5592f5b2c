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
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

hparams = {
    "seed": 4,
    "hidden_sizes": [128, 128, 128],
    "num_classes": 4,
    "optimizer": "sgd",
    "lr": 0.5,
    "momentum": 0.9,
    "batch_size": 64,
    "max_epochs": 40,
    "log_every_n_steps": 20,
}


class MLP(nn.Module):
    def __init__(self, d_in, hidden_sizes, n_classes):
        super().__init__()
        layers, d = [], d_in
        for h in hidden_sizes:
            layers += [nn.Linear(d, h), nn.ReLU()]
            d = h
        layers.append(nn.Linear(d, n_classes))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def grad_norms(model):
    norms = {f"grad_2.0_norm/{n}": p.grad.detach().norm(2).item() for n, p in model.named_parameters()
             if p.grad is not None and n.endswith("weight")}
    total = torch.norm(torch.stack([p.grad.detach().norm(2) for p in model.parameters() if p.grad is not None]), 2)
    norms["grad_2.0_norm_total"] = total.item()
    return norms


def main():
    seed_everything(hparams["seed"])
    X, y = make_classification(n_samples=3750, n_features=20, n_informative=12, n_classes=4,
                               n_clusters_per_class=2, random_state=1)
    X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.2, random_state=0)
    sc = StandardScaler().fit(X_tr)
    X_tr, X_va = sc.transform(X_tr).astype(np.float32), sc.transform(X_va).astype(np.float32)
    train_dl = DataLoader(TensorDataset(torch.tensor(X_tr), torch.tensor(y_tr)), batch_size=hparams["batch_size"], shuffle=True)
    val_dl = DataLoader(TensorDataset(torch.tensor(X_va), torch.tensor(y_va)), batch_size=500)

    model = MLP(X.shape[1], hparams["hidden_sizes"], hparams["num_classes"])
    opt = torch.optim.SGD(model.parameters(), lr=hparams["lr"], momentum=hparams["momentum"])

    acts = {}
    for name, mod in model.named_modules():
        if isinstance(mod, nn.ReLU):
            mod.register_forward_hook(lambda m, i, o, name=name: acts.__setitem__(name, o.detach()))

    logger = CSVLogger(".")
    logger.log_hyperparams(hparams)
    step = 0
    for epoch in range(hparams["max_epochs"]):
        model.train()
        ep_loss, ep_correct, ep_n = 0.0, 0, 0
        for xb, yb in train_dl:
            out = model(xb)
            loss = nn.functional.cross_entropy(out, yb)
            opt.zero_grad()
            loss.backward()
            if (step + 1) % hparams["log_every_n_steps"] == 0:
                m = {"train_loss_step": loss.item(), "epoch": epoch}
                m.update(grad_norms(model))
                m.update({f"act_zero_frac/{k}": (v <= 0).float().mean().item() for k, v in acts.items()})
                logger.log_metrics(m, step=step)
            opt.step()
            ep_loss += loss.item() * len(yb); ep_correct += (out.argmax(-1) == yb).sum().item(); ep_n += len(yb)
            step += 1

        model.eval()
        with torch.no_grad():
            vl, vc, vn = 0.0, 0, 0
            for xb, yb in val_dl:
                out = model(xb)
                vl += nn.functional.cross_entropy(out, yb, reduction="sum").item()
                vc += (out.argmax(-1) == yb).sum().item(); vn += len(yb)
        logger.log_metrics({"val_loss": vl / vn, "val_acc": vc / vn, "epoch": epoch}, step=step - 1)
        logger.log_metrics({"train_loss_epoch": ep_loss / ep_n, "train_acc_epoch": ep_correct / ep_n, "epoch": epoch}, step=step - 1)
    logger.save()


if __name__ == "__main__":
    main()
