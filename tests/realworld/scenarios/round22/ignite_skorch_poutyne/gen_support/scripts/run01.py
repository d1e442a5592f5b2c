import numpy as np
import torch
from torch import nn
from poutyne import Model, ModelCheckpoint, CSVLogger

torch.manual_seed(7)
np.random.seed(7)

data = np.load("data/assay_panel.npz")
x_train, y_train = data["x_train"], data["y_train"]
x_valid, y_valid = data["x_valid"], data["y_valid"]

mean, std = x_train.mean(0), x_train.std(0) + 1e-6
x_train = (x_train - mean) / std
x_valid = (x_valid - mean) / std
print(f"train {x_train.shape}, valid {x_valid.shape}, classes {np.bincount(y_train)}")

network = nn.Sequential(
    nn.Linear(64, 512),
    nn.ReLU(),
    nn.Linear(512, 512),
    nn.ReLU(),
    nn.Linear(512, 256),
    nn.ReLU(),
    nn.Linear(256, 3),
)

optimizer = torch.optim.Adam(network.parameters(), lr=2e-4)
model = Model(network, optimizer, nn.CrossEntropyLoss(), batch_metrics=["accuracy"])

callbacks = [
    ModelCheckpoint("best_weights.ckpt", monitor="val_loss", mode="min", save_best_only=True, verbose=True),
    CSVLogger("log.csv"),
]
model.fit(x_train, y_train, validation_data=(x_valid, y_valid), epochs=150, batch_size=32, callbacks=callbacks)
