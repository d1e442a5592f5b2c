import math
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
