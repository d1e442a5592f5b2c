import csv
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

class Encoder(nn.Module):
    def __init__(self, w):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
            nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(),
            nn.Conv2d(2 * w, 4 * w, 3, stride=2, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU())

    def forward(self, x):
        return self.conv(x).flatten(2).mean(-1)


class Model(nn.Module):
    def __init__(self, mc):
        super().__init__()
        self.backbone = Encoder(mc["width"])
        d = 4 * mc["width"]
        self.projector = nn.Sequential(nn.Linear(d, mc["proj_hidden"]), nn.BatchNorm1d(mc["proj_hidden"]), nn.ReLU(),
                                       nn.Linear(mc["proj_hidden"], mc["proj_dim"]))

    def forward(self, x):
        return self.projector(self.backbone(x))


def contrastive_loss(z1, z2, tau):
    z = F.normalize(torch.cat([z1, z2]), dim=-1)
    sim = z @ z.T / tau
    n = len(z1)
    sim[range(2 * n), range(2 * n)] = -float("inf")
    target = torch.cat([torch.arange(n) + n, torch.arange(n)])
    return F.cross_entropy(sim, target)


def grad_norm(module):
    g = [p.grad.norm() for p in module.parameters() if p.grad is not None]
    return torch.stack(g).norm().item() if g else 0.0


@torch.no_grad()
def knn_accuracy(model, Xb, yb, Xq, yq, k=20):
    model.eval()
    fb, fq = F.normalize(model.backbone(Xb), dim=1), F.normalize(model.backbone(Xq), dim=1)
    model.train()
    s, i = (fq @ fb.T).topk(k, dim=1)
    votes = torch.zeros(len(fq), 10).scatter_add_(1, yb[i], (s / 0.1).exp())
    return (votes.argmax(1) == yq).float().mean().item(), fq.std(0).mean().item()


Xtr, ytr = make_shapes(cfg["data"]["n_train"], seed=61)
Xva, yva = make_shapes(cfg["data"]["n_val"], seed=62)
Xtr, Xva, ytr, yva = map(torch.tensor, (Xtr, Xva, ytr, yva))
m, s = Xtr.mean(), Xtr.std()
Xtr, Xva = (Xtr - m) / s, (Xva - m) / s

model = Model(cfg["model"])
for p in model.backbone.parameters():
    p.requires_grad = False
params = [p for p in model.parameters() if p.requires_grad]
tc = cfg["train"]
optimizer = torch.optim.Adam(params, lr=tc["lr"], weight_decay=tc["weight_decay"])
bs = tc["batch_size"]
n_iter = len(Xtr) // bs
total, warm = tc["epochs"] * n_iter, tc["warmup_epochs"] * n_iter
sched = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + math.cos(math.pi * (s - warm) / (total - warm))))
g = torch.Generator().manual_seed(cfg["seed"])
tau = cfg["model"]["temperature"]

f = open("metrics.csv", "w", newline="")
w = csv.writer(f)
w.writerow(["epoch", "lr", "loss", "grad_norm_backbone", "grad_norm_projector", "pos_sim", "knn_acc", "feat_std"])
acc, fstd = knn_accuracy(model, Xtr, ytr, Xva, yva)
w.writerow([0, "", "", "", "", "", f"{acc:.4f}", f"{fstd:.4f}"])
t0 = time.time()
for epoch in range(1, tc["epochs"] + 1):
    perm = torch.randperm(len(Xtr), generator=g)
    L, GB, GP, PS = [], [], [], []
    lr_now = optimizer.param_groups[0]["lr"]
    for it in range(n_iter):
        x = Xtr[perm[it * bs:(it + 1) * bs]]
        z1, z2 = model(augment(x, g)), model(augment(x, g))
        loss = contrastive_loss(z1, z2, tau)
        optimizer.zero_grad()
        loss.backward()
        GB.append(grad_norm(model.backbone))
        GP.append(grad_norm(model.projector))
        optimizer.step()
        sched.step()
        L.append(loss.item())
        PS.append(F.cosine_similarity(z1, z2).mean().item())
    row = [epoch, f"{lr_now:.6f}", f"{np.mean(L):.4f}", f"{np.mean(GB):.4f}", f"{np.mean(GP):.4f}", f"{np.mean(PS):.4f}"]
    if epoch % cfg["eval_every"] == 0:
        acc, fstd = knn_accuracy(model, Xtr, ytr, Xva, yva)
        row += [f"{acc:.4f}", f"{fstd:.4f}"]
    else:
        row += ["", ""]
    w.writerow(row)
    f.flush()
    print(f"epoch {epoch} loss {np.mean(L):.4f} knn {row[-2]} ({time.time() - t0:.0f}s)", flush=True)
