import argparse, math, os, logging
import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

log = logging.getLogger("train")


class Net(nn.Module):
    def __init__(self, in_dim, hidden, n_cls, dropout):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout),
        )
        self.head = nn.Linear(hidden, n_cls)

    def forward(self, x):
        return self.head(self.body(x))


def warmup_cosine(warmup, total):
    def f(step):
        if step < warmup:
            return (step + 1) / warmup
        t = (step - warmup) / max(1, total - warmup)
        return 0.5 * (1 + math.cos(math.pi * t))
    return f


@torch.no_grad()
def evaluate(model, loader, crit):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    for x, y in loader:
        out = model(x)
        tot += crit(out, y).item() * len(y)
        correct += (out.argmax(1) == y).sum().item()
        n += len(y)
    model.train()
    return tot / n, correct / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("--resume", default=None)
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    tc = cfg["train"]
    torch.manual_seed(tc["seed"])

    d = np.load(cfg["data"])
    tr = TensorDataset(torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"]))
    va = TensorDataset(torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"]))
    train_loader = DataLoader(tr, batch_size=tc["batch_size"], shuffle=True)
    val_loader = DataLoader(va, batch_size=512)

    log.info(f"train: {len(tr)} samples, val: {len(va)} samples, steps/epoch: {len(train_loader)}")
    model = Net(d["x_train"].shape[1], cfg["model"]["hidden"], cfg["num_classes"], cfg["model"]["dropout"])
    log.info(f"model params: {sum(p.numel() for p in model.parameters()):,}")
    optimizer = torch.optim.AdamW(model.parameters(), lr=tc["lr"], weight_decay=tc["weight_decay"])
    steps_per_epoch = len(train_loader)
    total = tc["epochs"] * steps_per_epoch
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, warmup_cosine(tc["warmup_epochs"] * steps_per_epoch, total))
    crit = nn.CrossEntropyLoss()

    start_epoch = 1
    if args.resume:
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        start_epoch = ckpt["epoch"] + 1
        log.info(f"=> resumed from {args.resume} (epoch {ckpt['epoch']})")

    os.makedirs(cfg["ckpt_dir"], exist_ok=True)
    for epoch in range(start_epoch, tc["epochs"] + 1):
        run_loss = 0.0
        for i, (x, y) in enumerate(train_loader, 1):
            loss = crit(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            run_loss += loss.item()
            if i % 10 == 0:
                step = (epoch - 1) * steps_per_epoch + i
                log.info(f"epoch {epoch}/{tc['epochs']} step {step}/{total} "
                         f"loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.2e}")
        vl, vacc = evaluate(model, val_loader, crit)
        log.info(f"epoch {epoch} | train_loss {run_loss / steps_per_epoch:.4f} | "
                 f"val_loss {vl:.4f} | val_acc {vacc:.4f}")
        torch.save({"model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(),
                    "epoch": epoch}, os.path.join(cfg["ckpt_dir"], "last.pt"))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO,
                        format="[%(asctime)s][%(name)s][%(levelname)s] - %(message)s")
    main()
