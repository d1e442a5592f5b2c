import optuna
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import make_moons

torch.set_num_threads(1)

X, y = make_moons(n_samples=2000, noise=0.2, random_state=7)
X = torch.tensor(X, dtype=torch.float32)
y = torch.tensor(y, dtype=torch.long)
X_train, y_train = X[:1400], y[:1400]
X_val, y_val = X[1400:1700], y[1400:1700]
X_test, y_test = X[1700:], y[1700:]


def make_model(hidden, n_layers):
    layers, d = [], 2
    for _ in range(n_layers):
        layers += [nn.Linear(d, hidden), nn.ReLU()]
        d = hidden
    layers.append(nn.Linear(d, 2))
    return nn.Sequential(*layers)


def train_one_epoch(model, opt, X, y, batch_size):
    model.train()
    perm = torch.randperm(len(X))
    for i in range(0, len(X), batch_size):
        idx = perm[i:i + batch_size]
        loss = F.cross_entropy(model(X[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()


@torch.no_grad()
def evaluate(model, X, y):
    model.eval()
    out = model(X)
    return F.cross_entropy(out, y).item(), (out.argmax(1) == y).float().mean().item()


def objective(trial):
    lr = trial.suggest_float("lr", 1e-4, 1e-1, log=True)
    hidden = trial.suggest_int("hidden", 16, 128, log=True)
    n_layers = trial.suggest_int("n_layers", 1, 3)
    batch_size = trial.suggest_categorical("batch_size", [32, 64, 128])
    torch.manual_seed(1000 + trial.number)
    model = make_model(hidden, n_layers)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(20):
        train_one_epoch(model, opt, X_train, y_train, batch_size)
        val_loss, val_acc = evaluate(model, X_val, y_val)
        trial.report(val_loss, epoch)
        if trial.should_prune():
            raise optuna.TrialPruned()
    trial.set_user_attr("val_acc", round(val_acc, 4))
    return val_loss


if __name__ == "__main__":
    study = optuna.create_study(direction="minimize",
                                sampler=optuna.samplers.RandomSampler(seed=42),
                                pruner=optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=5))
    study.optimize(objective, n_trials=12)
    print("Best trial:", study.best_trial.number)
    print("  val_loss: %.4f" % study.best_value)
    print("  params:")
    for k, v in study.best_params.items():
        print("    %s: %s" % (k, v))
    study.trials_dataframe().to_csv("trials_dataframe.csv", index=False)

    # retrain on train+val with the best params, report on test
    p = study.best_params
    torch.manual_seed(2024)
    model = make_model(p["hidden"], p["n_layers"])
    opt = torch.optim.Adam(model.parameters(), lr=p["lr"])
    X_full, y_full = torch.cat([X_train, X_val]), torch.cat([y_train, y_val])
    for epoch in range(1, 31):
        train_one_epoch(model, opt, X_full, y_full, p["batch_size"])
        tr_loss, tr_acc = evaluate(model, X_full, y_full)
        te_loss, te_acc = evaluate(model, X_test, y_test)
        print("epoch %2d/30  loss %.4f  acc %.4f  test_loss %.4f  test_acc %.4f" % (epoch, tr_loss, tr_acc, te_loss, te_acc))
    print("final test accuracy: %.4f" % te_acc)
