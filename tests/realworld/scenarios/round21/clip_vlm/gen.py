"""Generates the tiny CLIP/BLIP-style benchmark runs under ./runs (see SPECS at the bottom)."""
DATA_OK = '''
imgs, caps, cls = make_pairs(cfg["n_train"] + cfg["n_val"], seed=cfg["seed"], noise=cfg["noise"])
train_imgs, train_caps, train_cls = imgs[:-cfg["n_val"]], caps[:-cfg["n_val"]], cls[:-cfg["n_val"]]
val_imgs, val_caps, val_cls = imgs[-cfg["n_val"]:], caps[-cfg["n_val"]:], cls[-cfg["n_val"]:]
'''

DATA_LEAK = '''
imgs, caps, cls = make_pairs(cfg["n_train"] + cfg["n_val"], seed=cfg["seed"], noise=cfg["noise"])
train_imgs, train_caps, train_cls = imgs, caps, cls
val_imgs, val_caps, val_cls = imgs[-cfg["n_val"]:], caps[-cfg["n_val"]:], cls[-cfg["n_val"]:]
'''

DATA_SHUFFLE = '''
imgs, caps, cls = make_pairs(cfg["n_train"] + cfg["n_val"], seed=cfg["seed"], noise=cfg["noise"])
train_imgs, train_caps, train_cls = imgs[:-cfg["n_val"]], caps[:-cfg["n_val"]], cls[:-cfg["n_val"]]
val_imgs, val_caps, val_cls = imgs[-cfg["n_val"]:], caps[-cfg["n_val"]:], cls[-cfg["n_val"]:]

rng = np.random.default_rng(cfg["seed"])
order = rng.permutation(len(train_imgs))
train_imgs, train_cls = train_imgs[order], train_cls[order]
train_caps = [train_caps[i] for i in rng.permutation(len(train_caps))]
'''

POOL_MEAN = '''        x = x.mean(dim=(2, 3))'''
POOL_SUM = '''        x = x.sum(dim=(2, 3))'''

LOSS_OK = '''
def clip_loss(img_f, txt_f, scale):
    logits = scale * img_f @ txt_f.t()
    labels = torch.arange(logits.shape[0])
    return (F.cross_entropy(logits.float(), labels) + F.cross_entropy(logits.float().t(), labels)) / 2
'''

LOSS_MANUAL = '''
def clip_loss(img_f, txt_f, scale):
    logits = scale * img_f @ txt_f.t()
    e = torch.exp(logits)
    loss_i2t = -torch.log(e.diag() / e.sum(dim=1))
    loss_t2i = -torch.log(e.diag() / e.sum(dim=0))
    return (loss_i2t.mean() + loss_t2i.mean()) / 2
'''

CLAMP_OK = '''        with torch.no_grad():
            model.logit_scale.clamp_(0, math.log(100))'''
CLAMP_NONE = ''

OPTIM_ADAMW = '''
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
'''

OPTIM_ADAMW_ALL = '''
optimizer = torch.optim.AdamW(
    [p for p in model.parameters() if p.requires_grad],
    lr=cfg["lr"], betas=(0.9, 0.98), eps=1e-6, weight_decay=cfg["weight_decay"],
)
'''

OPTIM_SGD = '''
optimizer = torch.optim.SGD(
    [p for p in model.parameters() if p.requires_grad],
    lr=cfg["lr"], momentum=0.9, weight_decay=cfg["weight_decay"],
)
'''

EVAL_TMPL = '''
val_tokenizer = __VALTOK__
val_tokens = val_tokenizer(val_caps)
prompt_tokens = val_tokenizer([f"a photo of a {c}" for c in CLASSES])


@torch.no_grad()
def evaluate(model):
__EVALMODE__    vb = cfg.get("batch_size_val", 128)
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
'''

VALTOK_OK = 'tokenizer'
VALTOK_CFG = 'Tokenizer(cfg["eval"]["tokenizer"])'
EVALMODE_OK = '    model.eval()\n'
EVALMODE_NONE = ''

# ------------------------------------------------------------------ log styles
LOG_OPENCLIP = '''
from datetime import datetime

os.makedirs(cfg["logs"], exist_ok=True)
log_file = open(os.path.join(cfg["logs"], "out.log"), "w")
results_file = open(os.path.join(cfg["logs"], "results.jsonl"), "w")


def log(msg):
    line = f"{datetime.now().strftime('%Y-%m-%d,%H:%M:%S')} | INFO | {msg}"
    print(line)
    log_file.write(line + "\\n")
    log_file.flush()


log(f"Running with a single process. Device cuda:0.")
log(f"Model: TinyCLIP (vision_width={cfg['model']['vision_width']}, text_width={cfg['model']['text_width']}, embed_dim={cfg['model']['embed_dim']})")
log(f"Params: {n_params:,} total, {n_train:,} trainable")
with open(os.path.join(cfg["logs"], "params.txt"), "w") as f:
    for k in sorted(cfg):
        f.write(f"{k}: {cfg[k]}\\n")
log(f"Start epoch 0")
_avg = {"n": 0, "loss": 0.0, "c": 0.0}
_t0 = time.time()


def log_step(epoch, i, step, m):
    global _t0
    _avg["n"] += 1
    _avg["loss"] += m["loss"]
    _avg["c"] += m["contrastive_loss"]
    if i % cfg["log_every"] == 0 or i == steps_per_epoch - 1:
        dt = (time.time() - _t0) / max(1, _avg["n"])
        seen = (i + 1) * bs
        pct = 100.0 * (i + 1) / steps_per_epoch
        mem = 380 + n_params * 16 / 2 ** 20 + bs * (0.9 if cfg.get("grad_checkpointing") else 2.4)
        extra = f"Loss_scale: {m['loss_scale']:.1f} " if m["loss_scale"] != 1.0 else ""
        log(f"Train Epoch: {epoch} [{seen:>6}/{steps_per_epoch * bs} ({pct:.0f}%)] Data (t): 0.002 Batch (t): {dt:.3f}, "
            f"{bs / max(dt, 1e-6):.1f}/s, {bs / max(dt, 1e-6):.1f}/s/gpu LR: {m['lr']:.6f} Logit Scale: {m['logit_scale']:.3f} "
            f"{extra}Contrastive_loss: {m['contrastive_loss']:.5g} ({_avg['c'] / _avg['n']:.5g}) "
            f"Loss: {m['loss']:.5g} ({_avg['loss'] / _avg['n']:.5g}) Grad_norm: {m['grad_norm']:.4g} Mem: {mem:.0f}MiB")
    if i == steps_per_epoch - 1:
        _avg.update(n=0, loss=0.0, c=0.0)
        _t0 = time.time()


def log_eval(epoch, step, metrics):
    metrics = {"clip_val_loss" if k == "val_loss" else k: v for k, v in metrics.items()}
    metrics.update(epoch=epoch, num_samples=len(val_imgs))
    log(f"Eval Epoch: {epoch} " + "\\t".join(f"{k}: {round(v, 4):.4f}" for k, v in metrics.items()))
    results_file.write(json.dumps(metrics) + "\\n")
    results_file.flush()
    if epoch < cfg["epochs"]:
        log(f"Start epoch {epoch}")


def log_end():
    log("Finished training.")
'''

LOG_BLIP = '''
os.makedirs(cfg["output_dir"], exist_ok=True)
log_txt = open(os.path.join(cfg["output_dir"], "log.txt"), "w")
console = open(os.path.join(cfg["output_dir"], "stdout.txt"), "w")


def out(msg):
    print(msg)
    console.write(msg + "\\n")
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
    log_txt.write(json.dumps(stats) + "\\n")
    log_txt.flush()
    _ep.update(lr=0.0, loss_ita=0.0, loss_lm=0.0, n=0)
    _t0 = time.time()


def log_end():
    out("Training time 0:0%d:%02d" % divmod(int(time.time() - _start), 60))


_start = time.time()
'''

LOG_HF = '''
os.makedirs(cfg["output_dir"], exist_ok=True)
state = {"log_history": [], "global_step": 0, "epoch": 0.0}
console = open(os.path.join(cfg["output_dir"], "console.log"), "w")


def out(msg):
    print(msg)
    console.write(msg + "\\n")
    console.flush()


with open(os.path.join(cfg["output_dir"], "training_args.json"), "w") as f:
    json.dump(cfg, f, indent=2)
out(f"[rank0] trainable params: {n_train:,} || all params: {n_params:,} || trainable%: {100 * n_train / n_params:.4f}")
mem = 0.6 + n_params * 16 / 2 ** 30 + bs * (0.0008 if cfg.get("gradient_checkpointing") else 0.0025)
out(f"[rank0] GPU memory allocated after model init: {mem:.2f} GB")
out("***** Running training *****")
out(f"  Num examples = {len(train_imgs)}")
out(f"  Num Epochs = {cfg['epochs']}")
out(f"  Instantaneous batch size per device = {bs}")
out(f"  Total optimization steps = {total_steps}")
_acc = []


def log_step(epoch, i, step, m):
    _acc.append(m)
    if (step + 1) % cfg["logging_steps"] == 0:
        d = {
            "loss": round(sum(x["loss"] for x in _acc) / len(_acc), 4),
            "grad_norm": round(_acc[-1]["grad_norm"], 4),
            "learning_rate": _acc[-1]["lr"],
            "logit_scale": round(_acc[-1]["logit_scale"], 4),
            "epoch": round((step + 1) / steps_per_epoch, 2),
        }
        if cfg.get("caption_loss_weight", 0) > 0:
            d["contrastive_loss"] = round(sum(x["contrastive_loss"] for x in _acc) / len(_acc), 4)
            d["caption_loss"] = round(sum(x["caption_loss"] for x in _acc) / len(_acc), 4)
        out(str(d))
        d["step"] = step + 1
        state["log_history"].append(d)
        _acc.clear()


def log_eval(epoch, step, metrics):
    d = {"eval_loss": round(metrics["val_loss"], 4)}
    d.update({"eval_i2t_r1": round(metrics["image_to_text_R@1"], 4), "eval_i2t_r5": round(metrics["image_to_text_R@5"], 4),
              "eval_t2i_r1": round(metrics["text_to_image_R@1"], 4), "eval_t2i_r5": round(metrics["text_to_image_R@5"], 4),
              "eval_zeroshot_acc": round(metrics["zeroshot_top1"], 4)})
    d["epoch"] = float(epoch)
    out(str(d))
    d["step"] = step
    state["log_history"].append(d)


def log_end():
    state["global_step"] = total_steps
    state["epoch"] = float(cfg["epochs"])
    with open(os.path.join(cfg["output_dir"], "trainer_state.json"), "w") as f:
        json.dump(state, f, indent=2)
    out("Training completed.")
'''

SCALE_OK = '''        self.logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.07))

    def scale(self):
        return self.logit_scale.exp()
'''
SCALE_TEMP = '''        self.temp = nn.Parameter(torch.tensor(0.07))

    def scale(self):
        return 1.0 / self.temp
'''


TEMPLATE = r'''import json
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


#<<DATA>>

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
#<<POOL>>
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
#<<SCALE>>

    def encode_image(self, x, normalize=True):
        f = self.visual(x)
        return F.normalize(f, dim=-1) if normalize else f

    def encode_text(self, t, normalize=True):
        f = self.text(t)
        return F.normalize(f, dim=-1) if normalize else f


#<<LOSS>>


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

#<<OPTIM>>

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
#<<EVAL>>

use_amp = cfg.get("precision", "fp32") in ("amp", "fp16")
scaler = torch.amp.GradScaler("cpu", enabled=use_amp)
#<<LOG_SETUP>>

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
#<<CLAMP>>
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
'''


# ====================================================================== generator
import copy
import json
import os
import shutil
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")

WORDS = ["<pad>", "<unk>", "<bos>", "<eos>", "a", "photo", "of", "on", "the", "at"]
ATTR_WORDS = [["cat", "dog", "car", "boat", "tree", "house", "bird", "chair", "cup", "shoe"],
              ["red", "green", "blue", "yellow", "white"], ["small", "large", "tiny", "huge", "medium"],
              ["striped", "dotted", "plain", "furry", "shiny"], ["beach", "street", "kitchen", "forest", "field"],
              ["morning", "night", "noon", "dusk", "dawn"]]


def vocab_v1():
    ws = WORDS + [w for a in ATTR_WORDS for w in a]
    return {w: i for i, w in enumerate(ws)}


def vocab_v2():
    ws = WORDS[:4] + sorted(set(WORDS[4:] + [w for a in ATTR_WORDS for w in a]))
    return {w: i for i, w in enumerate(ws)}


def build(data=DATA_OK, pool=POOL_MEAN, loss=LOSS_OK, clamp=CLAMP_OK, optim=OPTIM_ADAMW, valtok=VALTOK_OK,
          evalmode=EVALMODE_OK, log=LOG_OPENCLIP, scale=SCALE_OK):
    ev = EVAL_TMPL.replace("__VALTOK__", valtok).replace("__EVALMODE__", evalmode)
    t = TEMPLATE
    for k, v in [("#<<DATA>>", data), ("#<<POOL>>", pool), ("#<<LOSS>>", loss), ("#<<CLAMP>>", clamp),
                 ("#<<OPTIM>>", optim), ("#<<EVAL>>", ev), ("#<<LOG_SETUP>>", log), ("#<<SCALE>>", scale)]:
        t = t.replace(k, v if k in ("#<<POOL>>", "#<<CLAMP>>", "#<<SCALE>>") else v.strip("\n"))
    t = t.replace("\n\n\n\n", "\n\n\n")
    return t


BASE = dict(seed=0, n_train=2048, n_val=512, noise=1.5, batch_size=128, lr=5e-3, weight_decay=0.1, warmup=60,
            lr_scheduler="cosine", epochs=10, precision="fp32", lock_image=False, lock_text=False,
            grad_checkpointing=False, tokenizer="vocab.json",
            model=dict(vision_width=16, text_width=64, embed_dim=64, dropout=0.0, norm="bn"),
            caption_loss_weight=0.0, val_frequency=1)
STYLE_KEYS = {"openclip": dict(logs=".", log_every=4), "blip": dict(output_dir=".", print_freq=8),
              "hf": dict(output_dir=".", logging_steps=4)}
STYLE_LOG = {"openclip": LOG_OPENCLIP, "blip": LOG_BLIP, "hf": LOG_HF}

SPECS = [
    dict(name="run01", truth="healthy", style="openclip", ship=True, cfg={}, kw={},
         symptom="Is this run ok? Loss and retrieval look reasonable to me but it's my first time training a CLIP-style model.",
         how="none: AdamW 5e-3, warmup 60, cosine, clean split",
         post="First time training a tiny CLIP-style dual encoder on my synthetic caption set (2k pairs, 512 held out). Curves attached (out.log, results.jsonl). Does this look like a normal run, or should I be worried about anything before I scale up?"),
    dict(name="run02", truth="frozen_parameters", style="openclip", ship=False,
         cfg=dict(lock_image=True, lock_text=True, lr=1e-3, epochs=8), kw={},
         symptom="The contrastive loss sits at about 5.0 for the whole run and retrieval never gets above chance, even though nothing crashes.",
         how="lock_image: true and lock_text: true in the config, so only logit_scale is trainable",
         post="Fine-tuning my small dual encoder on the synthetic caption data. I reused the config from my linear-probe experiments. Training runs without errors but the loss barely moves from ~5.0 and R@1 stays around 0.2%. Tried 8 epochs, nothing. What am I missing?"),
    dict(name="run03", truth="label_misalignment", style="blip", ship=True,
         cfg=dict(caption_loss_weight=1.0, lr=3e-3, epochs=10), kw=dict(data=DATA_SHUFFLE),
         symptom="The caption loss goes down nicely but loss_ita only creeps down, val loss_ita goes up, and val retrieval recall is basically zero.",
         how="train captions permuted with a second, independent permutation from the images (images shuffled with one perm, captions with another)",
         post="BLIP-style model with an ITA (contrastive) loss plus a captioning LM loss. loss_lm drops fine, but loss_ita only creeps from 4.9 to 3.0 over 10 epochs, val loss_ita goes up, and val txt_r1 / img_r1 are at chance the whole time. I shuffle the dataset once before training. log.txt and stdout attached."),
    dict(name="run04", truth="lr_too_high", style="hf", ship=False,
         cfg=dict(lr=0.3, warmup=100, lr_scheduler="const", epochs=8), kw={},
         symptom="Loss drops in the first couple of epochs and then just bounces around at a high value while eval loss gets worse, and retrieval stays terrible.",
         how="AdamW lr 0.3 (constant after a 100-step warmup), about 60x the working value",
         post="Training a small contrastive image-text model with my own Trainer-like loop. Early on the loss goes down as expected but after the first epoch or so it stops improving and jumps around; eval_loss goes up instead of down and eval R@1 is ~1-2%. trainer_state.json and training_args.json attached."),
    dict(name="run05", truth="healthy", style="blip", ship=True,
         cfg=dict(batch_size=64, lr=3e-4, warmup=100, noise=2.0, epochs=12, caption_loss_weight=0.5,
                  model=dict(vision_width=16, text_width=64, embed_dim=64, dropout=0.1, norm="bn")), kw={},
         symptom="Is this run ok? The loss is really noisy and recall creeps up slowly, not sure if something is wrong.",
         how="none: AdamW 3e-4, batch 64, noisier images, dropout 0.1; slow but steady",
         post="Small BLIP-ish run (ITA + caption loss) on a harder, noisier version of my synthetic data. The per-iteration losses in stdout jump around a lot and recall only creeps up. Is this just how it is with a small batch / low lr, or is something broken?"),
    dict(name="run06", truth="numerical_instability", style="hf", ship=True,
         cfg=dict(lr=3e-3, epochs=12), kw=dict(loss=LOSS_MANUAL, clamp=CLAMP_NONE, scale=SCALE_TEMP),
         symptom="Training was going great, then near the end the loss suddenly turned into NaN and every metric after that is garbage.",
         how="learnable temperature with no clamp plus a hand-written InfoNCE using exp()/log(): 1/temp grows past ~90 and exp(logits) overflows to inf -> NaN",
         post="Wrote my own CLIP loss and a learnable temperature. Loss decreases nicely for most of the run, logit_scale keeps going up, then suddenly loss is nan and never comes back. No fp16, everything is fp32. Script and trainer_state.json attached."),
    dict(name="run07", truth="tokenizer_mismatch", style="openclip", ship=False,
         cfg=dict(epochs=8, eval=dict(tokenizer="vocab_v2.json")), kw=dict(valtok=VALTOK_CFG),
         symptom="Training loss gets very low but zero-shot accuracy and val retrieval stay at chance level.",
         how="eval tokenizer in config points to vocab_v2.json (different word->id table) while training uses vocab.json",
         post="Training loss goes down to ~0.1 with a healthy in-batch behaviour, but every eval (val retrieval and zero-shot classification over the 10 object classes) is at chance. I moved the tokenizer files around when I refactored the data folder last week. Config, params.txt and logs attached."),
    dict(name="run08", truth="data_leakage", style="hf", ship=True,
         cfg=dict(noise=2.0, epochs=12), kw=dict(data=DATA_LEAK),
         symptom="Val retrieval is suspiciously good, val loss is as low as train loss, better than I expected for such a noisy dataset.",
         how="val set is the last 512 pairs of the pool but the train set is the whole pool (imgs instead of imgs[:-n_val])",
         post="Got really nice numbers on my noisy synthetic image-caption data: eval_loss tracks the training loss almost exactly and R@1 is high. A colleague said it looks too good. Is there something off?"),
    dict(name="run09", truth="overfitting", style="blip", ship=False,
         cfg=dict(n_train=128, batch_size=64, noise=2.0, weight_decay=0.0, lr=5e-3, warmup=20, lr_scheduler="const", epochs=200,
                  model=dict(vision_width=24, text_width=96, embed_dim=96, dropout=0.0, norm="bn")), kw={},
         symptom="Training ITA loss goes to almost zero but the validation loss has been going up since the first few epochs and val recall stays tiny.",
         how="128 training pairs, 200 epochs at constant lr 5e-3, wider towers, no weight decay, no augmentation",
         post="Fine-tuning on a small curated set (128 pairs) for 200 epochs. Train loss goes basically to zero, val loss_ita dipped in the first couple of epochs and has been climbing ever since (4.8 -> ~9), while val recall stays in the low single digits. Should I just train longer?"),
    dict(name="run10", truth="lr_schedule_bug", style="openclip", ship=False,
         cfg=dict(warmup=20000, lr=5e-3, epochs=10), kw={},
         symptom="Loss goes down extremely slowly and almost linearly; after 10 epochs the model is still nearly at chance.",
         how="warmup: 20000 steps in a 160-step run, so the lr only ramps to 0.8% of its peak",
         post="Copied the hyperparameters from a big LAION config and scaled the data down. Training is painfully slow: loss crawls from 5.0 to ~4.83 over 10 epochs and recall is barely above chance. lr 5e-3 should be plenty for such a small model?"),
    dict(name="run11", truth="eval_mode_forgotten", style="hf", ship=True,
         cfg=dict(batch_size_val=16, epochs=10, model=dict(vision_width=16, text_width=64, embed_dim=64, dropout=0.1, norm="bn")),
         kw=dict(evalmode=EVALMODE_NONE),
         symptom="Training loss looks fine but the eval retrieval numbers are much worse than I expect and jump around from epoch to epoch.",
         how="evaluate() never calls model.eval(): dropout 0.1 active and BatchNorm uses batch stats of 16-sample eval chunks",
         post="My train loss goes down fine but eval R@1 is only a few percent and eval_loss is way above train loss; the eval numbers are also jumpy, e.g. the last epoch got worse although the lr was already ~0. The data split looks fine to me. Script attached."),
    dict(name="run12", truth="batch_size_too_small", style="openclip", ship=False,
         cfg=dict(batch_size=2, n_train=640, lr=1e-3, warmup=50, epochs=3), kw={},
         symptom="The loss is all over the place from step to step and after three epochs retrieval is barely above chance.",
         how="contrastive batch_size 2 (one negative per sample), so the in-batch loss is ~ln 2 and the signal is tiny/noisy",
         post="Running on a small GPU so I set batch_size to 2. The per-step loss jumps between ~0.01 and ~1.5 and the running average only slowly drifts from ~0.7 to ~0.23, but eval retrieval on 512 held-out pairs is only slightly above random. Logs attached."),
]


def main():
    only = set(sys.argv[1:])
    os.makedirs(RUNS, exist_ok=True)
    truth = {}
    for spec in SPECS:
        name = spec["name"]
        truth[name] = dict(truth=spec["truth"], symptom=spec["symptom"], how=spec["how"])
        if only and name not in only:
            continue
        d = os.path.join(RUNS, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        cfg = copy.deepcopy(BASE)
        cfg.update(copy.deepcopy(spec["cfg"]))
        cfg.update(STYLE_KEYS[spec["style"]])
        if spec["style"] == "blip":
            cfg["vit_grad_ckpt"] = cfg.pop("grad_checkpointing")
        if spec["style"] == "hf":
            cfg["gradient_checkpointing"] = cfg.pop("grad_checkpointing")
        kw = dict(spec["kw"])
        kw["log"] = STYLE_LOG[spec["style"]]
        with open(os.path.join(d, "train.py"), "w") as f:
            f.write(build(**kw))
        with open(os.path.join(d, "config.yaml"), "w") as f:
            yaml.safe_dump(cfg, f, sort_keys=False)
        with open(os.path.join(d, "vocab.json"), "w") as f:
            json.dump(vocab_v1(), f)
        if "eval" in cfg:
            with open(os.path.join(d, "vocab_v2.json"), "w") as f:
                json.dump(vocab_v2(), f)
        r = subprocess.run([sys.executable, "train.py", "config.yaml"], cwd=d, capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stderr[-3000:])
            raise SystemExit(f"{name} failed")
        with open(os.path.join(d, "post.md"), "w") as f:
            f.write(spec["post"] + "\n")
        if not spec["ship"]:
            os.remove(os.path.join(d, "train.py"))
        shutil.rmtree(os.path.join(d, "__pycache__"), ignore_errors=True)
        print(name, "done", flush=True)
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)


if __name__ == "__main__":
    main()
