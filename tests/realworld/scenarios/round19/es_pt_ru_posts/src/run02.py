import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(42)
np.random.seed(42)

N_CLASES = 6

def crear_figuras(n, seed):
    """Imágenes 20x20 con figuras simples (cuadrado, cruz, barras, etc.)"""
    rng = np.random.default_rng(seed)
    imgs = np.zeros((n, 1, 20, 20), dtype=np.float32)
    etiquetas = rng.integers(0, N_CLASES, size=n)
    for i, c in enumerate(etiquetas):
        cx, cy = rng.integers(6, 14, size=2)
        r = rng.integers(3, 6)
        im = np.zeros((20, 20), dtype=np.float32)
        if c == 0:
            im[cy - r:cy + r, cx - r:cx + r] = 1.0
        elif c == 1:
            im[cy - r:cy + r, cx] = 1.0
            im[cy, cx - r:cx + r] = 1.0
        elif c == 2:
            im[cy - r:cy + r, cx - 1:cx + 1] = 1.0
        elif c == 3:
            im[cy - 1:cy + 1, cx - r:cx + r] = 1.0
        elif c == 4:
            for t in range(-r, r):
                im[cy + t, cx + t] = 1.0
        else:
            im[cy - r, cx - r:cx + r] = 1.0
            im[cy + r - 1, cx - r:cx + r] = 1.0
            im[cy - r:cy + r, cx - r] = 1.0
            im[cy - r:cy + r, cx + r - 1] = 1.0
        im += rng.normal(0, 0.3, size=im.shape)
        imgs[i, 0] = im
    return imgs, etiquetas.astype(np.int64)

class Figuras(Dataset):
    def __init__(self, n, seed):
        self.x, self.y = crear_figuras(n, seed)
    def __len__(self):
        return len(self.y)
    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), int(self.y[i])

train_dl = DataLoader(Figuras(3000, 1), batch_size=50, shuffle=True)
test_dl = DataLoader(Figuras(600, 2), batch_size=200)

modelo = nn.Sequential(
    nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(16 * 5 * 5, 32), nn.ReLU(),
    nn.Linear(32, N_CLASES),
)

loss_fn = nn.CrossEntropyLoss()
opt = torch.optim.SGD(modelo.parameters(), lr=0.001, momentum=0.9)

epocas = 20
opt.zero_grad()
for ep in range(epocas):
    modelo.train()
    suma, bien, total, normas = 0.0, 0, 0, []
    for x, y in train_dl:
        pred = modelo(x)
        loss = loss_fn(pred, y)
        loss.backward()
        normas.append(torch.nn.utils.clip_grad_norm_(modelo.parameters(), float("inf")).item())
        opt.step()
        suma += loss.item() * len(y)
        bien += (pred.argmax(1) == y).sum().item()
        total += len(y)

    modelo.eval()
    tb, tt = 0, 0
    with torch.no_grad():
        for x, y in test_dl:
            tb += (modelo(x).argmax(1) == y).sum().item()
            tt += len(y)
    print(f"Época {ep+1}/{epocas} pérdida: {suma/total:.4f} precisión: {bien/total:.3f} "
          f"precisión_test: {tb/tt:.3f} norma_grad: {np.mean(normas):.2f}", flush=True)
