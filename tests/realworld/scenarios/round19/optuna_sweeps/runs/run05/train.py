import numpy as np
import optuna
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

df = pd.read_csv("data/transactions_features.csv")
X = df.drop(columns=["is_fraud"]).values.astype(np.float32)
y = df["is_fraud"].values.astype(np.int64)
X_tr, X_va, y_tr, y_va = X[:3200], X[3200:], y[:3200], y[3200:]
mu, sd = X_tr.mean(0), X_tr.std(0) + 1e-8
X_tr, X_va = torch.tensor((X_tr - mu) / sd), torch.tensor((X_va - mu) / sd)
y_tr, y_va = torch.tensor(y_tr), torch.tensor(y_va)


def build(n_units, dropout):
    return nn.Sequential(nn.Linear(X.shape[1], n_units), nn.ReLU(), nn.Dropout(dropout),
                         nn.Linear(n_units, n_units), nn.ReLU(), nn.Dropout(dropout),
                         nn.Linear(n_units, 2))


def objective(trial):
    lr = trial.suggest_float("lr", 3e-4, 3e-2, log=True)
    n_units = trial.suggest_int("n_units", 32, 256, log=True)
    dropout = trial.suggest_float("dropout", 0.0, 0.4)
    torch.manual_seed(10 + trial.number)
    model = build(n_units, dropout)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(12):
        model.train()
        perm = torch.randperm(len(X_tr))
        for i in range(0, len(X_tr), 128):
            idx = perm[i:i + 128]
            loss = F.cross_entropy(model(X_tr[idx]), y_tr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        out = model(X_va)
        val_loss = F.cross_entropy(out, y_va).item()
        pred = out.argmax(1)
    trial.set_user_attr("val_loss", round(val_loss, 4))
    return (pred == y_va).float().mean().item()


if __name__ == "__main__":
    study = optuna.create_study(direction="maximize")
    study.optimize(objective, n_trials=10)
    study.trials_dataframe().to_csv("study_trials.csv", index=False)
    with open("best_params.json", "w") as f:
        import json
        json.dump(study.best_params, f)
