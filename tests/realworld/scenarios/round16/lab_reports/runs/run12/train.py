"""Credit-default model: train + held-out test evaluation."""
import json

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(12)

FEATURES = ["income", "loan_amount", "age", "num_accounts", "utilization", "months_employed", "debt_ratio"]


def load_split(n, seed):
    r = np.random.RandomState(seed)
    income = r.lognormal(10.8, 0.5, n)
    loan = r.lognormal(9.5, 0.8, n)
    age = r.randint(21, 75, n).astype(float)
    accounts = r.poisson(4, n).astype(float)
    util = r.beta(2, 3, n)
    employed = r.exponential(60, n)
    debt_ratio = loan / income + r.normal(0, 0.05, n)
    z = (3.0 * debt_ratio + 2.5 * util - 0.02 * (age - 40) - 0.008 * employed
         + 0.15 * (accounts - 4) - 1.2)
    y = (r.rand(n) < 1 / (1 + np.exp(-2 * z))).astype(np.float32)
    X = np.c_[income, loan, age, accounts, util, employed, debt_ratio].astype(np.float32)
    return X, y


X_train, y_train = load_split(6000, 0)
X_val, y_val = load_split(1500, 1)
X_test, y_test = load_split(3000, 2)

# ---- preprocessing
mean, std = X_train.mean(0), X_train.std(0)


def preprocess(X):
    return (X - mean) / std


def preprocess_batch(X):
    lo, hi = X.min(0), X.max(0)
    return (X - lo) / (hi - lo)


Xtr, Xva = torch.tensor(preprocess(X_train)), torch.tensor(preprocess(X_val))
ytr, yva = torch.tensor(y_train), torch.tensor(y_val)

model = nn.Sequential(nn.Linear(len(FEATURES), 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
criterion = nn.BCEWithLogitsLoss()


def accuracy(logits, y):
    return ((logits > 0).float() == y).float().mean().item()


history = []
for epoch in range(1, 21):
    model.train()
    perm = torch.randperm(len(Xtr))
    s = 0.0
    for i in range(0, len(perm), 100):
        b = perm[i:i + 100]
        loss = criterion(model(Xtr[b]).squeeze(-1), ytr[b])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        s += loss.item() * len(b)
    model.eval()
    with torch.no_grad():
        lv = model(Xva).squeeze(-1)
    row = {"epoch": epoch, "train_bce": s / len(perm), "val_bce": criterion(lv, yva).item(), "val_accuracy": accuracy(lv, yva)}
    history.append(row)
    print(f"epoch {epoch:2d}  train_bce {row['train_bce']:.4f}  val_bce {row['val_bce']:.4f}  val_accuracy {row['val_accuracy']:.4f}")

torch.save({"model": model.state_dict(), "mean": mean, "std": std}, "credit_mlp.pt")

# ---- held-out test set
Xte = torch.tensor(preprocess_batch(X_test))
with torch.no_grad():
    lt = model(Xte).squeeze(-1)
test = {"test_bce": criterion(lt, torch.tensor(y_test)).item(), "test_accuracy": accuracy(lt, torch.tensor(y_test)),
        "test_positive_rate": (lt > 0).float().mean().item(), "label_positive_rate": float(y_test.mean())}
print("TEST  " + "  ".join(f"{k} {v:.4f}" for k, v in test.items()))
json.dump({"history": history, "test": test}, open("history.json", "w"), indent=1)
