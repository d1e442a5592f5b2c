import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

config = {"lr": 3e-4, "batch_size": 64, "epochs": 40, "seed": 3}
print("config:", config)

torch.manual_seed(config["seed"])
torch.set_num_threads(1)
rng = np.random.default_rng(config["seed"])


def fr(x, n=4):
    return f"{x:.{n}f}".replace(".", ",")


def chiffres_synthetiques(n_par_classe=180):
    gabarits = []
    for k in range(10):
        g = np.zeros((10, 10))
        for _ in range(4):
            r0, c0 = rng.integers(1, 9, 2)
            r1, c1 = rng.integers(1, 9, 2)
            for t in np.linspace(0, 1, 12):
                g[int(round(r0 + t * (r1 - r0))), int(round(c0 + t * (c1 - c0)))] = 1.0
        gabarits.append(g)
    images, etiquettes = [], []
    for k, g in enumerate(gabarits):
        for _ in range(n_par_classe):
            dr, dc = rng.integers(0, 3, 2)
            img = g[dr:dr + 8, dc:dc + 8] * 16 + rng.normal(0, 2.5, (8, 8))
            images.append(np.clip(img, 0, 16))
            etiquettes.append(k)
    X = np.array(images, dtype=np.float32)[:, None] / 16.0
    y = np.array(etiquettes, dtype=np.int64)
    p = rng.permutation(len(y))
    return X[p], y[p]


X, y = chiffres_synthetiques()
n_val = 360
X_tr, y_tr = torch.from_numpy(X[n_val:]), torch.from_numpy(y[n_val:])
X_va, y_va = torch.from_numpy(X[:n_val]), torch.from_numpy(y[:n_val])


class PetitCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 4 * 4, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


modele = PetitCNN()
optimiseur = torch.optim.SGD(modele.parameters(), lr=config["lr"])
critere = nn.CrossEntropyLoss()

historique = []
for epoque in range(1, config["epochs"] + 1):
    modele.train()
    perm = torch.randperm(len(y_tr))
    total, n = 0.0, 0
    for i in range(0, len(perm), config["batch_size"]):
        idx = perm[i:i + config["batch_size"]]
        optimiseur.zero_grad()
        perte = critere(modele(X_tr[idx]), y_tr[idx])
        perte.backward()
        optimiseur.step()
        total += perte.item() * len(idx)
        n += len(idx)
    modele.eval()
    with torch.no_grad():
        sortie = modele(X_va)
        perte_val = critere(sortie, y_va).item()
        prec_val = (sortie.argmax(1) == y_va).float().mean().item()
    historique.append({"epoque": epoque, "perte": total / n, "perte_val": perte_val, "precision_val": prec_val})
    print(f"époque {epoque} perte={fr(total / n)} perte_val={fr(perte_val)} précision_val={fr(prec_val, 3)}")

pd.DataFrame(historique).to_csv("historique.csv", sep=";", decimal=",", index=False)
