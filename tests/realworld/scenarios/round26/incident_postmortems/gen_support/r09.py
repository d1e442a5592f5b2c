"""run09: document-type classifier plateaus after the trainer port to the new config system."""
from common import *

RUN = "run09"

TRAIN_PY = '''# doctype/train.py  (ported to the hydra-style config system, PR #233)
import logging
import hydra
import torch
import torch.nn as nn
from omegaconf import DictConfig

from doctype.data import get_loaders
from doctype.models import build_model

log = logging.getLogger(__name__)


def build_optimizer(cfg, params):
    if cfg.optim.name == "sgd":
        return torch.optim.SGD(params, lr=cfg.optim.lr, momentum=cfg.optim.momentum,
                               weight_decay=cfg.optim.weight_decay)
    if cfg.optim.name == "adamw":
        return torch.optim.AdamW(params, lr=cfg.optim.lr, weight_decay=cfg.optim.weight_decay)
    raise ValueError(cfg.optim.name)


def build_scheduler(cfg, opt, steps_per_epoch):
    s = cfg.sched
    if s.name == "step":
        return torch.optim.lr_scheduler.StepLR(opt, step_size=s.step_size, gamma=s.gamma)
    if s.name == "onecycle":
        return torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.optim.lr,
                                                   total_steps=cfg.trainer.epochs * steps_per_epoch)
    raise ValueError(s.name)


class Trainer:
    def __init__(self, cfg, model, train_loader, val_loader):
        self.cfg, self.model = cfg, model
        self.train_loader, self.val_loader = train_loader, val_loader
        self.opt = build_optimizer(cfg, model.parameters())
        self.sched = build_scheduler(cfg, self.opt, len(train_loader))
        self.loss_fn = nn.CrossEntropyLoss()

    def train_step(self, x, y):
        loss = self.loss_fn(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.sched.step()
        return loss.item()

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        correct = total = 0
        for x, y in self.val_loader:
            correct += (self.model(x).argmax(1) == y).sum().item()
            total += len(y)
        self.model.train()
        return correct / total

    def fit(self):
        for epoch in range(1, self.cfg.trainer.epochs + 1):
            losses = [self.train_step(x, y) for x, y in self.train_loader]
            acc = self.validate()
            log.info(f"epoch {epoch:03d} | train_loss {sum(losses) / len(losses):.4f} | val_acc {acc:.4f} "
                     f"| lr {self.sched.get_last_lr()[0]:.3e}")


@hydra.main(config_path="conf", config_name="doctype", version_base=None)
def main(cfg: DictConfig):
    torch.manual_seed(cfg.seed)
    train_loader, val_loader = get_loaders(cfg.data)
    Trainer(cfg, build_model(cfg.model), train_loader, val_loader).fit()


if __name__ == "__main__":
    main()
'''

CFG = """# conf/doctype.yaml
seed: 3
data:
  train: /data/doctype/v5/train   # 6016 docs, 24-d layout features
  val: /data/doctype/v5/val       # 1500 docs
  batch_size: 128
model:
  name: mlp
  hidden: 128
  num_classes: 10
optim:
  name: sgd
  lr: 0.1
  momentum: 0.9
  weight_decay: 5.0e-4
sched:
  name: step
  step_size: 10     # halve every 10 epochs
  gamma: 0.5
trainer:
  epochs: 30
"""


def fit(X, Y, Xv, Yv, per_batch, lines=None, clock=None):
    torch.manual_seed(3)
    model = mlp(24, 10, 128)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    lf = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(3)
    rows = []
    for ep in range(1, 31):
        losses = []
        for b in batches(len(X), 128, g):
            loss = lf(model(X[b]), Y[b])
            opt.zero_grad(); loss.backward(); opt.step()
            if per_batch:
                sched.step()
            losses.append(loss.item())
        if not per_batch:
            sched.step()
        _, acc = evaluate(model, Xv, Yv)
        lr = sched.get_last_lr()[0]
        rows.append((ep, float(np.mean(losses)), acc, lr))
        if lines is not None:
            lines.append(f"[{clock.now()}][doctype.train][INFO] - epoch {ep:03d} | train_loss {np.mean(losses):.4f} "
                         f"| val_acc {acc:.4f} | lr {lr:.3e}")
    return rows


def build():
    rng = np.random.default_rng(909)
    T = Teacher(rng, 24, 10, hidden=10)
    X, Y = T.sample(rng, 6016)
    Xv, Yv = T.sample(rng, 1500)
    X, Y, Xv, Yv = map(torch.tensor, (X, Y, Xv, Yv))
    old = fit(X, Y, Xv, Yv, per_batch=False)
    clock = Clock("2024-02-27 11:02:19", scale=60)
    lines = [f"[{clock.now()}][__main__][INFO] - config: optim=sgd lr=0.1 sched=step(step_size=10, gamma=0.5) epochs=30 bs=128",
             f"[{clock.now()}][doctype.data][INFO] - train=6016 val=1500 (47 batches/epoch)"]
    new = fit(X, Y, Xv, Yv, per_batch=True, lines=lines, clock=clock)
    write(RUN, "attachments/outputs/2024-02-27/11-02-19/train.log", "\n".join(lines))
    write(RUN, "attachments/train.py", TRAIN_PY)
    write(RUN, "attachments/conf/doctype.yaml", CFG)

    tab = md_table(["epoch", "train_loss (new trainer)", "val_acc (new trainer)", "train_loss (old trainer)", "val_acc (old trainer)"],
                   [(n[0], f"{n[1]:.4f}", f"{n[2]:.4f}", f"{o[1]:.4f}", f"{o[2]:.4f}") for n, o in zip(new, old)
                    if n[0] in (1, 2, 3, 4, 5, 7, 10, 12, 15, 20, 25, 30)])
    doc = f"""# Postmortem: doctype classifier regression after trainer port (PR #233)

> Confluence export · Space: DOCAI · Labels: `postmortem` `training` `regression`

**Status:** Open  **Owner:** M. Tanaka  **Date:** 2024-02-28
**Root cause:** TBD (suspects: the new data loader from PR #233, or weight decay now applied via the new config)

## Summary
The document-type classifier was retrained with the trainer ported to the new hydra config system (PR #233).
With what we believe is the same recipe (SGD lr 0.1, momentum 0.9, StepLR halving every 10 epochs, 30 epochs) the
model stops improving after the first couple of epochs and ends at **{new[-1][2]*100:.1f} %** val accuracy instead of
**{old[-1][2]*100:.1f} %** with the old trainer on the same v5 data.

## Impact
Release of doctype v5 blocked; the PR #233 port is also used by two other teams (not yet retrained).

## Timeline
| Date | Event |
|---|---|
| 2024-02-26 | PR #233 merged (trainer ported to hydra configs, OneCycle support added). |
| 2024-02-27 11:02 | First retrain with the new trainer. |
| 2024-02-27 15:30 | Noticed val_acc flat at ~{new[-1][2]:.2f} from epoch 3 on. |
| 2024-02-28 09:00 | Reran the old trainer (tag `v4-trainer`) on v5 data: {old[-1][2]:.4f}. |

## Graphs
{tab}

## What we tried
- Old trainer on the same data: fine (table). So data v5 itself is OK.
- Compared the config values printed at start-up with the old argparse defaults: lr, momentum, weight decay,
  batch size, step size and gamma all match.
- Looked at the new data loader (`get_loaders`) for shuffling differences: it shuffles, same as before.

## Next steps / action items
- [ ] Bisect PR #233 (it is large: 41 files) — @m.tanaka
- [ ] Run new trainer with `optim.weight_decay=0` to test the weight-decay theory — @j.ruiz
- [ ] Hold the other two teams' retrains until resolved — @docai-lead

## Attachments
`attachments/train.py` (new trainer), `attachments/conf/doctype.yaml`,
`attachments/outputs/2024-02-27/11-02-19/train.log`
"""
    write(RUN, "postmortem-doctype-trainer-port.md", doc)
    return {"truth": "lr_schedule_bug",
            "symptom": f"After porting our trainer to the new config system, accuracy plateaus around {new[-1][2]*100:.0f}% after the second epoch instead of the ~{old[-1][2]*100:.0f}% we used to get.",
            "how": f"Trainer.train_step calls the StepLR scheduler after every batch, so step_size=10 (meant as epochs) halves the lr every 10 batches: the log shows lr {new[0][3]:.1e} after epoch 1 and ~0 afterwards, and val_acc freezes at {new[-1][2]:.3f} (old per-epoch stepping: {old[-1][2]:.3f})."}
