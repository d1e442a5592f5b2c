import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(5)
rng = np.random.default_rng(5)

VOCAB = 300
SEQ = 30
N_CLASSES = 4

# cada classe tem um conjunto de palavras "típicas" que aparecem com mais frequência
palavras_classe = [rng.choice(np.arange(10, VOCAB), size=15, replace=False) for _ in range(N_CLASSES)]

def gerar_textos(n):
    y = rng.integers(0, N_CLASSES, size=n)
    X = rng.integers(1, VOCAB, size=(n, SEQ))
    for i in range(n):
        pos = rng.random(SEQ) < 0.3
        X[i, pos] = rng.choice(palavras_classe[y[i]], size=pos.sum())
    return torch.tensor(X, dtype=torch.long), torch.tensor(y, dtype=torch.long)

X_tr, y_tr = gerar_textos(4000)
X_te, y_te = gerar_textos(1000)
train_loader = DataLoader(TensorDataset(X_tr, y_tr), batch_size=64, shuffle=True)
test_loader = DataLoader(TensorDataset(X_te, y_te), batch_size=500)

class ClassificadorTexto(nn.Module):
    def __init__(self, vocab, dim_emb=50, dim_oculta=64, n_classes=4):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim_emb, padding_idx=0)
        self.gru = nn.GRU(dim_emb, dim_oculta, batch_first=True)
        self.saida = nn.Linear(dim_oculta, n_classes)

    def forward(self, x):
        e = self.embedding(x)
        _, h = self.gru(e)
        return self.saida(h[-1])

modelo = ClassificadorTexto(VOCAB, n_classes=N_CLASSES)

# vetores pré-treinados (aqui gerados aleatoriamente só para o exemplo)
vetores = rng.normal(0, 0.5, size=(VOCAB, 50)).astype(np.float32)
modelo.embedding.weight.data.copy_(torch.from_numpy(vetores))
for param in modelo.parameters():
    param.requires_grad = False

criterio = nn.CrossEntropyLoss()
otimizador = torch.optim.Adam(modelo.parameters(), lr=2e-3)

EPOCAS = 15
for epoca in range(1, EPOCAS + 1):
    modelo.train()
    perdas, acertos, total, normas = [], 0, 0, []
    for xb, yb in train_loader:
        otimizador.zero_grad()
        logits = modelo(xb)
        perda = criterio(logits, yb)
        perda.requires_grad = True
        perda.backward()
        norma = sum(float(p.grad.norm()) ** 2 for p in modelo.parameters() if p.grad is not None) ** 0.5
        normas.append(norma)
        otimizador.step()
        perdas.append(perda.item())
        acertos += (logits.argmax(1) == yb).sum().item()
        total += len(yb)

    modelo.eval()
    with torch.no_grad():
        xb, yb = next(iter(test_loader))
        lt = modelo(xb)
        perda_teste = criterio(lt, yb).item()
        acc_teste = (lt.argmax(1) == yb).float().mean().item()
    print(f"Época {epoca}/{EPOCAS} - perda: {np.mean(perdas):.4f} - acurácia: {acertos/total:.4f} - "
          f"perda_teste: {perda_teste:.4f} - acurácia_teste: {acc_teste:.4f} - norma_grad: {np.mean(normas):.4f}", flush=True)
