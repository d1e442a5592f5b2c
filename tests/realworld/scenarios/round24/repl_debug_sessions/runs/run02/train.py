import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from dataset import WindowDataset

torch.manual_seed(10)
series = np.load("data/load_hourly.npy")
series = (series - series.mean()) / series.std()

ds = WindowDataset(series, window=48, horizon=6)
loader = DataLoader(ds, batch_size=32, shuffle=True)

model = nn.Sequential(nn.Linear(48, 64), nn.ReLU(), nn.Linear(64, 6))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(5):
    for step, (xb, yb) in enumerate(loader):
        pred = model(xb)
        loss = nn.functional.mse_loss(pred, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"epoch {epoch} step {step} mse {loss.item():.4f}")
