import json, math, time
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

def conv_bn(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SimSiam(nn.Module):
    def __init__(self, dim=128, pred_dim=32, w=16):
        super().__init__()
        self.encoder = nn.Sequential(conv_bn(1, w, 1), conv_bn(w, 2 * w, 2), conv_bn(2 * w, 4 * w, 2),
                                     nn.AdaptiveAvgPool2d(1), nn.Flatten())
        feat = 4 * w
        self.projector = nn.Sequential(
            nn.Linear(feat, dim, bias=False), nn.BatchNorm1d(dim), nn.ReLU(inplace=True),
            nn.Linear(dim, dim))
        self.predictor = nn.Sequential(nn.Linear(dim, pred_dim, bias=False), nn.BatchNorm1d(pred_dim),
                                       nn.ReLU(inplace=True), nn.Linear(pred_dim, dim))

    def forward(self, x1, x2):
        z1 = self.projector(self.encoder(x1))
        z2 = self.projector(self.encoder(x2))
        p1, p2 = self.predictor(z1), self.predictor(z2)
        return p1, p2, z1, z2


def D(p, z):
    return -F.cosine_similarity(p, z, dim=-1).mean()


@torch.no_grad()
def knn_monitor(model, Xtr, ytr, Xte, yte, k=20):
    model.eval()
    ftr = F.normalize(model.encoder(Xtr), dim=1)
    fte = F.normalize(model.encoder(Xte), dim=1)
    model.train()
    sim, idx = (fte @ ftr.t()).topk(k, dim=1)
    votes = torch.zeros(len(fte), 10).scatter_add_(1, ytr[idx], (sim / 0.1).exp())
    return (votes.argmax(1) == yte).float().mean().item()


Xtr, ytr = make_shapes(cfg["dataset"]["train_size"], seed=11)
Xva, yva = make_shapes(cfg["dataset"]["val_size"], seed=12)
Xtr, Xva = torch.from_numpy(Xtr), torch.from_numpy(Xva)
ytr, yva = torch.from_numpy(ytr), torch.from_numpy(yva)
m, s = Xtr.mean(), Xtr.std()
Xtr, Xva = (Xtr - m) / s, (Xva - m) / s

model = SimSiam(cfg["model"]["proj_dim"], cfg["model"]["pred_hidden"])
oc, tc = cfg["optimizer"], cfg["train"]
bs, epochs = tc["batch_size"], tc["epochs"]
init_lr = oc["base_lr"] * bs / 256
optimizer = torch.optim.SGD(model.parameters(), lr=init_lr, momentum=oc["momentum"], weight_decay=oc["weight_decay"])
g = torch.Generator().manual_seed(cfg["seed"])
n_steps = len(Xtr) // bs

log = open("metrics.jsonl", "w")
knn0 = knn_monitor(model, Xtr, ytr, Xva, yva, cfg["monitor"]["knn_k"])
log.write(json.dumps({"epoch": 0, "knn_acc": round(knn0, 4)}) + "\n")
t0 = time.time()
for epoch in range(1, epochs + 1):
    lr = init_lr * 0.5 * (1 + math.cos(math.pi * (epoch - 1) / epochs))
    for pg in optimizer.param_groups:
        pg["lr"] = lr
    perm = torch.randperm(len(Xtr), generator=g)
    tot, zstd, pstd = 0.0, 0.0, 0.0
    for it in range(n_steps):
        x = Xtr[perm[it * bs:(it + 1) * bs]]
        p1, p2, z1, z2 = model(augment(x, g), augment(x, g))
        loss = D(p1, z2) / 2 + D(p2, z1) / 2
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item()
        zstd += F.normalize(z1.detach(), dim=1).std(0).mean().item()
        pstd += F.normalize(p1.detach(), dim=1).std(0).mean().item()
    rec = {"epoch": epoch, "lr": round(lr, 6), "loss": round(tot / n_steps, 5),
           "z_std": round(zstd / n_steps, 5), "p_std": round(pstd / n_steps, 5),
           "time_s": round(time.time() - t0, 1)}
    if epoch % cfg["monitor"]["knn_every"] == 0:
        rec["knn_acc"] = round(knn_monitor(model, Xtr, ytr, Xva, yva, cfg["monitor"]["knn_k"]), 4)
    log.write(json.dumps(rec) + "\n")
    log.flush()
    print(rec, flush=True)
