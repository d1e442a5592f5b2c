import json
import joblib
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.metrics import roc_auc_score, classification_report

pd.set_option("display.max_columns", None)
pd.set_option("display.width", 120)

CFG = json.load(open("config.json"))
CAT_COLS = CFG["cat_cols"]
NUM_COLS = CFG["num_cols"]
torch.manual_seed(CFG["seed"])


def encode(df):
    df = df.copy()
    for c in CAT_COLS:
        df[c], _ = pd.factorize(df[c])
    df["y"] = (df["y"] == "yes").astype(int)
    return df


class EmbMLP(nn.Module):
    def __init__(self, cards, n_num, hidden=(128, 64), p=0.1):
        super().__init__()
        self.embs = nn.ModuleList([nn.Embedding(c, min(16, (c + 1) // 2)) for c in cards])
        d = sum(min(16, (c + 1) // 2) for c in cards) + n_num
        self.net = nn.Sequential(nn.Linear(d, hidden[0]), nn.ReLU(), nn.Dropout(p),
                                 nn.Linear(hidden[0], hidden[1]), nn.ReLU(), nn.Linear(hidden[1], 1))

    def forward(self, x_cat, x_num):
        e = [emb(x_cat[:, i]) for i, emb in enumerate(self.embs)]
        return self.net(torch.cat(e + [x_num], dim=1)).squeeze(-1)


if __name__ == "__main__":
    raw = pd.read_csv(CFG["train_csv"], sep=";")
    print(raw.shape)
    print(raw.head())
    print(raw["y"].value_counts())
    for c in CAT_COLS:
        print(raw[c].value_counts().to_dict())

    df = encode(raw)
    cards = [int(df[c].max()) + 1 for c in CAT_COLS]
    tr, va = train_test_split(df, test_size=0.2, random_state=CFG["seed"], stratify=df["y"])
    scaler = StandardScaler().fit(tr[NUM_COLS])

    def tensors(d):
        return (torch.tensor(d[CAT_COLS].values, dtype=torch.long),
                torch.tensor(scaler.transform(d[NUM_COLS]), dtype=torch.float32),
                torch.tensor(d["y"].values, dtype=torch.float32))

    (ctr, ntr, ytr), (cva, nva, yva) = tensors(tr), tensors(va)
    model = EmbMLP(cards, len(NUM_COLS))
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    crit = nn.BCEWithLogitsLoss()
    for epoch in range(CFG["epochs"]):
        model.train()
        perm = torch.randperm(len(ytr))
        losses = []
        for i in range(0, len(perm), CFG["batch_size"]):
            b = perm[i:i + CFG["batch_size"]]
            loss = crit(model(ctr[b], ntr[b]), ytr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            out = model(cva, nva)
        print(f"epoch {epoch + 1:2d} | train loss {np.mean(losses):.4f} | val loss {crit(out, yva).item():.4f} "
              f"| val auc {roc_auc_score(yva.numpy(), torch.sigmoid(out).numpy()):.4f}")

    p = torch.sigmoid(out).numpy()
    print(classification_report(yva.numpy(), (p > 0.5).astype(int), digits=3))
    torch.save(model.state_dict(), "artifacts/model.pt")
    joblib.dump(scaler, "artifacts/scaler.joblib")
    json.dump({"cards": cards}, open("artifacts/cards.json", "w"))
