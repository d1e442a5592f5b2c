import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(11)

K = 10
rng = np.random.default_rng(11)

# признаки объектов (эмбеддинги 32-мерные) и метки от разметчиков
centry = rng.normal(0, 1.0, size=(K, 32)) * 1.6
def vyborka(n):
    istina = rng.integers(0, K, size=n)
    X = centry[istina] + rng.normal(0, 1.0, size=(n, 32))
    metki = istina.copy()
    oshibka = rng.random(n) < 0.45
    metki[oshibka] = rng.integers(0, K, size=oshibka.sum())
    return X.astype(np.float32), metki.astype(np.int64)

X_tr, y_tr = vyborka(6000)
X_va, y_va = vyborka(1000)

train_dl = DataLoader(TensorDataset(torch.from_numpy(X_tr), torch.from_numpy(y_tr)), batch_size=64, shuffle=True)
X_va_t, y_va_t = torch.from_numpy(X_va), torch.from_numpy(y_va)

model = nn.Sequential(
    nn.Linear(32, 128), nn.ReLU(),
    nn.Linear(128, 64), nn.ReLU(),
    nn.Linear(64, K),
)
loss_fn = nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

EPOCHS = 40
for ep in range(1, EPOCHS + 1):
    model.train()
    s, c, n = 0.0, 0, 0
    for xb, yb in train_dl:
        opt.zero_grad()
        logits = model(xb)
        loss = loss_fn(logits, yb)
        loss.backward()
        opt.step()
        s += loss.item() * len(yb)
        c += (logits.argmax(1) == yb).sum().item()
        n += len(yb)
    model.eval()
    with torch.no_grad():
        lv = model(X_va_t)
        vl = loss_fn(lv, y_va_t).item()
        va = (lv.argmax(1) == y_va_t).float().mean().item()
    print(f"Эпоха {ep}/{EPOCHS} потеря: {s/n:.4f} точность: {c/n:.4f} вал_потеря: {vl:.4f} вал_точность: {va:.4f}", flush=True)

with torch.no_grad():
    pred = model(X_va_t).argmax(1).numpy()
cm = np.zeros((K, K), dtype=int)
for t, p in zip(y_va, pred):
    cm[t, p] += 1
print("\nМатрица ошибок (строки - метка, столбцы - предсказание):")
print(cm)
