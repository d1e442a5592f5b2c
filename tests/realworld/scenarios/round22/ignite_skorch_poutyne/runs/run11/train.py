import os

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from ignite.engine import Events, create_supervised_trainer, create_supervised_evaluator
from ignite.metrics import Accuracy, Loss

torch.manual_seed(5)

CLASSES = sorted(f[:-4] for f in os.listdir("data/train"))


def load_split(split):
    xs, ys = [], []
    for label, name in enumerate(CLASSES):
        arr = np.load(os.path.join("data", split, name + ".npy"))
        xs.append(arr)
        ys.append(np.full(len(arr), label))
    return torch.tensor(np.concatenate(xs)), torch.tensor(np.concatenate(ys))


x_train, y_train = load_split("train")
x_val, y_val = load_split("val")
print(f"classes: {CLASSES}  train: {len(y_train)}  val: {len(y_val)}")

train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=50)
val_loader = DataLoader(TensorDataset(x_val, y_val), batch_size=200)

model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(32 * 3 * 3, 64), nn.ReLU(),
    nn.Linear(64, len(CLASSES)),
)
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

trainer = create_supervised_trainer(model, optimizer, criterion)
evaluator = create_supervised_evaluator(model, metrics={"accuracy": Accuracy(), "nll": Loss(criterion)})

log_interval = 4


@trainer.on(Events.ITERATION_COMPLETED(every=log_interval))
def log_training_loss(engine):
    i = (engine.state.iteration - 1) % len(train_loader) + 1
    print(f"Epoch[{engine.state.epoch}] Iteration[{i}/{len(train_loader)}] Loss: {engine.state.output:.2f}")


@trainer.on(Events.EPOCH_COMPLETED)
def log_validation_results(engine):
    evaluator.run(val_loader)
    metrics = evaluator.state.metrics
    print(f"Validation Results - Epoch: {engine.state.epoch}  "
          f"Avg accuracy: {metrics['accuracy']:.2f} Avg loss: {metrics['nll']:.2f}")


trainer.run(train_loader, max_epochs=8)
