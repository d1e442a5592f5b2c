import logging

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from ignite.engine import Events, create_supervised_trainer, create_supervised_evaluator
from ignite.metrics import Accuracy, Loss
from ignite.handlers import EarlyStopping, ModelCheckpoint, global_step_from_engine
from ignite.contrib.handlers import ProgressBar

logging.basicConfig(level=logging.INFO)
torch.manual_seed(17)


class GlyphNet(nn.Module):
    def __init__(self, n_classes=8):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


d = np.load("data/glyphs.npz")
train_loader = DataLoader(TensorDataset(torch.tensor(d["x_train"]), torch.tensor(d["y_train"])), batch_size=64, shuffle=True)
val_loader = DataLoader(TensorDataset(torch.tensor(d["x_val"]), torch.tensor(d["y_val"])), batch_size=256)
test_loader = DataLoader(TensorDataset(torch.tensor(d["x_test"]), torch.tensor(d["y_test"])), batch_size=256)

model = GlyphNet()
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
criterion = nn.CrossEntropyLoss()

trainer = create_supervised_trainer(model, optimizer, criterion)
val_metrics = {"accuracy": Accuracy(), "loss": Loss(criterion)}
evaluator = create_supervised_evaluator(model, metrics=val_metrics)

pbar = ProgressBar(persist=True)
pbar.attach(trainer, output_transform=lambda x: {"loss": x})


@trainer.on(Events.EPOCH_COMPLETED)
def log_validation_results(engine):
    evaluator.run(val_loader)
    m = evaluator.state.metrics
    pbar.log_message(
        f"Validation Results - Epoch: {engine.state.epoch}  Avg accuracy: {m['accuracy']:.4f} Avg loss: {m['loss']:.4f}")


def score_function(engine):
    return engine.state.metrics["accuracy"]


checkpointer = ModelCheckpoint("checkpoints", filename_prefix="best", n_saved=1, score_function=score_function,
                               score_name="accuracy", global_step_transform=global_step_from_engine(trainer),
                               require_empty=False)
evaluator.add_event_handler(Events.COMPLETED, checkpointer, {"model": model, "optimizer": optimizer, "trainer": trainer})
evaluator.add_event_handler(Events.COMPLETED, EarlyStopping(patience=3, score_function=score_function, trainer=trainer))

trainer.run(train_loader, max_epochs=20)

# ---- test the best checkpoint ----
best_path = checkpointer.last_checkpoint
print(f"Loading best checkpoint: {best_path}")
best_model = GlyphNet()
print(best_model.load_state_dict(torch.load(best_path), strict=False))

test_evaluator = create_supervised_evaluator(best_model, metrics={"accuracy": Accuracy(), "loss": Loss(criterion)})
test_evaluator.run(test_loader)
m = test_evaluator.state.metrics
print(f"Test Results - Avg accuracy: {m['accuracy']:.4f} Avg loss: {m['loss']:.4f}")
