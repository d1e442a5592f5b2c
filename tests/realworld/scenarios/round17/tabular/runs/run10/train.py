import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.metrics import roc_auc_score
import joblib

pd.set_option("display.max_columns", None)
pd.set_option("display.width", 120)
SEED = 2024
torch.manual_seed(SEED)

df = pd.read_csv("data/transactions.csv")
print(df.shape)
print(df.head())
print(df["Class"].value_counts())

X = df.drop(columns=["Class"]).values
y = df["Class"].values
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=SEED)
np.save("data/X_test.npy", X_test)
np.save("data/y_test.npy", y_test)
X_train, X_val, y_train, y_val = train_test_split(X_train, y_train, test_size=0.15, stratify=y_train,
                                                  random_state=SEED)
scaler = StandardScaler().fit(X_train)
joblib.dump(scaler, "models/scaler.joblib")

Xt = torch.tensor(scaler.transform(X_train), dtype=torch.float32)
Xv = torch.tensor(scaler.transform(X_val), dtype=torch.float32)
yt = torch.tensor(y_train, dtype=torch.float32)

model = nn.Sequential(nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.BCEWithLogitsLoss()

for epoch in range(12):
    model.train()
    perm = torch.randperm(len(Xt))
    tot = 0.0
    for i in range(0, len(perm), 256):
        b = perm[i:i + 256]
        loss = crit(model(Xt[b]).squeeze(1), yt[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(b)
    model.eval()
    with torch.no_grad():
        pv = torch.sigmoid(model(Xv).squeeze(1)).numpy()
    print(f"epoch {epoch:2d}  loss={tot / len(Xt):.4f}  val_auc={roc_auc_score(y_val, pv):.4f}")

torch.save(model, "models/fraud_mlp.pt")
