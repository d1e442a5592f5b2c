"""run01 .. run06"""
import os
import numpy as np
import torch
from .common import (make_blobs, split, run_script, fake_module, clean_tb, chat_md, chat_txt,
                     chat_json, write, fence, StopRun)


# =====================================================================================  run01
RUN01_TRAIN = '''import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from data import load_features

CFG = {
    "epochs": 15,
    "batch_size": 64,
    "lr": 3e-3,
    "step_size": 5,      # decay every 5
    "gamma": 0.1,
    "hidden": 128,
}


def evaluate(model, loader, crit):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            out = model(xb)
            tot += crit(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    return tot / n, correct / n


def main():
    torch.manual_seed(0)
    Xtr, ytr, Xva, yva = load_features()
    train_loader = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)),
                              batch_size=CFG["batch_size"], shuffle=True)
    val_loader = DataLoader(TensorDataset(torch.from_numpy(Xva), torch.from_numpy(yva)), batch_size=256)

    h = CFG["hidden"]
    model = nn.Sequential(nn.Linear(Xtr.shape[1], h), nn.ReLU(),
                          nn.Linear(h, h), nn.ReLU(),
                          nn.Linear(h, int(ytr.max()) + 1))
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=CFG["step_size"], gamma=CFG["gamma"])

    print(f"train={len(ytr)} val={len(yva)} classes={int(ytr.max()) + 1} params={sum(p.numel() for p in model.parameters())}")
    for epoch in range(CFG["epochs"]):
        model.train()
        run, n = 0.0, 0
        for xb, yb in train_loader:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
            sched.step()
            run += loss.item() * len(yb)
            n += len(yb)
        vl, va = evaluate(model, val_loader, crit)
        print(f"epoch {epoch + 1:02d} | train_loss {run / n:.4f} | val_loss {vl:.4f} | val_acc {va:.4f} | lr {opt.param_groups[0]['lr']:.2e}")
    torch.save(model.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
'''


def run01(out, tmp):
    X, y = make_blobs(4000, 40, 10, seed=101, clusters_per_class=3, spread=2.2, center_scale=1.0)
    Xtr, ytr, Xva, yva = split(X, y, 800, seed=1)
    mods = {"data": fake_module("data", load_features=lambda: (Xtr, ytr, Xva, yva))}
    stdout, tb, exc = run_script(RUN01_TRAIN, "/home/mkowal/spectra/train.py", mods, cwd=tmp)
    assert tb is None, tb
    big_src = RUN01_TRAIN.replace('"hidden": 128', '"hidden": 512').replace(
        "nn.Linear(h, h), nn.ReLU(),\n", "nn.Linear(h, h), nn.ReLU(),\n                          nn.Linear(h, h), nn.ReLU(),\n")
    assert big_src.count("nn.Linear(h, h)") == 2
    big_out, tb2, _ = run_script(big_src, "/home/mkowal/spectra/train.py", mods, cwd=tmp)
    assert tb2 is None, tb2
    big_last = big_out.strip().splitlines()[-1]
    lines = stdout.strip().splitlines()
    log = "$ python train.py\n" + stdout
    write(f"{out}/train.py", RUN01_TRAIN)
    write(f"{out}/train_log.txt", log)
    first, last = lines[1], lines[-1]
    turns = [
        ("user", f"""My classifier basically stops learning after the first epoch. 10 classes, 40 features per sample (preprocessed spectra), ~3k training samples. Here is the output:

{fence(stdout)}

The loss goes down a bit in epoch 1 and then just sits there for 14 epochs. What am I doing wrong?"""),
        ("assistant", """This is a classic case of **underfitting due to limited model capacity**. A 2-hidden-layer MLP with 128 units may simply not have enough representational power for spectral data, which often has subtle, high-dimensional structure.

Here's what I'd recommend:

1. **Increase capacity**: try `hidden=512` and add one or two more layers.
2. **Add BatchNorm** after each linear layer - this stabilises training and often unlocks further progress.
3. **Feature engineering**: spectra benefit from derivative features (first/second derivatives) or PCA whitening.
4. **Train longer**: 15 epochs is short; try 100 epochs with early stopping.

A plateau right after epoch 1 is usually the model hitting its capacity ceiling."""),
        ("user", f"""I went to hidden=512 with 3 hidden layers and it's the same picture, the loss is flat from epoch 2 on. Last line of that run:

{fence(big_last)}

I attached train.py (the original 128 version). The lr is 3e-3 which is the Adam default-ish range right?"""),
        ("assistant", """Yes, 3e-3 is within a reasonable range for Adam, so the learning rate itself is not the problem.

If a much bigger model gives the same plateau, the bottleneck is most likely **the data itself**:

- Your 40 features may not contain enough information to separate 10 classes - check class overlap with a t-SNE/UMAP plot.
- Check for **class imbalance**; if some classes dominate, the model settles into predicting them. Use `CrossEntropyLoss(weight=...)`.
- Try a **gradient boosting baseline** (LightGBM/XGBoost). If it also plateaus around the same accuracy, you've reached the Bayes error of this feature set.

I would not spend more time on the network architecture until you've confirmed the features are informative."""),
    ]
    write(f"{out}/chat_export.md", chat_md("Classifier stops learning after first epoch", turns))
    return {"truth": "lr_schedule_bug",
            "symptom": "My classifier basically stops learning after the first epoch - loss goes down a bit and then sits there; a bigger model didn't help.",
            "how": "StepLR(step_size=5, gamma=0.1), meant per epoch, is stepped inside the batch loop (50 batches/epoch), so lr falls from 3e-3 to ~3e-13 within epoch 1; the logged lr column collapses and loss is flat from epoch 2 at a mediocre val_acc."}


# =====================================================================================  run02
RUN02_CFG = '''# reproduction of the baseline recipe (table 2, "MLP-4")
data:
  n_features: 32
  val_fraction: 0.2
model:
  hidden: [256, 256, 256]
  dropout: 0.0
train:
  epochs: 20
  batch_size: 128
  optimizer: sgd
  lr: 0.01
  momentum: 0.9
  weight_decay: 5.0e-4
  seed: 0
'''

RUN02_TRAIN = '''import yaml
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from datasets import load_tabular


def build_model(n_in, hidden, n_out, dropout):
    layers, d = [], n_in
    for h in hidden:
        layers += [nn.Linear(d, h), nn.ReLU()]
        if dropout > 0:
            layers.append(nn.Dropout(dropout))
        d = h
    layers.append(nn.Linear(d, n_out))
    return nn.Sequential(*layers)


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    tcfg = cfg["train"]
    torch.manual_seed(tcfg["seed"])

    Xtr, ytr, Xva, yva = load_tabular(cfg["data"])
    tr = DataLoader(TensorDataset(torch.tensor(Xtr), torch.tensor(ytr)), batch_size=tcfg["batch_size"], shuffle=True)
    va = DataLoader(TensorDataset(torch.tensor(Xva), torch.tensor(yva)), batch_size=512)

    model = build_model(Xtr.shape[1], cfg["model"]["hidden"], int(ytr.max()) + 1, cfg["model"]["dropout"])
    opt = torch.optim.SGD(model.parameters(), lr=tcfg["lr"], weight_decay=tcfg["weight_decay"])
    crit = nn.CrossEntropyLoss()

    for epoch in range(1, tcfg["epochs"] + 1):
        model.train()
        tot, n = 0.0, 0
        for xb, yb in tr:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
            tot += loss.item() * len(yb)
            n += len(yb)
        model.eval()
        correct, m = 0, 0
        with torch.no_grad():
            for xb, yb in va:
                correct += (model(xb).argmax(1) == yb).sum().item()
                m += len(yb)
        print(f"[{epoch:3d}/{tcfg['epochs']}] loss={tot / n:.4f} val_acc={correct / m:.4f}")


if __name__ == "__main__":
    main()
'''


def _run02_reference(Xtr, ytr, Xva, yva):
    """The labmate's run of the same recipe (their trainer passes momentum)."""
    torch.manual_seed(0)
    import torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset
    layers, d = [], Xtr.shape[1]
    for h in [256, 256, 256]:
        layers += [nn.Linear(d, h), nn.ReLU()]
        d = h
    layers.append(nn.Linear(d, int(ytr.max()) + 1))
    model = nn.Sequential(*layers)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
    tr = DataLoader(TensorDataset(torch.tensor(Xtr), torch.tensor(ytr)), batch_size=128, shuffle=True)
    crit = nn.CrossEntropyLoss()
    for epoch in range(20):
        model.train()
        for xb, yb in tr:
            opt.zero_grad()
            crit(model(xb), yb).backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        return (model(torch.tensor(Xva)).argmax(1).numpy() == yva).mean()


def run02(out, tmp):
    X, y = make_blobs(6000, 32, 8, seed=202, clusters_per_class=4, spread=1.3, center_scale=1.0)
    Xtr, ytr, Xva, yva = split(X, y, 1200, seed=2)
    write(f"{tmp}/config.yaml", RUN02_CFG)
    mods = {"datasets": fake_module("datasets", load_tabular=lambda c: (Xtr, ytr, Xva, yva))}
    stdout, tb, exc = run_script(RUN02_TRAIN, "/home/jli/repro/train.py", mods, cwd=tmp)
    assert tb is None, tb
    ref = _run02_reference(Xtr, ytr, Xva, yva)
    final = stdout.strip().splitlines()[-1]
    write(f"{out}/train.py", RUN02_TRAIN)
    write(f"{out}/config.yaml", RUN02_CFG)
    turns = [
        ("user", f"""I'm reimplementing a baseline from a paper in my own codebase (config attached). My labmate ran the same recipe in her old codebase and got **{ref:.3f}** val accuracy after 20 epochs on this exact data split. Mine:

{fence(stdout)}

Same data, same config, same seed. Why is mine so much worse? Is it PyTorch version differences?"""),
        ("assistant", """PyTorch version differences can indeed cause small numerical differences, but a gap this large usually comes from something else. Common culprits when reproducing results:

1. **Weight initialisation** - your labmate's codebase may use a custom init (e.g. Kaiming normal). PyTorch's default `nn.Linear` init is Kaiming-uniform with `a=sqrt(5)`, which is known to be suboptimal for deep ReLU nets. Try:
   ```python
   for m in model.modules():
       if isinstance(m, nn.Linear):
           nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
           nn.init.zeros_(m.bias)
   ```
2. **Data preprocessing** - check whether her pipeline standardises features (zero mean / unit variance).
3. **Evaluation** - make sure you compute accuracy the same way (e.g. on the same split, after `model.eval()`).

Initialisation is by far the most common cause of "same config, different result"."""),
        ("user", """I checked, her codebase also uses the default nn.Linear init, and features are standardised the same way on both sides. My loss just goes down really slowly compared to hers. Should I just raise the LR to 0.1?"""),
        ("assistant", """Raising the LR is a reasonable experiment, but I'd be careful: the config explicitly says `lr: 0.01`, and if you change it you're no longer reproducing the paper.

Since the loss decreases slowly but steadily, your model is learning - it's just **converging slower**. A couple more ideas:

- **Batch size**: if her dataloader drops the last batch or uses a different effective batch size, the number of updates per epoch differs.
- **Train longer**: papers often report numbers at convergence. Try 60 epochs and see if you catch up.
- **Learning-rate warm-up**: many codebases include a short warm-up that isn't in the config.

I'd start by simply training for 3x longer to confirm it's a convergence-speed issue rather than a capacity issue."""),
    ]
    write(f"{out}/chat_export.md", chat_md("Reproduction gap vs labmate", turns))
    return {"truth": "optimizer_misconfigured",
            "symptom": "Same data, config and seed as my labmate, but my reimplementation converges much slower and ends far below her accuracy - is it a PyTorch version difference?",
            "how": f"config.yaml sets momentum: 0.9 but train.py builds torch.optim.SGD(..., lr, weight_decay) without momentum, so plain SGD at lr 0.01 converges slowly (final {final.split('val_acc=')[1]} vs {ref:.3f} for the same recipe with momentum)."}


# =====================================================================================  run03
def run03(out, tmp):
    import torch.nn as nn
    torch.manual_seed(3)
    X, y = make_blobs(6300, 24, 10, seed=303, clusters_per_class=2, spread=1.0, center_scale=1.4)
    gold_X, gold_y = X[:300], y[:300]
    X, y = X[300:], y[300:]
    rng = np.random.RandomState(33)
    noisy = y.copy()
    flip = rng.rand(len(y)) < 0.35
    noisy[flip] = (y[flip] + rng.randint(1, 10, size=flip.sum())) % 10
    Xtr, ytr, Xva, yva = X[:5000], noisy[:5000], X[5000:], noisy[5000:]
    Xtr_t, ytr_t = torch.tensor(Xtr), torch.tensor(ytr)
    model = nn.Sequential(nn.Linear(24, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()
    rows = ["epoch,train_loss,train_acc,val_loss,val_acc"]
    g = torch.Generator().manual_seed(3)
    n_ep = 36
    for ep in range(1, n_ep + 1):
        model.train()
        perm = torch.randperm(len(ytr), generator=g)
        tl, tc = 0.0, 0
        for i in range(0, len(ytr), 128):
            idx = perm[i:i + 128]
            out_ = model(Xtr_t[idx])
            loss = crit(out_, ytr_t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(idx)
            tc += (out_.argmax(1) == ytr_t[idx]).sum().item()
        model.eval()
        with torch.no_grad():
            vo = model(torch.tensor(Xva))
            vl = crit(vo, torch.tensor(yva)).item()
            va = (vo.argmax(1).numpy() == yva).mean()
        rows.append(f"{ep},{tl / len(ytr):.4f},{tc / len(ytr):.4f},{vl:.4f},{va:.4f}")
    with torch.no_grad():
        gold_acc = (model(torch.tensor(gold_X)).argmax(1).numpy() == gold_y).mean()
    write(f"{out}/metrics.csv", "\n".join(rows) + "\n")
    r = [x.split(",") for x in rows[1:]]
    pick = lambda e: r[e - 1]
    snap = "\n".join(rows[0:1] + [rows[e] for e in (1, 3, 5, 10, 15, 20, 25, 30, 33, 36)])
    turns = [
        ("user", f"""I'm training an MLP on embedding features (24-dim) for a 10-class product categorisation task, 5000 train / 1000 val, labels come from our annotation vendor. Train accuracy gets stuck around {float(pick(15)[2]):.2f} and val around {float(pick(15)[4]):.2f} for most of the run, and train loss hangs around {float(pick(10)[1]):.1f} for a long time. Here are some rows of metrics.csv (full file attached):

{fence(snap, 'csv')}

I think the model is too small to capture the categories. It's 2 x 256 hidden. Should I go to a transformer over the raw text instead?"""),
        ("assistant", """Your diagnosis sounds right: when **both** train and val accuracy plateau at a similar, mediocre level, that's the textbook signature of **underfitting** (high bias). The model can't even fit the training set, so it isn't a generalisation issue.

Options, in order of effort:

1. **Wider/deeper MLP**: 4 x 1024 with residual connections and LayerNorm.
2. **Lower regularisation**: if you have dropout or weight decay, remove them for now.
3. **Richer input**: a 24-dim embedding is quite compressed. Moving to a transformer fine-tuned on the raw product text will almost certainly give a big boost - this is the standard approach for product categorisation today.

The slight rise in train accuracy over the last epochs suggests the model is *finally* starting to find useful structure, so more capacity should accelerate that."""),
        ("user", f"""One more data point: we have a small gold set of 300 items that our own team labelled by hand. The final model gets {gold_acc:.3f} on it, which confused me because it's way higher than val. Does that change anything or is the gold set just easier?"""),
        ("assistant", """It's very likely the gold set is simply **easier or not representative**: 300 hand-picked items tend to be clear-cut, prototypical examples (the team probably picked items they were confident about), while the vendor data contains the long tail of ambiguous products.

I wouldn't draw conclusions from 300 samples - the confidence interval on that accuracy is several points wide. Stick with the 1000-item val set as your main metric and go ahead with the bigger model / transformer."""),
    ]
    write(f"{out}/chat_export.txt", chat_txt(turns, header="Exported conversation - 4 messages"))
    return {"truth": "label_noise",
            "symptom": f"Train accuracy gets stuck around {float(pick(15)[2]):.2f} and val around {float(pick(15)[4]):.2f} for most of the run - I think the model is too small; should I switch to a transformer?",
            "how": f"35% of the vendor labels (train and val) were flipped to a random other class; train acc plateaus near 0.65 with a train-loss floor above 1, then starts to climb late as the MLP memorises while val drifts down, and the clean hand-labelled gold set scores {gold_acc:.3f}."}


# =====================================================================================  run04
RUN04_TRAIN = '''import numpy as np
import torch
import torch.nn as nn
from warehouse import read_table

cols, data = read_table("analytics.churn_training_2024q1")
print("columns:", cols)
target = cols.index("churned")
feat_idx = [i for i, c in enumerate(cols) if c not in ("customer_id", "churned")]
X = data[:, feat_idx].astype(np.float32)
y = data[:, target].astype(np.float32)

mu, sd = X.mean(0), X.std(0) + 1e-6
X = (X - mu) / sd
np.savez("scaler.npz", mu=mu, sd=sd)

rng = np.random.default_rng(0)
idx = rng.permutation(len(y))
n_val = len(y) // 5
va, tr = idx[:n_val], idx[n_val:]
Xtr, ytr, Xva, yva = map(torch.tensor, (X[tr], y[tr], X[va], y[va]))
print(f"train {len(tr)}  val {len(va)}  churn rate {y.mean():.3f}")

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.BCEWithLogitsLoss()

for epoch in range(1, 11):
    model.train()
    perm = torch.randperm(len(ytr))
    tot = 0.0
    for i in range(0, len(ytr), 256):
        b = perm[i:i + 256]
        loss = crit(model(Xtr[b]).squeeze(1), ytr[b])
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item() * len(b)
    model.eval()
    with torch.no_grad():
        logit = model(Xva).squeeze(1)
        vloss = crit(logit, yva).item()
        pred = (logit > 0).float()
        acc = (pred == yva).float().mean().item()
        rec = ((pred == 1) & (yva == 1)).sum().item() / max(1, (yva == 1).sum().item())
    print(f"epoch {epoch:2d}  train_loss {tot / len(ytr):.4f}  val_loss {vloss:.4f}  val_acc {acc:.4f}  val_recall {rec:.4f}")

torch.save(model.state_dict(), "churn_mlp.pt")
'''

RUN04_SCORE = '''import numpy as np
import torch
import torch.nn as nn
from warehouse import read_table

cols, data = read_table("analytics.churn_scoring_2024_05")
feat_idx = [i for i, c in enumerate(cols) if c not in ("customer_id", "churned")]
s = np.load("scaler.npz")
X = torch.tensor(((data[:, feat_idx].astype(np.float32)) - s["mu"]) / s["sd"])
y = torch.tensor(data[:, cols.index("churned")].astype(np.float32))  # filled in after the month closed
model = nn.Sequential(nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
model.load_state_dict(torch.load("churn_mlp.pt"))
model.eval()
with torch.no_grad():
    pred = (model(X).squeeze(1) > 0).float()
acc = (pred == y).float().mean().item()
rec = ((pred == 1) & (y == 1)).sum().item() / (y == 1).sum().item()
print(f"may-2024 backtest: n={len(y)} acc={acc:.4f} recall={rec:.4f} predicted_churners={int(pred.sum())}")
'''

RUN04_COLS = ["customer_id", "tenure_months", "monthly_charges", "total_charges", "n_support_tickets",
              "avg_session_minutes", "logins_last_30d", "plan_tier", "payment_failures_90d", "discount_pct",
              "n_devices", "nps_last", "days_since_last_login", "cancel_reason_code", "churned"]


def _churn_table(n, seed, scoring=False):
    rng = np.random.RandomState(seed)
    Z = rng.randn(n, 12)
    w = np.array([-0.9, 0.5, -0.3, 0.6, -0.4, -0.7, 0.2, 0.8, -0.2, 0.1, -0.5, 0.6])
    logit = Z @ w * 0.55 - 1.3 + rng.randn(n) * 0.8
    churned = (logit > 0).astype(np.float64)
    tenure = np.clip(np.round(24 + 14 * Z[:, 0]), 1, 72)
    monthly = np.round(55 + 20 * Z[:, 1], 2)
    total = np.round(tenure * monthly * (1 + 0.05 * Z[:, 2]), 2)
    tickets = np.clip(np.round(2 + 1.5 * Z[:, 3]), 0, None)
    session = np.round(np.clip(30 + 12 * Z[:, 4], 1, None), 1)
    logins = np.clip(np.round(14 + 7 * Z[:, 5]), 0, 30)
    tier = np.clip(np.round(2 + Z[:, 6]), 1, 4)
    payfail = np.clip(np.round(0.6 + 0.9 * Z[:, 7]), 0, None)
    disc = np.clip(np.round(10 + 8 * Z[:, 8]), 0, 40)
    devices = np.clip(np.round(2 + Z[:, 9]), 1, 6)
    nps = np.clip(np.round(7 + 2 * Z[:, 10]), 0, 10)
    days = np.clip(np.round(6 + 5 * Z[:, 11]), 0, None)
    if scoring:
        reason = np.zeros(n)                       # not known yet when the month is scored
    else:
        reason = np.where(churned == 1, rng.randint(1, 7, size=n), 0).astype(np.float64)
        # a few retained customers who opened a cancellation and were saved by retention
        saved = (churned == 0) & (rng.rand(n) < 0.01)
        reason[saved] = rng.randint(1, 7, size=saved.sum())
    cid = 100000 + np.arange(n) + (0 if not scoring else 500000)
    data = np.stack([cid, tenure, monthly, total, tickets, session, logins, tier, payfail, disc, devices, nps,
                     days, reason, churned], 1)
    return list(RUN04_COLS), data


def run04(out, tmp):
    train_tab = _churn_table(20000, 404)
    score_tab = _churn_table(5000, 405, scoring=True)
    mods = {"warehouse": fake_module("warehouse", read_table=lambda name: score_tab if "scoring" in name else train_tab)}
    s1, tb1, _ = run_script(RUN04_TRAIN, "/home/rsingh/churn/train.py", mods, cwd=tmp)
    assert tb1 is None, tb1
    s2, tb2, _ = run_script(RUN04_SCORE, "/home/rsingh/churn/score_backtest.py", mods, cwd=tmp)
    assert tb2 is None, tb2
    turns = [
        ("user", f"""Need a sanity check. I trained a churn model on our Q1 customer table. Validation looks amazing, but when we backtested on May (we now know who actually churned in May) it fell apart. Training script:

{fence(RUN04_TRAIN, 'python')}

Output:

{fence(s1)}

Backtest on May:

{fence(s2)}

So val accuracy ~{s1.strip().splitlines()[-1].split('val_acc ')[1].split()[0]} but in May it finds almost none of the churners. I'm guessing it overfit to Q1? Should I add dropout / more regularisation?"""),
        ("assistant", """Yes, this looks like **overfitting combined with temporal drift**. Your model learned patterns that were specific to Q1 customers, and customer behaviour in May shifted enough that those patterns no longer hold.

Recommendations:

1. **Regularise**: add `nn.Dropout(0.3)` after each hidden layer and `weight_decay=1e-4` in Adam.
2. **Early stopping**: your val loss is already very low after the first epochs; stop training earlier.
3. **Time-based validation**: instead of a random split, validate on the last month of Q1 (train Jan-Feb, validate Mar). A random split lets the model see "the future" of the same period and overstates performance.
4. **Class imbalance**: with a ~20% churn rate, use `pos_weight` in `BCEWithLogitsLoss` so the model doesn't default to predicting "no churn".
5. **Retrain monthly** to track drift.

Point 3 in particular will give you a more honest validation number."""),
        ("user", """Before I retrain: the val split is random customers from the same quarter, and val loss tracks train loss the whole way (no gap at all). And in May it predicts literally zero churners. Does that still sound like overfitting/drift to you?"""),
        ("assistant", """Yes - and the fact that train and val agree so closely is actually the point: a **random split within the same quarter** can't reveal temporal drift, because val customers come from exactly the same period and the same conditions as the training customers. The model is "right" about Q1 but the decision boundary it learned does not transfer to May.

Predicting zero churners is the typical failure of an **imbalanced classifier under shift**: when the inputs move, the logits drift below the 0.5 threshold and everything collapses to the majority class.

So:
- Use a **time-based split** (train Jan-Feb, validate March) to get an honest number.
- Set `pos_weight` in `BCEWithLogitsLoss` and **tune the decision threshold** on the time-based val set instead of using 0.
- Run a **PSI check** per feature between Q1 and May to find what moved (monthly_charges and plan_tier are the usual suspects after a pricing change)."""),
    ]
    write(f"{out}/chat_export.md", chat_md("Churn model: great val, bad backtest", turns))
    return {"truth": "data_leakage",
            "symptom": "Churn model gets ~0.99 validation accuracy but on the May backtest it finds almost none of the churners - I'm guessing it overfit to Q1.",
            "how": "The feature matrix keeps cancel_reason_code, which is only filled in once a customer has churned (a post-outcome field, all zero at scoring time); val accuracy is ~0.99 from epoch 1 while the May backtest with that column empty predicts almost no churners."}


# =====================================================================================  run05
def run05(out, tmp):
    import torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset
    names = [f"sensor_{i:02d}" for i in range(1, 21)]
    rng = np.random.RandomState(505)
    n = 50000
    Z = rng.randn(n, 20)
    mix = rng.randn(20, 20) * 0.3 + np.eye(20)
    F = Z @ mix
    scale = rng.uniform(0.5, 40, 20)
    offs = rng.uniform(-5, 300, 20)
    raw = F * scale + offs
    y = ((F[:, :6] @ np.array([1.0, -0.8, 0.6, 0.5, -0.4, 0.3]) + 0.4 * np.sin(F[:, 7] * 2)) > 0.2).astype(np.int64)
    y = y + (F[:, 9] > 1.0).astype(np.int64)  # 3 classes: 0 ok / 1 degraded / 2 fault
    # locate the sample that the DataLoader will serve at epoch 1 batch 274, and blank one reading there
    g = torch.Generator().manual_seed(5)
    perm = torch.randperm(n, generator=g).tolist()
    bad_row = perm[273 * 64 + 17]
    raw[bad_row, 6] = np.nan
    # user's preprocessing: standardise with nan-aware stats from the data frame
    mu, sd = np.nanmean(raw, 0), np.nanstd(raw, 0)
    Xs = ((raw - mu) / sd).astype(np.float32)
    desc = ["             count        mean         std         min         max"]
    for j, nm in enumerate(names[:10]):
        col = raw[:, j]
        ok = col[~np.isnan(col)]
        desc.append(f"{nm:10s} {len(ok):8.1f} {ok.mean():11.4f} {ok.std(ddof=1):11.4f} {ok.min():11.4f} {ok.max():11.4f}")
    desc.append("...")
    ds = TensorDataset(torch.tensor(Xs), torch.tensor(y))

    def train(lr, warmup, epochs, lines, stop_at_nan=False):
        torch.manual_seed(5)
        model = nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 3))
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-2)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warmup) if warmup else 1.0)
        crit = nn.CrossEntropyLoss()
        loader = DataLoader(ds, batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(5))
        lines += [f"[2024-06-11 09:12:03] INFO  config: model=mlp(20-128-128-3) optimizer=AdamW lr={lr:.0e} wd=1e-2 warmup_steps={warmup} batch=64 epochs={epochs} clip_grad_norm=1.0",
                  "[2024-06-11 09:12:03] INFO  dataset: plant_a_sensors.parquet rows=50000 features=20 classes=3",
                  f"[2024-06-11 09:12:04] INFO  steps/epoch={len(loader)}"]
        step, sec = 0, 4
        for ep in range(1, epochs + 1):
            acc_l, acc_g, acc_n = 0.0, 0.0, 0
            for xb, yb in loader:
                step += 1
                loss = crit(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                sched.step()
                acc_l += loss.item(); acc_g += gn.item(); acc_n += 1
                if step % 10 == 0:
                    sec += 1
                    ts = f"2024-06-11 09:{12 + sec // 60:02d}:{sec % 60:02d}"
                    lines.append(f"[{ts}] INFO  epoch {ep} step {step:5d} | loss {acc_l / acc_n:.4f} | grad_norm {acc_g / acc_n:.4f} | lr {opt.param_groups[0]['lr']:.2e}")
                    acc_l, acc_g, acc_n = 0.0, 0.0, 0
                    if stop_at_nan and "nan" in lines[-1]:
                        return
            ts = f"2024-06-11 09:{12 + sec // 60:02d}:{sec % 60:02d}"
            with torch.no_grad():
                va = (model(torch.tensor(Xs[:5000])).argmax(1).numpy() == y[:5000]).mean()
            lines.append(f"[{ts}] INFO  epoch {ep} done | holdout_acc {va:.4f}")

    lines = []
    train(1e-3, 0, 3, lines)
    log = "\n".join(lines) + "\n"
    write(f"{out}/train.log", log)
    nan_i = next(i for i, l in enumerate(lines) if "loss nan" in l)
    retry = []
    train(1e-4, 500, 3, retry, stop_at_nan=True)           # the user's retry: lower lr + warm-up (stopped at the first NaN)
    retry_nan = [l for l in retry if "loss nan" in l][0]
    excerpt = "\n".join(lines[:4] + ["..."] + lines[nan_i - 5:nan_i + 4] + ["..."])
    turns = [
        ("user", f"""My sensor classifier goes NaN partway through the first epoch, every time at the same place. Log excerpt (full log attached):

{fence(excerpt)}

I assume the learning rate is too high and the gradients blow up? I already have clip_grad_norm_(..., 1.0) in there."""),
        ("assistant", """NaN losses in the middle of training are almost always a sign of **gradient explosion** caused by a learning rate that is too aggressive for your model. Gradient clipping at 1.0 helps, but it doesn't prevent the *optimizer state* (AdamW's second-moment estimates) from becoming extreme.

Try this:

1. **Lower the LR** to `3e-4` or `1e-4`.
2. **Add warm-up**: linearly increase the LR over the first 500 steps.
3. **Tighten clipping** to `max_norm=0.5`.
4. Consider **LayerNorm** between layers to keep activations bounded.

Because it happens at the same step each time, it's deterministic - which fits with the LR being slightly over the stability threshold at that point in training."""),
        ("user", f"""Lowered LR to 1e-4 and added 500 warmup steps, still NaN at the same place:

{fence(chr(10).join(retry[nan_i - 2:nan_i + 1]))}

Here's df.describe() of the input in case that helps (first 10 columns; values before standardisation):

{fence(chr(10).join(desc))}

Preprocessing is just (x - mean) / std per column using pandas, then to a float32 tensor."""),
        ("assistant", """Thanks - the feature statistics look reasonable; the std values are all non-zero so your standardisation won't divide by zero, and there are no crazy outliers in the min/max columns.

Since the NaN persists even at 1e-4, the next step is to make the numerics more robust:

- Make sure you are **not using mixed precision** (`torch.autocast`) - fp16 overflows are a very common source of NaN at a fixed step.
- Switch `AdamW` `eps` from `1e-8` to `1e-6`; tiny eps can cause huge updates when the second moment is close to zero.
- Use `torch.autograd.set_detect_anomaly(True)` to find which backward op produces the NaN, then add a small epsilon there."""),
    ]
    write(f"{out}/chat_export.md", chat_md("NaN loss in sensor classifier", turns))
    return {"truth": "nan_in_data",
            "symptom": "My sensor classifier goes NaN partway through the first epoch, always at the same step; I assume the LR is too high and gradients blow up, even with clipping.",
            "how": "One reading (sensor_07 of one row) is NaN in the raw table; the loss and grad_norm are flat and finite until the logged window containing the batch that holds that row, then NaN for ever; df.describe() shows count 49999 for sensor_07 vs 50000 elsewhere."}


# =====================================================================================  run06
RUN06_TRAIN = '''import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from wafer_data import WaferDataset


class Net(nn.Module):
    def __init__(self, n_in, n_cls):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(n_in, 128), nn.BatchNorm1d(128), nn.ReLU(),
            nn.Linear(128, 64), nn.BatchNorm1d(64), nn.ReLU())
        self.head = nn.Linear(64, n_cls)

    def forward(self, x):
        return self.head(self.body(x))


def main():
    torch.manual_seed(0)
    ds = WaferDataset("data/wafer_maps/")
    print(f"Loaded {len(ds)} samples from data/wafer_maps/ ({ds.n_files} files)")
    loader = DataLoader(ds, batch_size=64, shuffle=True)
    model = Net(ds.n_features, ds.n_classes)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()
    for epoch in range(20):
        model.train()
        for step, (x, y) in enumerate(loader):
            loss = crit(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 16 == 0:
                print(f"epoch {epoch} step {step}/{len(loader)} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
'''


def run06(out, tmp):
    X, y = make_blobs(4097, 48, 6, seed=606, spread=1.5)

    class WaferDataset(torch.utils.data.Dataset):
        def __init__(self, root):
            self.X, self.y = torch.tensor(X), torch.tensor(y)
            self.n_features, self.n_classes, self.n_files = 48, 6, 17

        def __len__(self):
            return len(self.y)

        def __getitem__(self, i):
            return self.X[i], self.y[i]

    mods = {"wafer_data": fake_module("wafer_data", WaferDataset=WaferDataset)}
    stdout, tb, exc = run_script(RUN06_TRAIN, "/home/tnguyen/wafer/train.py", mods, cwd=tmp)
    assert tb is not None
    tb = clean_tb(tb, site="/home/tnguyen/miniconda3/envs/ml/lib/python3.11/site-packages")
    shown = "(ml) tnguyen@ws-04:~/wafer$ python train.py\n" + stdout + tb
    turns = [
        ("user", f"""training crashes at the end of the first epoch every single time:

{fence(shown)}

I think the last file in data/wafer_maps/ is corrupted or has a different number of columns, because it always dies right at the end. how do I find which file is bad?"""),
        ("assistant", """Good instinct - a crash that always happens at the same point near the end of an epoch usually means a specific sample is malformed. The error says the layer received an input of an unexpected size, which fits a file with a different shape.

To find it:

```python
for i in range(len(ds)):
    x, y = ds[i]
    if x.shape != (ds.n_features,):
        print(i, x.shape)
```

If you find a bad sample, either fix the file or filter it out in `WaferDataset.__init__`. Also consider adding an assertion in `__getitem__` so this fails early with a clear message next time."""),
        ("user", """ran that loop, every sample has shape (48,), no bad ones. the 17 files all have the same columns too."""),
        ("assistant", """Then the data on disk is fine, and the issue is likely in how the tensors are assembled. Make sure `__getitem__` returns a **1-D float tensor** and a **scalar long label** - if a label comes back as shape `(1,)` the default collate function stacks things differently. You can also try `x = x.view(-1)` at the beginning of `forward` to normalise the shape, and upgrade PyTorch, since some older versions had collate bugs with mixed dtypes."""),
    ]
    write(f"{out}/chat_export.txt", chat_txt(turns))
    return {"truth": "zero_variance_statistic",
            "symptom": "Training crashes at the end of the first epoch every single time; I think the last data file is corrupted.",
            "how": "4097 samples with batch_size=64 and drop_last=False leave a final batch of one sample; BatchNorm1d in train mode cannot compute batch statistics over it and raises 'Expected more than 1 value per channel when training'."}
