import numpy as np
import pandas as pd
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(21)
rng = np.random.default_rng(21)

# ---- datos de clientes (exportados del CRM) ----
n = 5000
edad = rng.integers(18, 75, n)
antiguedad_meses = rng.integers(1, 72, n)
cargo_mensual = np.round(rng.uniform(15, 120, n), 2)
n_reclamos = rng.poisson(1.0, n)
plan_anual = rng.integers(0, 2, n)
logit = -1.0 + 0.025 * (cargo_mensual - 60) - 0.04 * (antiguedad_meses - 36) + 0.5 * n_reclamos - 1.0 * plan_anual
baja = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
motivos = np.array(["precio", "competencia", "servicio", "mudanza"])
motivo_baja = np.where(baja == 1, motivos[rng.integers(0, 4, n)], None)

df = pd.DataFrame({
    "edad": edad, "antiguedad_meses": antiguedad_meses, "cargo_mensual": cargo_mensual,
    "n_reclamos": n_reclamos, "plan_anual": plan_anual, "motivo_baja": motivo_baja,
    "baja": baja,
})
print(df.head(8).to_string())
print()
print("Proporción de bajas:", round(df["baja"].mean(), 3))
print()

df = pd.get_dummies(df, columns=["motivo_baja"], dtype=float)
X = df.drop(columns=["baja"]).values.astype(np.float32)
y = df["baja"].values.astype(np.float32)
X = (X - X.mean(0)) / X.std(0)

idx = rng.permutation(n)
tr, va = idx[:4000], idx[4000:]
X_tr, y_tr = torch.tensor(X[tr]), torch.tensor(y[tr])
X_va, y_va = torch.tensor(X[va]), torch.tensor(y[va])

modelo = nn.Sequential(nn.Linear(X.shape[1], 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 1))
criterio = nn.BCEWithLogitsLoss()
opt = torch.optim.RMSprop(modelo.parameters(), lr=1e-3)

EPOCAS = 15
for epoca in range(1, EPOCAS + 1):
    modelo.train()
    perm = torch.randperm(len(X_tr))
    suma, aciertos = 0.0, 0
    for i in range(0, len(perm), 128):
        b = perm[i:i + 128]
        opt.zero_grad()
        logits = modelo(X_tr[b]).squeeze(1)
        perdida = criterio(logits, y_tr[b])
        perdida.backward()
        opt.step()
        suma += perdida.item() * len(b)
        aciertos += ((logits > 0).float() == y_tr[b]).sum().item()
    modelo.eval()
    with torch.no_grad():
        lv = modelo(X_va).squeeze(1)
        pv = criterio(lv, y_va).item()
        av = ((lv > 0).float() == y_va).float().mean().item()
    print(f"Época {epoca}/{EPOCAS} - pérdida: {suma/len(X_tr):.4f} - exactitud: {aciertos/len(X_tr):.4f} - val_pérdida: {pv:.4f} - val_exactitud: {av:.4f}", flush=True)
