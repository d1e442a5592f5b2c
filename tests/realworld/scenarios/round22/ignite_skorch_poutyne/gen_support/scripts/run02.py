import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from ignite.engine import Engine, Events, create_supervised_evaluator
from ignite.metrics import Accuracy, Loss

torch.manual_seed(42)

data = np.load("data/sensors.npz")
mu, sd = data["x_train"].mean(0), data["x_train"].std(0)
train_ds = TensorDataset(torch.tensor((data["x_train"] - mu) / sd), torch.tensor(data["y_train"]))
val_ds = TensorDataset(torch.tensor((data["x_val"] - mu) / sd), torch.tensor(data["y_val"]))
train_loader = DataLoader(train_ds, batch_size=64, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=256)

model = nn.Sequential(
    nn.Linear(20, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 4),
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
criterion = nn.CrossEntropyLoss()
log_interval = 25
max_epochs = 8


def train_step(engine, batch):
    model.train()
    x, y = batch
    y_pred = model(x)
    loss = criterion(y_pred, y)
    loss.backward()
    optimizer.step()
    grad_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
    return {"loss": loss.item(), "grad_norm": grad_norm}


trainer = Engine(train_step)
evaluator = create_supervised_evaluator(model, metrics={"accuracy": Accuracy(), "nll": Loss(criterion)})


@trainer.on(Events.ITERATION_COMPLETED(every=log_interval))
def log_training_loss(engine):
    it = (engine.state.iteration - 1) % len(train_loader) + 1
    out = engine.state.output
    print(f"Epoch[{engine.state.epoch}] Iteration[{it}/{len(train_loader)}] "
          f"Loss: {out['loss']:.4f} Grad norm: {out['grad_norm']:.3f}")


@trainer.on(Events.EPOCH_COMPLETED)
def log_results(engine):
    evaluator.run(train_loader)
    m = evaluator.state.metrics
    print(f"Training Results - Epoch: {engine.state.epoch}  Avg accuracy: {m['accuracy']:.4f} Avg loss: {m['nll']:.4f}")
    evaluator.run(val_loader)
    m = evaluator.state.metrics
    print(f"Validation Results - Epoch: {engine.state.epoch}  Avg accuracy: {m['accuracy']:.4f} Avg loss: {m['nll']:.4f}")


trainer.run(train_loader, max_epochs=max_epochs)
