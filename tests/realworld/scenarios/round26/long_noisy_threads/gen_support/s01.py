"""run01: StepLR meant per epoch but stepped every batch."""
import random, datetime as dt
from common import *
from thread import GHIssue, code, details, when
import noise

TRAIN_PY = '''import argparse, logging, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(format="%(asctime)s %(levelname)s %(message)s", level=logging.INFO)
log = logging.getLogger("train")

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/sensors_v3.npz")
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--bs", type=int, default=128)
p.add_argument("--lr", type=float, default=0.1)
p.add_argument("--hidden", type=int, default=64)
p.add_argument("--opt", default="sgd")
p.add_argument("--step_size", type=int, default=10)   # halve the lr every 10 epochs
p.add_argument("--gamma", type=float, default=0.5)
p.add_argument("--seed", type=int, default=0)
args = p.parse_args()
torch.manual_seed(args.seed)

d = np.load(args.data)
Xtr, ytr = torch.tensor(d["X_train"]), torch.tensor(d["y_train"])
Xva, yva = torch.tensor(d["X_val"]), torch.tensor(d["y_val"])
train_dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=args.bs, shuffle=True)

model = nn.Sequential(
    nn.Linear(Xtr.shape[1], args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, args.hidden), nn.ReLU(),
    nn.Linear(args.hidden, int(ytr.max()) + 1),
)
if args.opt == "sgd":
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
else:
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=args.step_size, gamma=args.gamma)
log.info("args: %s", vars(args))
log.info("train=%d val=%d classes=%d params=%d", len(Xtr), len(Xva), int(ytr.max()) + 1,
         sum(p.numel() for p in model.parameters()))

for epoch in range(args.epochs):
    model.train()
    tot, n = 0.0, 0
    for step, (xb, yb) in enumerate(train_dl, 1):
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        sched.step()
        tot += loss.item(); n += 1
        if step % 10 == 0:
            log.info("epoch %d step %d/%d loss %.4f", epoch + 1, step, len(train_dl), loss.item())
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    log.info("== epoch %d/%d train_loss %.4f val_loss %.4f val_acc %.4f lr %.3e",
             epoch + 1, args.epochs, tot / n, vl, va, sched.get_last_lr()[0])
torch.save(model.state_dict(), "mlp_last.pt")
'''


def train(X, y, Xv, yv, hidden, lr, opt_name, epochs, bs, seed, clock, lines, n_show=None):
    torch.manual_seed(seed)
    k = int(y.max()) + 1
    model = nn.Sequential(nn.Linear(X.shape[1], hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                          nn.Linear(hidden, k))
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9) if opt_name == "sgd" else \
        torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    g = torch.Generator().manual_seed(seed)
    nb = (len(X) + bs - 1) // bs
    lg = lambda m: lines.append(f"{clock.stamp('%Y-%m-%d %H:%M:%S')},{clock.t.microsecond // 1000:03d} INFO {m}")
    lg(f"args: {{'data': 'data/sensors_v3.npz', 'epochs': {epochs}, 'bs': {bs}, 'lr': {lr}, 'hidden': {hidden}, "
       f"'opt': '{opt_name}', 'step_size': 10, 'gamma': 0.5, 'seed': {seed}}}")
    lg(f"train={len(X)} val={len(Xv)} classes={k} params={sum(p.numel() for p in model.parameters())}")
    ep_rows = []
    for ep in range(epochs):
        model.train()
        tot, n = 0.0, 0
        for step, (xb, yb) in enumerate(batches(X, y, bs, True, g), 1):
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item(); n += 1
            clock.advance(0.019)
            if step % 10 == 0:
                lg(f"epoch {ep + 1} step {step}/{nb} loss {loss.item():.4f}")
        vl, va = evaluate(model, Xv, yv)
        clock.advance(0.35)
        row = (ep + 1, tot / n, vl, va, sched.get_last_lr()[0])
        ep_rows.append(row)
        lg(f"== epoch {ep + 1}/{epochs} train_loss {row[1]:.4f} val_loss {vl:.4f} val_acc {va:.4f} lr {row[4]:.3e}")
    return ep_rows


def build(out):
    r = random.Random(101)
    task = Mixture(16, 10, 11, sigma=0.8)
    X, y = task.sample(4000, 12); Xv, yv = task.sample(1000, 13)
    X, y, Xv, yv = map(torch.tensor, (X, y, Xv, yv))
    t0 = dt.datetime(2024, 4, 9, 14, 2, 7)
    main_lines = []
    rows = train(X, y, Xv, yv, 64, 0.1, "sgd", 30, 128, 0, Clock(t0, 0.0), main_lines)
    adam_lines = []
    rows_adam = train(X, y, Xv, yv, 64, 1e-3, "adam", 8, 128, 0, Clock(t0 + dt.timedelta(days=1, hours=3), 0.0), adam_lines)
    # a second user with their own data (different task), wider model, same script
    task2 = Mixture(24, 6, 21, sigma=1.0)
    X2, y2 = task2.sample(6000, 22); Xv2, yv2 = task2.sample(1500, 23)
    X2, y2, Xv2, yv2 = map(torch.tensor, (X2, y2, Xv2, yv2))
    other_lines = []
    rows_other = train(X2, y2, Xv2, yv2, 256, 0.05, "sgd", 12, 128, 3, Clock(t0 + dt.timedelta(days=2, hours=7), 0.0), other_lines)

    write(f"{out}/train.py", TRAIN_PY)
    write(f"{out}/train.log", "\n".join(main_lines))

    base = dt.datetime(2024, 4, 9, 15, 40)
    iss = GHIssue("ml-starter/tabular-baselines", 412,
                  f"Training stalls after ~2 epochs, val acc stuck at {rows[-1][3]*100:.1f}% — model too small?", "mkovacs-ml", base,
                  labels=["question", "needs-triage"])
    excerpt = "\n".join(f"epoch {e:2d}  train_loss {tl:.4f}  val_loss {vl:.4f}  val_acc {va:.4f}"
                        for e, tl, vl, va, _ in [rows[i] for i in (0, 1, 2, 3, 5, 9, 14, 19, 29)])
    iss.comment("mkovacs-ml", base, noise.TEMPLATE_BUG.format(
        desc="I'm using the MLP baseline from this repo (slightly adapted `train.py`) on our sensor dataset "
             "(16 features, 10 classes, 4k train / 1k val). The loss drops during the first epoch or two and then "
             "just... stops. Val accuracy sits at exactly the same value for the rest of the 30 epochs. "
             "A gradient-boosting baseline does much better on the same split, so the data is learnable.\n\n"
             "My guess is the 2x64 MLP is simply too small for this data? Before I start scaling things up: "
             "is there a recommended width/depth for ~16 input features?",
        repro="```\npython train.py --data data/sensors_v3.npz --epochs 30 --lr 0.1 --hidden 64\n```\n\n"
              "Per-epoch numbers (copied from the log):\n\n" + code(excerpt),
        expected="Val acc keeps improving for at least 10-15 epochs, like on the README example.",
        env=details("collect_env", code(noise.collect_env(r, torch_v="2.3.1", gpu_name="L4")))))
    iss.comment("d-okafor", when(base, hours=5), noise.PLUS_ONE[0] + ". Our data is totally different (24 features, 6 classes) and I "
                "already use hidden=256, still a wall after epoch 2:\n\n" + code("\n".join(
                    f"[ep {e:2d}] loss={tl:.4f} val_loss={vl:.4f} val_acc={va:.4f}" for e, tl, vl, va, _ in rows_other)) +
                "\n\nSo I don't think it's model size.")
    iss.comment("lenaschmidt", when(base, hours=9), "SGD on small MLPs is notoriously finicky. Just switch to Adam with "
                "lr=1e-3, that's what everyone uses for tabular stuff.", reactions=["👍 2"])
    iss.comment("mkovacs-ml", when(base, days=1, hours=4),
                "Tried `--opt adam --lr 1e-3`, it's actually worse, stalls even earlier:\n\n" +
                code("\n".join(l.split(" INFO ")[1].split(" lr ")[0] for l in adam_lines if "== epoch" in l)) +
                "\n\n(cut it after 8 epochs since it was going nowhere)")
    iss.comment("j-vdberg", when(base, days=1, hours=6), "Are your features standardized? Unscaled inputs are the #1 "
                "reason an MLP stalls like this. Try `StandardScaler` before anything else.")
    mu = X.mean(0).numpy(); sd = X.std(0).numpy()
    stats = "\n".join(f"f{i:02d}  mean {mu[i]:+.3f}  std {sd[i]:.3f}" for i in range(16))
    iss.comment("mkovacs-ml", when(base, days=1, hours=7), "They're already scaled upstream, per-feature stats of X_train:\n\n"
                + code(stats))
    iss.comment("tkachenko-a", when(base, days=2, hours=1), "Might be unrelated but I had a similar stall and it went away "
                "after I upgraded torch, there was a bug with SGD momentum on some versions. What torch are you on? "
                "Here's mine where it works:\n\n" + details("pip freeze", code(noise.pip_freeze(r))))
    iss.comment("rsandoval", when(base, days=2, hours=3), "maintainer here — could you attach the exact script you run "
                "(you said it's adapted) and the full log, not only the epoch summaries? Also your torch version.",
                role="Maintainer")
    iss.comment("mkovacs-ml", when(base, days=2, hours=6), "Sure, attached `train.py` (only changed the data loading and "
                "added a couple of CLI flags) and the full `train.log` of the 30-epoch run from the first post. "
                "torch 2.3.1+cu121, same on my laptop with CPU torch.\n\n📎 train.py\n📎 train.log")
    iss.comment("d-okafor", when(base, days=3, hours=2), "For me it's on a 4090, here's nvidia-smi in case it matters:\n\n"
                + code(noise.nvidia_smi(r, gpu_name="4090", when=dt.datetime(2024, 4, 12, 9, 14, 2))))
    iss.comment("lenaschmidt", when(base, days=3, hours=5), "FWIW you could also try adding BatchNorm between the layers, "
                "it usually unsticks these plateaus.")
    iss.event("**rsandoval** added the `needs-repro` label", when(base, days=4))
    iss.comment("github-actions[bot]", when(base, days=34), noise.STALE)
    iss.comment("mkovacs-ml", when(base, days=35), "Still happening on my side. Not stale.")
    write(f"{out}/thread.md", iss.render())
    best = max(r_[3] for r_ in rows)
    return {"truth": "lr_schedule_bug",
            "symptom": f"Loss drops for the first epoch or two and then val accuracy freezes at {rows[-1][3]*100:.1f}% for the rest of "
                       "training; is my 2x64 MLP just too small for this data?",
            "how": f"train.py calls StepLR(step_size=10, gamma=0.5).step() inside the batch loop (32 batches/epoch), so "
                   f"the lr that should halve every 10 epochs halves every 10 steps; train.log's lr column reaches "
                   f"{rows[2][4]:.1e} by epoch 3 and val_loss/val_acc ({best:.3f}) stop changing."}
