import math, time, yaml
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

class Backbone(nn.Module):
    def __init__(self, w=16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
            nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(),
            nn.Conv2d(2 * w, 4 * w, 3, stride=2, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.out_dim = 4 * w

    def forward(self, x):
        return self.net(x)


class SimCLR(nn.Module):
    def __init__(self, hidden=128, dim=64):
        super().__init__()
        self.backbone = Backbone()
        self.projector = nn.Sequential(nn.Linear(self.backbone.out_dim, hidden), nn.BatchNorm1d(hidden),
                                       nn.ReLU(), nn.Linear(hidden, dim))

    def forward(self, x):
        return self.projector(self.backbone(x))


def nt_xent(z1, z2, t):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    n = z1.shape[0]
    sim = z @ z.t() / t
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


@torch.no_grad()
def embed(model, X, bs=512):
    model.eval()
    h = torch.cat([model.backbone(X[i:i + bs]) for i in range(0, len(X), bs)])
    model.train()
    return h


@torch.no_grad()
def knn_acc(ftr, ytr, fte, yte, k=20, t=0.1):
    ftr, fte = F.normalize(ftr, dim=1), F.normalize(fte, dim=1)
    v, idx = (fte @ ftr.t()).topk(k, dim=1)
    votes = torch.zeros(len(fte), 10).scatter_add_(1, ytr[idx], (v / t).exp())
    return (votes.argmax(1) == yte).float().mean().item()


Xtr, ytr = make_shapes(cfg["data"]["n_train"], seed=1)
Xva, yva = make_shapes(cfg["data"]["n_val"], seed=2)
Xtr, Xva = torch.tensor(Xtr), torch.tensor(Xva)
ytr, yva = torch.tensor(ytr), torch.tensor(yva)
mean, std = Xtr.mean(), Xtr.std()
Xtr, Xva = (Xtr - mean) / std, (Xva - mean) / std
print(f"data: train={tuple(Xtr.shape)} val={tuple(Xva.shape)} mean={mean:.4f} std={std:.4f}")

model = SimCLR(cfg["model"]["proj_hidden"], cfg["model"]["proj_dim"])
print(f"params: backbone={sum(p.numel() for p in model.backbone.parameters())} "
      f"projector={sum(p.numel() for p in model.projector.parameters())}")
oc = cfg["optim"]
opt = torch.optim.Adam(model.parameters(), lr=oc["lr"], weight_decay=oc["weight_decay"])
bs = oc["batch_size"]
steps_per_epoch = len(Xtr) // bs
E, W = cfg["schedule"]["epochs"], cfg["schedule"]["warmup_epochs"]
total, warm = E * steps_per_epoch, W * steps_per_epoch

def lr_at(step):
    if step < warm:
        return oc["lr"] * (step + 1) / warm
    p = (step - warm) / max(1, total - warm)
    return oc["lr"] * 0.5 * (1 + math.cos(math.pi * p))

g = torch.Generator().manual_seed(cfg["seed"])
ac = cfg["augment"]
aug = lambda x: augment(x, g, shift=ac["max_shift"], noise=ac["noise_std"], cutout=ac["cutout_p"])
T = cfg["loss"]["temperature"]
print(f"steps/epoch={steps_per_epoch} total_steps={total} warmup_steps={warm}")
print(f"knn@init: {knn_acc(embed(model, Xtr), ytr, embed(model, Xva), yva):.4f}")

step = 0
t0 = time.time()
for epoch in range(E):
    perm = torch.randperm(len(Xtr), generator=g)
    losses, stds, aligns, pos_sims = [], [], [], []
    for i in range(steps_per_epoch):
        for pg in opt.param_groups:
            pg["lr"] = lr_at(step)
        xb = Xtr[perm[i * bs:(i + 1) * bs]]
        z1, z2 = model(aug(xb)), model(aug(xb))
        loss = nt_xent(z1, z2, T)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        with torch.no_grad():
            n1, n2 = F.normalize(z1, dim=1), F.normalize(z2, dim=1)
            losses.append(loss.item())
            stds.append(n1.std(0).mean().item())
            aligns.append((n1 - n2).pow(2).sum(1).mean().item())
    with torch.no_grad():
        zv = F.normalize(model.projector(embed(model, Xva)), dim=1)
        unif = torch.pdist(zv).pow(2).mul(-2).exp().mean().log().item()
    line = (f"epoch {epoch + 1:3d}/{E} | lr {opt.param_groups[0]['lr']:.6f} | loss {np.mean(losses):.4f} "
            f"| z_std {np.mean(stds):.4f} | align {np.mean(aligns):.4f} | uniform {unif:.4f} | {time.time() - t0:.1f}s")
    if (epoch + 1) % cfg["eval"]["knn_every"] == 0 or epoch == 0:
        acc = knn_acc(embed(model, Xtr), ytr, embed(model, Xva), yva, k=cfg["eval"]["knn_k"])
        line += f" | knn_top1 {acc:.4f}"
    print(line, flush=True)

torch.save({"model": model.state_dict(), "epoch": E, "cfg": cfg}, "checkpoint_last.pt")
print("saved checkpoint_last.pt")

# linear probe on frozen backbone features
ftr, fva = embed(model, Xtr), embed(model, Xva)
mu, sd = ftr.mean(0), ftr.std(0) + 1e-6
ftr, fva = (ftr - mu) / sd, (fva - mu) / sd
clf = nn.Linear(ftr.shape[1], 10)
popt = torch.optim.Adam(clf.parameters(), lr=0.01, weight_decay=1e-4)
with open("linear_probe.log", "w") as f:
    f.write(f"linear probe: frozen backbone from checkpoint_last.pt, feat_dim={ftr.shape[1]}, full-batch adam lr=0.01\n")
    for it in range(1, 301):
        ploss = F.cross_entropy(clf(ftr), ytr)
        popt.zero_grad(); ploss.backward(); popt.step()
        if it % 25 == 0:
            with torch.no_grad():
                tr_acc = (clf(ftr).argmax(1) == ytr).float().mean().item()
                va_acc = (clf(fva).argmax(1) == yva).float().mean().item()
                va_loss = F.cross_entropy(clf(fva), yva).item()
            f.write(f"iter {it:4d}  train_loss {ploss.item():.4f}  train_acc {tr_acc:.4f}  val_loss {va_loss:.4f}  val_acc {va_acc:.4f}\n")
    f.write(f"final linear probe val_acc: {va_acc:.4f}\n")
print(f"linear probe val_acc {va_acc:.4f} (see linear_probe.log)")
