import csv
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(12)
rng = np.random.default_rng(12)

def luas(n, ruido):
    # mesma ideia do make_moons do sklearn
    n1 = n // 2
    n2 = n - n1
    t1 = np.linspace(0, np.pi, n1)
    t2 = np.linspace(0, np.pi, n2)
    x = np.vstack([np.c_[np.cos(t1), np.sin(t1)], np.c_[1 - np.cos(t2), 1 - np.sin(t2) - 0.5]])
    y = np.r_[np.zeros(n1), np.ones(n2)].astype(np.int64)
    x = x + rng.normal(0, ruido, size=x.shape)
    p = rng.permutation(n)
    return x[p].astype(np.float32), y[p]

X, y = luas(3000, ruido=0.35)
X_tr, y_tr = torch.tensor(X[:2400]), torch.tensor(y[:2400])
X_va, y_va = torch.tensor(X[2400:]), torch.tensor(y[2400:])

modelo = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 2))
criterio = nn.CrossEntropyLoss()
otimizador = torch.optim.SGD(modelo.parameters(), lr=0.05)

PASSOS = 2000
BATCH = 16
LOG_A_CADA = 10

arq = open("metricas.csv", "w", newline="")
w = csv.writer(arq)
w.writerow(["passo", "perda_treino", "acc_treino", "perda_val", "acc_val"])

acum_perda, acum_acc, k = 0.0, 0.0, 0
for passo in range(1, PASSOS + 1):
    idx = torch.randint(0, len(X_tr), (BATCH,))
    xb, yb = X_tr[idx], y_tr[idx]
    modelo.train()
    otimizador.zero_grad()
    saida = modelo(xb)
    perda = criterio(saida, yb)
    perda.backward()
    otimizador.step()
    acum_perda += perda.item()
    acum_acc += (saida.argmax(1) == yb).float().mean().item()
    k += 1
    if passo % LOG_A_CADA == 0:
        modelo.eval()
        with torch.no_grad():
            sv = modelo(X_va)
            pv = criterio(sv, y_va).item()
            av = (sv.argmax(1) == y_va).float().mean().item()
        w.writerow([passo, round(acum_perda / k, 4), round(acum_acc / k, 4), round(pv, 4), round(av, 4)])
        if passo % 100 == 0:
            print(f"Passo {passo}/{PASSOS} - perda: {acum_perda / k:.4f} - acurácia: {acum_acc / k:.4f} - perda_val: {pv:.4f} - acurácia_val: {av:.4f}", flush=True)
        acum_perda, acum_acc, k = 0.0, 0.0, 0
arq.close()
