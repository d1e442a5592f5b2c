import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

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


def evaluate(model, train_pairs, test, n_items, k=20):
    with torch.no_grad():
        scores = F.normalize(model.user_emb.weight, dim=-1) @ F.normalize(model.item_emb.weight, dim=-1).T
    scores[train_pairs[:, 0], train_pairs[:, 1]] = -float("inf")
    topk = scores.topk(k, dim=1).indices.numpy()
    rec, ndcg = [], []
    disc = 1.0 / np.log2(np.arange(2, k + 2))
    for u, items in test.items():
        hit = np.isin(topk[u], items)
        rec.append(hit.sum() / len(items))
        ndcg.append((hit * disc).sum() / disc[:min(len(items), k)].sum())
    return float(np.mean(rec)), float(np.mean(ndcg))


class TwoTower(nn.Module):
    def __init__(self, user_init, item_init, temperature):
        super().__init__()
        self.user_emb = nn.Embedding.from_pretrained(user_init)
        self.item_emb = nn.Embedding.from_pretrained(item_init)
        self.logit_scale = nn.Parameter(torch.tensor(float(np.log(1 / temperature))))

    def forward(self, u, i):
        q = F.normalize(self.user_emb(u), dim=-1)
        c = F.normalize(self.item_emb(i), dim=-1)
        return self.logit_scale.exp() * q @ c.T


torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"]); np.random.seed(cfg["seed"])
dc = cfg["data"]
train_pairs, test = simulate_interactions(dc["n_users"], dc["n_items"], per_user=dc["interactions_per_user"],
                                          n_test=dc["holdout_per_user"], seed=dc["seed"])
n_users, n_items, dim = dc["n_users"], dc["n_items"], cfg["model"]["dim"]

# warm start: item factors from a truncated SVD of the user-item matrix
R = np.zeros((n_users, n_items), dtype=np.float32)
R[train_pairs[:, 0], train_pairs[:, 1]] = 1.0
_, s, vt = np.linalg.svd(R, full_matrices=False)
item_init = torch.tensor((vt[:dim].T * np.sqrt(s[:dim])).astype(np.float32))
user_init = torch.randn(n_users, dim) * 0.1

model = TwoTower(user_init, item_init, cfg["model"]["init_temperature"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
pairs = torch.tensor(train_pairs)
bs, E, K = cfg["train"]["batch_size"], cfg["train"]["epochs"], cfg["eval"]["k"]
log = open("train.log", "w")
log.write(f"users={n_users} items={n_items} train_interactions={len(pairs)} params={sum(p.numel() for p in model.parameters())}\n")
for ep in range(1, E + 1):
    perm = torch.randperm(len(pairs))
    losses, gns = [], []
    for b in range(0, len(pairs) - bs + 1, bs):
        batch = pairs[perm[b:b + bs]]
        logits = model(batch[:, 0], batch[:, 1])
        loss = F.cross_entropy(logits, torch.arange(len(batch)))
        opt.zero_grad()
        loss.backward()
        gns.append(torch.norm(torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None])).item())
        opt.step()
        losses.append(loss.item())
    r, n = evaluate(model, train_pairs, test, n_items, K)
    log.write(f"[epoch {ep}] loss={np.mean(losses):.4f} grad_norm={np.mean(gns):.5f} recall@{K}={r:.4f} ndcg@{K}={n:.4f}\n")
    log.flush()
