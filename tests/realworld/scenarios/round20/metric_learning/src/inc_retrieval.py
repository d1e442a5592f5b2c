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
