import math
import time
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])


def make_shapes(n, seed, size=16, return_attrs=False):
    """Synthetic 'shapes16' set: 10 shape classes at random position/scale/intensity + distractor blob + noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 10, n)
    X = np.zeros((n, size, size), np.float32)
    attrs = np.zeros((n, 4), np.float32)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    for i in range(n):
        cx, cy = rng.uniform(4.5, size - 5.5, 2)
        s = rng.uniform(2.8, 4.5)
        dx, dy = xx - cx, yy - cy
        r = np.sqrt(dx ** 2 + dy ** 2)
        c = y[i]
        if c == 0: m = (np.abs(dy) < 1) & (np.abs(dx) < s)
        elif c == 1: m = (np.abs(dx) < 1) & (np.abs(dy) < s)
        elif c == 2: m = (np.abs(dx - dy) < 1.1) & (np.abs(dx) < s)
        elif c == 3: m = (np.abs(dx + dy) < 1.1) & (np.abs(dx) < s)
        elif c == 4: m = ((np.abs(dy) < 1) & (np.abs(dx) < s)) | ((np.abs(dx) < 1) & (np.abs(dy) < s))
        elif c == 5: m = ((np.abs(dx - dy) < 1.1) | (np.abs(dx + dy) < 1.1)) & (np.abs(dx) < s)
        elif c == 6:
            mx = np.maximum(np.abs(dx), np.abs(dy)); m = (mx < s) & (mx > s - 1.2)
        elif c == 7: m = np.maximum(np.abs(dx), np.abs(dy)) < s * 0.7
        elif c == 8: m = (r < s) & (r > s - 1.3)
        else: m = r < s * 0.75
        inten = rng.uniform(0.5, 1.0)
        img = m.astype(np.float32) * inten
        bx, by = rng.uniform(0, size, 2)
        img += rng.uniform(0.0, 0.5) * np.exp(-((xx - bx) ** 2 + (yy - by) ** 2) / (2 * rng.uniform(1, 3) ** 2))
        img += rng.uniform(-0.1, 0.2) + rng.normal(0, 0.12, (size, size))
        X[i] = img
        attrs[i] = (cx, cy, s, inten)
    if return_attrs:
        return X[:, None], y, attrs
    return X[:, None], y


def augment(x, g, shift=3, noise=0.15, cutout=0.5):
    B, C, H, W = x.shape
    xp = F.pad(x, (shift,) * 4)
    ox = torch.randint(0, 2 * shift + 1, (B,), generator=g)
    oy = torch.randint(0, 2 * shift + 1, (B,), generator=g)
    out = torch.stack([xp[i, :, oy[i]:oy[i] + H, ox[i]:ox[i] + W] for i in range(B)])
    a = torch.empty(B, 1, 1, 1).uniform_(0.6, 1.4, generator=g)
    b = torch.empty(B, 1, 1, 1).uniform_(-0.3, 0.3, generator=g)
    out = out * a + b + noise * torch.randn(out.shape, generator=g)
    if cutout > 0:
        cm = torch.rand(B, generator=g) < cutout
        cx = torch.randint(0, W - 4, (B,), generator=g)
        cy = torch.randint(0, H - 4, (B,), generator=g)
        for i in torch.nonzero(cm).flatten().tolist():
            out[i, :, cy[i]:cy[i] + 5, cx[i]:cx[i] + 5] = 0
    return out

def build_backbone(w):
    return nn.Sequential(
        nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
        nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(),
        nn.Conv2d(2 * w, 4 * w, 3, stride=2, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten())


backbone = build_backbone(cfg["width"])
feat_dim = 4 * cfg["width"]
projector = nn.Sequential(nn.Linear(feat_dim, cfg["proj"]["hidden"]), nn.BatchNorm1d(cfg["proj"]["hidden"]), nn.ReLU(),
                          nn.Linear(cfg["proj"]["hidden"], cfg["proj"]["out"]))


def ntxent(z1, z2, t):
    z = F.normalize(torch.cat((z1, z2)), dim=1)
    n = z1.shape[0]
    logits = z @ z.T / t
    logits.fill_diagonal_(-1e4)
    labels = torch.cat((torch.arange(n, 2 * n), torch.arange(n)))
    return F.cross_entropy(logits, labels)


def extract(X, bs):
    feats = []
    for i in range(0, len(X), bs):
        with torch.no_grad():
            feats.append(backbone(X[i:i + bs]))
    return torch.cat(feats)


def knn_eval(Xbank, ybank, Xq, yq):
    fb = F.normalize(extract(Xbank, cfg["eval_batch_size"]), dim=1)
    fq = F.normalize(extract(Xq, cfg["eval_batch_size"]), dim=1)
    s, idx = (fq @ fb.T).topk(cfg["knn"]["k"], dim=1)
    votes = torch.zeros(len(fq), 10).scatter_add_(1, ybank[idx], (s / cfg["knn"]["t"]).exp())
    pred = votes.argmax(1)
    per_class = [(pred[yq == c] == c).float().mean().item() for c in range(10)]
    return (pred == yq).float().mean().item(), per_class


Xtr, ytr = make_shapes(cfg["n_train"], seed=71)
Xva, yva = make_shapes(cfg["n_val"], seed=72)
order = np.argsort(yva, kind="stable")
Xva, yva = Xva[order], yva[order]
Xtr, Xva, ytr, yva = map(torch.from_numpy, (Xtr, Xva, ytr, yva))
mean, std = Xtr.mean(), Xtr.std()
Xtr, Xva = (Xtr - mean) / std, (Xva - mean) / std

params = list(backbone.parameters()) + list(projector.parameters())
opt = torch.optim.Adam(params, lr=cfg["optimizer"]["lr"], weight_decay=cfg["optimizer"]["weight_decay"])
bs = cfg["batch_size"]
n_it = len(Xtr) // bs
E = cfg["epochs"]
total, warm = E * n_it, cfg["warmup_epochs"] * n_it
g = torch.Generator().manual_seed(cfg["seed"])

acc, _ = knn_eval(Xtr, ytr, Xva, yva)
print(f"[init] knn_acc={acc:.4f}")
step = 0
t0 = time.time()
for epoch in range(1, E + 1):
    backbone.train()
    projector.train()
    perm = torch.randperm(len(Xtr), generator=g)
    tot, zs = 0.0, 0.0
    for it in range(n_it):
        lr = cfg["optimizer"]["lr"] * ((step + 1) / warm if step < warm else
                                       0.5 * (1 + math.cos(math.pi * (step - warm) / (total - warm))))
        for pg in opt.param_groups:
            pg["lr"] = lr
        x = Xtr[perm[it * bs:(it + 1) * bs]]
        z1 = projector(backbone(augment(x, g)))
        z2 = projector(backbone(augment(x, g)))
        loss = ntxent(z1, z2, cfg["temperature"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        tot += loss.item()
        zs += F.normalize(z1.detach(), dim=1).std(0).mean().item()
    print(f"[train] epoch {epoch:2d} step {step:4d} lr {lr:.6f} nt_xent {tot / n_it:.4f} z_std {zs / n_it:.4f} "
          f"time {time.time() - t0:.1f}s", flush=True)
    if epoch % cfg["knn"]["every"] == 0:
        acc, pc = knn_eval(Xtr, ytr, Xva, yva)
        print(f"[eval ] epoch {epoch:2d} knn_acc {acc:.4f} per_class " + " ".join(f"{a:.2f}" for a in pc), flush=True)

torch.save({"backbone": backbone.state_dict(), "projector": projector.state_dict()}, "simclr_final.pt")

# linear probe on frozen features
backbone.eval()
with torch.no_grad():
    ftr, fva = backbone(Xtr), backbone(Xva)
mu, sd = ftr.mean(0), ftr.std(0) + 1e-6
ftr, fva = (ftr - mu) / sd, (fva - mu) / sd
clf = nn.Linear(feat_dim, 10)
popt = torch.optim.Adam(clf.parameters(), lr=0.01)
with open("linear_probe.log", "w") as f:
    f.write("linear probe | features: backbone (frozen), checkpoint simclr_final.pt | optimizer adam lr 0.01 | 200 full-batch iters\n")
    for it in range(1, 201):
        l = F.cross_entropy(clf(ftr), ytr)
        popt.zero_grad()
        l.backward()
        popt.step()
        if it % 20 == 0:
            with torch.no_grad():
                tra = (clf(ftr).argmax(1) == ytr).float().mean().item()
                vaa = (clf(fva).argmax(1) == yva).float().mean().item()
            f.write(f"iter {it:3d} | train_loss {l.item():.4f} | train_acc {tra:.4f} | val_acc {vaa:.4f}\n")
    f.write(f"FINAL val_acc {vaa:.4f}\n")
print(f"linear probe val_acc {vaa:.4f}")
