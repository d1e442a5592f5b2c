import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(0)

df = pd.read_csv("loan_data.csv")
print(df.head())
print(df.describe().T[["mean", "std", "min", "max"]])

feature_cols = ["age", "annual_income", "years_employed", "loan_amount", "num_accounts", "late_payments"]
X = torch.tensor(df[feature_cols].values, dtype=torch.float32)
y = torch.tensor(df["default"].values, dtype=torch.long)

g = torch.Generator().manual_seed(0)
perm = torch.randperm(len(X), generator=g)
train_idx, test_idx = perm[:3200], perm[3200:]
train_loader = DataLoader(TensorDataset(X[train_idx], y[train_idx]), batch_size=64, shuffle=True)
X_test, y_test = X[test_idx], y[test_idx]

model = nn.Sequential(
    nn.Linear(len(feature_cols), 64),
    nn.ReLU(),
    nn.Linear(64, 32),
    nn.ReLU(),
    nn.Linear(32, 2),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(1, 31):
    model.train()
    running = 0.0
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        running += loss.item()
    model.eval()
    with torch.no_grad():
        out = model(X_test)
        test_loss = criterion(out, y_test).item()
        test_acc = (out.argmax(1) == y_test).float().mean().item()
    print(f"エポック {epoch}/30 損失: {running / len(train_loader):.4f} テスト損失: {test_loss:.4f} 正解率: {test_acc:.3f}")
