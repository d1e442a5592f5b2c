import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from composer import Trainer
from composer.callbacks import LRMonitor
from composer.models import ComposerClassifier
from composer.optim import DecoupledAdamW, LinearWithWarmupScheduler

torch.set_num_threads(1)

NUM_CLASSES = 5


def load_data(seed=11):
    raw = np.load("data/credit_features.npz")
    X, score = raw["features"], raw["risk_score"]
    edges = np.linspace(score.min(), score.max(), NUM_CLASSES + 1)
    labels = np.digitize(score, edges[1:])
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(X))
    X, labels = X[perm], labels[perm]
    n_val = len(X) // 6
    return (X[n_val:], labels[n_val:]), (X[:n_val], labels[:n_val])


def main():
    torch.manual_seed(11)
    (xtr, ytr), (xva, yva) = load_data()
    train_dl = DataLoader(TensorDataset(torch.from_numpy(xtr), torch.from_numpy(ytr)), batch_size=128, shuffle=True)
    eval_dl = DataLoader(TensorDataset(torch.from_numpy(xva), torch.from_numpy(yva)), batch_size=512)

    net = nn.Sequential(
        nn.Linear(xtr.shape[1], 128), nn.ReLU(),
        nn.Linear(128, 128), nn.ReLU(),
        nn.Linear(128, NUM_CLASSES),
    )
    model = ComposerClassifier(net, num_classes=NUM_CLASSES)
    optimizer = DecoupledAdamW(model.parameters(), lr=1e-3, weight_decay=1e-5)
    trainer = Trainer(
        model=model,
        train_dataloader=train_dl,
        eval_dataloader=eval_dl,
        max_duration="8ep",
        optimizers=optimizer,
        schedulers=LinearWithWarmupScheduler(t_warmup="50ba", alpha_f=0.1),
        callbacks=[LRMonitor()],
        console_log_interval="10ba",
        eval_interval="1ep",
        seed=11,
        run_name="risk-bucket-mlp",
    )
    trainer.fit()


if __name__ == "__main__":
    main()
