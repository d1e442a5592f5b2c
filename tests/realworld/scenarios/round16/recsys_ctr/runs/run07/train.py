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


class DLRM(nn.Module):
    def __init__(self, field_dims, n_dense, d, bottom, top):
        super().__init__()
        self.embs = nn.ModuleList([nn.Embedding(n, d) for n in field_dims])
        layers, h = [], n_dense
        for u in bottom:
            layers += [nn.Linear(h, u), nn.ReLU()]
            h = u
        self.bot = nn.Sequential(*layers)
        n_vec = len(field_dims) + 1
        self.iu = torch.triu_indices(n_vec, n_vec, 1)
        layers, h = [], d + n_vec * (n_vec - 1) // 2
        for u in top:
            layers += [nn.Linear(h, u), nn.ReLU()]
            h = u
        layers.append(nn.Linear(h, 1))
        self.top = nn.Sequential(*layers)

    def forward(self, xd, xs):
        z = self.bot(xd)
        v = torch.stack([z] + [e(xs[:, j]) for j, e in enumerate(self.embs)], 1)
        inter = (v @ v.transpose(1, 2))[:, self.iu[0], self.iu[1]]
        return self.top(torch.cat([z, inter], 1)).squeeze(1)


torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
DENSE, SPARSE = cfg["features"]["dense"], cfg["features"]["sparse"]

raw = simulate_impressions(cfg["data"]["n_impressions"], seed=cfg["data"]["sim_seed"])
labels = raw["click"].values.astype(np.float32)
feats = raw.drop(columns=["click"])
feats = feats.sample(frac=1.0, random_state=cfg["seed"]).reset_index(drop=True)

n_tr = int(len(feats) * cfg["data"]["train_frac"])
Xtr_df, Xva_df = feats.iloc[:n_tr], feats.iloc[n_tr:]
ytr, yva = labels[:n_tr], labels[n_tr:]

dense_tr = np.log1p(Xtr_df[DENSE].values.astype(np.float32))
mu, sd = dense_tr.mean(0), dense_tr.std(0) + 1e-6
def dense(d):
    return torch.tensor((np.log1p(d[DENSE].values.astype(np.float32)) - mu) / sd)

field_dims = [int(raw[c].max()) + 1 for c in SPARSE]
Dtr, Str, Ytr = dense(Xtr_df), torch.tensor(Xtr_df[SPARSE].values), torch.tensor(ytr)
Dva, Sva = dense(Xva_df), torch.tensor(Xva_df[SPARSE].values)

m = cfg["model"]
model = DLRM(field_dims, len(DENSE), m["embedding_dim"], m["bottom_mlp"], m["top_mlp"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
bce = nn.BCEWithLogitsLoss()
bs, E = cfg["optim"]["batch_size"], cfg["optim"]["epochs"]
log = open("train.log", "w")
log.write(f"n_train={n_tr} n_val={len(yva)} train_ctr={ytr.mean():.4f} val_ctr={yva.mean():.4f}\n")
for ep in range(1, E + 1):
    model.train()
    perm = torch.randperm(n_tr)
    tot, gsum, nb = 0.0, 0.0, 0
    for b in range(0, n_tr, bs):
        idx = perm[b:b + bs]
        loss = bce(model(Dtr[idx], Str[idx]), Ytr[idx])
        opt.zero_grad(); loss.backward()
        gsum += torch.norm(torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None])).item()
        opt.step()
        tot += loss.item(); nb += 1
    model.eval()
    with torch.no_grad():
        pv = torch.sigmoid(model(Dva, Sva)).numpy()
    log.write(f"[ep {ep}/{E}] train_loss={tot / nb:.4f} grad_norm={gsum / nb:.4f} val_logloss={logloss(yva, pv):.4f} val_auc={auc_score(yva, pv):.4f}\n")
    log.flush()
