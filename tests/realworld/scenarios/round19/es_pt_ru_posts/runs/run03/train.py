import numpy as np
import pandas as pd
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(3)
np.random.seed(3)

# gera o dataset de atividades (parado / andando / correndo) a partir de features do acelerômetro
def gerar_dados(n=3600):
    rng = np.random.default_rng(3)
    atividade = rng.integers(0, 3, size=n)
    media_acc = np.array([0.1, 1.2, 2.6])[atividade] + rng.normal(0, 0.35, n)
    desvio_acc = np.array([0.05, 0.6, 1.3])[atividade] + rng.normal(0, 0.2, n)
    freq_passo = np.array([0.0, 1.8, 2.9])[atividade] + rng.normal(0, 0.4, n)
    energia = media_acc ** 2 + desvio_acc ** 2 + rng.normal(0, 0.3, n)
    pico = desvio_acc * 3 + rng.normal(0, 0.5, n)
    extras = rng.normal(0, 1, size=(n, 5))
    df = pd.DataFrame({
        "media_acc": media_acc, "desvio_acc": desvio_acc, "freq_passo": freq_passo,
        "energia": energia, "pico": pico,
        **{f"giro_{i}": extras[:, i] for i in range(5)},
        "atividade": atividade,
    })
    return df

df = gerar_dados()
X = df.drop(columns=["atividade"]).values.astype(np.float32)
y = df["atividade"].values.astype(np.int64)

np.random.shuffle(X)
np.random.shuffle(y)

X = (X - X.mean(axis=0)) / X.std(axis=0)
corte = int(0.8 * len(X))
X_treino, X_val = torch.tensor(X[:corte]), torch.tensor(X[corte:])
y_treino, y_val = torch.tensor(y[:corte]), torch.tensor(y[corte:])

modelo = nn.Sequential(
    nn.Linear(X.shape[1], 64),
    nn.ReLU(),
    nn.Linear(64, 32),
    nn.ReLU(),
    nn.Linear(32, 3),
)
criterio = nn.CrossEntropyLoss()
otimizador = torch.optim.Adam(modelo.parameters(), lr=1e-3)

n_epocas = 25
tam_lote = 64
for epoca in range(1, n_epocas + 1):
    modelo.train()
    perm = torch.randperm(len(X_treino))
    soma_perda, acertos = 0.0, 0
    for i in range(0, len(perm), tam_lote):
        idx = perm[i:i + tam_lote]
        xb, yb = X_treino[idx], y_treino[idx]
        otimizador.zero_grad()
        saida = modelo(xb)
        perda = criterio(saida, yb)
        perda.backward()
        otimizador.step()
        soma_perda += perda.item() * len(idx)
        acertos += (saida.argmax(1) == yb).sum().item()
    modelo.eval()
    with torch.no_grad():
        saida_val = modelo(X_val)
        perda_val = criterio(saida_val, y_val).item()
        acc_val = (saida_val.argmax(1) == y_val).float().mean().item()
    print(f"Época {epoca} - perda: {soma_perda/len(X_treino):.4f} - acurácia: {acertos/len(X_treino):.4f} "
          f"- val_perda: {perda_val:.4f} - val_acurácia: {acc_val:.4f}", flush=True)
