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

SPARSE = ["user_id", "item_id", "item_cat", "user_region", "device", "hour", "ad_pos"]


class DCN(nn.Module):
    def __init__(self, dims, k, n_cross, deep, dropout):
        super().__init__()
        self.register_buffer("off", torch.tensor(np.r_[0, np.cumsum(dims)[:-1]], dtype=torch.long))
        self.emb = nn.Embedding(int(sum(dims)), k)
        d = len(dims) * k
        self.cw = nn.ModuleList([nn.Linear(d, 1, bias=False) for _ in range(n_cross)])
        self.cb = nn.ParameterList([nn.Parameter(torch.zeros(d)) for _ in range(n_cross)])
        layers, h = [], d
        for u in deep:
            layers += [nn.Linear(h, u), nn.BatchNorm1d(u), nn.ReLU(), nn.Dropout(dropout)]
            h = u
        self.deep = nn.Sequential(*layers)
        self.out = nn.Linear(d + h, 1)

    def forward(self, x):
        x0 = self.emb(x + self.off).flatten(1)
        xc = x0
        for w, b in zip(self.cw, self.cb):
            xc = x0 * w(xc) + b + xc
        return self.out(torch.cat([xc, self.deep(x0)], 1)).squeeze(1)


def evaluate(model, X, y, bs):
    preds = []
    with torch.no_grad():
        for b in range(0, len(X), bs):
            preds.append(torch.sigmoid(model(X[b:b + bs])))
    p = torch.cat(preds).numpy()
    return auc_score(y, p), logloss(y, p)


def main():
    torch.set_num_threads(1)
    cfg = yaml.safe_load(open("config.yaml"))
    torch.manual_seed(cfg["seed"])
    df = simulate_impressions(cfg["data"]["n_impressions"], seed=cfg["data"]["sim_seed"])
    df = df.sample(frac=1.0, random_state=cfg["seed"]).reset_index(drop=True)
    n_val = int(len(df) * cfg["data"]["val_frac"])
    va, tr = df.iloc[:n_val], df.iloc[n_val:]
    dims = [int(df[c].max()) + 1 for c in SPARSE]
    m, t = cfg["model"], cfg["train"]
    model = DCN(dims, m["embed_dim"], m["cross_layers"], m["deep"], m["dropout"])
    opt = torch.optim.AdamW(model.parameters(), lr=t["lr"], weight_decay=t["weight_decay"])
    bce = nn.BCEWithLogitsLoss()
    Xtr, ytr = torch.tensor(tr[SPARSE].values), torch.tensor(tr.click.values)
    Xva, yva = torch.tensor(va[SPARSE].values), va.click.values
    log = open("train.log", "w")
    for ep in range(1, t["epochs"] + 1):
        model.train()
        perm = torch.randperm(len(Xtr))
        tot = 0.0
        for b in range(0, len(Xtr), t["batch_size"]):
            idx = perm[b:b + t["batch_size"]]
            loss = bce(model(Xtr[idx]), ytr[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            tot += loss.item() * len(idx)
        vauc, vll = evaluate(model, Xva, yva, cfg["eval"]["batch_size"])
        log.write(f"Epoch {ep}/{t['epochs']} - train_loss: {tot / len(Xtr):.4f} - val_auc: {vauc:.4f} - val_logloss: {vll:.4f}\n")
        log.flush()


if __name__ == "__main__":
    main()
