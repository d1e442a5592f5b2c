import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(99)
rng = np.random.default_rng(99)

# solicitudes de crédito (datos simulados con la misma estructura que los reales)
n = 6000
ingreso_anual = rng.lognormal(mean=10.6, sigma=0.5, size=n)
deuda_total = rng.uniform(0, 60000, size=n)
edad = rng.integers(19, 75, size=n)
score_buro = rng.normal(650, 80, size=n).clip(300, 850)
n_tarjetas = rng.poisson(2, size=n)
uso_credito = rng.beta(2, 3, size=n)
z = (0.9 * (np.log(ingreso_anual) - 10.6) / 0.5 - 1.1 * (deuda_total - 30000) / 17000
     + 1.2 * (score_buro - 650) / 80 - 0.8 * (uso_credito - 0.4) / 0.2 + 0.2 * (edad - 47) / 16)
aprobado = (z + rng.normal(0, 0.7, n) > 0).astype(np.int64)

df = pd.DataFrame({"ingreso_anual": ingreso_anual, "deuda_total": deuda_total, "edad": edad,
                   "score_buro": score_buro, "n_tarjetas": n_tarjetas, "uso_credito": uso_credito,
                   "aprobado": aprobado})
print(df.describe().loc[["mean", "std", "min", "max"]].round(2).to_string())
print()

X = df.drop(columns="aprobado").values.astype(np.float32)
y = df["aprobado"].values

X_train, X_test = X[:4800], X[4800:]
y_train, y_test = y[:4800], y[4800:]

train_dl = DataLoader(TensorDataset(torch.tensor(X_train), torch.tensor(y_train)), batch_size=64, shuffle=True)
X_test_t, y_test_t = torch.tensor(X_test), torch.tensor(y_test)

red = nn.Sequential(
    nn.Linear(6, 32), nn.ReLU(),
    nn.Linear(32, 16), nn.ReLU(),
    nn.Linear(16, 2),
)
criterio = nn.CrossEntropyLoss()
optim = torch.optim.Adam(red.parameters(), lr=1e-3)

for epoca in range(1, 41):
    red.train()
    perdidas, ok, tot = [], 0, 0
    for xb, yb in train_dl:
        optim.zero_grad()
        out = red(xb)
        perdida = criterio(out, yb)
        perdida.backward()
        optim.step()
        perdidas.append(perdida.item())
        ok += (out.argmax(1) == yb).sum().item()
        tot += len(yb)
    red.eval()
    with torch.no_grad():
        out_t = red(X_test_t)
        pt = criterio(out_t, y_test_t).item()
        at = (out_t.argmax(1) == y_test_t).float().mean().item()
    print(f"Época {epoca}/40 | pérdida: {np.mean(perdidas):.4f} | precisión: {ok/tot:.4f} | pérdida_test: {pt:.4f} | precisión_test: {at:.4f}", flush=True)
