import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(0)

# Dataset sintético de "dígitos" 16x16: cada clase es una plantilla de trazos
def plantillas(n_clases=10, lado=16, seed=123):
    rng = np.random.default_rng(seed)
    T = np.zeros((n_clases, lado, lado), dtype=np.float32)
    for c in range(n_clases):
        for _ in range(3):
            x0, y0 = rng.integers(3, lado - 3, size=2)
            dx, dy = rng.integers(-1, 2, size=2)
            if dx == 0 and dy == 0:
                dx = 1
            for t in range(7):
                x, y = x0 + dx * t, y0 + dy * t
                if 1 <= x < lado - 1 and 1 <= y < lado - 1:
                    T[c, y - 1:y + 1, x - 1:x + 1] = 1.0
    return T

def generar(n, T, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, len(T), size=n)
    X = np.empty((n, 1, 16, 16), dtype=np.float32)
    for i in range(n):
        img = np.roll(T[y[i]], shift=(rng.integers(-2, 3), rng.integers(-2, 3)), axis=(0, 1))
        img = img * rng.uniform(0.6, 1.0) + rng.normal(0, 0.35, size=img.shape)
        X[i, 0] = np.clip(img, 0, 1)
    return X, y.astype(np.int64)

T = plantillas()
X_tr, y_tr = generar(4000, T, seed=1)
X_va, y_va = generar(1000, T, seed=2)

train_loader = DataLoader(TensorDataset(torch.from_numpy(X_tr), torch.from_numpy(y_tr)), batch_size=64, shuffle=True)
val_loader = DataLoader(TensorDataset(torch.from_numpy(X_va), torch.from_numpy(y_va)), batch_size=256)

class RedConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)

modelo = RedConv()
criterio = nn.CrossEntropyLoss()
optimizador = torch.optim.Adam(modelo.parameters(), lr=1e-3)

EPOCAS = 12
for epoca in range(1, EPOCAS + 1):
    modelo.train()
    perdida_total, aciertos, n = 0.0, 0, 0
    for xb, yb in train_loader:
        optimizador.zero_grad()
        salida = modelo(xb)
        perdida = criterio(salida, yb)
        perdida.backward()
        optimizador.step()
        perdida_total += perdida.item() * xb.size(0)
        aciertos += (salida.argmax(1) == yb).sum().item()
        n += xb.size(0)
    modelo.eval()
    vp, va, vn = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in val_loader:
            salida = modelo(xb)
            vp += criterio(salida, yb).item() * xb.size(0)
            va += (salida.argmax(1) == yb).sum().item()
            vn += xb.size(0)
    print(f"Época {epoca}/{EPOCAS} pérdida: {perdida_total/n:.4f} precisión: {aciertos/n:.4f} - val_pérdida: {vp/vn:.4f} val_precisión: {va/vn:.4f}", flush=True)

torch.save(modelo.state_dict(), "modelo.pt")
