import numpy as np
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
