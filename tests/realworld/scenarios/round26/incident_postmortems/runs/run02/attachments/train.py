"""Weekly retrain of the merchant-category classifier (tabular embeddings -> 10 categories)."""
import argparse, json, math, time
import numpy as np
import torch
import torch.nn as nn
import yaml

from mcc.data import load_split          # returns float32 features [N, 16], int64 labels [N]
from mcc.logging import get_logger

log = get_logger("train")


def build_model(cfg):
    h = cfg["model"]["hidden"]
    return nn.Sequential(
        nn.Linear(16, h), nn.ReLU(),
        nn.Linear(h, h), nn.ReLU(),
        nn.Linear(h, 10),
    )


def lr_lambda_factory(warmup_steps, total_steps):
    def f(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        progress = (step - warmup_steps) / max(1, total_steps - warmup_steps)
        return 0.5 * (1.0 + math.cos(math.pi * progress))
    return f


@torch.no_grad()
def evaluate(model, X, Y):
    model.eval()
    out = model(X)
    loss = nn.functional.cross_entropy(out, Y).item()
    acc = (out.argmax(1) == Y).float().mean().item()
    model.train()
    return loss, acc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/weekly.yaml")
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["seed"])

    Xtr, Ytr = load_split("train", cfg["data"]["snapshot"])
    Xva, Yva = load_split("val", cfg["data"]["snapshot"])
    model = build_model(cfg)

    bs, epochs = cfg["train"]["batch_size"], cfg["train"]["epochs"]
    steps_per_epoch = math.ceil(len(Xtr) / bs)
    total = epochs * steps_per_epoch
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["train"]["lr"],
                            weight_decay=cfg["train"]["weight_decay"])
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lr_lambda_factory(cfg["train"]["warmup_epochs"] * steps_per_epoch, total))
    loss_fn = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(cfg["seed"])

    for epoch in range(1, epochs + 1):
        perm = torch.randperm(len(Xtr), generator=g)
        losses, gnorms = [], []
        for i in range(0, len(Xtr), bs):
            idx = perm[i:i + bs]
            loss = loss_fn(model(Xtr[idx]), Ytr[idx])
            opt.zero_grad()
            loss.backward()
            gnorms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item())
            opt.step()
            sched.step()
            losses.append(loss.item())
        vl, va = evaluate(model, Xva, Yva)
        log.info(f"epoch {epoch:2d}/{epochs} train_loss={np.mean(losses):.4f} val_loss={vl:.4f} "
                 f"val_acc={va:.4f} grad_norm={np.mean(gnorms):.3f} lr={sched.get_last_lr()[0]:.2e}")

    torch.save(model.state_dict(), cfg["out"])
    json.dump({"val_loss": vl, "val_acc": va}, open(cfg["out"] + ".metrics.json", "w"))


if __name__ == "__main__":
    main()
