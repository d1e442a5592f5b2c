import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from composer import Trainer
from composer.callbacks import LRMonitor
from composer.models import ComposerClassifier

torch.set_num_threads(1)

EPOCHS = 30
BATCH_SIZE = 100


def get_loaders():
    d = np.load("data/churn_segments.npz")
    tr = TensorDataset(torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"]))
    va = TensorDataset(torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"]))
    return DataLoader(tr, batch_size=BATCH_SIZE, shuffle=True), DataLoader(va, batch_size=500)


def build_model(n_features=40, n_classes=10):
    return nn.Sequential(
        nn.Linear(n_features, 256), nn.ReLU(), nn.Dropout(0.1),
        nn.Linear(256, 256), nn.ReLU(), nn.Dropout(0.1),
        nn.Linear(256, n_classes),
    )


def main():
    torch.manual_seed(3)
    train_dl, eval_dl = get_loaders()
    model = ComposerClassifier(build_model(), num_classes=10)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)

    trainer = Trainer(
        model=model,
        train_dataloader=train_dl,
        eval_dataloader=eval_dl,
        max_duration=f"{EPOCHS}ep",
        optimizers=optimizer,
        schedulers=scheduler,
        step_schedulers_every_batch=True,
        callbacks=[LRMonitor()],
        console_log_interval="20ba",
        eval_interval="1ep",
        seed=3,
        run_name="segments-mlp-sgd",
    )
    trainer.fit()


if __name__ == "__main__":
    main()
