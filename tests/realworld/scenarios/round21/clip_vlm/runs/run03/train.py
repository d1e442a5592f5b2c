import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)

cfg_path = sys.argv[1] if len(sys.argv) > 1 else "config.yaml"
with open(cfg_path) as f:
    cfg = yaml.safe_load(f)

torch.manual_seed(cfg["seed"])
np.random.seed(cfg["seed"])

# ---------------------------------------------------------------- data
CLASSES = ["cat", "dog", "car", "boat", "tree", "house", "bird", "chair", "cup", "shoe"]
ATTRS = [
    CLASSES,
    ["red", "green", "blue", "yellow", "white"],
    ["small", "large", "tiny", "huge", "medium"],
    ["striped", "dotted", "plain", "furry", "shiny"],
    ["beach", "street", "kitchen", "forest", "field"],
    ["morning", "night", "noon", "dusk", "dawn"],
]
WEIGHTS = [1.0, 0.8, 0.6, 0.6, 0.5, 0.4]


class Tokenizer:
    def __init__(self, path, context_length=16):
        with open(path) as f:
            self.vocab = json.load(f)
        self.context_length = context_length

    def __len__(self):
        return len(self.vocab)

    def __call__(self, texts):
        out = torch.zeros(len(texts), self.context_length, dtype=torch.long)
        for i, t in enumerate(texts):
            ids = [self.vocab["<bos>"]] + [self.vocab.get(w, self.vocab["<unk>"]) for w in t.split()] + [self.vocab["<eos>"]]
            ids = ids[: self.context_length]
            out[i, : len(ids)] = torch.tensor(ids)
        return out


def prototypes(seed=1234, size=16):
    g = np.random.default_rng(seed)
    protos = []
    for vals in ATTRS:
        low = g.normal(size=(len(vals), 3, 4, 4))
        up = np.kron(low, np.ones((1, 1, size // 4, size // 4)))
        protos.append(up.astype(np.float32))
    return protos


PROTOS = prototypes()


def make_pairs(n, seed, noise):
    g = np.random.default_rng(seed)
    idx = np.stack([g.integers(0, len(v), size=n) for v in ATTRS], 1)
    imgs = np.zeros((n, 3, 16, 16), dtype=np.float32)
    for a in range(len(ATTRS)):
        imgs += WEIGHTS[a] * PROTOS[a][idx[:, a]]
    imgs += noise * g.normal(size=imgs.shape).astype(np.float32)
    caps = []
    for r in idx:
        cls, col, size, tex, place, tod = (ATTRS[a][r[a]] for a in range(len(ATTRS)))
        caps.append(f"a photo of a {size} {col} {tex} {cls} on the {place} at {tod}")
    return torch.from_numpy(imgs), caps, torch.from_numpy(idx[:, 0]).long()


imgs, caps, cls = make_pairs(cfg["n_train"] + cfg["n_val"], seed=cfg["seed"], noise=cfg["noise"])
train_imgs, train_caps, train_cls = imgs[:-cfg["n_val"]], caps[:-cfg["n_val"]], cls[:-cfg["n_val"]]
val_imgs, val_caps, val_cls = imgs[-cfg["n_val"]:], caps[-cfg["n_val"]:], cls[-cfg["n_val"]:]

rng = np.random.default_rng(cfg["seed"])
order = rng.permutation(len(train_imgs))
train_imgs, train_cls = train_imgs[order], train_cls[order]
train_caps = [train_caps[i] for i in rng.permutation(len(train_caps))]

# ---------------------------------------------------------------- model
class ImageTower(nn.Module):
    def __init__(self, width, dim, dropout, norm="bn"):
        super().__init__()
        Norm = nn.BatchNorm2d if norm == "bn" else (lambda c: nn.Identity())
        self.conv = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1), Norm(width), nn.ReLU(),
            nn.Conv2d(width, 2 * width, 3, stride=2, padding=1), Norm(2 * width), nn.ReLU(),
            nn.Conv2d(2 * width, 4 * width, 3, stride=2, padding=1), Norm(4 * width), nn.ReLU(),
        )
        self.drop = nn.Dropout(dropout)
        self.proj = nn.Linear(4 * width, dim)

    def forward(self, x):
        x = self.conv(x)
        x = x.mean(dim=(2, 3))
        return self.proj(self.drop(x))


class TextTower(nn.Module):
    def __init__(self, vocab_size, width, dim, dropout):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, width, padding_idx=0)
        self.gru = nn.GRU(width, width, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.proj = nn.Linear(width, dim)

    def forward(self, tokens):
        h, _ = self.gru(self.embed(tokens))
        lengths = (tokens != 0).sum(1) - 1
        x = h[torch.arange(tokens.shape[0]), lengths]
        return self.proj(self.drop(x))


class CaptionHead(nn.Module):
    def __init__(self, vocab_size, dim, width):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, width, padding_idx=0)
        self.init = nn.Linear(dim, width)
        self.gru = nn.GRU(width, width, batch_first=True)
        self.out = nn.Linear(width, vocab_size)

    def forward(self, img_feat, tokens):
        h0 = torch.tanh(self.init(img_feat)).unsqueeze(0)
        h, _ = self.gru(self.embed(tokens[:, :-1]), h0)
        logits = self.out(h)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), tokens[:, 1:].reshape(-1), ignore_index=0)


class TinyCLIP(nn.Module):
    def __init__(self, vocab_size, cfg):
        super().__init__()
        m = cfg["model"]
        self.visual = ImageTower(m["vision_width"], m["embed_dim"], m.get("dropout", 0.0), m.get("norm", "bn"))
        self.text = TextTower(vocab_size, m["text_width"], m["embed_dim"], m.get("dropout", 0.0))
        self.captioner = CaptionHead(vocab_size, m["embed_dim"], m["text_width"]) if cfg.get("caption_loss_weight", 0) > 0 else None
        self.logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.07))

    def scale(self):
        return self.logit_scale.exp()


    def encode_image(self, x, normalize=True):
        f = self.visual(x)
        return F.normalize(f, dim=-1) if normalize else f

    def encode_text(self, t, normalize=True):
        f = self.text(t)
        return F.normalize(f, dim=-1) if normalize else f


def clip_loss(img_f, txt_f, scale):
    logits = scale * img_f @ txt_f.t()
    labels = torch.arange(logits.shape[0])
    return (F.cross_entropy(logits.float(), labels) + F.cross_entropy(logits.float().t(), labels)) / 2


# ---------------------------------------------------------------- setup
tokenizer = Tokenizer(cfg["tokenizer"])
model = TinyCLIP(len(tokenizer), cfg)
if cfg.get("lock_image", False):
    for p in model.visual.parameters():
        p.requires_grad = False
if cfg.get("lock_text", False):
    for p in model.text.parameters():
        p.requires_grad = False
n_params = sum(p.numel() for p in model.parameters())
n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)

def exclude(n, p):
    return p.ndim < 2 or "logit_scale" in n


named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
optimizer = torch.optim.AdamW(
    [
        {"params": [p for n, p in named if exclude(n, p)], "weight_decay": 0.0},
        {"params": [p for n, p in named if not exclude(n, p)], "weight_decay": cfg["weight_decay"]},
    ],
    lr=cfg["lr"], betas=(0.9, 0.98), eps=1e-6,
)

bs = cfg["batch_size"]
steps_per_epoch = len(train_imgs) // bs
total_steps = steps_per_epoch * cfg["epochs"]


def lr_at(step):
    base, warm = cfg["lr"], cfg["warmup"]
    if step < warm:
        return base * (step + 1) / warm
    if cfg.get("lr_scheduler", "cosine") == "const":
        return base
    e = step - warm
    es = max(1, total_steps - warm)
    return 0.5 * (1 + math.cos(math.pi * e / es)) * base


train_tokens = tokenizer(train_caps)
val_tokenizer = tokenizer
val_tokens = val_tokenizer(val_caps)
prompt_tokens = val_tokenizer([f"a photo of a {c}" for c in CLASSES])


@torch.no_grad()
def evaluate(model):
    model.eval()
    vb = cfg.get("batch_size_val", 128)
    img_f = torch.cat([model.encode_image(val_imgs[i:i + vb]) for i in range(0, len(val_imgs), vb)])
    txt_f = torch.cat([model.encode_text(val_tokens[i:i + vb]) for i in range(0, len(val_tokens), vb)])
    val_loss = sum(clip_loss(img_f[i:i + 128], txt_f[i:i + 128], model.scale()).item()
                   for i in range(0, len(img_f), 128)) / math.ceil(len(img_f) / 128)
    sim = img_f @ txt_f.t()
    gt = torch.arange(len(sim))
    metrics = {}
    for name, s in (("image_to_text", sim), ("text_to_image", sim.t())):
        ranking = torch.argsort(s, dim=1, descending=True)
        rank = torch.where(ranking == gt[:, None])[1]
        metrics[f"{name}_mean_rank"] = rank.float().mean().item() + 1
        metrics[f"{name}_median_rank"] = rank.float().median().item() + 1
        for k in (1, 5, 10):
            metrics[f"{name}_R@{k}"] = (rank < k).float().mean().item()
    cls_f = model.encode_text(prompt_tokens)
    metrics["zeroshot_top1"] = ((img_f @ cls_f.t()).argmax(1) == val_cls).float().mean().item()
    metrics["val_loss"] = val_loss
    model.train()
    return metrics

use_amp = cfg.get("precision", "fp32") in ("amp", "fp16")
scaler = torch.amp.GradScaler("cpu", enabled=use_amp)
os.makedirs(cfg["output_dir"], exist_ok=True)
log_txt = open(os.path.join(cfg["output_dir"], "log.txt"), "w")
console = open(os.path.join(cfg["output_dir"], "stdout.txt"), "w")


def out(msg):
    print(msg)
    console.write(msg + "\n")
    console.flush()


out(f"Creating model")
out(f"number of params: {n_params}  trainable: {n_train}")
out(json.dumps(cfg, indent=2))
out("Start training")
_ep = {"lr": 0.0, "loss_ita": 0.0, "loss_lm": 0.0, "n": 0}
_t0 = time.time()


def log_step(epoch, i, step, m):
    global _t0
    _ep["n"] += 1
    _ep["lr"] = m["lr"]
    _ep["loss_ita"] += m["contrastive_loss"]
    _ep["loss_lm"] += m["caption_loss"]
    if i % cfg["print_freq"] == 0 or i == steps_per_epoch - 1:
        dt = (time.time() - _t0) / _ep["n"]
        eta = int(dt * (steps_per_epoch - i - 1))
        mem = int(512 + n_params * 16 / 2 ** 20 + bs * (1.1 if cfg.get("vit_grad_ckpt") else 3.0))
        out(f"Train Epoch: [{epoch}]  [{i:>3}/{steps_per_epoch}]  eta: 0:00:{eta:02d}  lr: {m['lr']:.6f}  "
            f"loss_ita: {m['contrastive_loss']:.4f}  loss_lm: {m['caption_loss']:.4f}  "
            f"temp: {1 / m['logit_scale']:.4f}  time: {dt:.4f}  data: 0.0003  max mem: {mem}")


def log_eval(epoch, step, metrics):
    global _t0
    n = max(1, _ep["n"])
    out(f"Averaged stats: lr: {_ep['lr']:.6f}  loss_ita: {_ep['loss_ita'] / n:.4f}  loss_lm: {_ep['loss_lm'] / n:.4f}")
    out("Evaluation:")
    r = {
        "txt_r1": 100 * metrics["image_to_text_R@1"], "txt_r5": 100 * metrics["image_to_text_R@5"],
        "txt_r10": 100 * metrics["image_to_text_R@10"],
        "img_r1": 100 * metrics["text_to_image_R@1"], "img_r5": 100 * metrics["text_to_image_R@5"],
        "img_r10": 100 * metrics["text_to_image_R@10"],
    }
    r["txt_r_mean"] = (r["txt_r1"] + r["txt_r5"] + r["txt_r10"]) / 3
    r["img_r_mean"] = (r["img_r1"] + r["img_r5"] + r["img_r10"]) / 3
    r["r_mean"] = (r["txt_r_mean"] + r["img_r_mean"]) / 2
    r["zs_acc"] = 100 * metrics["zeroshot_top1"]
    r["loss_ita"] = metrics["val_loss"]
    out(str(r))
    stats = {"train_lr": f"{_ep['lr']:.6f}", "train_loss_ita": f"{_ep['loss_ita'] / n:.4f}",
             "train_loss_lm": f"{_ep['loss_lm'] / n:.4f}"}
    stats.update({f"val_{k}": round(v, 4) for k, v in r.items()})
    stats["epoch"] = epoch - 1
    log_txt.write(json.dumps(stats) + "\n")
    log_txt.flush()
    _ep.update(lr=0.0, loss_ita=0.0, loss_lm=0.0, n=0)
    _t0 = time.time()


def log_end():
    out("Training time 0:0%d:%02d" % divmod(int(time.time() - _start), 60))


_start = time.time()

step = 0
gen = torch.Generator().manual_seed(cfg["seed"])
for epoch in range(cfg["epochs"]):
    model.train()
    perm = torch.randperm(len(train_imgs), generator=gen)
    for i in range(steps_per_epoch):
        idx = perm[i * bs:(i + 1) * bs]
        images, texts = train_imgs[idx], train_tokens[idx]
        if cfg.get("augment", False):
            flip = torch.rand(len(images), generator=gen) < 0.5
            images = torch.where(flip[:, None, None, None], images.flip(-1), images)
        lr = lr_at(step)
        for g in optimizer.param_groups:
            g["lr"] = lr
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16, enabled=use_amp):
            img_f = model.encode_image(images)
            txt_f = model.encode_text(texts)
            closs = clip_loss(img_f, txt_f, model.scale())
            loss = closs
            cap = torch.zeros(())
            if model.captioner is not None:
                cap = model.captioner(model.visual(images), texts)
                loss = loss + cfg["caption_loss_weight"] * cap
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        gnorm = torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], cfg.get("grad_clip", 1e9))
        scaler.step(optimizer)
        scaler.update()
        with torch.no_grad():
            model.logit_scale.clamp_(0, math.log(100))
        with torch.no_grad():
            sim = img_f.float() @ txt_f.float().t()
            tgt = torch.arange(len(sim))
            acc = ((sim.argmax(1) == tgt).float().mean().item() + (sim.argmax(0) == tgt).float().mean().item()) / 2
        log_step(epoch, i, step, dict(loss=loss.item(), contrastive_loss=closs.item(), caption_loss=cap.item(),
                                      lr=lr, logit_scale=model.scale().item(), grad_norm=float(gnorm),
                                      batch_acc=acc, loss_scale=scaler.get_scale() if use_amp else 1.0))
        step += 1
    if (epoch + 1) % cfg.get("val_frequency", 1) == 0 or epoch + 1 == cfg["epochs"]:
        metrics = evaluate(model)
        log_eval(epoch + 1, step, metrics)

log_end()
