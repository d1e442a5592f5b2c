import numpy as np
import torch
import torch.nn as nn
from poutyne import Model, ModelCheckpoint, CSVLogger

torch.manual_seed(21)
np.random.seed(21)

d = np.load("data/telemetry.npz")
x_train, y_train, x_valid, y_valid = d["x_train"], d["y_train"], d["x_valid"], d["y_valid"]
mu, sigma = x_train.mean(0), x_train.std(0)
x_train, x_valid = (x_train - mu) / sigma, (x_valid - mu) / sigma

network = nn.Sequential(
    nn.Linear(24, 128), nn.ReLU(),
    nn.Linear(128, 128), nn.ReLU(),
    nn.Linear(128, 64), nn.ReLU(),
    nn.Linear(64, 5),
)
optimizer = torch.optim.SGD(network.parameters(), lr=0.3, momentum=0.9)
model = Model(network, optimizer, nn.CrossEntropyLoss(), batch_metrics=["accuracy"])
model.fit(
    x_train, y_train,
    validation_data=(x_valid, y_valid),
    epochs=30,
    batch_size=128,
    callbacks=[ModelCheckpoint("last.ckpt"), CSVLogger("log.csv")],
)
