import json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

def simulate_interactions(n_users=1000, n_items=600, dim=16, per_user=30, n_test=5, seed=7):
    """Implicit feedback from latent user/item factors + item popularity; leave-n-out test."""
    rng = np.random.default_rng(seed)
    U = rng.normal(0, 1, (n_users, dim))
    V = rng.normal(0, 1, (n_items, dim))
    pop = rng.normal(0, 1, n_items)
    logits = 2.0 * U @ V.T / np.sqrt(dim) + pop
    g = rng.gumbel(size=logits.shape)
    top = np.argsort(-(logits + g), axis=1)[:, :per_user]
    train, test = [], {}
    for u in range(n_users):
        items = rng.permutation(top[u])
        test[u] = items[:n_test]
        train += [(u, i) for i in items[n_test:]]
    return np.array(train), test


def topk_metrics(scores, test, k):
    topk = scores.topk(k, dim=1).indices.numpy()
    disc = 1.0 / np.log2(np.arange(2, k + 2))
    recall, ndcg = [], []
    for u, rel in test.items():
        hits = np.isin(topk[u], rel).astype(float)
        recall.append(hits.sum() / k)
        idcg = disc[:min(len(rel), k)].sum()
        ndcg.append((hits * disc).sum() / idcg)
    return float(np.mean(recall)), float(np.mean(ndcg))


class Tower(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.emb = nn.Embedding(n, dim)
        nn.init.normal_(self.emb.weight, std=0.1)
        self.proj = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, ids):
        return F.normalize(self.emb(ids) + self.proj(self.emb(ids)), dim=-1)


torch.set_num_threads(1)
hp = json.load(open("hparams.json"))
torch.manual_seed(hp["seed"])
train_pairs, test = simulate_interactions(hp["n_users"], hp["n_items"], seed=hp["data_seed"])
users, items = Tower(hp["n_users"], hp["dim"]), Tower(hp["n_items"], hp["dim"])
opt = torch.optim.Adam(list(users.parameters()) + list(items.parameters()), lr=hp["lr"])
pairs = torch.tensor(train_pairs)
mask_u, mask_i = torch.tensor(train_pairs[:, 0]), torch.tensor(train_pairs[:, 1])
all_u, all_i = torch.arange(hp["n_users"]), torch.arange(hp["n_items"])
K, bs = hp["k"], hp["batch_size"]
log = open("train.log", "w")
for ep in range(1, hp["epochs"] + 1):
    perm = torch.randperm(len(pairs))
    tot, nb = 0.0, 0
    for b in range(0, len(pairs) - bs + 1, bs):
        batch = pairs[perm[b:b + bs]]
        logits = users(batch[:, 0]) @ items(batch[:, 1]).T / hp["temperature"]
        loss = F.cross_entropy(logits, torch.arange(len(batch)))
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item(); nb += 1
    if ep % hp["eval_every"] == 0:
        with torch.no_grad():
            scores = users(all_u) @ items(all_i).T
        scores[mask_u, mask_i] = -float("inf")
        r, n = topk_metrics(scores, test, K)
        log.write(f"[epoch {ep}] loss={tot / nb:.4f} recall@{K}={r:.4f} ndcg@{K}={n:.4f}\n")
    else:
        log.write(f"[epoch {ep}] loss={tot / nb:.4f}\n")
    log.flush()
