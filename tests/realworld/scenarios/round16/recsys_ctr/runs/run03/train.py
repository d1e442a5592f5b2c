import json
import time
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import yaml

def simulate_impressions(n=120000, seed=2024):
    """Synthetic ad impressions: users x items with latent factors plus context fields."""
    rng = np.random.default_rng(seed)
    n_users, n_items, n_cats, n_regions, d = 1000, 300, 20, 12, 4
    U = rng.normal(0, 0.8, (n_users, d))
    V = rng.normal(0, 0.8, (n_items, d))
    ub = rng.normal(0, 0.5, n_users)
    ib = rng.normal(0, 0.7, n_items)
    item_cat = rng.integers(0, n_cats, n_items)
    user_region = rng.integers(0, n_regions, n_users)
    cat_x_region = rng.normal(0, 0.8, (n_cats, n_regions))
    pu = rng.pareto(1.5, n_users) + 1.0
    pi = rng.pareto(1.2, n_items) + 1.0
    u = rng.choice(n_users, n, p=pu / pu.sum())
    i = rng.choice(n_items, n, p=pi / pi.sum())
    device = rng.integers(0, 3, n)
    hour = rng.integers(0, 24, n)
    pos = rng.integers(0, 5, n)
    price = np.exp(rng.normal(3.0, 0.8, n_items))
    logit = (-1.7 + (U[u] * V[i]).sum(1) + ub[u] + ib[i]
             + cat_x_region[item_cat[i], user_region[u]]
             - 0.3 * pos + 0.3 * np.sin(hour / 24 * 2 * np.pi) + 0.25 * (device == 1)
             - 0.25 * (np.log(price[i]) - 3.0))
    p = 1.0 / (1.0 + np.exp(-logit))
    click = (rng.random(n) < p).astype(np.float32)
    return pd.DataFrame({
        "user_id": u, "item_id": i, "item_cat": item_cat[i], "user_region": user_region[u],
        "device": device, "hour": hour, "ad_pos": pos,
        "price": price[i].round(2),
        "user_hist_clicks": rng.poisson(np.exp(1.5 + ub[u])),
        "item_impr_7d": rng.poisson(200 * pi[i] / pi.mean()),
        "click": click,
    })


def auc_score(y, s):
    y = np.asarray(y); s = np.asarray(s)
    r = pd.Series(s).rank().values
    npos = y.sum(); nneg = len(y) - npos
    return float((r[y == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg))


def logloss(y, p, eps=1e-7):
    p = np.clip(p, eps, 1 - eps)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"]); np.random.seed(cfg["seed"])
SPARSE = cfg["features"]["sparse"]

df = simulate_impressions(n=cfg["data"]["n_impressions"], seed=cfg["data"]["seed"])
df = df.sample(frac=1.0, random_state=cfg["seed"]).reset_index(drop=True)
n_val = int(len(df) * cfg["data"]["val_frac"])
val_df, train_df = df.iloc[:n_val], df.iloc[n_val:]
field_dims = [int(df[c].max()) + 1 for c in SPARSE]


class DeepFM(nn.Module):
    def __init__(self, field_dims, k, hidden, dropout):
        super().__init__()
        self.offsets = torch.tensor(np.concatenate([[0], np.cumsum(field_dims)[:-1]]), dtype=torch.long)
        n = int(sum(field_dims))
        self.emb = nn.Embedding(n, k)
        self.lin = nn.Embedding(n, 1)
        self.bias = nn.Parameter(torch.zeros(1))
        nn.init.normal_(self.emb.weight, std=0.01)
        nn.init.zeros_(self.lin.weight)
        layers, d = [], len(field_dims) * k
        for h in hidden:
            layers += [nn.Linear(d, h), nn.ReLU(), nn.Dropout(dropout)]
            d = h
        layers.append(nn.Linear(d, 1))
        self.mlp = nn.Sequential(*layers)

    def forward(self, x):
        x = x + self.offsets
        e = self.emb(x)
        fm = 0.5 * (e.sum(1).pow(2) - e.pow(2).sum(1)).sum(1, keepdim=True)
        out = self.bias + self.lin(x).sum(1) + fm + self.mlp(e.flatten(1))
        return out.squeeze(1)


def to_tensors(d):
    return torch.tensor(d[SPARSE].values, dtype=torch.long), torch.tensor(d["click"].values, dtype=torch.float32)


Xtr, ytr = to_tensors(train_df)
Xva, yva = to_tensors(val_df)

model = DeepFM(field_dims, cfg["model"]["embed_dim"], cfg["model"]["mlp"], cfg["model"]["dropout"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"], weight_decay=cfg["train"]["weight_decay"])
crit = nn.BCEWithLogitsLoss()
bs, E = cfg["train"]["batch_size"], cfg["train"]["epochs"]

log = open("train.log", "w")
def p(s):
    print(s); log.write(s + "\n"); log.flush()

p(f"train={len(train_df)} val={len(val_df)} ctr={ytr.mean():.4f} fields={len(SPARSE)}")
hist = []
for ep in range(1, E + 1):
    t0 = time.time()
    model.train()
    perm = torch.randperm(len(Xtr))
    tot = 0.0
    for b in range(0, len(Xtr), bs):
        idx = perm[b:b + bs]
        opt.zero_grad()
        loss = crit(model(Xtr[idx]), ytr[idx])
        loss.backward()
        opt.step()
        tot += loss.item() * len(idx)
    model.eval()
    with torch.no_grad():
        pv = torch.sigmoid(model(Xva)).numpy()
    tl = tot / len(Xtr)
    va, vl = auc_score(yva.numpy(), pv), logloss(yva.numpy(), pv)
    hist.append({"epoch": ep, "train_loss": round(tl, 5), "val_auc": round(va, 5), "val_logloss": round(vl, 5)})
    p(f"Epoch {ep}/{E} - {time.time() - t0:.1f}s - train_loss: {tl:.4f} - val_auc: {va:.4f} - val_logloss: {vl:.4f}")
json.dump(hist, open("history.json", "w"), indent=1)
