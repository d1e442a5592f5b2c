import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torchbearer import Trial
from torchbearer.callbacks import CSVLogger

torch.manual_seed(3)

d = np.load("data/tickets.npz")
mu, sd = d["x_train"].mean(0), d["x_train"].std(0)
train = TensorDataset(torch.tensor((d["x_train"] - mu) / sd), torch.tensor(d["y_train"]))
val = TensorDataset(torch.tensor((d["x_val"] - mu) / sd), torch.tensor(d["y_val"]))
traingen = DataLoader(train, batch_size=32, shuffle=True)
valgen = DataLoader(val, batch_size=256)

model = nn.Sequential(
    nn.Linear(32, 128), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(128, 128), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(128, 8),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss = nn.CrossEntropyLoss()

trial = Trial(model, optimizer, loss, metrics=["acc", "loss"], callbacks=[CSVLogger("metrics.csv")]).to("cpu")
trial.with_generators(train_generator=traingen, val_generator=valgen)
history = trial.run(epochs=60, verbose=1)
