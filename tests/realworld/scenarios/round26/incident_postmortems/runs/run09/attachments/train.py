# doctype/train.py  (ported to the hydra-style config system, PR #233)
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
