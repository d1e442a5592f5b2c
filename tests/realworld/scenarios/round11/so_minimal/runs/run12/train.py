import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(5)
rng = np.random.default_rng(5)

# three waveform classes: sine, square, sawtooth, random freq/phase, noisy, random offset and gain
def waves(n, L=64):
    t = np.linspace(0, 1, L)
    y = rng.integers(0, 3, n)
    f = rng.uniform(2, 6, n)[:, None]
    ph = rng.uniform(0, 2 * np.pi, n)[:, None]
    s = np.sin(2 * np.pi * f * t + ph)
    x = np.where(y[:, None] == 0, s, np.where(y[:, None] == 1, np.sign(s), ((f * t + ph / 6.283) % 1) * 2 - 1))
    x = x * rng.uniform(0.5, 3, (n, 1)) + rng.uniform(-2, 2, (n, 1)) + rng.normal(0, 0.2, (n, L))
    return torch.tensor(x[:, None, :], dtype=torch.float32), torch.tensor(y)

X, Y = waves(1601)
loader = DataLoader(TensorDataset(X, Y), batch_size=64, shuffle=True)

model = nn.Sequential(
    nn.Conv1d(1, 16, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
    nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
    nn.Flatten(), nn.Linear(32, 3),
)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
crit = nn.CrossEntropyLoss()

for epoch in range(8):
    tot, n = 0.0, 0
    for xb, yb in loader:
        xb = (xb - xb.mean(dim=0)) / xb.std(dim=0)
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
        tot += loss.item() * len(yb)
        n += len(yb)
    print(f"epoch {epoch}: mean loss {tot / n:.4f}")
