import csv
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
SEED = 7
torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)

NUM_CLASSES = 250
EMBEDDING_SIZE = 128
SCALE, MARGIN = 30.0, 0.35
EPOCHS = 15
BATCH = 200

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



def load_records(split):
    if split == "train":
        x, y = make_identities(NUM_CLASSES, 40, seed=51)
    else:
        x, y = make_identities(100, 20, seed=52)
    order = rng.permutation(len(y))
    return [{"sample_id": f"{split}_{i:06d}", "feat": x[i], "label": int(y[i])} for i in order]


def to_arrays(records):
    feats = {r["sample_id"]: r["feat"] for r in records}
    ids = sorted(feats)
    X = np.stack([feats[i] for i in ids])
    y = np.array([r["label"] for r in records])
    return torch.from_numpy(X), torch.from_numpy(y)


class CosFace(nn.Module):
    def __init__(self, emb, n_cls, s, m):
        super().__init__()
        self.W = nn.Parameter(torch.randn(n_cls, emb) * 0.01)
        self.s, self.m = s, m

    def forward(self, emb, labels):
        cos = F.linear(F.normalize(emb), F.normalize(self.W))
        logits = self.s * (cos - self.m * F.one_hot(labels, cos.shape[1]))
        return F.cross_entropy(logits, labels), (cos.argmax(1) == labels).float().mean()


X_tr, Y_tr = to_arrays(load_records("train"))
X_te, Y_te = to_arrays(load_records("test"))

net = nn.Sequential(
    nn.Linear(X_tr.shape[1], 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(256, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(256, EMBEDDING_SIZE),
)
head = CosFace(EMBEDDING_SIZE, NUM_CLASSES, SCALE, MARGIN)
opt = torch.optim.AdamW(list(net.parameters()) + list(head.parameters()), lr=1e-3, weight_decay=5e-4)

print(f"train {tuple(X_tr.shape)} test {tuple(X_te.shape)} classes {NUM_CLASSES}  "
      f"CosFace(s={SCALE}, m={MARGIN})")
hist = open("history.csv", "w", newline="")
w = csv.writer(hist)
w.writerow(["epoch", "loss", "train_acc", "R@1", "R@10", "NMI", "seconds"])
steps = math.ceil(len(Y_tr) / BATCH)
for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    net.train()
    perm = torch.randperm(len(Y_tr))
    tot, acc = 0.0, 0.0
    for i in range(steps):
        b = perm[i * BATCH:(i + 1) * BATCH]
        loss, a = head(net(X_tr[b]), Y_tr[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item()
        acc += a.item()
    net.eval()
    with torch.no_grad():
        emb = net(X_te)
    r = recall_at_k(emb, Y_te, ks=(1, 10))
    score = nmi(kmeans(F.normalize(emb), 100).numpy(), Y_te.numpy())
    dt = time.time() - t0
    print(f"Epoch {epoch}/{EPOCHS}\n{steps}/{steps} - {dt:.1f}s - loss: {tot / steps:.4f} - acc: {acc / steps:.4f} "
          f"- R@1: {r[1]:.4f} - R@10: {r[10]:.4f} - NMI: {score:.4f}")
    w.writerow([epoch, f"{tot / steps:.5f}", f"{acc / steps:.5f}", f"{r[1]:.5f}", f"{r[10]:.5f}",
                f"{score:.5f}", f"{dt:.2f}"])
    hist.flush()
