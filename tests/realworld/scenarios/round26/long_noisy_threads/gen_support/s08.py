"""run08: config asks for SGD momentum 0.9 / nesterov, the user's build_optimizer drops both (momentum 0)."""
import random, datetime as dt
from common import *
from thread import GHIssue, code, details, when
import noise

CONFIG = """# configs/faults8_mlp3.yaml  (copied from the repo, paths changed)
seed: 0
data:
  path: data/faults8.npz
  num_classes: 8
model:
  hidden: 128
  depth: 3
optim:
  name: sgd
  lr: 0.05
  momentum: 0.9
  nesterov: true
  weight_decay: 5.0e-4
train:
  epochs: 15
  batch_size: 128
  log_every: 10
"""

TRAIN_PY = '''"""Minimal re-implementation of the training loop (the repo's hydra setup doesn't run on our cluster)."""
import sys, yaml
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def build_model(cfg, d_in):
    layers, last = [], d_in
    for _ in range(cfg["depth"]):
        layers += [nn.Linear(last, cfg["hidden"]), nn.ReLU()]
        last = cfg["hidden"]
    return nn.Sequential(*layers, nn.Linear(last, cfg["num_classes"]))


def build_optimizer(cfg, params):
    name = cfg["name"].lower()
    if name == "adamw":
        return torch.optim.AdamW(params, lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    if name == "sgd":
        return torch.optim.SGD(params, lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    raise ValueError(name)


def main(path):
    cfg = yaml.safe_load(open(path))
    torch.manual_seed(cfg["seed"])
    d = np.load(cfg["data"]["path"])
    Xtr, ytr = torch.tensor(d["X_train"]), torch.tensor(d["y_train"])
    Xva, yva = torch.tensor(d["X_val"]), torch.tensor(d["y_val"])
    dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=cfg["train"]["batch_size"], shuffle=True)
    model = build_model({**cfg["model"], "num_classes": cfg["data"]["num_classes"]}, Xtr.shape[1])
    opt = build_optimizer(cfg["optim"], model.parameters())
    print(f"config {path} | train {len(Xtr)} | val {len(Xva)} | optim {cfg['optim']['name']} lr {cfg['optim']['lr']}")
    step = 0
    for epoch in range(1, cfg["train"]["epochs"] + 1):
        model.train()
        run = 0.0
        for xb, yb in dl:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            step += 1
            run += loss.item()
            if step % cfg["train"]["log_every"] == 0:
                print(f"  step {step:4d}  loss {loss.item():.4f}")
        model.eval()
        with torch.no_grad():
            out = model(Xva)
        print(f"epoch {epoch:2d}/{cfg['train']['epochs']}  train_loss {run / len(dl):.4f}  "
              f"val_loss {F.cross_entropy(out, yva).item():.4f}  val_acc {(out.argmax(1) == yva).float().mean().item():.4f}")


if __name__ == "__main__":
    main(sys.argv[1])
'''


def run(X, y, Xv, yv, lr, momentum, nesterov, epochs=15, seed=0, header=None):
    torch.manual_seed(seed)
    m = mlp(X.shape[1], 128, 8, depth=3)
    opt = torch.optim.SGD(m.parameters(), lr=lr, momentum=momentum, nesterov=nesterov, weight_decay=5e-4)
    g = torch.Generator().manual_seed(seed)
    lines = [header] if header else []
    rows, step = [], 0
    for ep in range(1, epochs + 1):
        m.train()
        tot, nb = 0.0, 0
        for xb, yb in batches(X, y, 128, True, g):
            opt.zero_grad()
            loss = F.cross_entropy(m(xb), yb)
            loss.backward()
            opt.step()
            step += 1; tot += loss.item(); nb += 1
            if step % 10 == 0:
                lines.append(f"  step {step:4d}  loss {loss.item():.4f}")
        vl, va = evaluate(m, Xv, yv)
        rows.append((ep, tot / nb, vl, va))
        lines.append(f"epoch {ep:2d}/{epochs}  train_loss {tot / nb:.4f}  val_loss {vl:.4f}  val_acc {va:.4f}")
    return lines, rows


def build(out):
    r = random.Random(808)
    task = Mixture(16, 8, 111, blobs=3, sigma=0.85)
    X, y = task.sample(6000, 112); Xv, yv = task.sample(1500, 113)
    X, y, Xv, yv = map(torch.tensor, (X, y, Xv, yv))
    hdr = "config configs/faults8_mlp3.yaml | train 6000 | val 1500 | optim sgd lr {}"
    L, rows = run(X, y, Xv, yv, 0.05, 0.0, False, header=hdr.format(0.05))
    L2, rows2 = run(X, y, Xv, yv, 0.1, 0.0, False, header=hdr.format(0.1))
    _, rows_ref = run(X, y, Xv, yv, 0.05, 0.9, True, seed=1)
    write(f"{out}/train.py", TRAIN_PY)
    write(f"{out}/faults8_mlp3.yaml", CONFIG)
    write(f"{out}/train.log", "$ python train.py configs/faults8_mlp3.yaml\n" + "\n".join(L))

    ep_of = lambda rr, thr: next((e for e, a, b, c in rr if c >= thr), None)
    slow = round((ep_of(rows, 0.92) or 15) / 3)
    base = dt.datetime(2024, 9, 10, 17, 12)
    iss = GHIssue("tabrobust/robust-tabular", 58, f"Cannot reproduce convergence speed from Table 3 (faults8, MLP-3): needs ~{slow}x more epochs",
                  "nguyen-th", base, labels=["reproducibility"])
    ep_lines = [l for l in L if l.startswith("epoch")]
    iss.comment("nguyen-th", base, f"""Hi, thanks for releasing the code.

I'm trying to reproduce the MLP-3 curve on faults8 (Table 3 / Fig. 4). The paper reports >{int(rows_ref[2][3] * 100)}% val accuracy after 3 epochs; with the released config I only reach {rows[2][3] * 100:.1f}% at epoch 3 and need until epoch {ep_of(rows, 0.92) or '>15'} to pass 92%. The first two epochs are almost flat at ~2.0 loss:

{code(chr(10).join(ep_lines[:6]))}

Our cluster can't run the hydra launcher, so I wrote a minimal train.py that reads your yaml (attached, together with the config and the log). Data is your `faults8.npz` from the release page.

My guess is that lr=0.05 was tuned for a different batch size / number of GPUs and is too low for a single GPU with batch 128? Should I scale it?

📎 train.py 📎 faults8_mlp3.yaml 📎 train.log""")
    iss.comment("ilya-p", when(base, hours=2), "Linear scaling rule: if the paper used 4 GPUs x 128, the effective batch was 512, "
                "so for a single GPU you'd actually want lr / 4, not more. I'd try 0.0125.")
    iss.comment("nguyen-th", when(base, hours=3), "Hm, going lower seems wrong when it's already too slow. I tried the opposite, "
                "lr 0.1:\n\n" + code("\n".join(l for l in L2 if l.startswith("epoch"))) +
                f"\n\nBetter (92% at epoch {ep_of(rows2, 0.92)}), but still far from 3 epochs.")
    iss.comment("camille-r", when(base, hours=20), "The numbers in the paper were produced on 1x A100 with batch 128, "
                "exactly the config in the repo, no scaling. Can you check you have the right data version? "
                "There's a v1 and a v2 of faults8 on the release page.", role="Member")
    iss.comment("nguyen-th", when(base, days=1, hours=2), "It's v2 (sha256 matches the release notes). 6000 train / 1500 val.")
    iss.comment("oleg-smirnov", when(base, days=1, hours=5), "Following. Data point from my side: with the repo's own hydra `train.py` on 2x V100 I get "
                "the fast curve, this is what I see with `seed=1`:\n\n" +
                code("\n".join(f"epoch {e:2d}/15  train_loss {a:.4f}  val_loss {b:.4f}  val_acc {c:.4f}" for e, a, b, c in rows_ref[:6])) +
                "\n\nSo I'm not sure it's the same problem, but maybe hardware/determinism related?")
    iss.comment("ilya-p", when(base, days=1, hours=7), "Different GPUs give different numerics, but not a 4x slowdown. "
                "Could be the init: the repo uses `trunc_normal_(std=0.02)` for Linear layers I think, you use the torch default.")
    iss.comment("camille-r", when(base, days=2), "No, we use default init as well. Please post `collect_env`, and compare "
                "your train.py with `src/trainer.py` in the repo, maybe something differs in the loop.", role="Member")
    iss.comment("nguyen-th", when(base, days=2, hours=3), details("collect_env", code(noise.collect_env(r))) +
                "\n\nThe loop is the standard one (zero_grad / backward / step, no AMP, no clipping, no scheduler since the "
                "config has none). I don't see a difference that should matter.")
    iss.comment("oleg-smirnov", when(base, days=2, hours=6), "fwiw my env (the one that's fast):\n\n" + details("pip freeze", code(noise.pip_freeze(r))))
    iss.comment("p-achterberg", when(base, days=3), "Have you tried AdamW? Tabular MLPs usually train much faster with it than with SGD.")
    iss.comment("nguyen-th", when(base, days=3, hours=4), "I want to match the paper setup, so I'd prefer to stay on SGD. If the "
                "answer is simply 'lr 0.1 + more epochs' that's fine, but then the figure in the paper is misleading.")
    write(f"{out}/thread.md", iss.render())
    return {"truth": "optimizer_misconfigured",
            "symptom": f"With the released config my MLP needs ~{slow}x more epochs than the paper to converge, and the loss is "
                       "almost flat for the first two epochs.",
            "how": f"The yaml asks for SGD with momentum 0.9 and nesterov, but the user's build_optimizer passes only lr and "
                   f"weight_decay, so SGD runs with momentum 0: val acc {rows[2][3]:.3f} at epoch 3 (vs {rows_ref[2][3]:.3f} with "
                   f"momentum in another user's run of the original code); doubling lr only partly compensates."}
