import argparse
import csv
import json

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument("--train-ids", type=int, default=40)
parser.add_argument("--imgs-per-id", type=int, default=6)
parser.add_argument("--val-ids", type=int, default=100)
parser.add_argument("--epochs", type=int, default=200)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--lr", type=float, default=3e-4)
parser.add_argument("--hidden", type=int, default=1024)
parser.add_argument("--embedding-size", type=int, default=128)
parser.add_argument("--pos-margin", type=float, default=0.0)
parser.add_argument("--neg-margin", type=float, default=0.8)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
json.dump(vars(args), open("args.json", "w"), indent=2)

def make_identities(n_ids, per_id, seed, dim=64, id_dims=8, nuisance_dims=8, within=0.45, nuisance=1.5, sensor_seed=7):
    """Synthetic 'descriptor' data: each identity is a point in a latent space,
    samples are noisy views (plus pose/lighting-like nuisance factors)
    pushed through a fixed nonlinear sensor."""
    sensor = np.random.default_rng(sensor_seed)
    L = id_dims + nuisance_dims
    A = sensor.normal(size=(L, 96)) / np.sqrt(L)
    B = sensor.normal(size=(96, dim)) / np.sqrt(96)
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(n_ids, id_dims))
    y = np.repeat(np.arange(n_ids), per_id)
    z_id = centers[y] + within * rng.normal(size=(len(y), id_dims))
    z_nu = nuisance * rng.normal(size=(len(y), nuisance_dims))
    z = np.concatenate([z_id, z_nu], 1)
    x = np.tanh(1.2 * z @ A) @ B + 0.05 * rng.normal(size=(len(y), dim))
    return x.astype(np.float32), y.astype(np.int64)


@torch.no_grad()
def recall_at_k(emb, labels, ks=(1, 2, 4, 8)):
    emb = F.normalize(emb, dim=1)
    sim = emb @ emb.t()
    sim.fill_diagonal_(-float("inf"))
    nn_idx = sim.topk(max(ks), dim=1).indices
    hit = labels[nn_idx] == labels[:, None]
    return {k: hit[:, :k].any(dim=1).float().mean().item() for k in ks}


@torch.no_grad()
def map_at_r(emb, labels):
    emb = F.normalize(emb, dim=1)
    sim = emb @ emb.t()
    sim.fill_diagonal_(-float("inf"))
    counts = torch.bincount(labels)
    R = int(counts.max().item()) - 1
    nn_idx = sim.topk(R, dim=1).indices
    hit = (labels[nn_idx] == labels[:, None]).float()
    r_i = (counts[labels] - 1).float()
    mask = torch.arange(R)[None, :] < r_i[:, None]
    prec = hit.cumsum(1) / torch.arange(1, R + 1)[None, :]
    return ((prec * hit * mask).sum(1) / r_i).mean().item()


@torch.no_grad()
def kmeans(x, k, iters=40, seed=0):
    g = torch.Generator().manual_seed(seed)
    c = x[torch.randperm(len(x), generator=g)[:k]].clone()
    for _ in range(iters):
        a = torch.cdist(x, c).argmin(1)
        sums = torch.zeros_like(c).index_add_(0, a, x)
        counts = torch.bincount(a, minlength=k).float()[:, None]
        c = torch.where(counts > 0, sums / counts.clamp(min=1), c)
    return a


def nmi(a, b):
    a = np.asarray(a); b = np.asarray(b)
    n = len(a)
    _, ai = np.unique(a, return_inverse=True)
    _, bi = np.unique(b, return_inverse=True)
    cont = np.zeros((ai.max() + 1, bi.max() + 1))
    np.add.at(cont, (ai, bi), 1)
    pij = cont / n
    pi = pij.sum(1, keepdims=True); pj = pij.sum(0, keepdims=True)
    nz = pij > 0
    mi = (pij[nz] * np.log(pij[nz] / (pi @ pj)[nz])).sum()
    hi = -(pi[pi > 0] * np.log(pi[pi > 0])).sum()
    hj = -(pj[pj > 0] * np.log(pj[pj > 0])).sum()
    return float(2 * mi / (hi + hj)) if hi + hj > 0 else 0.0



def contrastive_loss(emb, labels, pos_margin, neg_margin):
    emb = F.normalize(emb, dim=1)
    d = torch.cdist(emb, emb)
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(len(labels), dtype=torch.bool)
    pos = d[same & ~eye]
    neg = d[~same]
    return F.relu(pos - pos_margin).mean() + F.relu(neg_margin - neg).mean()


x_tr, y_tr = make_identities(args.train_ids, args.imgs_per_id, seed=1)
x_va, y_va = make_identities(args.val_ids, 10, seed=2)
X_tr, Y_tr = torch.from_numpy(x_tr), torch.from_numpy(y_tr)
X_va, Y_va = torch.from_numpy(x_va), torch.from_numpy(y_va)

torch.manual_seed(args.seed)
model = nn.Sequential(
    nn.Linear(X_tr.shape[1], args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, args.embedding_size),
)
print(f"params: {sum(p.numel() for p in model.parameters()):,}")
print(f"train: {len(Y_tr)} samples / {args.train_ids} ids   val: {len(Y_va)} samples / {args.val_ids} ids")
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X_tr, Y_tr),
                                     batch_size=args.batch_size, shuffle=True)

fields = ["epoch", "train_loss", "val_loss", "train_R@1", "val_R@1", "val_R@5", "val_mAP@R"]
with open("metrics.csv", "w", newline="") as f:
    csv.writer(f).writerow(fields)

for epoch in range(1, args.epochs + 1):
    model.train()
    for xb, yb in loader:
        loss = contrastive_loss(model(xb), yb, args.pos_margin, args.neg_margin)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        e_tr, e_va = model(X_tr), model(X_va)
        tr_loss = contrastive_loss(e_tr, Y_tr, args.pos_margin, args.neg_margin).item()
        va_loss = contrastive_loss(e_va, Y_va, args.pos_margin, args.neg_margin).item()
        r_tr = recall_at_k(e_tr, Y_tr, ks=(1,))
        r_va = recall_at_k(e_va, Y_va, ks=(1, 5))
        mapr = map_at_r(e_va, Y_va)
    row = [epoch, tr_loss, va_loss, r_tr[1], r_va[1], r_va[5], mapr]
    with open("metrics.csv", "a", newline="") as f:
        csv.writer(f).writerow([row[0]] + [f"{v:.4f}" for v in row[1:]])
    if epoch % 10 == 0 or epoch == 1:
        print(f"ep {epoch:3d} | train loss {tr_loss:.4f} R@1 {r_tr[1]:.3f} | val loss {va_loss:.4f} "
              f"R@1 {r_va[1]:.3f} R@5 {r_va[5]:.3f} mAP@R {mapr:.4f}")
