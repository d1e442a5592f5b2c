import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from sacred import Experiment
from sacred.observers import FileStorageObserver

ex = Experiment("churn_mlp")
ex.observers.append(FileStorageObserver("sacred_logs"))


@ex.config
def cfg():
    data_path = "data/customers.csv"
    target = "churned"
    drop_cols = ["customer_id"]
    val_frac = 0.2
    hidden = [64, 32]
    dropout = 0.2
    lr = 1e-3
    batch_size = 128
    epochs = 25
    seed = 2024


def auc_score(y, p):
    order = np.argsort(p)
    ranks = np.empty(len(p))
    ranks[order] = np.arange(1, len(p) + 1)
    pos = y == 1
    return (ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum())


@ex.automain
def main(_run, data_path, target, drop_cols, val_frac, hidden, dropout, lr, batch_size, epochs, seed):
    df = pd.read_csv(data_path)
    df = pd.get_dummies(df, columns=["plan", "region"], dtype=float)
    features = [c for c in df.columns if c not in drop_cols + [target]]
    print(f"{len(df)} rows, {len(features)} features, churn rate {df[target].mean():.3f}")
    print("features:", ", ".join(features))

    df = df.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    n_val = int(len(df) * val_frac)
    val, train = df.iloc[:n_val], df.iloc[n_val:]
    mu, sd = train[features].mean(), train[features].std() + 1e-6
    Xtr = torch.tensor(((train[features] - mu) / sd).values, dtype=torch.float32)
    Xva = torch.tensor(((val[features] - mu) / sd).values, dtype=torch.float32)
    ytr = torch.tensor(train[target].values, dtype=torch.float32)
    yva = torch.tensor(val[target].values, dtype=torch.float32)

    layers, d = [], len(features)
    for h in hidden:
        layers += [nn.Linear(d, h), nn.ReLU(), nn.Dropout(dropout)]
        d = h
    model = nn.Sequential(*layers, nn.Linear(d, 1))
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    for epoch in range(1, epochs + 1):
        model.train()
        perm = torch.randperm(len(Xtr))
        tot, correct = 0.0, 0
        for i in range(0, len(Xtr), batch_size):
            idx = perm[i:i + batch_size]
            logit = model(Xtr[idx]).squeeze(1)
            loss = F.binary_cross_entropy_with_logits(logit, ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
            correct += ((logit > 0).float() == ytr[idx]).sum().item()
        model.eval()
        with torch.no_grad():
            logit = model(Xva).squeeze(1)
            vloss = F.binary_cross_entropy_with_logits(logit, yva).item()
            vacc = ((logit > 0).float() == yva).float().mean().item()
            vauc = auc_score(yva.numpy(), logit.numpy())
        _run.log_scalar("train.loss", tot / len(Xtr), epoch)
        _run.log_scalar("train.acc", correct / len(Xtr), epoch)
        _run.log_scalar("val.loss", vloss, epoch)
        _run.log_scalar("val.acc", vacc, epoch)
        _run.log_scalar("val.auc", vauc, epoch)
        print(f"ep {epoch:02d}  train {tot / len(Xtr):.4f}/{correct / len(Xtr):.3f}  val {vloss:.4f}/{vacc:.3f}  auc {vauc:.4f}")
    return float(vauc)
