import optuna
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import make_classification
from sklearn.preprocessing import StandardScaler

torch.set_num_threads(1)

X, y = make_classification(n_samples=3000, n_features=20, n_informative=10, n_redundant=4,
                           n_classes=5, class_sep=1.3, random_state=77)
scaler = StandardScaler().fit(X[:2400])
X_train = torch.tensor(scaler.transform(X[:2400]), dtype=torch.float32)
X_val = torch.tensor(scaler.transform(X[2400:]), dtype=torch.float32)
y_train, y_val = torch.tensor(y[:2400]), torch.tensor(y[2400:])


class Net(nn.Module):
    def __init__(self, width, dropout):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(20, width), nn.BatchNorm1d(width), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(width, width), nn.BatchNorm1d(width), nn.ReLU(), nn.Dropout(dropout),
        )
        self.head = nn.Linear(width, 5)

    def forward(self, x):
        return self.head(self.body(x))


def train_epoch(model, opt):
    model.train()
    tot, correct = 0.0, 0
    perm = torch.randperm(len(X_train))
    for i in range(0, len(X_train), 64):
        idx = perm[i:i + 64]
        out = model(X_train[idx])
        loss = F.cross_entropy(out, y_train[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(idx)
        correct += (out.argmax(1) == y_train[idx]).sum().item()
    return tot / len(X_train), correct / len(X_train)


def evaluate(model, X, y):
    correct = 0
    with torch.no_grad():
        for i in range(0, len(X), 100):
            correct += (model(X[i:i + 100]).argmax(1) == y[i:i + 100]).sum().item()
    return correct / len(X)


def objective(trial):
    lr = trial.suggest_float("lr", 1e-4, 1e-2, log=True)
    dropout = trial.suggest_float("dropout", 0.2, 0.6)
    width = trial.suggest_categorical("width", [64, 128])
    torch.manual_seed(700 + trial.number)
    model = Net(width, dropout)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(15):
        train_epoch(model, opt)
        acc = evaluate(model, X_val, y_val)
        trial.report(acc, epoch)
        if trial.should_prune():
            raise optuna.TrialPruned()
    return acc


if __name__ == "__main__":
    study = optuna.create_study(direction="maximize",
                                pruner=optuna.pruners.MedianPruner(n_startup_trials=4, n_warmup_steps=4))
    study.optimize(objective, n_trials=12)
    study.trials_dataframe().to_csv("trials_dataframe.csv", index=False)

    p = study.best_params
    print("== retrain best trial #%d %s ==" % (study.best_trial.number, p))
    torch.manual_seed(1234)
    model = Net(p["width"], p["dropout"])
    opt = torch.optim.Adam(model.parameters(), lr=p["lr"])
    for epoch in range(1, 26):
        tl, ta = train_epoch(model, opt)
        print("ep %02d  train_loss %.4f  train_acc %.4f  val_acc %.4f" % (epoch, tl, ta, evaluate(model, X_val, y_val)))
    torch.save(model.state_dict(), "best_model.pt")
    print("saved best_model.pt")
    print("reloading best_model.pt and checking val accuracy again:")
    for k in range(3):
        model.load_state_dict(torch.load("best_model.pt"))
        print("  check %d: val_acc %.4f" % (k + 1, evaluate(model, X_val, y_val)))
