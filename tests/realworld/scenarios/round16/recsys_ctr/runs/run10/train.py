import logging
import zlib
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

HASH_BUCKETS = 2 ** 14


def hash_features(df, cols, n_buckets=HASH_BUCKETS):
    out = np.zeros((len(df), len(cols)), dtype=np.int64)
    for j, c in enumerate(cols):
        table = {v: zlib.crc32(f"{c}={v}".encode()) % n_buckets for v in df[c].unique()}
        out[:, j] = df[c].map(table).values
    return torch.tensor(out)


def dense_features(df, cols, stats=None):
    x = np.log1p(df[cols].values.astype(np.float32))
    if stats is None:
        stats = (x.mean(0), x.std(0) + 1e-6)
    return torch.tensor((x - stats[0]) / stats[1]), stats


class DLRM(nn.Module):
    def __init__(self, n_buckets, n_fields, n_dense, d, bottom, top):
        super().__init__()
        self.emb = nn.Embedding(n_buckets, d)
        nn.init.normal_(self.emb.weight, std=0.05)
        layers, h = [], n_dense
        for u in bottom:
            layers += [nn.Linear(h, u), nn.ReLU()]
            h = u
        self.bot = nn.Sequential(*layers)
        nv = n_fields + 1
        self.iu = torch.triu_indices(nv, nv, 1)
        layers, h = [], d + nv * (nv - 1) // 2
        for u in top:
            layers += [nn.Linear(h, u), nn.ReLU()]
            h = u
        self.top = nn.Sequential(*layers, nn.Linear(h, 1))

    def forward(self, xd, xs):
        z = self.bot(xd)
        v = torch.cat([z.unsqueeze(1), self.emb(xs)], 1)
        inter = (v @ v.transpose(1, 2))[:, self.iu[0], self.iu[1]]
        return self.top(torch.cat([z, inter], 1)).squeeze(1)


logging.basicConfig(filename="train.log", filemode="w", level=logging.INFO,
                    format="%(asctime)s %(levelname)s %(message)s", datefmt="%H:%M:%S")
torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
df = simulate_impressions(cfg["data"]["n_impressions"], seed=cfg["data"]["sim_seed"])
df = df.sample(frac=1.0, random_state=cfg["seed"]).reset_index(drop=True)
n_val = int(len(df) * cfg["data"]["val_frac"])
val_df, train_df = df.iloc[:n_val], df.iloc[n_val:]

Str = hash_features(train_df, cfg["sparse"], cfg["hash_buckets"])
Dtr, stats = dense_features(train_df, cfg["dense"])
ytr = torch.tensor(train_df.click.values)
Sva = hash_features(val_df, cfg["sparse"])
Dva, _ = dense_features(val_df, cfg["dense"], stats)
yva = val_df.click.values

m = cfg["model"]
model = DLRM(cfg["hash_buckets"], len(cfg["sparse"]), len(cfg["dense"]), m["emb_dim"], m["bottom"], m["top"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
bce = nn.BCEWithLogitsLoss()
bs, E = cfg["train"]["batch_size"], cfg["train"]["epochs"]
logging.info("train rows=%d val rows=%d hash_buckets=%d", len(ytr), len(yva), cfg["hash_buckets"])
for ep in range(1, E + 1):
    model.train()
    perm = torch.randperm(len(ytr))
    tot, ps = 0.0, torch.empty(len(ytr))
    for b in range(0, len(ytr), bs):
        idx = perm[b:b + bs]
        logit = model(Dtr[idx], Str[idx])
        loss = bce(logit, ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item() * len(idx); ps[idx] = logit.detach()
    model.eval()
    with torch.no_grad():
        pv = torch.sigmoid(model(Dva, Sva)).numpy()
    logging.info("epoch=%d train_loss=%.4f train_auc=%.4f val_loss=%.4f val_auc=%.4f", ep, tot / len(ytr),
                 auc_score(ytr.numpy(), ps.numpy()), logloss(yva, pv), auc_score(yva, pv))
