import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(8)

def templates(k=10, lado=16, seed=77):
    rng = np.random.default_rng(seed)
    T = np.zeros((k, lado, lado), dtype=np.float32)
    for c in range(k):
        for _ in range(3):
            x0, y0 = rng.integers(3, lado - 3, size=2)
            dx, dy = rng.integers(-1, 2, size=2)
            if dx == 0 and dy == 0:
                dy = 1
            for t in range(7):
                x, y = x0 + dx * t, y0 + dy * t
                if 1 <= x < lado - 1 and 1 <= y < lado - 1:
                    T[c, y - 1:y + 1, x - 1:x + 1] = 1.0
    return T

def amostras(n, T, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, len(T), size=n)
    X = np.empty((n, 256), dtype=np.float32)
    for i in range(n):
        img = np.roll(T[y[i]], shift=(rng.integers(-2, 3), rng.integers(-2, 3)), axis=(0, 1))
        img = img + rng.normal(0, 0.75, size=img.shape)
        X[i] = img.ravel()
    return X, y.astype(np.int64)

T = templates()
X_tr, y_tr = amostras(5000, T, 1)
X_va, y_va = amostras(1000, T, 2)
dl_treino = DataLoader(TensorDataset(torch.from_numpy(X_tr), torch.from_numpy(y_tr)), batch_size=100, shuffle=True)
X_va_t, y_va_t = torch.from_numpy(X_va), torch.from_numpy(y_va)

class Rede(nn.Module):
    def __init__(self):
        super().__init__()
        self.camadas = nn.Sequential(
            nn.Linear(256, 128),
            nn.ReLU(),
            nn.Linear(128, 64),
            nn.ReLU(),
            nn.Linear(64, 10),
            nn.Softmax(dim=1),
        )

    def forward(self, x):
        return self.camadas(x)

rede = Rede()
criterio = nn.CrossEntropyLoss()
otimizador = torch.optim.Adam(rede.parameters(), lr=1e-3)

for epoca in range(30):
    rede.train()
    total_perda, acertos, n = 0.0, 0, 0
    for xb, yb in dl_treino:
        otimizador.zero_grad()
        probs = rede(xb)
        perda = criterio(probs, yb)
        perda.backward()
        otimizador.step()
        total_perda += perda.item() * len(yb)
        acertos += (probs.argmax(1) == yb).sum().item()
        n += len(yb)
    rede.eval()
    with torch.no_grad():
        pv = rede(X_va_t)
        perda_val = criterio(pv, y_va_t).item()
        acc_val = (pv.argmax(1) == y_va_t).float().mean().item()
    print(f"Época {epoca+1} - perda: {total_perda/n:.4f} - acurácia: {acertos/n:.4f} - val_perda: {perda_val:.4f} - val_acurácia: {acc_val:.4f}", flush=True)
