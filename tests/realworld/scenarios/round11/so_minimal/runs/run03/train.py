import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(8)

t = np.arange(3000)
series = (np.sin(2 * np.pi * t / 48) + 0.3 * np.sin(2 * np.pi * t / 365)
          + 0.1 * np.random.default_rng(7).normal(size=t.size)).astype(np.float32)

class WindowDataset(Dataset):
    def __init__(self, s, window=48, horizon=6):
        self.s, self.window, self.horizon = torch.from_numpy(s), window, horizon
    def __len__(self):
        return len(self.s) - self.window
    def __getitem__(self, i):
        x = self.s[i:i + self.window]
        y = self.s[i + self.window:i + self.window + self.horizon]
        return x.unsqueeze(-1), y

ds = WindowDataset(series)
loader = DataLoader(ds, batch_size=32, shuffle=True)

class Forecaster(nn.Module):
    def __init__(self, hidden=32, horizon=6):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, horizon)
    def forward(self, x):
        _, h = self.gru(x)
        return self.fc(h[-1])

model = Forecaster()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
mse = nn.MSELoss()

for epoch in range(3):
    for it, (xb, yb) in enumerate(loader):
        opt.zero_grad()
        loss = mse(model(xb), yb)
        loss.backward()
        opt.step()
        if it % 10 == 0:
            print(f"epoch {epoch} iter {it} mse {loss.item():.5f}")
