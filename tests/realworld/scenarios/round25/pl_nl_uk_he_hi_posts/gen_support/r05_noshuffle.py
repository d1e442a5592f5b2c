"""run05: Dutch forum.pytorch post; class-sorted data fed in file order."""
import numpy as np, torch, torch.nn as nn
from .common import *

RUN = "run05"

TRAIN_PY = dedent('''
import glob
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

LR = 0.05
EPOCHS = 8
BATCH = 50


def load_dir(pattern):
    xs, ys = [], []
    for f in sorted(glob.glob(pattern)):
        arr = np.loadtxt(f, delimiter=",", skiprows=1, dtype=np.float32)
        xs.append(arr[:, :-1])
        ys.append(arr[:, -1].astype(np.int64))
    return np.concatenate(xs), np.concatenate(ys)


X, y = load_dir("data/train/soort_*.csv")      # one csv per bird species, 5 species
Xv, yv = load_dir("data/val/*.csv")
mu, sd = X.mean(0), X.std(0)
X, Xv = (X - mu) / sd, (Xv - mu) / sd

train_loader = DataLoader(TensorDataset(torch.from_numpy(X), torch.from_numpy(y)), batch_size=BATCH)

torch.manual_seed(1)
model = nn.Sequential(nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 5))
opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
crit = nn.CrossEntropyLoss()

log = open("loss_per_step.csv", "w")
log.write("step,epoch,loss\\n")
step = 0
for epoch in range(1, EPOCHS + 1):
    for xb, yb in train_loader:
        loss = crit(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        log.write(f"{step},{epoch},{loss.item():.5f}\\n")
    with torch.no_grad():
        pred = model(torch.from_numpy(Xv)).argmax(1)
        acc = (pred == torch.from_numpy(yv)).float().mean().item()
    print(f"epoch {epoch}: last loss {loss.item():.4f}  val_acc {acc:.4f}")
''')


def train(X, y, Xv, yv, lr, epochs=8, bs=50):
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 5))
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    crit = nn.CrossEntropyLoss()
    rows, prints, step = ["step,epoch,loss"], [], 0
    accs = []
    for ep in range(1, epochs + 1):
        for i in range(0, len(X), bs):
            loss = crit(model(X[i:i + bs]), y[i:i + bs])
            opt.zero_grad(); loss.backward(); opt.step()
            step += 1
            rows.append(f"{step},{ep},{loss.item():.5f}")
        with torch.no_grad():
            acc = (model(Xv).argmax(1) == yv).float().mean().item()
        accs.append(acc)
        prints.append(f"epoch {ep}: last loss {loss.item():.4f}  val_acc {acc:.4f}")
    return rows, prints, accs


def gen():
    rng = seed_all(505)
    d, k = 20, 5
    Xa, ya, cents = make_clf(rng, 2500, d, k, sep=0.6, sub=2)
    Xv, yv = sample_from(rng, cents, 600)
    order = np.argsort(ya, kind="stable")  # files soort_0..soort_4 concatenated
    X, y = Xa[order], ya[order]
    vo = np.argsort(yv, kind="stable"); Xv, yv = Xv[vo], yv[vo]
    mu, sd = X.mean(0), X.std(0)
    X, Xv = (X - mu) / sd, (Xv - mu) / sd
    X, y, Xv, yv = map(torch.from_numpy, (X, y, Xv, yv))
    rows, prints, accs = train(X, y, Xv, yv, 0.05)
    rows2, prints2, accs2 = train(X, y, Xv, yv, 0.01)
    l2 = [float(r.split(',')[2]) for r in rows2[1:]][-50:]
    assert max(l2) > 2 * min(l2), (min(l2), max(l2))
    write(RUN, "loss_per_step.csv", "\n".join(rows))
    write(RUN, "train.py", TRAIN_PY)
    cons = "$ python train.py\n" + "\n".join(prints)
    write(RUN, "console.txt", cons)
    counts = np.bincount(y.numpy())
    post = dedent(f'''
    # Loss springt alle kanten op en val-accuracy blijft laag, wat doe ik fout?

    discuss.pytorch.org  ›  beginners  ·  **sanne_b**  ·  feb 2024

    Hoi allemaal,

    voor een schoolproject classificeer ik vogelgeluiden op basis van {X.shape[1]} voorbewerkte features
    (5 soorten, {len(X)} trainvoorbeelden, per soort een apart csv-bestand). Als ik de loss per step plot
    ziet het er heel raar uit: hij gaat omlaag, schiet dan ineens omhoog, weer omlaag, enz. De val-accuracy blijft
    steken rond de {comma(float(np.mean(accs[-3:])), 2)} (laatste 3 epochs gemiddeld), terwijl ik met 5 klassen toch wel meer had verwacht.

    Ik heb het ook met `LR = 0.01` gedraaid. Dan komt de val_acc na 8 epochs op {comma(accs2[-1], 3)}, al iets beter,
    maar de loss-curve springt nog steeds op en neer. Wat doe ik fout?

    Script, de console-output en de loss per step (`loss_per_step.csv`) staan hieronder / in de bijlage.

    Alvast bedankt!
    ''')
    write(RUN, "post.md", post)
    symptom = "De loss per step springt heel raar op en neer en de val-accuracy blijft laag, ook met een lagere learning rate; wat doe ik fout?"
    how = ("Training data is the concatenation of one csv per class and the DataLoader has no shuffle=True, so every epoch "
           "walks through class 0..4 in blocks of 10 batches: per-step loss is a saw-tooth aligned to class/epoch boundaries "
           "and the model ends each epoch biased to the last class; lowering lr does not help.")
    return dict(truth="data_not_shuffled", symptom=symptom, how=how)
