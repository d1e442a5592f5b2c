#!/usr/bin/env python
"""Generator for the ssl_contrastive benchmark runs (round 16).

Really trains 12 small self-supervised / contrastive models on CPU (synthetic 16x16 'shapes16' images,
10 shape classes) and writes one folder per run under runs/, plus truth.json.

Each run is produced by a standalone user-style script (kept below as text).  The script is written into
the run folder, executed there with a fixed seed, and afterwards removed again for the runs that do not
ship their code; checkpoints are always removed.  Usage:  python gen.py [run01 run02 ...]
"""
import json
import os
import shutil
import subprocess
import sys
import time

PY = sys.executable
OUT = os.path.dirname(os.path.abspath(__file__))
RUNS_DIR = os.path.join(OUT, "runs")

# ----------------------------------------------------------------- shared snippets pasted into scripts
SNIP_DATA = r'''
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
'''

SNIP_CLIPDATA = r'''
def make_captions(y, attrs, seed, p_drop=0.15, size=16):
    """Bag-of-tokens 'captions': shape word + position words + size word + brightness word (some dropped)."""
    rng = np.random.default_rng(seed)
    n = len(y)
    C = np.zeros((n, 20), np.float32)
    C[np.arange(n), y] = 1
    cx, cy, s, inten = attrs.T
    C[np.arange(n), 10 + np.digitize(cx, [6.5, 9.5])] = 1
    C[np.arange(n), 13 + np.digitize(cy, [6.5, 9.5])] = 1
    C[np.arange(n), 16 + (s > 3.65)] = 1
    C[np.arange(n), 18 + (inten > 0.75)] = 1
    drop = rng.random((n, 20)) < p_drop
    drop[np.arange(n), y] = False
    C[drop] = 0
    return C
'''

SNIP_CLIPMODEL = r'''
class ImageTower(nn.Module):
    def __init__(self, w, dim):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
            nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(),
            nn.Conv2d(2 * w, 4 * w, 3, stride=2, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(4 * w, dim)

    def forward(self, x):
        return self.head(self.trunk(x))


class TinyCLIP(nn.Module):
    def __init__(self, mc, vocab):
        super().__init__()
        self.visual = ImageTower(mc["image_width"], mc["embed_dim"])
        self.text = nn.Sequential(nn.Linear(vocab, mc["text_hidden"]), nn.ReLU(), nn.Linear(mc["text_hidden"], mc["embed_dim"]))
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / mc["init_temperature"])))

    def encode_image(self, x):
        return F.normalize(self.visual(x), dim=-1)

    def encode_text(self, c):
        return F.normalize(self.text(c), dim=-1)
'''

SNIP_CKPTMODEL = r'''
class ConvEncoder(nn.Module):
    def __init__(self, w=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
            nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(),
            nn.Conv2d(2 * w, 4 * w, 3, stride=2, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.dim = 4 * w

    def forward(self, x):
        return self.features(x)
'''

# ----------------------------------------------------------------- scripts and configs
SRC_SIMCLR_WD = r'''
import json, math, time
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

@@DATA@@

w = cfg["model"]["width"]
h, d = cfg["model"]["projection"]
backbone = nn.Sequential(
    nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
    nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(),
    nn.Conv2d(2 * w, 4 * w, 3, stride=2, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten())
head = nn.Sequential(nn.Linear(4 * w, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Linear(h, d))
net = nn.Sequential(backbone, head)


def nt_xent(z1, z2, t):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    n = len(z1)
    s = z @ z.T / t
    s.fill_diagonal_(-1e9)
    return F.cross_entropy(s, torch.cat([torch.arange(n, 2 * n), torch.arange(n)]))


@torch.no_grad()
def knn(Xa, ya, Xb, yb, k=20):
    backbone.eval()
    fa, fb = F.normalize(backbone(Xa), dim=1), F.normalize(backbone(Xb), dim=1)
    backbone.train()
    s, i = (fb @ fa.T).topk(k, 1)
    v = torch.zeros(len(fb), 10).scatter_add_(1, ya[i], (s / 0.1).exp())
    return (v.argmax(1) == yb).float().mean().item()


dc = cfg["data"]
Xtr, ytr = make_shapes(dc["n_train"], seed=81)
Xva, yva = make_shapes(dc["n_val"], seed=82)
Xtr, Xva, ytr, yva = map(torch.tensor, (Xtr, Xva, ytr, yva))
mu, sd = Xtr.mean(), Xtr.std()
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd

oc = cfg["optimizer"]
opt = torch.optim.SGD(net.parameters(), lr=oc["lr"], momentum=oc["momentum"], nesterov=oc["nesterov"],
                      weight_decay=oc["weight_decay"])
bs = dc["batch_size"]
spe = len(Xtr) // bs
E = cfg["epochs"]
total, warm = E * spe, cfg["scheduler"]["warmup_epochs"] * spe
g = torch.Generator().manual_seed(cfg["seed"])
T = cfg["objective"]["temperature"]
out = open("metrics.jsonl", "w")
out.write(json.dumps({"epoch": 0, "knn_top1": round(knn(Xtr, ytr, Xva, yva), 4),
                      "param_norm": round(torch.cat([p.flatten() for p in net.parameters()]).norm().item(), 3)}) + "\n")
step = 0
t0 = time.time()
for ep in range(1, E + 1):
    perm = torch.randperm(len(Xtr), generator=g)
    L, A, ZS, GN = [], [], [], []
    for i in range(spe):
        lr = oc["lr"] * (step + 1) / warm if step < warm else oc["lr"] * 0.5 * (1 + math.cos(math.pi * (step - warm) / (total - warm)))
        for pg in opt.param_groups:
            pg["lr"] = lr
        x = Xtr[perm[i * bs:(i + 1) * bs]]
        z1, z2 = net(augment(x, g)), net(augment(x, g))
        loss = nt_xent(z1, z2, T)
        opt.zero_grad()
        loss.backward()
        GN.append(torch.cat([p.grad.flatten() for p in net.parameters()]).norm().item())
        opt.step()
        step += 1
        L.append(loss.item())
        with torch.no_grad():
            n1, n2 = F.normalize(z1, dim=1), F.normalize(z2, dim=1)
            A.append((n1 - n2).pow(2).sum(1).mean().item())
            ZS.append(n1.std(0).mean().item())
    rec = {"epoch": ep, "step": step, "lr": round(lr, 5), "train_loss": round(float(np.mean(L)), 4),
           "alignment": round(float(np.mean(A)), 4), "z_std": round(float(np.mean(ZS)), 4),
           "grad_norm": round(float(np.mean(GN)), 4),
           "param_norm": round(torch.cat([p.flatten() for p in net.parameters()]).norm().item(), 3)}
    with torch.no_grad():
        backbone.eval(); head.eval()
        zv = F.normalize(net(Xva), dim=1)
        backbone.train(); head.train()
        rec["uniformity"] = round(torch.pdist(zv).pow(2).mul(-2).exp().mean().log().item(), 4)
    if ep % cfg["log"]["knn_every"] == 0:
        rec["knn_top1"] = round(knn(Xtr, ytr, Xva, yva), 4)
    rec["elapsed_s"] = round(time.time() - t0, 1)
    out.write(json.dumps(rec) + "\n")
    out.flush()
    print(rec, flush=True)
'''

CFG_SIMCLR_WD = r'''
seed: 43
data:
  name: shapes16
  n_train: 1536
  n_val: 768
  batch_size: 256
model:
  backbone: cnn3
  width: 16
  projection: [128, 64]
objective:
  type: nt_xent
  temperature: 0.2
optimizer:
  type: SGD
  lr: 0.3
  momentum: 0.9
  nesterov: false
  weight_decay: 5.0e-2
scheduler:
  type: cosine
  warmup_epochs: 2
epochs: 24
log:
  knn_every: 2
'''

SRC_SIMSIAM_COLLAPSE = r'''
import json, math, time
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

@@DATA@@

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
'''

CFG_SIMSIAM_COLLAPSE = r'''
run_name: simsiam-shapes16
seed: 3
dataset:
  name: shapes16
  train_size: 1536
  val_size: 768
model:
  arch: convnet_w16
  proj_dim: 128
  pred_hidden: 32
optimizer:
  type: sgd
  base_lr: 0.05
  momentum: 0.9
  weight_decay: 0.0001
train:
  batch_size: 256
  epochs: 25
  lr_schedule: cosine
monitor:
  knn_k: 20
  knn_every: 2
'''

SRC_CLIP_PREP = r'''
import math, time
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

@@DATA@@
@@CLIPDATA@@

class ImageTower(nn.Module):
    def __init__(self, w, dim):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
            nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(),
            nn.Conv2d(2 * w, 4 * w, 3, stride=2, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(4 * w, dim)

    def forward(self, x):
        return self.head(self.trunk(x))


class TinyCLIP(nn.Module):
    def __init__(self, mc, vocab):
        super().__init__()
        self.visual = ImageTower(mc["image_width"], mc["embed_dim"])
        self.text = nn.Sequential(nn.Linear(vocab, mc["text_hidden"]), nn.ReLU(), nn.Linear(mc["text_hidden"], mc["embed_dim"]))
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / mc["init_temperature"])))

    def encode_image(self, x):
        return F.normalize(self.visual(x), dim=-1)

    def encode_text(self, c):
        return F.normalize(self.text(c), dim=-1)


def clip_loss(img, txt, scale):
    logits = scale * img @ txt.T
    labels = torch.arange(len(img))
    return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2


@torch.no_grad()
def evaluate(model, Xv, Cv, yv):
    model.eval()
    im, tx = model.encode_image(Xv), model.encode_text(Cv)
    sim = im @ tx.T
    i2t = (sim.argmax(1) == torch.arange(len(im))).float().mean().item()
    t2i = (sim.argmax(0) == torch.arange(len(im))).float().mean().item()
    prompts = model.encode_text(torch.eye(20)[:10])
    zs = ((im @ prompts.T).argmax(1) == yv).float().mean().item()
    model.train()
    return i2t, t2i, zs


dc = cfg["data"]
Xtr, ytr, Atr = make_shapes(dc["n_train"], seed=121, return_attrs=True)
Xva, yva, Ava = make_shapes(dc["n_val"], seed=122, return_attrs=True)
Ctr, Cva = make_captions(ytr, Atr, seed=123), make_captions(yva, Ava, seed=124)
Xtr, Xva = (torch.tensor(Xtr) - dc["image_mean"]) / dc["image_std"], (torch.tensor(Xva) - dc["image_mean"]) / dc["image_std"]
Ctr, Cva, ytr, yva = map(torch.tensor, (Ctr, Cva, ytr, yva))

model = TinyCLIP(cfg["model"], dc["caption_vocab"])
tc = cfg["train"]
opt = torch.optim.AdamW(model.parameters(), lr=tc["lr"], weight_decay=tc["weight_decay"])
bs = tc["batch_size"]
spe = len(Xtr) // bs
total, warm = tc["epochs"] * spe, tc["warmup_epochs"] * spe
g = torch.Generator().manual_seed(cfg["seed"])
print(f"TinyCLIP | images {tuple(Xtr.shape)} captions {tuple(Ctr.shape)} | normalize mean={dc['image_mean']} std={dc['image_std']}")
i2t, t2i, zs = evaluate(model, Xva[:256], Cva[:256], yva[:256])
print(f"[eval] epoch 0 | i2t_R@1 {i2t:.4f} | t2i_R@1 {t2i:.4f} | zeroshot_acc {zs:.4f}")
step = 0
t0 = time.time()
for epoch in range(1, tc["epochs"] + 1):
    perm = torch.randperm(len(Xtr), generator=g)
    L = []
    for i in range(spe):
        lr = tc["lr"] * (step + 1) / warm if step < warm else tc["lr"] * 0.5 * (1 + math.cos(math.pi * (step - warm) / (total - warm)))
        for pg in opt.param_groups:
            pg["lr"] = lr
        idx = perm[i * bs:(i + 1) * bs]
        img = model.encode_image(augment(Xtr[idx], g, shift=1, noise=0.1, cutout=0.0))
        txt = model.encode_text(Ctr[idx])
        loss = clip_loss(img, txt, model.logit_scale.exp())
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            model.logit_scale.clamp_(0, math.log(cfg["model"]["max_logit_scale"]))
        step += 1
        L.append(loss.item())
    print(f"epoch {epoch:2d} | step {step} | lr {lr:.6f} | loss {np.mean(L):.4f} | logit_scale {model.logit_scale.exp().item():.2f} | "
          f"{time.time() - t0:.0f}s", flush=True)
    if epoch % cfg["eval_every"] == 0:
        i2t, t2i, zs = evaluate(model, Xva[:256], Cva[:256], yva[:256])
        print(f"[eval] epoch {epoch} | i2t_R@1 {i2t:.4f} | t2i_R@1 {t2i:.4f} | zeroshot_acc {zs:.4f}", flush=True)
torch.save({"state_dict": model.state_dict(), "config": cfg}, cfg["save"])
print(f"saved {cfg['save']}")
'''

CFG_CLIP_PREP = r'''
model_name: tinyclip_shapes
seed: 83
data:
  n_train: 1536
  n_val: 768
  caption_vocab: 20
  image_mean: 0.1318
  image_std: 0.2669
model:
  image_width: 16
  text_hidden: 128
  embed_dim: 64
  init_temperature: 0.07
  max_logit_scale: 100
train:
  batch_size: 256
  epochs: 30
  lr: 0.002
  weight_decay: 0.0001
  warmup_epochs: 2
eval_every: 3
save: tinyclip_last.pt
'''

SRC_CLIP_PREP_EVAL = r'''
import math
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
ecfg = yaml.safe_load(open("eval_config.yaml"))
ckpt = torch.load(ecfg["checkpoint"], weights_only=False)
cfg = ckpt["config"]
torch.manual_seed(0)

@@DATA@@
@@CLIPMODEL@@

model = TinyCLIP(cfg["model"], cfg["data"]["caption_vocab"])
print(model.load_state_dict(ckpt["state_dict"]))
model.eval()
pc = ecfg["preprocess"]
Xa, ya = make_shapes(ecfg["probe_set"]["n_train"], seed=131)
Xb, yb = make_shapes(ecfg["probe_set"]["n_test"], seed=132)
Xa = (torch.tensor(Xa) - pc["image_mean"]) / pc["image_std"]
Xb = (torch.tensor(Xb) - pc["image_mean"]) / pc["image_std"]
ya, yb = torch.tensor(ya), torch.tensor(yb)
print(f"probe set: train {tuple(Xa.shape)} test {tuple(Xb.shape)} | preprocess mean={pc['image_mean']} std={pc['image_std']}")
with torch.no_grad():
    fa, fb = model.encode_image(Xa), model.encode_image(Xb)
    prompts = model.encode_text(torch.eye(20)[:10])
    zs_a = ((fa @ prompts.T).argmax(1) == ya).float().mean().item()
    zs_b = ((fb @ prompts.T).argmax(1) == yb).float().mean().item()
    print(f"image embedding stats: mean_norm_pre {model.visual(Xb).norm(dim=1).mean().item():.3f} "
          f"per_dim_std {fb.std(0).mean().item():.4f}")
print(f"zero-shot accuracy: probe_train {zs_a:.4f} | probe_test {zs_b:.4f}")
clf = nn.Linear(fa.shape[1], 10)
opt = torch.optim.Adam(clf.parameters(), lr=ecfg["linear_probe"]["lr"])
for it in range(1, ecfg["linear_probe"]["iters"] + 1):
    loss = F.cross_entropy(clf(fa * 10), ya)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 25 == 0:
        with torch.no_grad():
            tra = (clf(fa * 10).argmax(1) == ya).float().mean().item()
            tea = (clf(fb * 10).argmax(1) == yb).float().mean().item()
        print(f"linear probe iter {it:3d} | loss {loss.item():.4f} | train_acc {tra:.4f} | test_acc {tea:.4f}")
print(f"RESULT zero_shot_test {zs_b:.4f} linear_probe_test {tea:.4f}")
'''

CFG_CLIP_PREP_EVAL = r'''
checkpoint: tinyclip_last.pt
probe_set:
  n_train: 1536
  n_test: 768
preprocess:
  image_mean: 0.5
  image_std: 0.5
zero_shot:
  prompts: shape_token_only
linear_probe:
  lr: 0.01
  iters: 200
'''

SRC_SIMCLR_OK = r'''
import math, time, yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

@@DATA@@

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
'''

CFG_SIMCLR_OK = r'''
experiment: simclr_shapes16_cnn
seed: 0
data:
  dataset: shapes16
  n_train: 1536
  n_val: 768
  normalize: dataset_stats
augment:
  max_shift: 3
  brightness: [0.6, 1.4]
  offset: 0.3
  noise_std: 0.15
  cutout_p: 0.5
model:
  backbone: conv3_w16
  feat_dim: 64
  proj_hidden: 128
  proj_dim: 64
loss:
  name: nt_xent
  temperature: 0.2
optim:
  name: adam
  lr: 0.002
  weight_decay: 1.0e-6
  batch_size: 256
schedule:
  epochs: 40
  warmup_epochs: 4
  type: cosine
eval:
  knn_k: 20
  knn_every: 5
'''

SRC_CPC_NAN = r'''
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

@@DATA@@

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
'''

CFG_CPC_NAN = r'''
name: simclr_tau_anneal
seed: 53
n_train: 1536
n_val: 768
batch_size: 128
epochs: 30
lr: 0.001
weight_decay: 1.0e-6
embed_dim: 64
hidden: 128
width: 16
temperature:
  start: 0.2
  end: 0.005
  schedule: exponential   # per step
log_every_steps: 2
eval_every_epochs: 3
'''

SRC_SIMCLR_SORTED = r'''
import csv
import time
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

@@DATA@@

class Encoder(nn.Module):
    def __init__(self, w=16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
            nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(),
            nn.Conv2d(2 * w, 4 * w, 3, stride=2, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())

    def forward(self, x):
        return self.net(x)


class ShapesDataset(torch.utils.data.Dataset):
    def __init__(self, X, y):
        self.X, self.y = X, y

    def __len__(self):
        return len(self.X)

    def __getitem__(self, i):
        return self.X[i], self.y[i]


def nt_xent(z1, z2, t):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    n = len(z1)
    s = z @ z.T / t
    s.fill_diagonal_(-1e9)
    return F.cross_entropy(s, torch.cat([torch.arange(n, 2 * n), torch.arange(n)]))


@torch.no_grad()
def knn(enc, Xa, ya, Xb, yb, k):
    enc.eval()
    fa, fb = F.normalize(enc(Xa), dim=1), F.normalize(enc(Xb), dim=1)
    enc.train()
    s, i = (fb @ fa.T).topk(k, 1)
    v = torch.zeros(len(fb), 10).scatter_add_(1, ya[i], (s / 0.1).exp())
    return (v.argmax(1) == yb).float().mean().item()


Xtr, ytr = make_shapes(cfg["dataset"]["n_train"], seed=111)
order = np.argsort(ytr, kind="stable")
Xtr, ytr = Xtr[order], ytr[order]
Xva, yva = make_shapes(cfg["dataset"]["n_val"], seed=112)
Xtr, Xva, ytr, yva = map(torch.tensor, (Xtr, Xva, ytr, yva))
mu, sd = Xtr.mean(), Xtr.std()
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd

lc = cfg["loader"]
loader = torch.utils.data.DataLoader(ShapesDataset(Xtr, ytr), batch_size=lc["batch_size"], shuffle=lc["shuffle"],
                                     drop_last=lc["drop_last"])
enc = Encoder()
h, d = cfg["model"]["projector"]
proj = nn.Sequential(nn.Linear(64, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Linear(h, d))
opt = torch.optim.Adam(list(enc.parameters()) + list(proj.parameters()), lr=cfg["opt"]["lr"],
                       weight_decay=cfg["opt"]["weight_decay"])
g = torch.Generator().manual_seed(cfg["seed"])
T = cfg["ssl"]["temperature"]

fs = open("steps.csv", "w", newline="")
ws = csv.writer(fs)
ws.writerow(["step", "epoch", "batch", "loss", "pos_cos", "z_std"])
fe = open("epochs.csv", "w", newline="")
we = csv.writer(fe)
we.writerow(["epoch", "mean_loss", "knn_acc"])
we.writerow([0, "", f"{knn(enc, Xtr, ytr, Xva, yva, cfg['eval']['knn_k']):.4f}"])
step = 0
t0 = time.time()
for epoch in range(1, cfg["epochs"] + 1):
    L = []
    for b, (x, _) in enumerate(loader):
        z1, z2 = proj(enc(augment(x, g))), proj(enc(augment(x, g)))
        loss = nt_xent(z1, z2, T)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        L.append(loss.item())
        with torch.no_grad():
            n1, n2 = F.normalize(z1, dim=1), F.normalize(z2, dim=1)
            ws.writerow([step, epoch, b, f"{loss.item():.4f}", f"{(n1 * n2).sum(1).mean().item():.4f}",
                         f"{n1.std(0).mean().item():.4f}"])
    acc = knn(enc, Xtr, ytr, Xva, yva, cfg["eval"]["knn_k"])
    we.writerow([epoch, f"{np.mean(L):.4f}", f"{acc:.4f}"])
    fs.flush(); fe.flush()
    print(f"epoch {epoch:2d} loss {np.mean(L):.4f} knn {acc:.4f} ({time.time() - t0:.0f}s)", flush=True)
'''

CFG_SIMCLR_SORTED = r'''
seed: 73
dataset:
  name: shapes16
  train_file: shapes16_train.npz
  n_train: 1536
  n_val: 768
loader:
  batch_size: 128
  shuffle: false
  drop_last: true
model:
  encoder: cnn3_w16
  projector: [128, 64]
ssl:
  method: simclr
  temperature: 0.2
opt:
  name: adam
  lr: 0.001
  weight_decay: 1.0e-6
epochs: 25
eval:
  knn_k: 20
  every: 1
'''

SRC_SIMCLR_SCHED = r'''
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

@@DATA@@

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
'''

CFG_SIMCLR_SCHED = r'''
project: ssl-shapes
run: simclr_sgd_warmcos
seed: 17
data:
  n_train: 1536
  n_val: 768
  batch_size: 256
model:
  width: 16
  proj_hidden: 128
  proj_out: 64
simclr:
  temperature: 0.2
optimizer:
  name: sgd
  lr: 0.4
  momentum: 0.9
  weight_decay: 0.0001
nesterov: false
lr_schedule:
  warmup_epochs: 5
  decay: cosine
epochs: 40
eval_every: 4
'''

SRC_MOCO_OK = r'''
import csv, copy, math, time
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

@@DATA@@

def make_encoder(w, dim, hidden):
    backbone = nn.Sequential(
        nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
        nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(),
        nn.Conv2d(2 * w, 4 * w, 3, stride=2, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten())
    head = nn.Sequential(nn.Linear(4 * w, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Linear(hidden, dim))
    return nn.ModuleDict({"backbone": backbone, "head": head})


class MoCo(nn.Module):
    def __init__(self, mc, w=16):
        super().__init__()
        self.K, self.m, self.T = mc["queue_size"], mc["momentum"], mc["temperature"]
        self.encoder_q = make_encoder(w, mc["dim"], mc["mlp_hidden"])
        self.encoder_k = copy.deepcopy(self.encoder_q)
        for p in self.encoder_k.parameters():
            p.requires_grad = False
        self.register_buffer("queue", F.normalize(torch.randn(mc["dim"], self.K), dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    def enc(self, e, x):
        return e["head"](e["backbone"](x))

    @torch.no_grad()
    def _momentum_update(self):
        for pq, pk in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            pk.data = pk.data * self.m + pq.data * (1.0 - self.m)

    @torch.no_grad()
    def _enqueue(self, k):
        ptr = int(self.queue_ptr)
        self.queue[:, ptr:ptr + k.shape[0]] = k.T
        self.queue_ptr[0] = (ptr + k.shape[0]) % self.K

    def forward(self, xq, xk):
        q = F.normalize(self.enc(self.encoder_q, xq), dim=1)
        with torch.no_grad():
            self._momentum_update()
            k = F.normalize(self.enc(self.encoder_k, xk), dim=1)
        l_pos = (q * k).sum(1, keepdim=True)
        l_neg = q @ self.queue.clone().detach()
        logits = torch.cat([l_pos, l_neg], dim=1) / self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        self._enqueue(k)
        return logits, labels, q


@torch.no_grad()
def evaluate(model, Xtr, ytr, Xva, yva, k=20):
    bb = model.encoder_q["backbone"]
    bb.eval()
    ftr, fva = F.normalize(bb(Xtr), dim=1), F.normalize(bb(Xva), dim=1)
    bb.train()
    s, idx = (fva @ ftr.T).topk(k, dim=1)
    votes = torch.zeros(len(fva), 10).scatter_add_(1, ytr[idx], (s / 0.1).exp())
    acc = (votes.argmax(1) == yva).float().mean().item()
    sv = torch.linalg.svdvals(fva - fva.mean(0))
    p = sv / sv.sum()
    eff_rank = torch.exp(-(p * torch.log(p + 1e-12)).sum()).item()
    return acc, eff_rank


dc = cfg["data"]
Xtr, ytr = make_shapes(dc["n_train"], seed=31)
Xva, yva = make_shapes(dc["n_val"], seed=32)
Xtr, Xva, ytr, yva = map(torch.from_numpy, (Xtr, Xva, ytr, yva))
mean, std = Xtr.mean(), Xtr.std()
Xtr, Xva = (Xtr - mean) / std, (Xva - mean) / std

model = MoCo(cfg["model"])
oc = cfg["optim"]
opt = torch.optim.SGD(model.encoder_q.parameters(), lr=oc["lr"], momentum=oc["momentum"], weight_decay=oc["weight_decay"])
bs = dc["batch_size"]
iters = len(Xtr) // bs
E = cfg["epochs"]
g = torch.Generator().manual_seed(cfg["seed"])

ftrain = open("train_metrics.csv", "w", newline="")
wtrain = csv.writer(ftrain)
wtrain.writerow(["global_step", "epoch", "loss", "acc1_pos", "lr"])
feval = open("eval_metrics.csv", "w", newline="")
weval = csv.writer(feval)
weval.writerow(["epoch", "knn_acc", "eff_rank", "q_std", "mean_loss"])
acc, er = evaluate(model, Xtr, ytr, Xva, yva)
weval.writerow([0, f"{acc:.4f}", f"{er:.2f}", "", ""])
print(f"=> epoch 0  knn {acc:.4f}  eff_rank {er:.2f}")

gstep = 0
t0 = time.time()
for epoch in range(1, E + 1):
    lr = oc["lr"] * 0.5 * (1.0 + math.cos(math.pi * (epoch - 1) / E))
    for pg in opt.param_groups:
        pg["lr"] = lr
    perm = torch.randperm(len(Xtr), generator=g)
    ep_loss, ep_std = [], []
    for i in range(iters):
        x = Xtr[perm[i * bs:(i + 1) * bs]]
        logits, labels, q = model(augment(x, g), augment(x, g))
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        gstep += 1
        ep_loss.append(loss.item())
        ep_std.append(q.detach().std(0).mean().item())
        if gstep % cfg["log_every"] == 0:
            a1 = (logits.argmax(1) == 0).float().mean().item()
            wtrain.writerow([gstep, epoch, f"{loss.item():.4f}", f"{a1:.4f}", f"{lr:.6f}"])
    acc, er = evaluate(model, Xtr, ytr, Xva, yva)
    weval.writerow([epoch, f"{acc:.4f}", f"{er:.2f}", f"{np.mean(ep_std):.4f}", f"{np.mean(ep_loss):.4f}"])
    ftrain.flush(); feval.flush()
    print(f"=> epoch {epoch}  lr {lr:.5f}  loss {np.mean(ep_loss):.4f}  knn {acc:.4f}  eff_rank {er:.2f}  ({time.time() - t0:.0f}s)", flush=True)
'''

CFG_MOCO_OK = r'''
# MoCo-v2 style pretraining on shapes16
seed: 5
data: {name: shapes16, n_train: 1536, n_val: 256, batch_size: 128}
model: {arch: cnn_w16, dim: 64, mlp_hidden: 128, queue_size: 512, momentum: 0.9, temperature: 0.2}
optim: {name: sgd, lr: 0.06, momentum: 0.9, weight_decay: 0.0005, cosine: true}
epochs: 30
log_every: 4
'''

SRC_SIMCLR_EVALMODE = r'''
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

@@DATA@@

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
'''

CFG_SIMCLR_EVALMODE = r'''
exp_name: simclr_knn_monitor
seed: 37
n_train: 1536
n_val: 800
batch_size: 256
eval_batch_size: 64
epochs: 30
optimizer: {name: adam, lr: 0.002, weight_decay: 1.0e-6}
warmup_epochs: 3
temperature: 0.2
width: 16
proj: {hidden: 128, out: 64}
knn: {k: 20, t: 0.1, every: 3}
'''

SRC_SIMCLR_HILR = r'''
import math, time
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

@@DATA@@

class ConvNet(nn.Module):
    def __init__(self, w=16):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
            nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(),
            nn.Conv2d(2 * w, 4 * w, 3, stride=2, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU())
        self.out_dim = 4 * w

    def forward(self, x):
        return self.body(x).mean((2, 3))


backbone = ConvNet()
h, d = cfg["proj"]
projector = nn.Sequential(nn.Linear(backbone.out_dim, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Linear(h, d))
model = nn.Sequential(backbone, projector)


def nt_xent(a, b, t):
    z = F.normalize(torch.cat([a, b]), dim=1)
    n = a.shape[0]
    s = (z @ z.T) / t
    s = s - 1e9 * torch.eye(2 * n)
    y = torch.cat([torch.arange(n) + n, torch.arange(n)])
    return F.cross_entropy(s, y)


@torch.no_grad()
def knn(Xa, ya, Xb, yb, k=20):
    backbone.eval()
    fa, fb = F.normalize(backbone(Xa), dim=1), F.normalize(backbone(Xb), dim=1)
    backbone.train()
    s, i = (fb @ fa.T).topk(k, 1)
    v = torch.zeros(len(fb), 10).scatter_add_(1, ya[i], (s / 0.1).exp())
    return (v.argmax(1) == yb).float().mean().item()


Xtr, ytr = make_shapes(cfg["n_train"], seed=51)
Xva, yva = make_shapes(cfg["n_val"], seed=52)
Xtr, Xva, ytr, yva = (torch.tensor(a) for a in (Xtr, Xva, ytr, yva))
mu, sd = Xtr.mean(), Xtr.std()
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd

opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"], weight_decay=cfg["weight_decay"])
bs = cfg["batch_size"]
spe = len(Xtr) // bs
total = cfg["epochs"] * spe
warm = cfg["warmup_epochs"] * spe
writer = SummaryWriter(log_dir="tb")
g = torch.Generator().manual_seed(cfg["seed"])
print(f"start: lr={cfg['lr']} warmup_steps={warm} total_steps={total} temperature={cfg['temperature']}")
acc = knn(Xtr, ytr, Xva, yva)
writer.add_scalar("eval/knn_top1", acc, 0)
print(f"[0] knn_top1={acc:.4f}")
step = 0
t0 = time.time()
for ep in range(cfg["epochs"]):
    perm = torch.randperm(len(Xtr), generator=g)
    ep_losses = []
    for it in range(spe):
        lr = cfg["lr"] * (step + 1) / warm if step < warm else \
            cfg["lr"] * 0.5 * (1 + math.cos(math.pi * (step - warm) / (total - warm)))
        for pg in opt.param_groups:
            pg["lr"] = lr
        x = Xtr[perm[it * bs:(it + 1) * bs]]
        z1, z2 = model(augment(x, g)), model(augment(x, g))
        loss = nt_xent(z1, z2, cfg["temperature"])
        opt.zero_grad()
        loss.backward()
        gn = torch.norm(torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None])).item()
        opt.step()
        step += 1
        with torch.no_grad():
            zstd = F.normalize(z1, dim=1).std(0).mean().item()
            pnorm = torch.norm(torch.stack([p.norm() for p in model.parameters()])).item()
        writer.add_scalar("train/loss", loss.item(), step)
        writer.add_scalar("train/lr", lr, step)
        writer.add_scalar("train/grad_norm", gn, step)
        writer.add_scalar("train/z_std", zstd, step)
        writer.add_scalar("train/param_norm", pnorm, step)
        ep_losses.append(loss.item())
        print(f"step {step:4d} ep {ep + 1:2d} loss {loss.item():.4f} lr {lr:.4f} grad_norm {gn:.3f} param_norm {pnorm:.2f} z_std {zstd:.4f}", flush=True)
    if (ep + 1) % cfg["knn_every"] == 0:
        acc = knn(Xtr, ytr, Xva, yva)
        writer.add_scalar("eval/knn_top1", acc, step)
        print(f"[{ep + 1}] mean_loss={np.mean(ep_losses):.4f} knn_top1={acc:.4f} ({time.time() - t0:.0f}s)", flush=True)
writer.close()
'''

CFG_SIMCLR_HILR = r'''
seed: 23
dataset: shapes16
n_train: 1536
n_val: 768
batch_size: 256
epochs: 30
arch: convnet16
proj: [128, 64]
temperature: 0.1
optimizer: sgd
lr: 4.8
momentum: 0.9
weight_decay: 1.0e-5
warmup_epochs: 0
schedule: cosine
knn_every: 3
'''

SRC_SIMCLR_FROZEN = r'''
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

@@DATA@@

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
'''

CFG_SIMCLR_FROZEN = r'''
seed: 29
data:
  n_train: 1536
  n_val: 768
train:
  batch_size: 256
  epochs: 30
  lr: 0.001
  weight_decay: 1.0e-6
  warmup_epochs: 3
model:
  width: 16
  proj_hidden: 128
  proj_dim: 64
  temperature: 0.2
eval_every: 3
'''

SRC_SIMCLR_CKPT = r'''
import math, os, time
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])

@@DATA@@
@@CKPTMODEL@@

class SimCLR(nn.Module):
    def __init__(self, ac):
        super().__init__()
        self.encoder = ConvEncoder(ac["width"])
        self.projector = nn.Sequential(nn.Linear(self.encoder.dim, ac["proj_hidden"]), nn.BatchNorm1d(ac["proj_hidden"]),
                                       nn.ReLU(), nn.Linear(ac["proj_hidden"], ac["proj_dim"]))

    def forward(self, x):
        return self.projector(self.encoder(x))


def nt_xent(z1, z2, t):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    n = len(z1)
    s = z @ z.T / t
    s.fill_diagonal_(-1e9)
    return F.cross_entropy(s, torch.cat([torch.arange(n, 2 * n), torch.arange(n)]))


@torch.no_grad()
def knn(enc, Xa, ya, Xb, yb, k=20):
    enc.eval()
    fa, fb = F.normalize(enc(Xa), dim=1), F.normalize(enc(Xb), dim=1)
    enc.train()
    s, i = (fb @ fa.T).topk(k, 1)
    v = torch.zeros(len(fb), 10).scatter_add_(1, ya[i], (s / 0.1).exp())
    return (v.argmax(1) == yb).float().mean().item()


dc = cfg["data"]
Xtr, ytr = make_shapes(dc["n_train"], seed=141)
Xva, yva = make_shapes(dc["n_val"], seed=142)
Xtr, Xva, ytr, yva = map(torch.tensor, (Xtr, Xva, ytr, yva))
Xtr, Xva = (Xtr - 0.1318) / 0.2669, (Xva - 0.1318) / 0.2669

model = SimCLR(cfg["arch"])
oc = cfg["optimizer"]
opt = torch.optim.Adam(model.parameters(), lr=oc["lr"], weight_decay=oc["weight_decay"])
bs = dc["batch_size"]
spe = len(Xtr) // bs
E = cfg["epochs"]
total, warm = E * spe, cfg["warmup_epochs"] * spe
g = torch.Generator().manual_seed(cfg["seed"])
os.makedirs(cfg["output_dir"], exist_ok=True)
print(f"=> pretraining SimCLR for {E} epochs, {spe} it/epoch")
print(f"=> epoch 0 knn_acc {knn(model.encoder, Xtr, ytr, Xva, yva):.4f}")
step = 0
t0 = time.time()
for epoch in range(1, E + 1):
    perm = torch.randperm(len(Xtr), generator=g)
    L = []
    for i in range(spe):
        lr = oc["lr"] * (step + 1) / warm if step < warm else oc["lr"] * 0.5 * (1 + math.cos(math.pi * (step - warm) / (total - warm)))
        for pg in opt.param_groups:
            pg["lr"] = lr
        x = Xtr[perm[i * bs:(i + 1) * bs]]
        loss = nt_xent(model(augment(x, g)), model(augment(x, g)), cfg["temperature"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        L.append(loss.item())
    line = f"Epoch: [{epoch}/{E}]  lr {lr:.5f}  loss {np.mean(L):.4f}  time {time.time() - t0:.1f}s"
    if epoch % cfg["knn_every"] == 0:
        line += f"  knn_acc {knn(model.encoder, Xtr, ytr, Xva, yva):.4f}"
    print(line, flush=True)
    if epoch % cfg["save_every"] == 0:
        path = os.path.join(cfg["output_dir"], f"checkpoint_{epoch:04d}.pth.tar")
        torch.save({"epoch": epoch, "arch": cfg["arch"], "state_dict": model.state_dict(),
                    "optimizer": opt.state_dict()}, path)
        print(f"=> saved checkpoint '{path}' (epoch {epoch})", flush=True)
'''

CFG_SIMCLR_CKPT = r'''
seed: 97
data: {n_train: 1536, n_val: 768, batch_size: 256}
arch: {width: 16, proj_hidden: 128, proj_dim: 64}
temperature: 0.2
optimizer: {name: adam, lr: 0.002, weight_decay: 1.0e-6}
epochs: 30
warmup_epochs: 3
knn_every: 5
save_every: 10
output_dir: ckpt
'''

SRC_SIMCLR_CKPT_LINCLS = r'''
import time
import yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
cfg = yaml.safe_load(open("lincls.yaml"))
torch.manual_seed(0)

@@DATA@@
@@CKPTMODEL@@

encoder = ConvEncoder(cfg["arch"]["width"])
print(f"=> loading checkpoint '{cfg['pretrained']}'")
ckpt = torch.load(cfg["pretrained"], map_location="cpu", weights_only=False)
state_dict = ckpt["state_dict"]
msg = encoder.load_state_dict(state_dict, strict=False)
print(msg)
print(f"=> loaded pre-trained model '{cfg['pretrained']}' (epoch {ckpt['epoch']})")
for p in encoder.parameters():
    p.requires_grad = False
encoder.eval()

dc = cfg["data"]
Xa, ya = make_shapes(dc["n_train"], seed=151)
Xb, yb = make_shapes(dc["n_test"], seed=152)
Xa, Xb, ya, yb = map(torch.tensor, (Xa, Xb, ya, yb))
Xa, Xb = (Xa - 0.1318) / 0.2669, (Xb - 0.1318) / 0.2669
with torch.no_grad():
    fa, fb = encoder(Xa), encoder(Xb)
fc = nn.Linear(encoder.dim, 10)
lc = cfg["lincls"]
opt = torch.optim.SGD(fc.parameters(), lr=lc["lr"], momentum=lc["momentum"])
g = torch.Generator().manual_seed(0)
bs = lc["batch_size"]
best = 0.0
for epoch in range(1, lc["epochs"] + 1):
    perm = torch.randperm(len(fa), generator=g)
    for i in range(0, len(fa), bs):
        idx = perm[i:i + bs]
        loss = F.cross_entropy(fc(fa[idx]), ya[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    if epoch % lc["log_every"] == 0:
        with torch.no_grad():
            tl = F.cross_entropy(fc(fa), ya).item()
            ta = (fc(fa).argmax(1) == ya).float().mean().item()
            vl = F.cross_entropy(fc(fb), yb).item()
            va = (fc(fb).argmax(1) == yb).float().mean().item()
        best = max(best, va)
        print(f"lincls epoch {epoch:3d}  train_loss {tl:.4f}  train_acc@1 {100 * ta:.2f}  test_loss {vl:.4f}  test_acc@1 {100 * va:.2f}")
print(f" * best test Acc@1 {100 * best:.2f}")
'''

CFG_SIMCLR_CKPT_LINCLS = r'''
pretrained: ckpt/checkpoint_0030.pth.tar
arch: {width: 16}
data: {n_train: 1536, n_test: 768}
lincls:
  epochs: 100
  lr: 0.05
  optimizer: sgd
  momentum: 0.9
  batch_size: 256
  log_every: 10
'''

# ----------------------------------------------------------------- run table
# steps: (script file name, source, config file name, config text, stdout log name or None)
RUNS = [
    dict(name="run01", truth="optimizer_misconfigured", ship_code=False,
         steps=[("train.py", SRC_SIMCLR_WD, "config.yaml", CFG_SIMCLR_WD, None)],
         symptom="SimCLR with the usual SGD recipe (lr 0.3, momentum 0.9, cosine): the loss barely leaves ~5.9 and "
                 "kNN accuracy ends below what the randomly initialised network gets. Why isn't it learning?",
         how="SGD weight_decay set to 5e-2 (100x the usual 5e-4) in the config; everything else standard. Weight norm "
             "is driven down (param_norm 18.5 -> 3.7), loss stays near chance (~5.8 vs ln 511 = 6.24), kNN falls to "
             "~0.27; the identical script with weight_decay 5e-4 ends at loss 3.59 / kNN 0.92."),
    dict(name="run02", truth="mode_collapse", ship_code=True,
         steps=[("train.py", SRC_SIMSIAM_COLLAPSE, "config.yaml", CFG_SIMSIAM_COLLAPSE, None)],
         symptom="My SimSiam loss drops really fast to almost -1, which looked great, but the kNN accuracy gets "
                 "worse at every eval.",
         how="SimSiam loss computed as D(p1, z2)/2 + D(p2, z1)/2 without the stop-gradient (z not detached), so "
             "both branches are pulled to a constant: z_std collapses 0.068 -> 0.0085 (1/sqrt(128)=0.088 healthy), "
             "loss -> -0.993, kNN 0.42 -> 0.31."),
    dict(name="run03", truth="preprocessing_mismatch", ship_code=False,
         steps=[("train.py", SRC_CLIP_PREP, "config.yaml", CFG_CLIP_PREP, "train.log"),
                ("eval.py", SRC_CLIP_PREP_EVAL, "eval_config.yaml", CFG_CLIP_PREP_EVAL, "eval.log")],
         symptom="During CLIP-style training the zero-shot accuracy on val was ~93%, but my separate evaluation "
                 "script only gets ~68% zero-shot on a fresh probe set from the same generator.",
         how="Pretraining normalises images with the dataset stats (mean 0.1318, std 0.2669); the eval config uses "
             "mean 0.5 / std 0.5. Same checkpoint evaluated with the training stats gives zero-shot 0.945 and "
             "linear probe 0.962 instead of 0.678 / 0.910."),
    dict(name="run04", truth="healthy", ship_code=True,
         steps=[("train.py", SRC_SIMCLR_OK, "config.yaml", CFG_SIMCLR_OK, "train.log")],
         symptom="Is this SimCLR run ok? Anything I should worry about before I scale it up?",
         how="Healthy SimCLR (Adam 2e-3, 4 warmup epochs + cosine, bs 256, T 0.2, 40 epochs)."),
    dict(name="run05", truth="numerical_instability", ship_code=True,
         steps=[("train.py", SRC_CPC_NAN, "config.yaml", CFG_CPC_NAN, "train.log")],
         symptom="Training looked fine for 23 epochs (loss going down, kNN up to 0.88) and then the loss suddenly "
                 "became NaN and never recovered.",
         how="NT-Xent written as -log(exp(pos/T) / sum(exp(sim/T))) with raw torch.exp, and the temperature "
             "annealed 0.2 -> 0.005 per step. Once T < 1/88.7 (~0.0113, step ~283) exp(cos/T) overflows fp32 "
             "(the self-similarity on the diagonal is exp(1/T)), giving inf/inf = NaN; a logsumexp/cross_entropy "
             "formulation would be stable at the same temperature."),
    dict(name="run06", truth="data_not_shuffled", ship_code=False,
         steps=[("train.py", SRC_SIMCLR_SORTED, "config.yaml", CFG_SIMCLR_SORTED, None)],
         symptom="My SimCLR is much worse than a colleague's on the same data: kNN only 0.65 after 25 epochs, and "
                 "the per-step loss has a strange pattern that repeats every epoch.",
         how="Training set stored sorted by class and DataLoader(shuffle=False): every batch holds 1-2 classes, "
             "so negatives are same-class and batch-norm statistics are class-specific. The same script with "
             "shuffle=True reaches loss 2.92 / kNN 0.90 instead of 3.63 / 0.65."),
    dict(name="run07", truth="lr_schedule_bug", ship_code=True,
         steps=[("train.py", SRC_SIMCLR_SCHED, "config.yaml", CFG_SIMCLR_SCHED, "train.log")],
         symptom="The loss curve has repeated plateaus and bumps instead of a smooth decrease, and around epochs "
                 "33-38 loss and kNN went backwards even though the schedule should be annealing by then. Is "
                 "this run ok?",
         how="LambdaLR warmup(5 epochs)+cosine(40 epochs) written in epoch units but scheduler.step() called every "
             "batch (6 per epoch): warm-up ends after 5 steps, cosine reaches 0 by epoch ~7 and the unclamped "
             "cosine then rises again, so the lr cycles 0 <-> 0.4 with a ~12-epoch period and the run ends at a "
             "rising lr."),
    dict(name="run08", truth="healthy", ship_code=False,
         steps=[("train.py", SRC_MOCO_OK, "config.yaml", CFG_MOCO_OK, "stdout.log")],
         symptom="MoCo loss went up in the first epochs and the kNN accuracy is jumpy and only ~0.7 at the end - "
                 "is something broken?",
         how="Healthy but slow/noisy MoCo-v2 style run (queue 512, key momentum 0.9, SGD 0.06, bs 128, 30 "
             "epochs); kNN on a small 256-image val set, so it is noisy. The early loss rise is the queue "
             "filling with real keys."),
    dict(name="run09", truth="eval_mode_forgotten", ship_code=True,
         steps=[("train.py", SRC_SIMCLR_EVALMODE, "config.yaml", CFG_SIMCLR_EVALMODE, "train.log")],
         symptom="The NT-Xent loss goes down nicely but my kNN monitor stays around 0.33 and even drifts down, "
                 "while the linear probe at the end says 93%.",
         how="knn_eval() extracts features without backbone.eval(): batch-norm uses per-batch statistics, and the "
             "validation set is sorted by class and processed in batches of 64, so each batch is (almost) one "
             "class and its class signal is normalised away. The final linear probe calls eval() and gets 0.935."),
    dict(name="run10", truth="lr_too_high", ship_code=False,
         steps=[("train.py", SRC_SIMCLR_HILR, "config.yaml", CFG_SIMCLR_HILR, "console.log")],
         symptom="Loss is stuck around 5.5-5.9 for the whole run and the kNN accuracy ends lower than at "
                 "initialisation.",
         how="Plain SGD (no LARS) with lr 4.8 (the large-batch SimCLR value) and no warm-up at bs 256: the first "
             "update (grad-norm spike) blows the weights up, after which the effective step is tiny; loss "
             "stalls high and kNN drops 0.51 -> ~0.33 while param_norm climbs 18 -> 410. The identical script at "
             "lr 0.3 ends at loss 3.99 / kNN 0.76."),
    dict(name="run11", truth="frozen_parameters", ship_code=True,
         steps=[("train.py", SRC_SIMCLR_FROZEN, "config.yaml", CFG_SIMCLR_FROZEN, None)],
         symptom="Contrastive loss only goes from 6.1 to 5.5 and the kNN accuracy is basically the same number "
                 "at every eval.",
         how="All backbone parameters set requires_grad=False before building the optimizer; only the projector "
             "trains. grad_norm_backbone is 0 throughout, kNN stays at ~0.53-0.54 (only BN running stats move)."),
    dict(name="run12", truth="wrong_checkpoint", ship_code=False,
         steps=[("train.py", SRC_SIMCLR_CKPT, "config.yaml", CFG_SIMCLR_CKPT, "pretrain.log"),
                ("lincls.py", SRC_SIMCLR_CKPT_LINCLS, "lincls.yaml", CFG_SIMCLR_CKPT_LINCLS, "lincls.log")],
         symptom="Pretraining reached 0.89 kNN accuracy, but linear classification on top of the saved checkpoint "
                 "gives ~11%, basically chance.",
         how="Checkpoint keys are prefixed 'encoder.'/'projector.' but the linear-eval script loads the state "
             "dict into the bare encoder with strict=False, so nothing is loaded (all keys missing/unexpected, "
             "printed in lincls.log) and the probe trains on a random, never-calibrated encoder. Stripping the "
             "prefix gives 92.6%."),
]

SNIPS = {"@@DATA@@": SNIP_DATA, "@@CLIPDATA@@": SNIP_CLIPDATA, "@@CLIPMODEL@@": SNIP_CLIPMODEL,
         "@@CKPTMODEL@@": SNIP_CKPTMODEL}


def render(src):
    for k, v in SNIPS.items():
        src = src.replace(k, v.rstrip())
    return src.strip() + "\n"


def build(run):
    d = os.path.join(RUNS_DIR, run["name"])
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    t0 = time.time()
    for script, src, cfg_name, cfg_text, log in run["steps"]:
        with open(os.path.join(d, cfg_name), "w") as f:
            f.write(cfg_text.strip() + "\n")
        with open(os.path.join(d, script), "w") as f:
            f.write(render(src))
        out = open(os.path.join(d, log), "w") if log else subprocess.DEVNULL
        err = subprocess.STDOUT if log else subprocess.PIPE
        p = subprocess.run([PY, script], cwd=d, stdout=out, stderr=err, env=env)
        if log:
            out.close()
        if p.returncode != 0:
            raise SystemExit(f"{run['name']}: {script} failed\n{(p.stderr or b'').decode()[-3000:]}")
    # keep only what a user would hand over
    for script, *_ in run["steps"]:
        if not run["ship_code"] or script != "train.py":
            os.remove(os.path.join(d, script))
    for junk in ("ckpt", "__pycache__"):
        shutil.rmtree(os.path.join(d, junk), ignore_errors=True)
    for fn in os.listdir(d):
        if fn.endswith((".pt", ".pth", ".pth.tar")):
            os.remove(os.path.join(d, fn))
    print(f"{run['name']:6s} {run['truth']:24s} {time.time() - t0:6.1f}s  files: {sorted(os.listdir(d))}", flush=True)


def main():
    wanted = set(sys.argv[1:])
    for run in RUNS:
        if not wanted or run["name"] in wanted:
            build(run)
    truth = {r["name"]: {"truth": r["truth"], "symptom": r["symptom"], "how": r["how"]} for r in RUNS}
    with open(os.path.join(OUT, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)


if __name__ == "__main__":
    main()
