import numpy as np
import optuna
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

df = pd.read_csv("data/sessions.csv")
df = df.sample(frac=1.0, random_state=0).reset_index(drop=True)
df["customer_te"] = df.groupby("customer_id")["churned"].transform("mean")

FEATURES = ["f0", "f1", "f2", "f3", "f4", "f5", "customer_te"]
X = df[FEATURES].values.astype(np.float32)
y = df["churned"].values.astype(np.int64)
n_train = int(0.8 * len(df))
mu, sd = X[:n_train].mean(0), X[:n_train].std(0) + 1e-8
X_train, X_val = torch.tensor((X[:n_train] - mu) / sd), torch.tensor((X[n_train:] - mu) / sd)
y_train, y_val = torch.tensor(y[:n_train]), torch.tensor(y[n_train:])


def objective(trial):
    lr = trial.suggest_float("learning_rate", 1e-4, 1e-1, log=True)
    n_hidden = trial.suggest_int("n_hidden", 4, 64)
    dropout = trial.suggest_float("dropout", 0.0, 0.5)
    optimizer_name = trial.suggest_categorical("optimizer", ["Adam", "RMSprop", "SGD"])
    torch.manual_seed(900 + trial.number)
    model = nn.Sequential(nn.Linear(len(FEATURES), n_hidden), nn.ReLU(), nn.Dropout(dropout),
                          nn.Linear(n_hidden, 2))
    opt = getattr(torch.optim, optimizer_name)(model.parameters(), lr=lr)
    history = []
    for epoch in range(1, 9):
        model.train()
        tot, correct = 0.0, 0
        perm = torch.randperm(len(X_train))
        for i in range(0, len(X_train), 32):
            idx = perm[i:i + 32]
            out = model(X_train[idx])
            loss = F.cross_entropy(out, y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
            correct += (out.argmax(1) == y_train[idx]).sum().item()
        model.eval()
        with torch.no_grad():
            out = model(X_val)
            val_loss = F.cross_entropy(out, y_val).item()
            val_acc = (out.argmax(1) == y_val).float().mean().item()
        history.append((epoch, tot / len(X_train), correct / len(X_train), val_loss, val_acc))
    trial.set_user_attr("history", history)
    return val_acc


if __name__ == "__main__":
    study = optuna.create_study(direction="maximize")
    study.optimize(objective, n_trials=15)
    print("Number of finished trials: %d" % len(study.trials))
    print("Best trial: %d  value: %.4f" % (study.best_trial.number, study.best_value))
    study.trials_dataframe().drop(columns=["user_attrs_history"]).to_csv("trials.csv", index=False)
    pd.DataFrame(study.best_trial.user_attrs["history"],
                 columns=["epoch", "train_loss", "train_acc", "val_loss", "val_acc"]).round(4) \
        .to_csv("best_trial_epochs.csv", index=False)
