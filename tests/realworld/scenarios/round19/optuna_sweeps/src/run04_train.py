import numpy as np
import optuna
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

df = pd.read_csv("data/sensor_readings.csv")
FEATURES = [c for c in df.columns if c.startswith("s")]
X = df[FEATURES].values.astype(np.float32)
y = df["label"].values.astype(np.int64)

perm = np.random.RandomState(0).permutation(len(X))
n_train = int(0.8 * len(X))
tr, va = perm[:n_train], perm[n_train:]
mu, sd = X[tr].mean(0), X[tr].std(0) + 1e-8
X_train = torch.tensor((X[tr] - mu) / sd)
X_val = torch.tensor((X[va] - mu) / sd)
y_train, y_val = torch.tensor(y[tr]), torch.tensor(y[va])


def make_model(width):
    return nn.Sequential(nn.Linear(X.shape[1], width), nn.ReLU(),
                         nn.Linear(width, width), nn.ReLU(),
                         nn.Linear(width, 2))


def objective(trial):
    lr = trial.suggest_float("lr", 1e-4, 1e-2, log=True)
    width = trial.suggest_categorical("width", [32, 64, 128])
    wd = trial.suggest_float("weight_decay", 1e-6, 1e-3, log=True)
    torch.manual_seed(trial.number)
    model = make_model(width)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=wd)
    for epoch in range(15):
        model.train()
        idx_all = torch.randperm(len(X_train))
        for i in range(0, len(X_train), 64):
            idx = idx_all[i:i + 64]
            loss = F.cross_entropy(model(X_train[idx]), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        out = model(X_val)
        val_loss = F.cross_entropy(out, y_val).item()
        val_acc = (out.argmax(1) == y_val).float().mean().item()
    trial.set_user_attr("val_loss", round(val_loss, 4))
    return val_acc


if __name__ == "__main__":
    study = optuna.create_study(study_name="sensor-mlp-v2", storage="sqlite:///optuna.db",
                                direction="maximize", load_if_exists=True,
                                sampler=optuna.samplers.TPESampler(seed=1))
    study.optimize(objective, n_trials=10)
    study.trials_dataframe().to_csv("trials.csv", index=False)
    print(study.best_trial.number, study.best_value, study.best_params)
