"""run03: Ukrainian Telegram group; labels 1..10 with a 10-class head -> IndexError."""
import sys, linecache, traceback, re, os
import numpy as np, torch, torch.nn as nn
from .common import *

RUN = "run03"
USER_PATH = "/home/oleh/projects/vidguky/train.py"
VENV = "/home/oleh/projects/vidguky/.venv/lib/python3.11/site-packages/"

SHOWN = dedent('''
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

df = pd.read_csv("data/vidguky_feats_2024.csv")
X = torch.tensor(df.drop(columns=["label"]).values, dtype=torch.float32)
y = torch.tensor(df["label"].values, dtype=torch.long)
loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)

NUM_CLASSES = 10
model = nn.Sequential(
    nn.Linear(X.shape[1], 128),
    nn.ReLU(),
    nn.Linear(128, NUM_CLASSES),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(20):
    for step, (xb, yb) in enumerate(loader):
        out = model(xb)
        loss = criterion(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
''')


def gen():
    rng = seed_all(303)
    n, d, k = 2400, 48, 10
    X, y0, _ = make_clf(rng, n, d, k, sep=0.7, sub=1)
    labels = y0 + 1  # the CSV stores the rating category 1..10
    # execute the loop part of the user's script for real; data lines replaced 1:1 by injected arrays
    run_lines = SHOWN.splitlines()
    assert run_lines[5].startswith("df =") and run_lines[6].startswith("X =") and run_lines[7].startswith("y =")
    run_lines[0] = "pass"
    run_lines[5] = "pass"
    run_lines[6] = "X = torch.from_numpy(_X)"
    run_lines[7] = "y = torch.from_numpy(_y)"
    code = "\n".join(run_lines) + "\n"
    linecache.cache[USER_PATH] = (len(SHOWN), None, SHOWN.splitlines(True), USER_PATH)
    torch.manual_seed(0)
    g = {"__name__": "__main__", "_X": X, "_y": labels.astype(np.int64)}
    tb = None
    try:
        exec(compile(code, USER_PATH, "exec"), g)
    except Exception as e:
        tb = traceback.format_exc()
        err = f"{type(e).__name__}: {e}"
    assert tb is not None
    # keep the frames from the user's file on; rewrite local venv prefix to the user's
    site = os.path.dirname(os.path.dirname(torch.__file__)) + "/"
    tb = tb.replace(site, VENV)
    tl = tb.splitlines()
    start = next(i for i, l in enumerate(tl) if USER_PATH in l)
    tb = "\n".join(["Traceback (most recent call last):"] + tl[start:])
    step = g.get("step")
    # pandas-style value_counts().sort_index()
    vals, cnts = np.unique(labels, return_counts=True)
    vc = "label\n" + "\n".join(f"{v:<6d}{c:>5d}" for v, c in zip(vals, cnts)) + "\nName: count, dtype: int64"
    chat = "\n".join([
        "Telegram · «PyTorch / ML Україна» 🇺🇦",
        "",
        "Oleh Kravets, [14.03.2024 21:14]",
        "Всім привіт! Після того як оновив torch до 2.13 мій скрипт для класифікації відгуків падає одразу на першому ж",
        "батчі з IndexError у CrossEntropyLoss. На старому ноуті (там стояв старіший торч) наче все працювало 😕",
        "Хтось стикався? Не розумію, що не так.",
        "",
        "Andrii Melnyk, [14.03.2024 21:17]",
        "а можеш скинути повний трейс і як формуєш таргети?",
        "",
        "Oleh Kravets, [14.03.2024 21:25]",
        "ось код (train.py, повністю):",
        "```", SHOWN.rstrip(), "```",
        "трейс:",
        "```", tb.rstrip(), "```",
        'і df["label"].value_counts().sort_index():',
        "```", vc, "```",
        "",
        "Andrii Melnyk, [14.03.2024 21:31]",
        "хм, а на старому ноуті точно той самий csv був?",
        "",
        "Oleh Kravets, [14.03.2024 21:33]",
        "ну так, ну може трохи інша версія вивантаження, але формат той самий",
    ])
    write(RUN, "telegram_chat.txt", chat)
    symptom = ("Після оновлення torch до 2.13 скрипт падає одразу на першому батчі з IndexError у CrossEntropyLoss; "
               "на старому ноуті наче працювало, не розумію, що не так.")
    how = (f"Labels in the CSV are 1..10 while the head has NUM_CLASSES=10 outputs (valid targets 0..9); the first batch "
           f"holding label 10 raises '{err}' inside cross_entropy (crash at step {step}).")
    return dict(truth="label_out_of_range", symptom=symptom, how=how)
