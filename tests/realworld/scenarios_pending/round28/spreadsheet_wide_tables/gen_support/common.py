"""Shared helpers for gen.py: synthetic data, tiny models, a configurable training loop,
and spreadsheet-style formatting helpers. Everything here runs on CPU in a few seconds."""
import math
import os
import csv
import io

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


# ----------------------------------------------------------------------------- data
def make_teacher(d, K, seed, hidden=32, scale=2.5):
    g = np.random.default_rng(seed)
    W1 = g.normal(0, 1.0 / math.sqrt(d), (d, hidden))
    b1 = g.normal(0, 0.3, hidden)
    W2 = g.normal(0, 1.0 / math.sqrt(hidden), (hidden, K))
    return dict(W1=W1, b1=b1, W2=W2, scale=scale, d=d, K=K)


def sample_task(teacher, n, seed, temp=0.35, prior=None):
    """x ~ N(0, I); y = argmax(teacher logits + log prior + gumbel*temp)."""
    g = np.random.default_rng(seed)
    X = g.normal(0, 1, (n, teacher["d"]))
    h = np.tanh(X @ teacher["W1"] + teacher["b1"])
    logits = teacher["scale"] * (h @ teacher["W2"])
    logits = (logits - logits.mean(0)) / logits.std(0) * 2.0
    if prior is not None:
        logits = logits + np.log(np.asarray(prior))[None, :]
    gum = -np.log(-np.log(g.uniform(1e-9, 1 - 1e-9, logits.shape)))
    y = np.argmax(logits + temp * gum, 1)
    return X.astype(np.float32), y.astype(np.int64)


# ----------------------------------------------------------------------------- model
class MLP(nn.Module):
    def __init__(self, d, K, hidden=128, depth=2, dropout=0.0, bn=False, final_softmax=False):
        super().__init__()
        layers = []
        prev = d
        for _ in range(depth):
            layers.append(nn.Linear(prev, hidden))
            if bn:
                layers.append(nn.BatchNorm1d(hidden))
            layers.append(nn.ReLU())
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
            prev = hidden
        layers.append(nn.Linear(prev, K))
        if final_softmax:
            layers.append(nn.Softmax(dim=1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def n_params(m):
    return sum(p.numel() for p in m.parameters())


# ----------------------------------------------------------------------------- training
def build_optimizer(model, cfg):
    if cfg["opt"] == "sgd":
        return torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg.get("momentum", 0.0),
                               weight_decay=cfg.get("wd", 0.0), nesterov=cfg.get("nesterov", False))
    if cfg["opt"] == "adam":
        return torch.optim.Adam(model.parameters(), lr=cfg["lr"], weight_decay=cfg.get("wd", 0.0))
    if cfg["opt"] == "adamw":
        return torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg.get("wd", 0.01))
    raise ValueError(cfg["opt"])


def build_scheduler(opt, cfg):
    s = cfg.get("sched")
    if s is None:
        return None
    if s == "multistep":
        return torch.optim.lr_scheduler.MultiStepLR(opt, milestones=cfg["milestones"], gamma=cfg.get("gamma", 0.1))
    if s == "cosine":
        return torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg["epochs"], eta_min=cfg.get("eta_min", 0.0))
    raise ValueError(s)


@torch.no_grad()
def evaluate(model, X, y, bs=512, train_mode=False):
    model.train(train_mode)
    losses, correct, preds = 0.0, 0, []
    for i in range(0, len(X), bs):
        out = model(X[i:i + bs])
        losses += F.cross_entropy(out, y[i:i + bs], reduction="sum").item()
        p = out.argmax(1)
        correct += (p == y[i:i + bs]).sum().item()
        preds.append(p)
    model.train()
    return losses / len(X), correct / len(X), torch.cat(preds)


def grad_total_norm(model):
    gs = [p.grad.detach().reshape(-1) for p in model.parameters() if p.grad is not None]
    return torch.linalg.vector_norm(torch.cat(gs)).item()


def train(cfg, Xtr, ytr, Xva, yva, model=None, opt=None, sched=None, epoch_range=None,
          log_every=None, input_noise=0.0, stop_on_nan_epochs=None, loss_fn=None, hooks=None):
    """Generic loop. cfg keys: seed, epochs, bs, opt, lr, momentum, wd, sched, milestones,
    sched_per_batch, shuffle, hidden, depth, dropout, bn.
    Returns dict(model, opt, sched, hist(list of per-epoch dicts), steps(list of (gstep, ep, loss, gn)))."""
    torch.manual_seed(cfg["seed"])
    Xtr_t = torch.as_tensor(Xtr)
    ytr_t = torch.as_tensor(ytr)
    Xva_t = torch.as_tensor(Xva)
    yva_t = torch.as_tensor(yva)
    if model is None:
        model = MLP(Xtr.shape[1], cfg["K"], hidden=cfg.get("hidden", 128), depth=cfg.get("depth", 2),
                    dropout=cfg.get("dropout", 0.0), bn=cfg.get("bn", False),
                    final_softmax=cfg.get("final_softmax", False))
    if opt is None:
        opt = build_optimizer(model, cfg)
    if sched is None:
        sched = build_scheduler(opt, cfg)
    loss_fn = loss_fn or F.cross_entropy
    gen = torch.Generator().manual_seed(cfg["seed"] + 1)
    n = len(Xtr_t)
    bs = cfg["bs"]
    e0, e1 = epoch_range or (1, cfg["epochs"])
    hist, steps = [], []
    gstep = 0
    nan_epochs = 0
    for ep in range(e0, e1 + 1):
        model.train()
        perm = torch.randperm(n, generator=gen) if cfg.get("shuffle", True) else torch.arange(n)
        tl, tc, tn, gns = 0.0, 0, 0, []
        for i in range(0, n, bs):
            idx = perm[i:i + bs]
            xb, yb = Xtr_t[idx], ytr_t[idx]
            if input_noise > 0:
                xb = xb + input_noise * torch.randn(xb.shape, generator=gen)
            opt.zero_grad()
            out = model(xb)
            loss = loss_fn(out, yb)
            loss.backward()
            gn = grad_total_norm(model)
            if cfg.get("clip"):
                torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
            opt.step()
            if sched is not None and cfg.get("sched_per_batch", False):
                sched.step()
            gstep += 1
            lv = loss.item()
            tl += lv * len(idx)
            tc += (out.argmax(1) == yb).sum().item()
            tn += len(idx)
            gns.append(gn)
            if log_every and (gstep % log_every == 0 or i == 0):
                steps.append(dict(gstep=gstep, ep=ep, loss=lv, gn=gn, lr=opt.param_groups[0]["lr"], bsz=len(idx)))
            if hooks and "after_step" in hooks:
                hooks["after_step"](gstep, ep, lv, gn)
        lr_now = opt.param_groups[0]["lr"]
        if sched is not None and not cfg.get("sched_per_batch", False):
            sched.step()
        vl, va, vp = evaluate(model, Xva_t, yva_t)
        rec = dict(ep=ep, train_loss=tl / tn, train_acc=tc / tn, val_loss=vl, val_acc=va, lr=lr_now,
                   grad_norm=float(np.mean(gns)) if gns else float("nan"),
                   grad_norm_max=float(np.max(gns)) if gns else float("nan"))
        if hooks and "after_epoch" in hooks:
            hooks["after_epoch"](ep, model, rec, vp)
        hist.append(rec)
        if stop_on_nan_epochs is not None and not math.isfinite(rec["train_loss"]):
            nan_epochs += 1
            if nan_epochs >= stop_on_nan_epochs:
                break
    return dict(model=model, opt=opt, sched=sched, hist=hist, steps=steps)


# ----------------------------------------------------------------------------- metrics
def f1_scores(y_true, y_pred, K):
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    f1s = []
    for k in range(K):
        tp = np.sum((y_pred == k) & (y_true == k))
        fp = np.sum((y_pred == k) & (y_true != k))
        fn = np.sum((y_pred != k) & (y_true == k))
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f1s.append(2 * p * r / (p + r) if p + r else 0.0)
    tp = np.sum(y_pred == y_true)
    micro = tp / len(y_true)
    return micro, float(np.mean(f1s)), f1s


# ----------------------------------------------------------------------------- formatting
def pct(x, dec=1):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "nan"
    return f"{100 * x:.{dec}f}%"


def comma(x, dec=4):
    if isinstance(x, float) and not math.isfinite(x):
        return "NaN" if math.isnan(x) else "#NUM!"
    return f"{x:.{dec}f}".replace(".", ",")


def num(x, dec=4):
    if isinstance(x, float) and not math.isfinite(x):
        return "nan"
    return f"{x:.{dec}f}"


def sci(x, dec=2):
    return f"{x:.{dec}e}"


def write_table(path, rows, sep=",", bom=False, crlf=False, pad_to=None):
    """rows: list of lists of str. pad_to: pad every row with empty cells to this width
    (the trailing ',,,' Excel leaves when a sheet's used range is wider than the data)."""
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=sep, lineterminator="\r\n" if crlf else "\n")
    for r in rows:
        r = ["" if c is None else str(c) for c in r]
        if pad_to and len(r) < pad_to:
            r = r + [""] * (pad_to - len(r))
        w.writerow(r)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8-sig" if bom else "utf-8", newline="") as f:
        f.write(buf.getvalue())


def write_text(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
