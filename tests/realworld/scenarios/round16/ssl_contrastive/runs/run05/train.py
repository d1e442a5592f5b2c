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
    def __init__(self, w, hidden, dim):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
            nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(),
            nn.Conv2d(2 * w, 4 * w, 3, stride=2, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.proj = nn.Sequential(nn.Linear(4 * w, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Linear(hidden, dim))

    def forward(self, x):
        h = self.cnn(x)
        return h, F.normalize(self.proj(h), dim=-1)


def contrastive_loss(out_1, out_2, temperature):
    batch_size = out_1.size(0)
    out = torch.cat([out_1, out_2], dim=0)
    sim_matrix = torch.exp(torch.mm(out, out.t().contiguous()) / temperature)
    mask = (torch.ones_like(sim_matrix) - torch.eye(2 * batch_size)).bool()
    sim_matrix = sim_matrix.masked_select(mask).view(2 * batch_size, -1)
    pos_sim = torch.exp(torch.sum(out_1 * out_2, dim=-1) / temperature)
    pos_sim = torch.cat([pos_sim, pos_sim], dim=0)
    return (-torch.log(pos_sim / sim_matrix.sum(dim=-1))).mean()


@torch.no_grad()
def knn(enc, Xa, ya, Xb, yb, k=20):
    enc.eval()
    fa, fb = F.normalize(enc(Xa)[0], dim=1), F.normalize(enc(Xb)[0], dim=1)
    enc.train()
    s, i = (fb @ fa.T).topk(k, 1)
    v = torch.zeros(len(fb), 10).scatter_add_(1, ya[i], (s / 0.1).exp())
    return (v.argmax(1) == yb).float().mean().item()


Xtr, ytr = make_shapes(cfg["n_train"], seed=91)
Xva, yva = make_shapes(cfg["n_val"], seed=92)
Xtr, Xva, ytr, yva = map(torch.tensor, (Xtr, Xva, ytr, yva))
mu, sd = Xtr.mean(), Xtr.std()
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd

enc = Encoder(cfg["width"], cfg["hidden"], cfg["embed_dim"])
opt = torch.optim.Adam(enc.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
bs = cfg["batch_size"]
spe = len(Xtr) // bs
total = cfg["epochs"] * spe
t_start, t_end = cfg["temperature"]["start"], cfg["temperature"]["end"]
g = torch.Generator().manual_seed(cfg["seed"])
print(f"config: {cfg}")
print(f"epoch 0 | knn_acc {knn(enc, Xtr, ytr, Xva, yva):.4f}")
step = 0
t0 = time.time()
for epoch in range(1, cfg["epochs"] + 1):
    perm = torch.randperm(len(Xtr), generator=g)
    losses = []
    for i in range(spe):
        tau = t_start * (t_end / t_start) ** (step / total)
        x = Xtr[perm[i * bs:(i + 1) * bs]]
        _, za = enc(augment(x, g))
        _, zb = enc(augment(x, g))
        loss = contrastive_loss(za, zb, tau)
        opt.zero_grad()
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(enc.parameters(), float("inf")).item()
        opt.step()
        step += 1
        losses.append(loss.item())
        if step % cfg["log_every_steps"] == 0:
            with torch.no_grad():
                pos_cos = (za * zb).sum(-1).mean().item()
                zstd = za.std(0).mean().item()
            print(f"step {step:4d} | epoch {epoch:2d} | tau {tau:.4f} | loss {loss.item():.4f} | pos_cos {pos_cos:.4f} | "
                  f"z_std {zstd:.4f} | grad_norm {gnorm:.4f}", flush=True)
    msg = f"epoch {epoch} | mean_loss {np.mean(losses):.4f} | tau {tau:.4f} | {time.time() - t0:.0f}s"
    if epoch % cfg["eval_every_epochs"] == 0:
        msg += f" | knn_acc {knn(enc, Xtr, ytr, Xva, yva):.4f}"
    print(msg, flush=True)
