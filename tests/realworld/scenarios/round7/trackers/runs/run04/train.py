import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import mlflow

torch.set_num_threads(1)
torch.manual_seed(42)
np.random.seed(42)

params = {"epochs": 25, "batch_size": 32, "lr": 3e-3, "dropout": 0.3, "val_frac": 0.2}

df = pd.read_csv("data/churn.csv")
y = df["churned"].values.astype(np.float32)
X = df.drop(columns=["customer_id"]).values.astype(np.float32)

idx = np.random.permutation(len(df))
n_val = int(len(df) * params["val_frac"])
va_idx, tr_idx = idx[:n_val], idx[n_val:]
mean, std = X[tr_idx].mean(0), X[tr_idx].std(0)
X = (X - mean) / std

X_tr, y_tr = torch.from_numpy(X[tr_idx]), torch.from_numpy(y[tr_idx])
X_va, y_va = torch.from_numpy(X[va_idx]), torch.from_numpy(y[va_idx])

model = nn.Sequential(
    nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Dropout(params["dropout"]),
    nn.Linear(64, 32), nn.ReLU(), nn.Dropout(params["dropout"]),
    nn.Linear(32, 1),
)
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=params["lr"])

mlflow.set_tracking_uri("file:./mlruns")
with mlflow.start_run(run_name="churn-mlp"):
    mlflow.log_params(params)
    mlflow.log_param("n_features", X.shape[1])
    for epoch in range(params["epochs"]):
        model.train()
        perm = torch.randperm(len(X_tr))
        run_loss, correct = 0.0, 0
        for i in range(0, len(X_tr), params["batch_size"]):
            b = perm[i:i + params["batch_size"]]
            optimizer.zero_grad()
            logits = model(X_tr[b]).squeeze(1)
            loss = criterion(logits, y_tr[b])
            loss.backward()
            optimizer.step()
            run_loss += loss.item() * len(b)
            correct += ((logits > 0).float() == y_tr[b]).sum().item()
        model.eval()
        with torch.no_grad():
            v = model(X_va).squeeze(1)
            val_loss = criterion(v, y_va).item()
            val_acc = ((v > 0).float() == y_va).float().mean().item()
        mlflow.log_metrics({"train_loss": run_loss / len(X_tr), "train_accuracy": correct / len(X_tr),
                            "val_loss": val_loss, "val_accuracy": val_acc}, step=epoch)
        print(f"epoch {epoch}: train_loss={run_loss / len(X_tr):.4f} val_loss={val_loss:.4f} val_acc={val_acc:.4f}")
