#!/usr/bin/env python
"""Generator for the round-22 'de/fr/it/nl forum posts' benchmark runs.

Every run is a real (small, CPU) torch training.  Each training script below is
written out to a scratch folder and executed with the current interpreter; its
stdout and the log files it writes are what the run folders are built from.
Seeds are fixed, so the numbers are reproducible.

Usage:  python gen.py            (writes ./runs/ and ./truth.json next to this file)
        python gen.py run03 run07   (only these runs; truth.json is still written in full)
"""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")
WORK = os.path.join(HERE, "_work")

# ---------------------------------------------------------------------------
# training scripts (exactly what is executed; copied verbatim as train.py
# into the runs that ship their script)
# ---------------------------------------------------------------------------
SCRIPTS = {
    "run01": r'''import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)


def zahl(x, n=4):
    s = f"{x:,.{n}f}"
    return s.replace(",", "_").replace(".", ",").replace("_", ".")


def make_moons(n, noise, rng):
    n1 = n // 2
    n2 = n - n1
    t1 = rng.uniform(0, np.pi, n1)
    t2 = rng.uniform(0, np.pi, n2)
    a = np.stack([np.cos(t1), np.sin(t1)], 1)
    b = np.stack([1 - np.cos(t2), 0.5 - np.sin(t2)], 1)
    X = np.concatenate([a, b]) + rng.normal(0, noise, (n, 2))
    y = np.concatenate([np.zeros(n1), np.ones(n2)])
    return X.astype(np.float32), y.astype(np.int64)


rng = np.random.default_rng(42)
X, y = make_moons(6000, 0.2, rng)
perm = rng.permutation(len(X))
X, y = X[perm], y[perm]
X = (X - X.mean(0)) / X.std(0)
X_train, y_train = torch.from_numpy(X[:5000]), torch.from_numpy(y[:5000])
X_val, y_val = torch.from_numpy(X[5000:]), torch.from_numpy(y[5000:])

model = nn.Sequential(
    nn.Linear(2, 64), nn.Tanh(),
    nn.Linear(64, 64), nn.Tanh(),
    nn.Linear(64, 2),
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.002, momentum=0.9)
criterion = nn.CrossEntropyLoss()

batch_size = 50
epochs = 12
step = 0
log = open("train_log.txt", "w")

for epoch in range(1, epochs + 1):
    model.train()
    idx = torch.randperm(len(X_train))
    summe, n = 0.0, 0
    for i in range(0, len(X_train), batch_size):
        b = idx[i:i + batch_size]
        out = model(X_train[b])
        loss = criterion(out, y_train[b])
        loss.backward()
        gnorm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
        optimizer.step()
        step += 1
        summe += loss.item() * len(b)
        n += len(b)
        if step % 25 == 0:
            zeile = f"Schritt {step:,}".replace(",", ".") + f" | Verlust {zahl(loss.item())} | Gradientennorm {zahl(gnorm, 2)}"
            log.write(zeile + "\n")
    model.eval()
    with torch.no_grad():
        out = model(X_val)
        vloss = criterion(out, y_val).item()
        vacc = (out.argmax(1) == y_val).float().mean().item() * 100
    zeile = (f"Epoche {epoch}/{epochs} - Verlust: {zahl(summe / n)} - Val-Verlust: {zahl(vloss)}"
             f" - Val-Genauigkeit: {zahl(vacc, 1)} % - Gradientennorm: {zahl(gnorm, 2)}")
    print(zeile)
    log.write(zeile + "\n")
log.close()
''',
    "run02": r'''import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(21)
torch.set_num_threads(1)
rng = np.random.default_rng(21)

FREQ = [1.0, 1.8, 2.6, 3.4]
LUNGHEZZA = 40


def genera(n):
    y = rng.integers(0, len(FREQ), n)
    t = np.linspace(0, 2 * np.pi, LUNGHEZZA)
    fase = rng.uniform(0, 2 * np.pi, n)
    amp = rng.uniform(0.7, 1.3, n)
    x = amp[:, None] * np.sin(np.array(FREQ)[y][:, None] * t[None] + fase[:, None])
    x = x + rng.normal(0, 0.6, x.shape)
    return torch.tensor(x[..., None], dtype=torch.float32), torch.tensor(y)


X_tr, y_tr = genera(3000)
X_va, y_va = genera(600)


class ClassificatoreConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(1, 16, 5, padding=2), nn.ReLU(),
            nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1),
        )
        self.out = nn.Linear(32, len(FREQ))

    def forward(self, x):
        h = self.conv(x.transpose(1, 2)).squeeze(-1)
        return self.out(h)


modello = ClassificatoreConv()
ottimizzatore = torch.optim.Adam(modello.parameters(), lr=2e-3)
criterio = nn.CrossEntropyLoss()
EPOCHE = 20


def it(v, n=4):
    return f"{v:.{n}f}".replace(".", ",")


for epoca in range(1, EPOCHE + 1):
    modello.train()
    perm = torch.randperm(len(y_tr))
    somma, corretti = 0.0, 0
    for i in range(0, len(perm), 32):
        idx = perm[i:i + 32]
        ottimizzatore.zero_grad()
        logit = modello(X_tr[idx])
        perdita = criterio(logit, y_tr[idx])
        perdita.backward()
        ottimizzatore.step()
        somma += perdita.item() * len(idx)
        corretti += (logit.argmax(1) == y_tr[idx]).sum().item()
    modello.eval()
    with torch.no_grad():
        lv = modello(X_va)
        perdita_val = criterio(lv, y_va).item()
        acc_val = (lv.argmax(1) == y_va).float().mean().item() * 100
    print(f"Epoca {epoca}/{EPOCHE} - perdita: {it(somma / len(perm))} - accuratezza: {it(100 * corretti / len(perm), 1)}%"
          f" - perdita_val: {it(perdita_val)} - accuratezza_val: {it(acc_val, 1)}%")
''',
    "run03": r'''import numpy as np
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
''',
    "run04": r'''import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(11)
torch.set_num_threads(1)

df = pd.read_csv("metingen.csv", sep=";", decimal=",")
print(df.describe().T[["count", "mean", "std", "min", "max"]])

kenmerken = df.drop(columns=["defect"])
kenmerken = (kenmerken - kenmerken.mean()) / kenmerken.std()
X = torch.tensor(kenmerken.values, dtype=torch.float32)
y = torch.tensor(df["defect"].values, dtype=torch.float32)

n_train = 6400
train_dl = DataLoader(TensorDataset(X[:n_train], y[:n_train]), batch_size=64, shuffle=True)
val_X, val_y = X[n_train:], y[n_train:]

model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.BCEWithLogitsLoss()


def nl(x, n=4):
    return f"{x:.{n}f}".replace(".", ",")


log = open("training.log", "w")
for epoch in range(1, 6):
    model.train()
    totaal = 0.0
    for batch, (xb, yb) in enumerate(train_dl, start=1):
        opt.zero_grad()
        verlies = loss_fn(model(xb).squeeze(1), yb)
        verlies.backward()
        opt.step()
        totaal += verlies.item()
        log.write(f"epoch {epoch} batch {batch}/{len(train_dl)} verlies {nl(verlies.item())}\n")
        if batch % 20 == 0:
            print(f"Epoch {epoch} - batch {batch}/{len(train_dl)} - verlies: {nl(verlies.item())}")
    model.eval()
    with torch.no_grad():
        uit = model(val_X).squeeze(1)
        val_verlies = loss_fn(uit, val_y).item()
        val_nauwk = ((uit > 0).float() == val_y).float().mean().item() * 100
    regel = f"Epoch {epoch} klaar - gem. verlies: {nl(totaal / len(train_dl))} - val verlies: {nl(val_verlies)} - val nauwkeurigheid: {nl(val_nauwk, 1)}%"
    print(regel)
    log.write(regel + "\n")
log.close()
''',
    "run05": r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 7
LR = 0.06
EPOCHS = 30
BATCH = 64

torch.manual_seed(SEED)
torch.set_num_threads(1)
rng = np.random.default_rng(SEED)


def de(x, n=4):
    return f"{x:.{n}f}".replace(".", ",")


def erzeuge_daten(n=4000, d=20, k=4):
    zentren = rng.normal(0, 1.2, (k, 6))
    y = rng.integers(0, k, n)
    info = zentren[y] + rng.normal(0, 1.0, (n, 6))
    rest = rng.normal(0, 1.0, (n, d - 6))
    mix = rng.normal(0, 0.5, (6, d - 6))
    X = np.concatenate([info, rest + info @ mix], 1)
    return X.astype(np.float32), y.astype(np.int64)


X, y = erzeuge_daten()
X = (X - X.mean(0)) / X.std(0)
n_train = 3200
train_ds = TensorDataset(torch.from_numpy(X[:n_train]), torch.from_numpy(y[:n_train]))
val_ds = TensorDataset(torch.from_numpy(X[n_train:]), torch.from_numpy(y[n_train:]))
train_dl = DataLoader(train_ds, batch_size=BATCH, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=256)

modell = nn.Sequential(
    nn.Linear(20, 128), nn.LeakyReLU(),
    nn.Linear(128, 128), nn.LeakyReLU(),
    nn.Linear(128, 64), nn.LeakyReLU(),
    nn.Linear(64, 4),
)
opt = torch.optim.Adam(modell.parameters(), lr=LR)
kriterium = nn.CrossEntropyLoss()

for epoche in range(1, EPOCHS + 1):
    modell.train()
    verlust_summe, richtig, anzahl, max_norm = 0.0, 0, 0, 0.0
    for xb, yb in train_dl:
        opt.zero_grad()
        out = modell(xb)
        verlust = kriterium(out, yb)
        verlust.backward()
        norm = torch.nn.utils.clip_grad_norm_(modell.parameters(), float("inf")).item()
        max_norm = max(max_norm, norm)
        opt.step()
        verlust_summe += verlust.item() * len(yb)
        richtig += (out.argmax(1) == yb).sum().item()
        anzahl += len(yb)
    modell.eval()
    v_summe, v_richtig, v_anzahl = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in val_dl:
            out = modell(xb)
            v_summe += kriterium(out, yb).item() * len(yb)
            v_richtig += (out.argmax(1) == yb).sum().item()
            v_anzahl += len(yb)
    print(f"Epoche {epoche}/{EPOCHS} - Verlust: {de(verlust_summe / anzahl)} - Genauigkeit: {de(100 * richtig / anzahl, 1)} %"
          f" - Val-Verlust: {de(v_summe / v_anzahl)} - Val-Genauigkeit: {de(100 * v_richtig / v_anzahl, 1)} %"
          f" - max. Gradnorm: {de(max_norm, 1)}")
''',
    "run06": r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(11)
torch.set_num_threads(1)
rng = np.random.default_rng(11)

NB_CLASSES = 6
N = 3000
centres = rng.normal(0, 1.6, (NB_CLASSES, 12))
y = rng.integers(0, NB_CLASSES, N)
X = centres[y] + rng.normal(0, 1.0, (N, 12))
X = ((X - X.mean(0)) / X.std(0)).astype(np.float32)
y = y.astype(np.int64)

ds_train = TensorDataset(torch.from_numpy(X[:2400]), torch.from_numpy(y[:2400]))
ds_val = TensorDataset(torch.from_numpy(X[2400:]), torch.from_numpy(y[2400:]))
dl_train = DataLoader(ds_train, batch_size=32, shuffle=True)
dl_val = DataLoader(ds_val, batch_size=200)


class Classifieur(nn.Module):
    def __init__(self):
        super().__init__()
        self.reseau = nn.Sequential(
            nn.Linear(12, 64),
            nn.ReLU(),
            nn.Linear(64, 64),
            nn.ReLU(),
            nn.Linear(64, NB_CLASSES),
            nn.Softmax(dim=1),
        )

    def forward(self, x):
        return self.reseau(x)


modele = Classifieur()
critere = nn.CrossEntropyLoss()
optimiseur = torch.optim.Adam(modele.parameters(), lr=1e-3)


def virgule(v, n=4):
    return f"{v:.{n}f}".replace(".", ",")


for epoque in range(1, 26):
    modele.train()
    pertes = []
    for xb, yb in dl_train:
        optimiseur.zero_grad()
        perte = critere(modele(xb), yb)
        perte.backward()
        optimiseur.step()
        pertes.append(perte.item())
    modele.eval()
    bons, tot, pv = 0, 0, []
    with torch.no_grad():
        for xb, yb in dl_val:
            sortie = modele(xb)
            pv.append(critere(sortie, yb).item())
            bons += (sortie.argmax(1) == yb).sum().item()
            tot += len(yb)
    print(f"Époque {epoque:02d} | perte entraînement {virgule(np.mean(pertes))} | perte validation {virgule(np.mean(pv))} | exactitude {virgule(100 * bons / tot, 2)} %")
''',
    "run07": r'''import numpy as np
import pandas as pd
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)

df = pd.read_csv("klanten_2023.csv")
kenmerken = [c for c in df.columns if c not in ("klant_id", "opgezegd")]
print("Kenmerken:", kenmerken)

df = df.sample(frac=1, random_state=0).reset_index(drop=True)
grens = int(0.8 * len(df))
train, val = df.iloc[:grens], df.iloc[grens:]

gem = train[kenmerken].mean()
sd = train[kenmerken].std()


def naar_tensor(d):
    X = torch.tensor(((d[kenmerken] - gem) / sd).values, dtype=torch.float32)
    y = torch.tensor(d["opgezegd"].values, dtype=torch.float32)
    return X, y


X_train, y_train = naar_tensor(train)
X_val, y_val = naar_tensor(val)

model = nn.Sequential(
    nn.Linear(len(kenmerken), 64), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(64, 32), nn.ReLU(),
    nn.Linear(32, 1),
)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
loss_fn = nn.BCEWithLogitsLoss()


def komma(x, n=4):
    return f"{x:.{n}f}".replace(".", ",")


def evalueer(X, y):
    model.eval()
    with torch.no_grad():
        logits = model(X).squeeze(1)
        verlies = loss_fn(logits, y).item()
        pred = (logits > 0).float()
        nauwk = (pred == y).float().mean().item() * 100
        recall = (pred[y == 1] == 1).float().mean().item() * 100 if (y == 1).any() else float("nan")
    return verlies, nauwk, recall


for epoch in range(1, 11):
    model.train()
    perm = torch.randperm(len(y_train))
    som, goed = 0.0, 0
    for i in range(0, len(perm), 64):
        idx = perm[i:i + 64]
        optimizer.zero_grad()
        logits = model(X_train[idx]).squeeze(1)
        verlies = loss_fn(logits, y_train[idx])
        verlies.backward()
        optimizer.step()
        som += verlies.item() * len(idx)
        goed += ((logits > 0).float() == y_train[idx]).sum().item()
    vv, vn, vr = evalueer(X_val, y_val)
    print(f"Epoch {epoch:2d}/10 | train verlies {komma(som / len(perm))} | train nauwk. {komma(100 * goed / len(perm), 2)}%"
          f" | val verlies {komma(vv)} | val nauwk. {komma(vn, 2)}% | val recall {komma(vr, 1)}%")

torch.save(model.state_dict(), "churn_model.pt")

nieuw = pd.read_csv("klanten_jan2024.csv")
X_n, y_n = naar_tensor(nieuw)
nv, na, nr = evalueer(X_n, y_n)
print(f"Nieuwe klanten (jan 2024): verlies {komma(nv)} | nauwk. {komma(na, 2)}% | recall opzeggers {komma(nr, 1)}%")
''',
    "run08": r'''import csv
import numpy as np
import torch
import torch.nn as nn

SEME = 8
torch.manual_seed(SEME)
torch.set_num_threads(1)
rng = np.random.default_rng(SEME)

n, d = 400, 40
w = np.zeros(d)
w[:6] = rng.normal(0, 0.7, 6)
X = rng.normal(0, 1, (n, d))
logit = X @ w + 0.5 * np.sin(3 * X[:, 0])
y = (logit + rng.normal(0, 1.0, n) > 0).astype(np.float32)
X = X.astype(np.float32)

X_tr, y_tr = torch.tensor(X[:300]), torch.tensor(y[:300])
X_va, y_va = torch.tensor(X[300:]), torch.tensor(y[300:])

rete = nn.Sequential(
    nn.Linear(d, 256), nn.ReLU(),
    nn.Linear(256, 256), nn.ReLU(),
    nn.Linear(256, 256), nn.ReLU(),
    nn.Linear(256, 1),
)
ottim = torch.optim.Adam(rete.parameters(), lr=3e-4)
criterio = nn.BCEWithLogitsLoss()
EPOCHE = 150


def virgola(x, n=4):
    return f"{x:.{n}f}".replace(".", ",")


with open("storico.csv", "w", newline="") as fh:
    scrittore = csv.writer(fh, delimiter=";")
    scrittore.writerow(["epoca", "perdita", "accuratezza", "val_perdita", "val_accuratezza"])
    for epoca in range(1, EPOCHE + 1):
        rete.train()
        perm = torch.randperm(300)
        tot, giusti = 0.0, 0
        for i in range(0, 300, 30):
            idx = perm[i:i + 30]
            ottim.zero_grad()
            out = rete(X_tr[idx]).squeeze(1)
            perdita = criterio(out, y_tr[idx])
            perdita.backward()
            ottim.step()
            tot += perdita.item() * len(idx)
            giusti += ((out > 0).float() == y_tr[idx]).sum().item()
        rete.eval()
        with torch.no_grad():
            ov = rete(X_va).squeeze(1)
            vp = criterio(ov, y_va).item()
            va = ((ov > 0).float() == y_va).float().mean().item() * 100
        p, a = tot / 300, 100 * giusti / 300
        scrittore.writerow([epoca, virgola(p), virgola(a, 1), virgola(vp), virgola(va, 1)])
        if epoca == 1 or epoca % 5 == 0:
            print(f"Epoca {epoca}: perdita {virgola(p)} accuratezza {virgola(a, 1)}% | val_perdita {virgola(vp)} val_accuratezza {virgola(va, 1)}%")
''',
    "run09": r'''import math
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(5)
torch.set_num_threads(1)
rng = np.random.default_rng(5)

CLASSES = ["cercle", "carre", "triangle", "croix"]
TAILLE = 16


def dessine(forme):
    img = np.zeros((TAILLE, TAILLE), dtype=np.float32)
    yy, xx = np.mgrid[0:TAILLE, 0:TAILLE]
    cx, cy = rng.uniform(5, 11, 2)
    r = rng.uniform(3, 5)
    if forme == 0:
        img[np.abs(np.hypot(xx - cx, yy - cy) - r) < 0.9] = 1.0
    elif forme == 1:
        m = (np.abs(xx - cx) <= r) & (np.abs(yy - cy) <= r)
        m_int = (np.abs(xx - cx) <= r - 1.2) & (np.abs(yy - cy) <= r - 1.2)
        img[m & ~m_int] = 1.0
    elif forme == 2:
        m = (yy - cy <= r) & (yy - cy >= -r) & (np.abs(xx - cx) <= (yy - cy + r) / 2)
        img[m] = 1.0
    else:
        img[(np.abs(xx - cx) < 1.0) & (np.abs(yy - cy) <= r)] = 1.0
        img[(np.abs(yy - cy) < 1.0) & (np.abs(xx - cx) <= r)] = 1.0
    img += rng.normal(0, 0.6, img.shape)
    return img


def jeu(n):
    y = rng.integers(0, 4, n)
    X = np.stack([dessine(k) for k in y])[:, None]
    return torch.tensor(X), torch.tensor(y, dtype=torch.long)


X_val, y_val = jeu(400)

modele = nn.Sequential(
    nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(16 * 4 * 4, 32), nn.ReLU(),
    nn.Linear(32, 4),
)
EPOQUES = 30
BATCH = 16
opt = torch.optim.SGD(modele.parameters(), lr=0.01, momentum=0.9)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOQUES)
critere = nn.CrossEntropyLoss()


def f(x, n=3):
    return f"{x:.{n}f}".replace(".", ",")


journal = open("journal.txt", "w", encoding="utf-8")
etape = 0
for ep in range(EPOQUES):
    modele.train()
    X_train, y_train = jeu(1600)
    perm = torch.randperm(len(y_train))
    cumul = 0.0
    for i in range(0, len(perm), BATCH):
        idx = perm[i:i + BATCH]
        opt.zero_grad()
        perte = critere(modele(X_train[idx]), y_train[idx])
        perte.backward()
        opt.step()
        etape += 1
        cumul += perte.item()
        if etape % 50 == 0:
            journal.write(f"étape {etape} perte {f(perte.item())} lr {f(sched.get_last_lr()[0], 5)}\n")
    sched.step()
    modele.eval()
    with torch.no_grad():
        s = modele(X_val)
        pv = critere(s, y_val).item()
        acc = (s.argmax(1) == y_val).float().mean().item()
    ligne = f"époque {ep + 1}/{EPOQUES} perte={f(cumul / math.ceil(len(perm) / BATCH))} perte_val={f(pv)} précision_val={f(acc)}"
    print(ligne)
    journal.write(ligne + "\n")
journal.close()
''',
    "run10": r'''import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(10)
torch.set_num_threads(1)
rng = np.random.default_rng(10)

KLASSEN = 5
GROESSE = 12


def erzeuge_bilder(n):
    y = rng.integers(0, KLASSEN, n)
    yy, xx = np.mgrid[0:GROESSE, 0:GROESSE]
    bilder = []
    for k in y:
        winkel = k * np.pi / KLASSEN + rng.normal(0, 0.08)
        frequenz = 0.9 + 0.15 * rng.normal()
        muster = np.sin(frequenz * (np.cos(winkel) * xx + np.sin(winkel) * yy) + rng.uniform(0, 2 * np.pi))
        bilder.append(muster + rng.normal(0, 0.5, muster.shape))
    return torch.tensor(np.stack(bilder)[:, None], dtype=torch.float32), torch.tensor(y)


X_train, y_train = erzeuge_bilder(2000)
X_val, y_val = erzeuge_bilder(500)


class TexturNetz(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.classifier = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, KLASSEN))

    def forward(self, x):
        return self.classifier(self.features(x))


model = TexturNetz()
for name, param in model.named_parameters():
    if not name.startswith("fc"):
        param.requires_grad = False

optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()


def grad_norm(m):
    total = 0.0
    for p in m.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return total ** 0.5


EPOCHS = 20
for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(y_train))
    running, correct = 0.0, 0
    for i in range(0, len(perm), 50):
        idx = perm[i:i + 50]
        optimizer.zero_grad()
        out = model(X_train[idx])
        loss = criterion(out, y_train[idx])
        loss.requires_grad_(True)
        loss.backward()
        optimizer.step()
        running += loss.item() * len(idx)
        correct += (out.argmax(1) == y_train[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        vout = model(X_val)
        val_loss = criterion(vout, y_val).item()
        val_acc = (vout.argmax(1) == y_val).float().mean().item()
    print(f"Epoch [{epoch + 1}/{EPOCHS}] loss: {running / len(perm):.4f} acc: {correct / len(perm):.4f}"
          f" val_loss: {val_loss:.4f} val_acc: {val_acc:.4f} grad_norm: {grad_norm(model):.4f}")
''',
    "run11": r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(4)
torch.set_num_threads(1)
rng = np.random.default_rng(4)

CLASSI = ["normale", "usura", "guasto"]
righe = []
for k in range(3):
    centro = rng.normal(0, 1.0, 8)
    campioni = centro + rng.normal(0, 1.0, (1200, 8))
    righe.append(np.column_stack([campioni, np.full(1200, k)]))
dati = np.concatenate(righe)

X = dati[:, :8].astype(np.float32)
y = dati[:, 8].astype(np.int64)
X = (X - X.mean(0)) / X.std(0)

val_idx = np.arange(0, len(y), 6)
train_idx = np.setdiff1d(np.arange(len(y)), val_idx)
train_ds = TensorDataset(torch.from_numpy(X[train_idx]), torch.from_numpy(y[train_idx]))
val_ds = TensorDataset(torch.from_numpy(X[val_idx]), torch.from_numpy(y[val_idx]))
train_loader = DataLoader(train_ds, batch_size=32, shuffle=False)
val_loader = DataLoader(val_ds, batch_size=256, shuffle=False)

modello = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 3))
ottimizzatore = torch.optim.SGD(modello.parameters(), lr=0.05, momentum=0.9)
criterio = nn.CrossEntropyLoss()


def num(x, n=4):
    return f"{x:.{n}f}".replace(".", ",")


def migliaia(n):
    return f"{n:,}".replace(",", ".")


EPOCHE = 15
passo = 0
log = open("log_addestramento.csv", "w")
log.write("passo;epoca;perdita\n")
for epoca in range(1, EPOCHE + 1):
    modello.train()
    perdite = []
    for xb, yb in train_loader:
        ottimizzatore.zero_grad()
        perdita = criterio(modello(xb), yb)
        perdita.backward()
        ottimizzatore.step()
        passo += 1
        perdite.append(perdita.item())
        log.write(f"{passo};{epoca};{num(perdita.item())}\n")
        if passo % 10 == 0:
            print(f"passo {migliaia(passo)} | epoca {epoca} | perdita {num(perdita.item())}")
    modello.eval()
    giusti, totale = 0, 0
    with torch.no_grad():
        for xb, yb in val_loader:
            giusti += (modello(xb).argmax(1) == yb).sum().item()
            totale += len(yb)
    print(f"== Epoca {epoca}/{EPOCHE} - perdita media {num(float(np.mean(perdite)))} - accuratezza val {num(100 * giusti / totale, 1)}%")
log.close()
''',
    "run12": r'''import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

np.random.seed(12)
torch.manual_seed(12)
torch.set_num_threads(1)


def maak_dataset(n=9000, n_kenmerken=16, n_klassen=3):
    centra = np.random.normal(0, 1.5, (n_klassen, n_kenmerken))
    klasse = np.random.randint(0, n_klassen, n)
    X = centra[klasse] + np.random.normal(0, 1.0, (n, n_kenmerken))
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(n_kenmerken)])
    df["klasse"] = klasse
    return df


df = maak_dataset()
kenmerken = [c for c in df.columns if c != "klasse"]

X = df[kenmerken].sample(frac=1, random_state=42).to_numpy(dtype=np.float32)
y = df["klasse"].sample(frac=1).to_numpy()

X = (X - X.mean(axis=0)) / X.std(axis=0)
split = int(0.8 * len(X))
train_dl = DataLoader(TensorDataset(torch.tensor(X[:split]), torch.tensor(y[:split])),
                      batch_size=64, shuffle=True)
X_val, y_val = torch.tensor(X[split:]), torch.tensor(y[split:])

model = nn.Sequential(
    nn.Linear(16, 32), nn.ReLU(),
    nn.Linear(32, 32), nn.ReLU(),
    nn.Linear(32, 3),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

EPOCHS = 15
for epoch in range(EPOCHS):
    model.train()
    losses, correct, seen = [], 0, 0
    for xb, yb in train_dl:
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        correct += (out.argmax(1) == yb).sum().item()
        seen += len(yb)
    model.eval()
    with torch.no_grad():
        vout = model(X_val)
        val_loss = criterion(vout, y_val).item()
        val_acc = (vout.argmax(1) == y_val).float().mean().item()
    print(f"Epoch {epoch + 1}/{EPOCHS} - loss: {np.mean(losses):.4f} - accuracy: {correct / seen:.4f}"
          f" - val_loss: {val_loss:.4f} - val_accuracy: {val_acc:.4f}")
''',
}

# data files some scripts read (written to the scratch folder, never shipped)
DATA_SCRIPTS = {
    "run04": r'''import numpy as np, pandas as pd
rng = np.random.default_rng(404)
n = 8000
df = pd.DataFrame({
    "temperatuur": rng.normal(61, 6, n).round(2),
    "druk": rng.normal(3.2, 0.4, n).round(3),
    "trilling": rng.gamma(2.0, 0.6, n).round(3),
    "toerental": rng.normal(1450, 120, n).round(0),
    "stroom": rng.normal(12.5, 1.5, n).round(2),
    "vochtigheid": rng.uniform(20, 80, n).round(1),
})
z = 0.25 * (df.temperatuur - 61) + 1.6 * (df.trilling - 1.2) + 2.0 * (df.druk - 3.2) - 1.2
df["defect"] = (z + rng.logistic(0, 0.7, n) > 0).astype(int)
miss = rng.choice(n, 3, replace=False)
df.loc[miss, "trilling"] = np.nan
df.to_csv("metingen.csv", sep=";", decimal=",", index=False)
''',
    "run07": r'''import numpy as np, pandas as pd


def maak(n, rng, met_opzegging=True):
    leeftijd = rng.integers(18, 80, n)
    maanden = rng.integers(1, 72, n)
    bedrag = rng.normal(35, 12, n).clip(5, 90).round(2)
    klachten = rng.poisson(0.8, n)
    uren = rng.gamma(3, 6, n).round(1)
    korting = rng.choice([0, 5, 10, 15], n, p=[0.55, 0.2, 0.15, 0.1])
    z = -0.03 * maanden + 0.6 * klachten - 0.04 * uren + 0.02 * (bedrag - 35) - 0.05 * korting + 0.3
    opgezegd = (z + rng.logistic(0, 0.8, n) > 0).astype(int)
    dagen = np.where(opgezegd == 1, rng.integers(1, 60, n), 0)
    if not met_opzegging:
        dagen = np.zeros(n, dtype=int)
    return pd.DataFrame({"klant_id": np.arange(n) + (100000 if met_opzegging else 200000),
                         "leeftijd": leeftijd, "abonnement_maanden": maanden, "maandbedrag": bedrag,
                         "klachten_90d": klachten, "gebruik_uren": uren, "korting_pct": korting,
                         "dagen_sinds_opzegging": dagen, "opgezegd": opgezegd})


rng = np.random.default_rng(77)
a = maak(6000, rng, True)
b = maak(1500, rng, False)
a.to_csv("klanten_2023.csv", index=False)
b.to_csv("klanten_jan2024.csv", index=False)
''',
}

SHIP_TRAIN_PY = {"run01", "run03", "run07", "run09", "run10", "run12"}

TRUTH = {
    "run01": {
        "truth": "missing_zero_grad",
        "symptom": "Mein kleines MLP auf den Zwei-Monde-Daten wird mit jeder Epoche schlechter: der Verlust steigt von etwa 2,6 auf über 80 und die Gradientennorm wächst ständig, obwohl die Lernrate klein ist.",
        "how": "optimizer.zero_grad() is never called in the training loop (SGD lr=0.002, momentum 0.9), so .grad accumulates over all steps; the logged grad norm climbs almost monotonically from ~10 (step 25) to ~550 (step 1200) and the epoch loss grows from 2.6 to ~84 while val accuracy jumps between 47 and 93 %.",
    },
    "run02": {
        "truth": "healthy",
        "symptom": "Questo training va bene? L'accuratezza di validazione è spesso un po' più alta di quella di training, devo preoccuparmi?",
        "how": "No fault: Conv1d classifier on noisy synthetic sine sequences (4 frequencies), Adam 2e-3, 20 epochs; train and val loss fall together to ~0.06, val acc ~98 %.",
    },
    "run03": {
        "truth": "lr_too_low",
        "symptom": "Mon petit CNN n'apprend presque rien : après 40 époques la perte est toujours à 2,29 et la précision de validation vers 18 %.",
        "how": "Plain SGD (no momentum) with lr=3e-4 on a small CNN for synthetic 8x8 digits; the same script with lr=0.05 reaches ~94 % in 8 epochs. Loss falls almost linearly from 2.301 to 2.288 over 40 epochs.",
    },
    "run04": {
        "truth": "nan_in_data",
        "symptom": "Mijn verlies wordt halverwege de eerste epoch ineens nan en blijft daarna nan, ook al is de learning rate maar 1e-3.",
        "how": "The sensor CSV has 3 empty cells in the 'trilling' column; pandas standardisation skips NaN so those rows stay NaN; the first shuffled batch that contains one (epoch 1, batch 57) gives a NaN loss after a finite, falling loss, and all weights become NaN.",
    },
    "run05": {
        "truth": "lr_too_high",
        "symptom": "Der Verlust sinkt in den ersten Epochen ganz normal, aber danach gibt es immer wieder riesige Sprünge nach oben und die Gradientennorm schießt hoch.",
        "how": "Adam with lr=0.06 on a 4-layer LeakyReLU MLP (normal would be ~1e-3); loss falls to ~0.37, then spikes repeatedly (up to ~10) with max grad norm spikes up to ~280.",
    },
    "run06": {
        "truth": "double_softmax",
        "symptom": "La perte reste bloquée vers 1,05 et ne descend jamais sous 1 alors que l'exactitude de validation est à 99 %.",
        "how": "The model ends with nn.Softmax(dim=1) and its output is fed to nn.CrossEntropyLoss; with 6 classes the loss cannot go below log(1+5/e)=1.04, and it floors at ~1.05.",
    },
    "run07": {
        "truth": "data_leakage",
        "symptom": "Mijn churnmodel haalt vanaf de eerste epoch 97-99 % op de validatieset, maar op de klanten van januari herkent het geen enkele opzegger.",
        "how": "The feature list is every column except id and target, which includes 'dagen_sinds_opzegging' (days since cancellation, non-zero only for churners) - the target leaks into the inputs. Val acc 97 % at epoch 1 and >= train; on new data where the column is still 0 the recall is 0 %.",
    },
    "run08": {
        "truth": "overfitting",
        "symptom": "Dopo circa 10 epoche la perdita di validazione ricomincia a salire mentre quella di training va praticamente a zero.",
        "how": "3x256 MLP (~80k params) on only 300 training rows with 40 features (6 informative) and noisy labels, Adam 3e-4, no regularisation, 150 epochs; val loss bottoms ~0.40 near epoch 10 and climbs to ~1.09 while train loss -> 0.",
    },
    "run09": {
        "truth": "healthy",
        "symptom": "Est-ce que cet entraînement est correct ? La perte par étape est très bruitée et ça monte lentement.",
        "how": "No fault: small CNN on freshly generated noisy 16x16 shape images each epoch, SGD 0.01 momentum 0.9, batch 16, cosine schedule, 30 epochs; per-step loss noisy but epoch loss and val loss fall together, val acc 0.41 -> 0.95.",
    },
    "run10": {
        "truth": "frozen_parameters",
        "symptom": "Mein Modell lernt überhaupt nichts: der Loss bleibt 20 Epochen lang bei 1,609 und die Genauigkeit bei Zufallsniveau.",
        "how": "The freeze loop freezes every parameter whose name does not start with 'fc', but the head is called 'classifier', so all parameters get requires_grad=False; the resulting backward() error was papered over with loss.requires_grad_(True). Grad norm is exactly 0, loss stays at ln 5 = 1.609.",
    },
    "run11": {
        "truth": "data_not_shuffled",
        "symptom": "La perdita fa un dente di sega enorme durante ogni epoca e l'accuratezza di validazione salta tra il 33 % e il 66 %.",
        "how": "The rows are grouped by class (all 'normale', then 'usura', then 'guasto') and the training DataLoader uses shuffle=False, so every epoch walks the classes in blocks; per-step loss drops to ~0 within a block and spikes at each class boundary, epoch-aligned.",
    },
    "run12": {
        "truth": "label_misalignment",
        "symptom": "Mijn model blijft rond de 33 % hangen en de loss blijft rond 1,10 voor 3 klassen, hoe lang ik ook train.",
        "how": "Features and labels are shuffled separately (df[features].sample(frac=1, random_state=42) vs df['klasse'].sample(frac=1) without the same seed), so inputs and targets are no longer paired; loss stays near ln 3 and val accuracy at chance.",
    },
}


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def komma(x, n=2):
    """decimal comma, dot as thousands separator (de/it/nl style)"""
    s = f"{x:,.{n}f}"
    return s.replace(",", "_").replace(".", ",").replace("_", ".")


def fence(lines, lang=""):
    if isinstance(lines, str):
        lines = lines.rstrip("\n").split("\n")
    return "```" + lang + "\n" + "\n".join(lines) + "\n```"


def cut(lines, head, tail, mark="[...]"):
    if len(lines) <= head + tail:
        return list(lines)
    return list(lines[:head]) + [mark] + list(lines[-tail:])


def snippet(name, start, end):
    """lines of the real script between two marker lines (inclusive)"""
    src = SCRIPTS[name].split("\n")
    i = next(k for k, l in enumerate(src) if l.startswith(start))
    j = next(k for k in range(i, len(src)) if src[k].startswith(end))
    return "\n".join(src[i:j + 1])


def num(s):
    return float(s.replace(".", "").replace(",", ".")) if "," in s else float(s)


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


# ---------------------------------------------------------------------------
# posts (one builder per run; numbers quoted in the prose come from the run)
# ---------------------------------------------------------------------------
def post_run01(out, wd):
    ep = out.strip().split("\n")
    steps = [l for l in read(os.path.join(wd, "train_log.txt")).split("\n") if l.startswith("Schritt")]
    g = [num(re.search(r"Gradientennorm:? ([\d.,]+)", l).group(1)) for l in ep]
    v1 = re.search(r"Verlust: ([\d.,]+)", ep[0]).group(1)
    vN = re.search(r"Verlust: ([\d.,]+)", ep[-1]).group(1)
    s25 = re.search(r"Verlust ([\d.,]+)", steps[0]).group(1)
    return f"""# Verlust und Gradientennorm werden immer größer – simples MLP auf Zwei-Monde-Daten

**Forum › PyTorch › Anfängerfragen**
**Beitrag von** `mk_lernt_ml`

Hallo zusammen,

ich arbeite mich gerade in PyTorch ein und trainiere als Übung ein kleines MLP (2 → 64 → 64 → 2, Tanh)
auf einem selbst erzeugten Zwei-Monde-Datensatz (6.000 Punkte, davon 5.000 Training und 1.000 Validierung,
standardisiert). Optimierer ist SGD mit `lr=0.002` und `momentum=0.9`, Batchgröße 50, 12 Epochen, CPU, torch 2.x.

Eigentlich sollte das doch trivial sein, aber der Verlust wird von Epoche zu Epoche **größer**: in der ersten
Epoche im Mittel {v1}, am Ende {vN}. Die Gradientennorm, die ich nach jedem `backward()` ausrechne, steigt
von {komma(g[0])} auf {komma(g[-1])}. Die Val-Genauigkeit springt wild hin und her. Mit `lr=0.0005` sieht es
fast genauso aus, nur etwas langsamer.

Ausgabe:

{fence(ep)}

Auszug aus `train_log.txt` (das Skript schreibt alle 25 Schritte eine Zeile, die Datei hängt komplett an):

{fence(cut(steps, 8, 4))}

Bei Schritt 25 lag der Verlust noch bei {s25}, danach geht es praktisch nur noch nach oben. Das Skript hängt als
`train.py` an. Kann mir jemand sagen, wo mein Denkfehler liegt? Ich habe schon an den Daten gezweifelt, aber
die Punkte sehen geplottet genau so aus wie im sklearn-Beispiel.

Danke schon mal!
"""


def post_run02(out, wd):
    ep = out.strip().split("\n")
    last = ep[-1]
    acc = re.search(r"accuratezza: ([\d,]+)%", last).group(1)
    vacc = re.search(r"accuratezza_val: ([\d,]+)%", last).group(1)
    return f"""# Conv1d su serie temporali: è normale che la validazione sia meglio del training?

**Forum › Deep Learning › Principianti**
**Inviato da** `giuli_dati`

Ciao a tutti,

sto facendo un piccolo esperimento di classificazione di segnali: genero sinusoidi rumorose (4 frequenze
diverse, fase e ampiezza casuali, rumore gaussiano con sigma 0,6), lunghe 40 campioni. 3.000 sequenze per il
training e 600 per la validazione, generate con lo stesso generatore.

Il modello è semplicissimo: due `Conv1d` (1→16→32, kernel 5) con ReLU, `AdaptiveAvgPool1d(1)` e un
`Linear(32, 4)`. Adam con lr 2e-3, batch da 32, 20 epoche, CrossEntropyLoss. Calcolo perdita e accuratezza di
training come media sui batch durante l'epoca, quella di validazione alla fine dell'epoca con `model.eval()`.

Questo è l'output completo:

{fence(ep)}

Alla fine sono a {acc}% in training e {vacc}% in validazione. Quello che non capisco è perché in parecchie
epoche la validazione è *meglio* del training (sia perdita che accuratezza). Ho letto che potrebbe essere un
segnale che qualcosa non va con i dati... Il training va bene così o c'è un problema? Ha senso continuare con
più epoche?

Grazie!
"""


def post_run03(out, wd):
    ls = out.strip().split("\n")
    cfg, ep = ls[0], ls[1:]
    p1 = re.search(r"perte=([\d,]+)", ep[0]).group(1)
    pN = re.search(r"perte=([\d,]+)", ep[-1]).group(1)
    aN = re.search(r"précision_val=([\d,]+)", ep[-1]).group(1)
    return f"""# CNN sur des chiffres 8x8 : la perte ne baisse presque pas (2,30 → 2,29 en 40 époques)

**Question posée sur un forum d'entraide Python (section « apprentissage automatique »)**

Bonjour,

je débute avec PyTorch et j'essaie de classer des petites images 8x8 (10 classes, style « digits » de
scikit-learn, mais générées par mon propre script : 1 800 images, 1 440 pour l'entraînement et 360 pour la
validation, valeurs ramenées entre 0 et 1). Le modèle est un petit CNN : deux convolutions 3x3 (16 puis 32
filtres), un max-pooling et une couche linéaire.

Le problème : ça n'apprend quasiment rien. En 40 époques la perte passe de {p1} à {pN} et la précision de
validation finit à {aN}. Le temps de calcul n'est pas le problème, tout tourne en moins d'une minute sur mon portable.

Voici la sortie :

{fence([cfg] + cut(ep, 6, 6))}

L'historique complet est dans `historique.csv` (séparateur « ; », virgule décimale, je l'ouvre dans Excel)
et le script complet est `train.py`.

Est-ce que mon réseau est trop petit ? Ou bien mes images sont trop bruitées ? J'ai vérifié les étiquettes
à la main sur une vingtaine d'images, elles sont correctes.

Merci d'avance pour votre aide.
"""


def post_run04(out, wd):
    ls = out.rstrip("\n").split("\n")
    k = next(i for i, l in enumerate(ls) if l.startswith("Epoch"))
    desc, tr = ls[:k], ls[k:]
    logl = read(os.path.join(wd, "training.log")).split("\n")
    first_nan = next(l for l in logl if l.endswith("nan"))
    b = re.search(r"batch (\d+)/", first_nan).group(1)
    code = snippet("run04", 'df = pd.read_csv', 'y = torch.tensor')
    return f"""# Verlies wordt `nan` halverwege de eerste epoch (tabulaire sensordata, BCEWithLogitsLoss)

**Forum › Programmeren › Python & data science**
**Geplaatst door** `jeroen_vdb`

Hoi allemaal,

ik probeer met een klein netwerkje te voorspellen of een pomp defect raakt op basis van sensormetingen
(temperatuur, druk, trilling, toerental, stroom, vochtigheid). De data komt als CSV uit ons meetsysteem
(puntkomma als scheidingsteken, komma als decimaalteken), 8.000 rijen, waarvan 6.400 voor training.

Het netwerk is een MLP 6 → 32 → 16 → 1 met `BCEWithLogitsLoss`, Adam met lr 1e-3, batch size 64, 5 epochs.
Inladen en normaliseren doe ik zo:

{fence(code, "python")}

Dit is de uitvoer (eerst de `describe()` die het script print, daarna de training):

{fence(desc + tr[:12] + ["[...]"] + tr[-6:])}

Het verlies daalt eerst netjes, maar halverwege de eerste epoch wordt het `nan` en daarna blijft alles `nan`.
In `training.log` (hangt erbij, één regel per batch) zie ik dat het precies bij batch {b} van epoch 1 begint.
De val-nauwkeurigheid blijft hangen op hetzelfde getal, alsof het model altijd 0 voorspelt.

Ik dacht eerst aan een te hoge learning rate, maar 1e-3 met Adam is toch heel gewoon? Iemand een idee waar
ik moet zoeken?
"""


def post_run05(out, wd):
    ep = out.strip().split("\n")
    v = [num(re.search(r"- Verlust: ([\d.,]+|nan)", l).group(1)) for l in ep]
    gn = [num(re.search(r"Gradnorm: ([\d.,]+)", l).group(1)) for l in ep]
    imin = min(range(len(v[:10])), key=lambda i: v[i])
    imax = max(range(len(v)), key=lambda i: v[i])
    return f"""# [Training] Verlust springt nach ein paar Epochen immer wieder nach oben (MLP, tabellarische Daten)

**Issue #47 · interne-ml-tools/klassifikation** — geöffnet von `s-huber`

### Beschreibung

Beim Training unseres Standard-MLP auf dem neuen Datensatz (20 Merkmale, 4 Klassen, 4.000 Zeilen, davon
3.200 Training / 800 Validierung, Merkmale standardisiert) sinkt der Verlust in den ersten Epochen ganz normal
(Minimum {komma(v[imin], 4)} in Epoche {imin + 1}), danach kommen aber immer wieder riesige Ausreißer nach oben,
der größte in Epoche {imax + 1} mit {komma(v[imax], 4)}. Gleichzeitig schießt die maximale Gradientennorm pro
Epoche hoch (bis {komma(max(gn), 1)}). Am Ende ist das Modell schlechter als nach Epoche 2.

### Konfiguration

| Parameter | Wert |
|---|---|
| Modell | MLP 20 → 128 → 128 → 64 → 4, LeakyReLU |
| Optimierer | Adam, `lr = 0.06`, sonst Standardwerte |
| Batchgröße | 64, `shuffle=True` |
| Epochen | 30 |
| Verlust | `CrossEntropyLoss` |
| Gradnorm | `clip_grad_norm_(…, inf)`, Maximum pro Epoche |
| Umgebung | torch 2.x, CPU, Python 3.11 |

### Ausgabe

{fence(ep)}

### Erwartetes Verhalten

Verlust sollte sich wie auf dem alten Datensatz irgendwo bei 0,3 einpendeln, ohne diese Sprünge.

### Was ich schon geprüft habe

- Keine NaN/Inf in den Merkmalen, alle Spalten standardisiert (Mittelwert 0, Std 1).
- Klassen sind ungefähr gleich verteilt.
"""


def post_run06(out, wd):
    ep = out.strip().split("\n")
    code = snippet("run06", "class Classifieur", "        return self.reseau(x)")
    pN = re.search(r"perte entraînement ([\d,]+)", ep[-1]).group(1)
    aN = re.search(r"exactitude ([\d,]+) %", ep[-1]).group(1)
    return f"""# Perte bloquée vers 1,05 alors que l'exactitude est à 99 % — PyTorch

**Question (forum francophone de programmation, tags : python, pytorch, classification)**

Bonjour à tous,

je classe des échantillons de sol en 6 catégories à partir de 12 mesures (3 000 exemples, 2 400 en
entraînement / 600 en validation, variables centrées-réduites). L'exactitude de validation monte très vite
à 98-99 %, donc a priori le modèle fonctionne, mais la perte, elle, reste coincée autour de 1,05 et ne
descend jamais en dessous de 1. Avec mes autres projets la perte descend normalement vers 0,0x quand
l'exactitude est aussi bonne.

Voici mon modèle :

{fence(code, "python")}

Perte : `nn.CrossEntropyLoss()`, optimiseur Adam (lr = 1e-3), batch de 32, 25 époques.

Sortie complète :

{fence(ep)}

À la fin : perte d'entraînement {pN}, exactitude {aN} %. Est-ce que c'est normal qu'une perte aussi élevée
coexiste avec une telle exactitude ? J'ai essayé d'entraîner plus longtemps, mais la perte ne bouge quasiment
plus. Je voudrais utiliser les probabilités en sortie pour un seuil de décision, donc ça m'inquiète un peu.

Merci !
"""


def post_run07(out, wd):
    ls = out.strip().split("\n")
    ep = [l for l in ls if l.startswith("Epoch")]
    a1 = re.search(r"val nauwk\. ([\d,]+)%", ep[0]).group(1)
    new = ls[-1]
    rec = re.search(r"recall opzeggers ([\d,]+)%", new).group(1)
    return f"""# Churnmodel: 99 % op validatie, maar vindt geen enkele opzegger in nieuwe data

**Issue #12 · team-analytics/churn-voorspelling** — geopend door `l.dekker`

**Wat ik probeer te doen**

Voorspellen welke klanten hun abonnement opzeggen. Ik train een klein MLP op de klantdata van 2023
(6.000 klanten, ~25 % opzeggers) met een 80/20 train/validatie-split, en wil het daarna elke maand draaien op
de nieuwe klanten.

**Wat er gebeurt**

De validatie ziet er fantastisch uit: al na de eerste epoch {a1}% nauwkeurigheid, en de validatie is bijna
altijd even goed of beter dan de training. Maar op de klanten van januari 2024 (waar we achteraf weten wie er
heeft opgezegd) is de nauwkeurigheid niet beter dan gewoon "niemand zegt op" voorspellen, en de recall op de
opzeggers is {rec}%.

Uitvoer van `train.py` (hangt erbij):

{fence(ls)}

De CSV-bestanden kan ik helaas niet delen (klantgegevens), maar de kolommen staan in de eerste regel van de
uitvoer. Beide bestanden komen uit dezelfde export van het CRM, alleen een andere maand.

**Omgeving:** torch 2.x (CPU), pandas 2.x, Python 3.11

Is het model overfit op 2023? Ik gebruik al dropout en weight decay. Of is januari gewoon een rare maand?
"""


def post_run08(out, wd):
    ep = out.strip().split("\n")
    rows = [r.split(";") for r in read(os.path.join(wd, "storico.csv")).strip().split("\n")[1:]]
    vp = [num(r[3]) for r in rows]
    imin = min(range(len(vp)), key=lambda i: vp[i])
    return f"""# La val_perdita risale dopo ~10 epoche mentre la perdita di training va a zero

**Forum › Machine Learning › PyTorch**
**Inviato da** `marco_b87`

Salve,

ho un dataset tabellare piccolo: 400 righe con 40 feature numeriche (già standardizzate) e un target binario.
Uso 300 righe per il training e 100 per la validazione. Il modello è un MLP 40 → 256 → 256 → 256 → 1 con ReLU,
`BCEWithLogitsLoss`, Adam con lr 3e-4, batch da 30, 150 epoche.

Stampo le metriche ogni 5 epoche (lo storico completo di ogni epoca è in `storico.csv`, allegato):

{fence(cut(ep, 8, 6, "[... stesse cose fino alla fine ...]"))}

Il minimo della perdita di validazione è all'epoca {imin + 1} ({rows[imin][3]}); poi risale fino a {rows[-1][3]}
all'epoca {rows[-1][0]}, mentre la perdita di training arriva a {rows[-1][1]} e l'accuratezza di training al 100%.
L'accuratezza di validazione invece si ferma intorno all'83-84%.

Pensavo che con più epoche il modello migliorasse. Devo aumentare ancora le epoche o cambiare learning rate?
Oppure è un problema dei dati? Grazie in anticipo.
"""


def post_run09(out, wd):
    ep = out.strip().split("\n")
    j = [l for l in read(os.path.join(wd, "journal.txt")).split("\n") if l.startswith("étape")]
    a1 = re.search(r"précision_val=([\d,]+)", ep[0]).group(1)
    aN = re.search(r"précision_val=([\d,]+)", ep[-1]).group(1)
    pj = [(int(l.split()[1]), re.search(r"perte ([\d,]+)", l).group(1)) for l in j]
    jump = [(a, b) for a, b in zip(pj, pj[1:]) if num(b[1]) > 4 * num(a[1])][-1]
    return f"""# Perte très bruitée d'une étape à l'autre avec un petit CNN — est-ce normal ?

**Sujet ouvert sur un forum francophone d'IA (rubrique « Débutants »)**

Bonjour,

pour apprendre, je classe des images 16x16 de formes (cercle, carré, triangle, croix) avec beaucoup de bruit
gaussien. Les images sont générées à la volée : à chaque époque mon script crée 1 600 nouvelles images
d'entraînement ; la validation est un jeu fixe de 400 images. Petit CNN (2 convolutions + 2 couches
linéaires), SGD avec momentum 0,9, lr 0,01 avec un cosine annealing sur 30 époques, batch de 16.

Sortie du script :

{fence(ep)}

et un extrait de `journal.txt` où j'écris la perte d'un seul batch toutes les 50 étapes :

{fence(cut(j, 10, 8))}

Ce qui me perturbe : la perte par batch saute dans tous les sens (par exemple {jump[0][1]} à l'étape {jump[0][0]}, puis {jump[1][1]} à l'étape {jump[1][0]}) et la
précision monte assez lentement, de {a1} à la première époque à {aN} à la fin. Est-ce que cet entraînement
est correct ou est-ce qu'il y a quelque chose qui cloche ? Le script complet est joint (`train.py`).

Merci !
"""


def post_run10(out, wd):
    ep = out.strip().split("\n")
    return f"""# Modell lernt überhaupt nichts – Loss bleibt exakt bei 1.609 (5 Klassen)

**Forum › Deep Learning › PyTorch**
**Beitrag von** `Jonas_R`

Moin,

ich habe ein kleines CNN für Texturbilder (12x12 Pixel, 5 Klassen, 2.000 Trainings- und 500 Validierungsbilder)
gebaut. Das Netz besteht aus einem `features`-Teil (zwei Conv-Blöcke mit BatchNorm) und einem `classifier`
(zwei Linear-Schichten). Ich wollte den Feature-Teil einfrieren, weil ich ihn später durch einen vortrainierten
ersetzen will, und nur den Kopf trainieren.

Anfangs kam beim `loss.backward()` ein

{fence("RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn")}

den habe ich mit `loss.requires_grad_(True)` weggekriegt (so stand es in einem anderen Thread). Seitdem läuft das
Training durch, aber es passiert einfach nichts:

{fence(ep)}

Der Loss bleibt die ganzen 20 Epochen bei 1,609 (das ist ja genau ln 5, also raten), die Accuracy bei ~18 %,
und die Gradientennorm, die ich mir am Ende jeder Epoche ausgeben lasse, ist 0. Optimierer ist Adam mit
`lr=1e-3`. Ich habe auch `lr=1e-2` probiert, gleiches Bild.

Das ganze Skript hängt an (`train.py`). Hat jemand eine Idee?
"""


def post_run11(out, wd):
    ls = out.strip().split("\n")
    summ = [l for l in ls if l.startswith("==")]
    steps = [l for l in ls if l.startswith("passo")]
    e1 = [l for l in ls if re.search(r"\| epoca 1 \|", l)]
    e8 = [l for l in ls if re.search(r"\| epoca 8 \|", l)]
    code = snippet("run11", "train_ds = TensorDataset", "val_loader = DataLoader")
    csvl = read(os.path.join(wd, "log_addestramento.csv")).strip().split("\n")
    return f"""# Perdita "a dente di sega" dentro ogni epoca e accuratezza di validazione che salta tra 33% e 66%

**Forum › Programmazione › Python / ML**
**Inviato da** `ale_manutenzione`

Buongiorno,

sto provando a classificare lo stato di una macchina (normale / usura / guasto) da 8 grandezze misurate.
Ho 3.600 righe (1.200 per classe), ne tengo una ogni sei per la validazione (600) e le altre 3.000 per il
training. MLP 8 → 32 → 32 → 3, SGD lr 0,05 con momentum 0,9, batch 32, 15 epoche. I loader sono questi:

{fence(code, "python")}

Stampo la perdita del batch ogni 10 passi e un riassunto a fine epoca. Prima epoca:

{fence(e1 + [summ[0]])}

Riassunti di tutte le epoche:

{fence(summ)}

E un pezzo dell'epoca 8, sempre ogni 10 passi:

{fence(e8)}

Il file completo con la perdita di ogni passo ({komma(len(csvl) - 1, 0)} righe) è `log_addestramento.csv`
(allegato). Dentro ogni epoca la perdita scende quasi a zero e poi di colpo schizza a 5-6, sempre più o meno
negli stessi punti dell'epoca. L'accuratezza di validazione resta sempre tra il 33% e il 66% circa, e a volte è
esattamente il 33,3%. Qualcuno sa spiegarmi cosa succede?
"""


def post_run12(out, wd):
    ep = out.strip().split("\n")
    return f"""# Model blijft op ~33 % hangen, loss blijft rond 1.10 (3 klassen)

**Forum › Programmeren › Machine learning**
**Geplaatst door** `thijs_ml`

Hallo,

voor een schoolproject moet ik een classifier maken voor een dataset met 16 numerieke kenmerken en 3 klassen
(9.000 rijen, ongeveer evenveel per klasse). Ik heb de dataset zelf gemaakt met een functie die per klasse een
centrum kiest en daar ruis omheen zet, dus de klassen zouden goed te scheiden moeten zijn (met
`df.groupby("klasse").mean()` zie je ook duidelijk verschillende gemiddelden per klasse).

Mijn PyTorch-model (MLP 16 → 32 → 32 → 3, Adam lr 1e-3, batch 64, 15 epochs) komt echter niet verder dan
gokken. De uitvoer (ja, de keys zijn Engels, ik heb de print-regel van een Keras-tutorial overgenomen):

{fence(ep)}

De loss begint op ln(3) ≈ 1,0986 en blijft daar zo'n beetje hangen; de val_accuracy schommelt rond 0,33.
De trainingsaccuracy kruipt een klein beetje omhoog, maar de validatie doet helemaal niets.

Mijn volledige script staat in `train.py`. Wat doe ik fout?
"""


POSTS = {k: globals()["post_" + k] for k in SCRIPTS}

# log files each run ships next to post.md (names as the user's script wrote them)
SHIP_FILES = {
    "run01": ["train_log.txt"],
    "run03": ["historique.csv"],
    "run04": ["training.log"],
    "run08": ["storico.csv"],
    "run09": ["journal.txt"],
    "run11": ["log_addestramento.csv"],
}


def run_one(name):
    wd = os.path.join(WORK, name)
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if name in DATA_SCRIPTS:
        with open(os.path.join(wd, "make_data.py"), "w", encoding="utf-8") as fh:
            fh.write(DATA_SCRIPTS[name])
        subprocess.run([sys.executable, "make_data.py"], cwd=wd, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    with open(os.path.join(wd, "train.py"), "w", encoding="utf-8") as fh:
        fh.write(SCRIPTS[name])
    res = subprocess.run([sys.executable, "train.py"], cwd=wd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        raise SystemExit(f"{name}: training script failed")
    out = res.stdout
    with open(os.path.join(wd, "stdout.txt"), "w", encoding="utf-8") as fh:
        fh.write(out)

    rd = os.path.join(RUNS, name)
    shutil.rmtree(rd, ignore_errors=True)
    os.makedirs(rd)
    with open(os.path.join(rd, "post.md"), "w", encoding="utf-8") as fh:
        fh.write(POSTS[name](out, wd))
    for f in SHIP_FILES.get(name, []):
        shutil.copy(os.path.join(wd, f), os.path.join(rd, f))
    if name in SHIP_TRAIN_PY:
        shutil.copy(os.path.join(wd, "train.py"), os.path.join(rd, "train.py"))
    return out


def main():
    names = sys.argv[1:] or sorted(SCRIPTS)
    os.makedirs(RUNS, exist_ok=True)
    for n in names:
        print(f"[gen] {n} ...", flush=True)
        run_one(n)
    with open(os.path.join(HERE, "truth.json"), "w", encoding="utf-8") as fh:
        json.dump(TRUTH, fh, ensure_ascii=False, indent=2)
    if not sys.argv[1:]:
        shutil.rmtree(WORK, ignore_errors=True)
    print("[gen] done")


if __name__ == "__main__":
    main()
