import math
import time
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import LambdaLR

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

class Net(nn.Module):
    def __init__(self, width, hidden, out):
        super().__init__()
        w = width
        self.backbone = nn.Sequential(
            nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
            nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(),
            nn.Conv2d(2 * w, 4 * w, 3, stride=2, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Sequential(nn.Linear(4 * w, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Linear(hidden, out))

    def forward(self, x):
        h = self.backbone(x)
        return h, self.head(h)


def info_nce(z1, z2, temperature):
    z1, z2 = F.normalize(z1, dim=1), F.normalize(z2, dim=1)
    z = torch.cat([z1, z2], 0)
    logits = z @ z.T / temperature
    n = z1.size(0)
    mask = torch.eye(2 * n, dtype=torch.bool)
    logits = logits.masked_fill(mask, -1e9)
    labels = torch.arange(2 * n).roll(n)
    return F.cross_entropy(logits, labels)


@torch.no_grad()
def knn_top1(net, Xtr, ytr, Xte, yte, k=20):
    net.eval()
    ftr = F.normalize(net(Xtr)[0], dim=1)
    fte = F.normalize(net(Xte)[0], dim=1)
    net.train()
    sim, nn_idx = (fte @ ftr.T).topk(k, dim=1)
    w = (sim / 0.1).exp()
    votes = torch.zeros(len(fte), 10).scatter_add_(1, ytr[nn_idx], w)
    return (votes.argmax(1) == yte).float().mean().item()


X_train, y_train = make_shapes(cfg["data"]["n_train"], seed=41)
X_val, y_val = make_shapes(cfg["data"]["n_val"], seed=42)
X_train, X_val = torch.tensor(X_train), torch.tensor(X_val)
y_train, y_val = torch.tensor(y_train), torch.tensor(y_val)
mean, std = X_train.mean(), X_train.std()
X_train = (X_train - mean) / std
X_val = (X_val - mean) / std

net = Net(cfg["model"]["width"], cfg["model"]["proj_hidden"], cfg["model"]["proj_out"])
oc = cfg["optimizer"]
optimizer = torch.optim.SGD(net.parameters(), lr=oc["lr"], momentum=oc["momentum"],
                            weight_decay=oc["weight_decay"], nesterov=cfg["nesterov"])

EPOCHS = cfg["epochs"]
WARMUP = cfg["lr_schedule"]["warmup_epochs"]


def warmup_cosine(epoch):
    if epoch < WARMUP:
        return (epoch + 1) / WARMUP
    return 0.5 * (1 + math.cos(math.pi * (epoch - WARMUP) / (EPOCHS - WARMUP)))


scheduler = LambdaLR(optimizer, lr_lambda=warmup_cosine)
print("planned lr schedule (per epoch):",
      " ".join(f"{oc['lr'] * warmup_cosine(e):.3f}" for e in range(0, EPOCHS, 5)))

bs = cfg["data"]["batch_size"]
n_batches = len(X_train) // bs
g = torch.Generator().manual_seed(cfg["seed"])
print(f"knn_top1 @ init = {knn_top1(net, X_train, y_train, X_val, y_val):.4f}")
t0 = time.time()
for epoch in range(EPOCHS):
    order = torch.randperm(len(X_train), generator=g)
    loss_sum, gn_sum, lrs = 0.0, 0.0, []
    for b in range(n_batches):
        xb = X_train[order[b * bs:(b + 1) * bs]]
        _, z1 = net(augment(xb, g))
        _, z2 = net(augment(xb, g))
        loss = info_nce(z1, z2, cfg["simclr"]["temperature"])
        optimizer.zero_grad()
        loss.backward()
        loss_sum += loss.item()
        gn_sum += torch.nn.utils.clip_grad_norm_(net.parameters(), 1e9).item()
        lrs.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    out = (f"Epoch[{epoch + 1}/{EPOCHS}] lr={np.mean(lrs):.4f} nt_xent={loss_sum / n_batches:.4f} "
           f"grad_norm={gn_sum / n_batches:.3f} time={time.time() - t0:.1f}s")
    print(out, flush=True)
    if (epoch + 1) % cfg["eval_every"] == 0:
        print(f"  eval: knn_top1 = {knn_top1(net, X_train, y_train, X_val, y_val):.4f}", flush=True)
