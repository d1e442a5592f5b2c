import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(12)
torch.set_num_threads(1)


rng = np.random.default_rng(12)
n = 3000
df = pd.DataFrame({
    "tenure_months": rng.integers(1, 72, n),
    "monthly_spend": rng.gamma(3.0, 20.0, n).round(2),
    "support_calls": rng.poisson(1.5, n),
    "logins_30d": rng.poisson(12, n),
    "discount": rng.choice([0.0, 0.1, 0.2], n),
})
risk = 0.04 * df.support_calls * 10 - 0.03 * df.tenure_months - 0.05 * df.logins_30d + rng.normal(0, 0.6, n)
df["churn_class"] = np.digitize(risk, np.quantile(risk, [0.5, 0.8]))
# the export has some rows where the label wasn't filled in yet
df.loc[rng.choice(n, 60, replace=False), "churn_class"] = np.nan
df = df.dropna(subset=["churn_class"]).reset_index(drop=True)
df.describe().T[["mean", "std", "min", "max"]]


feature_cols = ["tenure_months", "monthly_spend", "support_calls", "logins_30d", "discount"]
feats = df[feature_cols].astype("float32")
feats = (feats - feats.mean()) / feats.std()
X = torch.tensor(feats.values)
y = torch.tensor(df["churn_class"].values)
ds = TensorDataset(X, y)
train_ds, val_ds = torch.utils.data.random_split(ds, [2400, len(ds) - 2400], generator=torch.Generator().manual_seed(12))
train_dl = DataLoader(train_ds, batch_size=128, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=256)

model = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()


for epoch in range(20):
    model.train()
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        opt.step()
    print(f"epoch {epoch:02d} loss {loss.item():.4f}")
