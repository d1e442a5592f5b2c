import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(12)
np.random.seed(1)

# ряд: почасовая нагрузка (синтетика: суточная + недельная сезонность + шум)
t = np.arange(3000)
ryad = (np.sin(2 * np.pi * t / 24) + 0.5 * np.sin(2 * np.pi * t / 168) + 0.1 * np.random.randn(len(t))).astype(np.float32)

OKNO = 48
GORIZONT = 12
SHAG = 4

class Okna(Dataset):
    def __init__(self, ryad, okno, gorizont, shag):
        self.x, self.y = [], []
        for i in range(0, len(ryad) - okno, shag):
            self.x.append(ryad[i:i + okno])
            self.y.append(ryad[i + okno:i + okno + gorizont])

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return torch.from_numpy(self.x[idx]).unsqueeze(-1), torch.from_numpy(self.y[idx])

gran = 2400
train_ds = Okna(ryad[:gran], OKNO, GORIZONT, SHAG)
val_ds = Okna(ryad[gran:], OKNO, GORIZONT, SHAG)
train_dl = DataLoader(train_ds, batch_size=32, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=32)

class Prognoz(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(1, 64, batch_first=True)
        self.head = nn.Linear(64, GORIZONT)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])

model = Prognoz()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
crit = nn.MSELoss()

print(f"Окон в train: {len(train_ds)}, в val: {len(val_ds)}")
EPOCHS = 10
for epoch in range(1, EPOCHS + 1):
    model.train()
    for step, (xb, yb) in enumerate(train_dl, 1):
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
        if step % 3 == 0:
            print(f"Эпоха {epoch}/{EPOCHS} шаг {step}/{len(train_dl)} потеря (MSE): {loss.item():.4f}", flush=True)
    model.eval()
    with torch.no_grad():
        val = np.mean([crit(model(xb), yb).item() for xb, yb in val_dl])
    print(f"Эпоха {epoch}/{EPOCHS} вал. потеря (MSE): {val:.4f}", flush=True)
