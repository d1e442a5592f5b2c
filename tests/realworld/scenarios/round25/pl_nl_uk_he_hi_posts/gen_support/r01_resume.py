"""run01: Polish forum.pytorch post; resume restores weights only."""
import math, time, copy
import numpy as np, torch, torch.nn as nn
from .common import *

RUN = "run01"

TRAIN_PY = dedent('''
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
''')

CONFIG = dedent('''
data: /scratch/kwozniak/har/har_feats_v3.npz
num_classes: 10
ckpt_dir: checkpoints/har_mlp
model:
  hidden: 128
  dropout: 0.3
train:
  seed: 42
  epochs: 24
  batch_size: 64
  lr: 0.01
  weight_decay: 0.05
  warmup_epochs: 2
''')


class Net(nn.Module):
    def __init__(self, in_dim, hidden, n_cls, dropout):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout))
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


def gen():
    rng = seed_all(101)
    d, k = 40, 10
    Xtr, ytr, cents = make_clf(rng, 4800, d, k, sep=0.6, sub=3, noise=1.0)
    Xva, yva = sample_from(rng, cents, 1000)
    mu, sd = Xtr.mean(0), Xtr.std(0)
    Xtr = torch.from_numpy((Xtr - mu) / sd); Xva = torch.from_numpy((Xva - mu) / sd)
    ytr = torch.from_numpy(ytr); yva = torch.from_numpy(yva)
    E, BS, LR, WD, WU = 24, 64, 0.01, 0.05, 2
    spe = math.ceil(len(Xtr) / BS)
    total = E * spe
    crit = nn.CrossEntropyLoss()
    lines = []
    clock = Clock("2024-03-11 20:41:07")

    def ts(dt):
        clock.tick(dt)
        return clock.t.strftime("%Y-%m-%d %H:%M:%S,") + f"{int(clock.t.microsecond/1000):03d}"

    def L(msg, dt=0.0, name="train"):
        lines.append(f"[{ts(dt)}][{name}][INFO] - {msg}")

    def run_phase(model, opt, sched, start_epoch, stop_after=None, gen_seed=42):
        g = torch.Generator().manual_seed(gen_seed)
        for epoch in range(start_epoch, E + 1):
            perm = torch.randperm(len(Xtr), generator=g)
            run_loss = 0.0
            t_prev = time.perf_counter()
            for i in range(1, spe + 1):
                b = perm[(i - 1) * BS: i * BS]
                loss = crit(model(Xtr[b]), ytr[b])
                opt.zero_grad(); loss.backward(); opt.step(); sched.step()
                run_loss += loss.item()
                if i % 10 == 0:
                    now = time.perf_counter(); dt = (now - t_prev); t_prev = now
                    step = (epoch - 1) * spe + i
                    L(f"epoch {epoch}/{E} step {step}/{total} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.2e}", dt)
                if stop_after and epoch == stop_after[0] and i == stop_after[1]:
                    return epoch
            model.eval()
            vl, vacc = evaluate(model, Xva, yva)
            model.train()
            L(f"epoch {epoch} | train_loss {run_loss / spe:.4f} | val_loss {vl:.4f} | val_acc {vacc:.4f}", 0.4)
            hist[epoch] = dict(tl=run_loss / spe, vl=vl, va=vacc, lr=sched.get_last_lr()[0])
            ckpt[epoch] = {"model": copy.deepcopy(model.state_dict()), "epoch": epoch}
        return E

    hist, ckpt = {}, {}
    # ---- job 1 ----
    torch.manual_seed(42)
    model = Net(d, 128, k, 0.3)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WD)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, warmup_cosine(WU * spe, total))
    lines.append("+ python train.py --config configs/har_mlp.yaml")
    L(f"train: {len(Xtr)} samples, val: {len(Xva)} samples, steps/epoch: {spe}", 2.1)
    L(f"model params: {sum(p.numel() for p in model.parameters()):,}", 0.1)
    run_phase(model, opt, sched, 1, stop_after=(18, 40))
    lines.append(f"slurmstepd: error: *** JOB 4471823 ON cn-042 CANCELLED AT {clock.tick(1.3).replace(' ', 'T')} DUE TO PREEMPTION ***")
    lines.append("")
    lines.append("==== requeued: job 4471823 (restart 1) ====")
    clock.tick(17 * 60 + 12)
    lines.append("+ python train.py --config configs/har_mlp.yaml --resume checkpoints/har_mlp/last.pt")
    # ---- job 2: resume with weights only ----
    torch.manual_seed(42)
    model2 = Net(d, 128, k, 0.3)
    opt2 = torch.optim.AdamW(model2.parameters(), lr=LR, weight_decay=WD)
    sched2 = torch.optim.lr_scheduler.LambdaLR(opt2, warmup_cosine(WU * spe, total))
    L(f"train: {len(Xtr)} samples, val: {len(Xva)} samples, steps/epoch: {spe}", 2.4)
    L(f"model params: {sum(p.numel() for p in model2.parameters()):,}", 0.1)
    model2.load_state_dict(ckpt[17]["model"])
    L("=> resumed from checkpoints/har_mlp/last.pt (epoch 17)", 0.2)
    run_phase(model2, opt2, sched2, 18)
    write(RUN, "train.log", "\n".join(lines))
    write(RUN, "train.py", TRAIN_PY)
    write(RUN, "config.yaml", CONFIG)

    h13, h14, h16, h30 = hist[17], hist[18], hist[20], hist[24]
    best = max(h["va"] for e, h in hist.items() if e <= 17)
    tail = (f", a na koniec 24 epok val_acc wyszło {comma(h30['va'], 3)}, czyli gorzej niż przed przerwaniem "
            f"(najlepsze było {comma(best, 3)})." if h30['va'] < best else
            f". Potem co prawda wraca (val_acc {comma(h30['va'], 3)} na koniec), ale nie rozumiem skąd ten skok.")
    assert h16['tl'] > 1.25 * h13['tl'], (h13, h16)
    post = dedent(f'''
    # Loss skacze po wznowieniu treningu z checkpointu (--resume)

    **discuss.pytorch.org** › General  ·  kacper.wozniak  ·  mar 12

    Cześć,

    trenuję prosty MLP na cechach z akcelerometru (10 klas, ~5k próbek) na klastrze uczelnianym.
    Job został wywłaszczony w 18. epoce, SLURM go wznowił i skrypt wystartował z `--resume`
    z ostatniego checkpointu (epoka 17). Do 17. epoki wszystko wyglądało ładnie: train_loss
    {comma(h13['tl'], 3)}, val_acc {comma(h13['va'], 3)}. Po wznowieniu strata zamiast dalej spadać
    wyraźnie skoczyła w górę (epoka 20: train_loss {comma(h16['tl'], 3)}, val_loss {comma(h16['vl'], 3)}
    vs {comma(h13['vl'], 3)} w epoce 17){tail}

    Podejrzewam, że po restarcie DataLoader podaje dane w innej kolejności niż przed przerwaniem
    (seed ustawiam tylko raz na początku) i model dostaje "nowe" batche, do których nie był przyzwyczajony.
    Czy trzeba jakoś zapisywać stan samplera / generatora? Jak to się robi poprawnie?

    W załącznikach: `train.py`, `config.yaml` i pełny log z obu jobów (`train.log`).

    PyTorch 2.2.1, CPU partition, Python 3.11.
    ''')
    write(RUN, "post.md", post)
    symptom = ("Po wznowieniu treningu z checkpointu loss skacze w górę i val_acc kończy gorzej niż przed przerwaniem; "
               "podejrzewam, że DataLoader po restarcie podaje dane w innej kolejności (seed).")
    how = ("The --resume branch restores only model weights and the epoch counter, not the optimizer or LambdaLR "
           "scheduler saved in the checkpoint: after the resume the lr restarts warm-up from ~1e-4 and climbs back to the peak 1e-2 "
           f"(it was {h13['lr']:.2e} at epoch 17) with fresh AdamW moments, so train loss jumps at epochs 18-20 and final val_acc is worse.")
    return dict(truth="resume_mismatch", symptom=symptom, how=how)
