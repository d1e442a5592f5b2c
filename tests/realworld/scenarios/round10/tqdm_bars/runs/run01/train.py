import yaml
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

cfg = yaml.safe_load(open("config.yaml"))
dc, mc, tc = cfg["data"], cfg["model"], cfg["training"]
torch.manual_seed(dc["seed"])
torch.set_num_threads(1)

df = pd.read_csv(dc["csv"])
print(f"{len(df)} customers, churn rate {df[dc['target']].mean():.3f}")

df["postcode_churn_rate"] = df.groupby("postcode")[dc["target"]].transform("mean")
df = pd.get_dummies(df, columns=dc["categorical"], dtype=float)
feature_cols = dc["numeric"] + ["postcode_churn_rate"] + [c for c in df.columns if c.startswith("contract_")]

rng = np.random.default_rng(dc["seed"])
idx = rng.permutation(len(df))
n_val = int(len(df) * dc["val_size"])
val_df, train_df = df.iloc[idx[:n_val]], df.iloc[idx[n_val:]]

mu = train_df[feature_cols].mean()
sd = train_df[feature_cols].std()


def to_tensors(part):
    X = ((part[feature_cols] - mu) / sd).values.astype(np.float32)
    y = part[dc["target"]].values.astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(y)


Xtr, ytr = to_tensors(train_df)
Xva, yva = to_tensors(val_df)
print(f"features ({len(feature_cols)}): {feature_cols}")
print(f"train={len(Xtr)} val={len(Xva)}")

model = nn.Sequential(nn.Linear(len(feature_cols), mc["hidden"]), nn.ReLU(), nn.Dropout(mc["dropout"]),
                      nn.Linear(mc["hidden"], mc["hidden"]), nn.ReLU(), nn.Dropout(mc["dropout"]),
                      nn.Linear(mc["hidden"], 1))
opt = torch.optim.Adam(model.parameters(), lr=tc["lr"])
bce = nn.BCEWithLogitsLoss()
loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=tc["batch_size"], shuffle=True)

for epoch in range(1, tc["epochs"] + 1):
    model.train()
    tl, tcorr, n = 0.0, 0, 0
    with tqdm(loader, desc=f"epoch {epoch}", unit="batch") as t:
        for xb, yb in t:
            logit = model(xb).squeeze(-1)
            loss = bce(logit, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(yb)
            tcorr += ((logit > 0).float() == yb).sum().item()
            n += len(yb)
            t.set_postfix(loss=f"{tl / n:.4f}", acc=f"{tcorr / n:.4f}")
    model.eval()
    with torch.no_grad():
        vlogit = model(Xva).squeeze(-1)
        vloss = bce(vlogit, yva).item()
        vacc = ((vlogit > 0).float() == yva).float().mean().item()
    print(f"epoch {epoch}: train_loss {tl / n:.4f} train_acc {tcorr / n:.4f} | val_loss {vloss:.4f} val_acc {vacc:.4f}")

torch.save(model.state_dict(), "churn_mlp.pt")
