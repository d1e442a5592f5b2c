import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(1)

EMBEDDING_SIZE = 64
MARGIN = 0.2
BATCH_SIZE = 64
EPOCHS = 8
LR = 1e-3

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



class EmbeddingNet(nn.Module):
    def __init__(self, d_in, emb):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU())
        self.head = nn.Linear(256, emb)

    def forward(self, x):
        return F.normalize(self.head(self.body(x)), dim=1)


def all_triplets(labels):
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(len(labels), dtype=torch.bool)
    valid = (same & ~eye)[:, :, None] & (~same)[:, None, :]
    return torch.nonzero(valid, as_tuple=True)


def triplet_loss(emb, labels, margin):
    a, p, n = all_triplets(labels)
    if len(a) == 0:
        return torch.zeros((), requires_grad=True), 0, 0.0
    d = torch.cdist(emb, emb)
    losses = F.relu(d[a, p] - d[a, n] + margin)
    nz = losses > 0
    loss = losses[nz].mean() if nz.any() else losses.sum()
    return loss, len(a), nz.float().mean().item()


x_train, y_train = make_identities(150, 96, seed=41)
x_test, y_test = make_identities(100, 20, seed=42)
train_set = TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train))
train_loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=False)
X_test, Y_test = torch.from_numpy(x_test), torch.from_numpy(y_test)

model = EmbeddingNet(x_train.shape[1], EMBEDDING_SIZE)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)

log = open("train_log.txt", "w")
evals = open("retrieval_eval.txt", "w")


def evaluate(tag):
    model.eval()
    with torch.no_grad():
        emb = model(X_test)
    r = recall_at_k(emb, Y_test, ks=(1, 5, 10))
    m = map_at_r(emb, Y_test)
    line = f"{tag}: R@1 {r[1]:.4f}  R@5 {r[5]:.4f}  R@10 {r[10]:.4f}  MAP@R {m:.4f}"
    evals.write(line + "\n")
    evals.flush()
    print(line)


evaluate("init")
step = 0
for epoch in range(EPOCHS):
    model.train()
    t0 = time.time()
    for x, y in train_loader:
        emb = model(x)
        loss, n_trip, frac = triplet_loss(emb, y, MARGIN)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        log.write(f"epoch {epoch} step {step} loss {loss.item():.4f} triplets {n_trip} "
                  f"active {frac:.3f} classes_in_batch {len(torch.unique(y))}\n")
    log.flush()
    print(f"epoch {epoch} done in {time.time() - t0:.1f}s")
    evaluate(f"epoch {epoch}")
