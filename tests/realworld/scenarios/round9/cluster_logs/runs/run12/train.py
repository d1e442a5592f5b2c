import argparse
import logging
import math
import os
import sys
import time
from datetime import datetime

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset

log = logging.getLogger("train")


def setup_logging(path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fmt = logging.Formatter("%(asctime)s - %(levelname)s - %(message)s")
    log.setLevel(logging.INFO)
    for h in (logging.FileHandler(path), logging.StreamHandler(sys.stdout)):
        h.setFormatter(fmt)
        log.addHandler(h)


def seed_everything(seed):
    np.random.seed(seed)
    torch.manual_seed(seed)


def fmt_num(v):
    if v != v or v in (float("inf"), float("-inf")):
        return str(v)
    if v == 0:
        return "0.00"
    if abs(v) < 0.005 or abs(v) >= 1e5:
        return f"{v:.1e}"
    return f"{v:.2f}"


# ---------------------------------------------------------------- data
def build_data(cfg):
    X, y = load_digits(return_X_y=True)
    X = (X / 16.0).astype(np.float32)
    Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.2, stratify=y, random_state=cfg["data"]["split_seed"])
    log.info("digits: train=%d val=%d", len(ytr), len(yva))
    bs = cfg["train"]["batch_size"]
    tr = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=bs, shuffle=True)
    va = DataLoader(TensorDataset(torch.from_numpy(Xva), torch.from_numpy(yva)), batch_size=512)
    return tr, va

# ---------------------------------------------------------------- model
def build_model(cfg):
    h1, h2 = cfg["model"]["hidden"]
    return nn.Sequential(nn.Linear(64, h1), nn.ReLU(), nn.Linear(h1, h2), nn.ReLU(), nn.Linear(h2, 10))

# ---------------------------------------------------------------- optim
def build_optimizer(model, cfg):
    o = cfg["optim"]
    opt = torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"], weight_decay=o["weight_decay"])
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=o["step_size"], gamma=o["gamma"])
    return opt, sched

# ---------------------------------------------------------------- loss / eval
def compute_loss(out, y, model, cfg):
    return {"ce": F.cross_entropy(out, y)}


@torch.no_grad()
def evaluate(model, loader, device, cfg):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        out = model(xb)
        tot += F.cross_entropy(out, yb, reduction="sum").item()
        correct += (out.argmax(-1) == yb).sum().item()
        n += yb.numel()
    return {"val_loss": tot / n, "val_acc": correct / n}



def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/exp.yaml")
    ap.add_argument("--log-file", default=None)
    args = ap.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    log_file = args.log_file or os.path.join("logs", datetime.now().strftime("train_%Y%m%d_%H%M%S.log"))
    setup_logging(log_file)
    torch.set_num_threads(cfg.get("threads", 1))
    seed_everything(cfg["seed"])
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    log.info("exp=%s | device=%s | torch %s | pid %d", cfg["name"], device, torch.__version__, os.getpid())
    log.info("config:\n%s", yaml.safe_dump(cfg, sort_keys=False).rstrip())

    train_loader, val_loader = build_data(cfg)
    model = build_model(cfg).to(device)
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log.info("model:\n%s", model)
    log.info("trainable params: %s", f"{n_params:,}")
    opt, sched = build_optimizer(model, cfg)

    tcfg = cfg["train"]
    epochs, log_every = tcfg["epochs"], tcfg["log_every"]
    total = epochs * len(train_loader)
    use_amp = bool(tcfg.get("amp", False))
    scaler = torch.amp.GradScaler(device.type, enabled=use_amp)
    clip = tcfg.get("grad_clip") or float("inf")
    monitor, mode = tcfg["monitor"], tcfg.get("monitor_mode", "max")
    patience = tcfg.get("patience", 0)
    best, best_ep, bad_epochs = None, 0, 0
    it = 0
    t_start = time.time()
    log.info("start training: %d epochs x %d it/epoch = %d its (bs=%d)", epochs, len(train_loader), total, tcfg["batch_size"])
    for ep in range(1, epochs + 1):
        model.train()
        acc = {}
        n_acc, correct, seen = 0, 0, 0
        d_sum = s_sum = 0.0
        warned_data = warned_small = False
        ep_t0 = time.time()
        t_prev = time.perf_counter()
        for xb, yb in train_loader:
            t0 = time.perf_counter()
            data_t = t0 - t_prev
            xb, yb = xb.to(device), yb.to(device)
            with torch.autocast(device.type, dtype=torch.float16, enabled=use_amp):
                out = model(xb)
                parts = compute_loss(out, yb, model, cfg)
                loss = sum(parts.values())
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip).item()
            scale_before = scaler.get_scale()
            scaler.step(opt)
            scaler.update()
            if use_amp and scaler.get_scale() < scale_before:
                log.warning("it %d: non-finite grads, optimizer step skipped (loss scale %.1f -> %.1f)",
                            it + 1, scale_before, scaler.get_scale())
            it += 1
            t_prev = time.perf_counter()
            step_t = t_prev - t0 + data_t

            for k, v in parts.items():
                acc[k] = acc.get(k, 0.0) + v.item()
            acc["_loss"] = acc.get("_loss", 0.0) + loss.item()
            n_acc += 1
            d_sum += data_t
            s_sum += step_t
            if out.dim() > 1 and out.shape[-1] > 1:
                correct += (out.argmax(-1) == yb).sum().item()
                seen += yb.numel()
            if gnorm < 1e-4 and not warned_small:
                log.warning("it %d: grad norm %.2e is tiny", it, gnorm)
                warned_small = True

            if it % log_every == 0:
                comp = ", ".join(f"{k}={fmt_num(v / n_acc)}" for k, v in acc.items() if k != "_loss")
                lr = opt.param_groups[0]["lr"]
                extra = f" scale={scaler.get_scale():.4g}" if use_amp else ""
                log.info("[ep %d | it %d/%d] loss=%.4f (%s) lr=%.1e gnorm=%.3g%s data_t=%.3fs step_t=%.3fs",
                         ep, it, total, acc["_loss"] / n_acc, comp, lr, gnorm, extra, d_sum / n_acc, s_sum / n_acc)
                if d_sum / s_sum > 0.5 and not warned_data:
                    log.warning("input pipeline: data_t is %.0f%% of step_t over the last %d its (num_workers=%d)",
                                100 * d_sum / s_sum, n_acc, cfg["data"].get("num_workers", 0))
                    warned_data = True
                if tcfg.get("log_layer_grads"):
                    log_layer_grads(model)
                acc = {}
                n_acc = 0
                d_sum = s_sum = 0.0
        if sched is not None:
            sched.step()

        metrics = evaluate(model, val_loader, device, cfg)
        if seen:
            metrics = {"train_acc": correct / seen, **metrics}
        if tcfg.get("log_act_stats"):
            log_act_stats(model, val_loader, device)
        cur = metrics[monitor]
        improved = best is None or (cur > best if mode == "max" else cur < best)
        if improved:
            best, best_ep, bad_epochs = cur, ep, 0
            if tcfg.get("save_ckpt", True):
                torch.save(model.state_dict(), os.path.join(os.path.dirname(log_file), "best.pt"))
        else:
            bad_epochs += 1
        body = " | ".join(f"{k} {v:.4f}" for k, v in metrics.items())
        log.info(">> VAL ep %03d | %s | best %s %.4f (ep %d) | %.2fs", ep, body, monitor, best, best_ep, time.time() - ep_t0)
        if patience and bad_epochs and bad_epochs % patience == 0:
            log.warning("%s has not improved for %d epochs (best %.4f at ep %d)", monitor, bad_epochs, best, best_ep)
    el = int(time.time() - t_start)
    log.info("done in %02d:%02d:%02d | best %s=%.4f at ep %d", el // 3600, el % 3600 // 60, el % 60, monitor, best, best_ep)


if __name__ == "__main__":
    main()
