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



hparams = {"seed": 9, "seq_len": 40, "vocab": 12, "embed_dim": 16, "hidden_dim": 48, "num_classes": 2,
           "lr": 0.0001, "batch_size": 16, "max_epochs": 25, "gradient_clip_val": 1.0, "log_every_n_steps": 20}


def make_sequences(n, rng, T, V):
    # label: does marker token 1 occur more often than marker token 2
    X = rng.randint(3, V, (n, T)); y = np.zeros(n, np.int64)
    for i in range(n):
        c1, c2 = rng.choice(np.arange(1, 7), 2, replace=False)
        pos = rng.choice(T, c1 + c2, replace=False)
        X[i, pos[:c1]], X[i, pos[c1:]] = 1, 2
        y[i] = int(c1 > c2)
    return X, y


class SeqClassifier(nn.Module):
    def __init__(self, V, E, H, C):
        super().__init__()
        self.emb = nn.Embedding(V, E)
        self.gru = nn.GRU(E, H, batch_first=True)
        self.out = nn.Linear(H, C)

    def forward(self, x):
        _, h = self.gru(self.emb(x))
        return self.out(h[-1])


def main():
    seed_everything(hparams["seed"])
    rng = np.random.RandomState(1)
    X, y = make_sequences(2600, rng, hparams["seq_len"], hparams["vocab"])
    train_dl = DataLoader(TensorDataset(torch.tensor(X[:2000]), torch.tensor(y[:2000])), batch_size=hparams["batch_size"], shuffle=True)
    val_dl = DataLoader(TensorDataset(torch.tensor(X[2000:]), torch.tensor(y[2000:])), batch_size=200)
    model = SeqClassifier(hparams["vocab"], hparams["embed_dim"], hparams["hidden_dim"], hparams["num_classes"])
    opt = torch.optim.Adam(model.parameters(), lr=hparams["lr"])
    logger = CSVLogger(".")
    logger.log_hyperparams(hparams)
    step = 0
    for epoch in range(hparams["max_epochs"]):
        model.train(); tl, tc, tn = 0.0, 0, 0
        for xb, yb in train_dl:
            out = model(xb); loss = nn.functional.cross_entropy(out, yb)
            opt.zero_grad(); loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), hparams["gradient_clip_val"])
            opt.step()
            tl += loss.item() * len(yb); tc += (out.argmax(-1) == yb).sum().item(); tn += len(yb)
            if (step + 1) % hparams["log_every_n_steps"] == 0:
                logger.log_metrics({"lr-Adam": opt.param_groups[0]["lr"]}, step=step)
                logger.log_metrics({"train_loss_step": loss.item(), "train_acc_step": (out.argmax(-1) == yb).float().mean().item(),
                                    "epoch": epoch}, step=step)
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
