"""Runs 07-12."""
import traceback, datetime as dt
import numpy as np
import torch
import torch.nn as nn
from common import teacher_data, gmm_data, mlp, batches, evaluate
from speech import say_int, say_dec, say_pow, say_pct, say_pct_dec, transcript

CE = nn.CrossEntropyLoss()


def T(x):
    return torch.from_numpy(x)


def train_epoch(model, opt, X, y, bs, g, crit=CE):
    model.train()
    tl, tc, n = 0.0, 0, 0
    for b in batches(len(X), bs, g):
        out = model(T(X[b])); loss = crit(out, T(y[b]))
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(b); tc += (out.argmax(1) == T(y[b])).sum().item(); n += len(b)
    return tl / n, tc / n


# ---------------------------------------------------------------- run07: data_leakage
def run07():
    torch.manual_seed(7); g = np.random.default_rng(707)
    n = 8000
    tenure = g.integers(1, 73, n); charges = g.normal(70, 25, n).clip(15, 140); calls = g.poisson(1.5, n)
    products = g.integers(1, 5, n); discount = g.choice([0, 5, 10, 15, 20], n); login = g.exponential(12, n)
    contract = g.integers(0, 3, n); autopay = g.integers(0, 2, n)
    z = -1.0 + 0.45 * (calls - 1.5) - 0.03 * (tenure - 36) + 0.04 * (login - 12) - 0.5 * (contract - 1) - 0.3 * autopay + 0.6 * g.normal(size=n)
    churn = (z > 0).astype(np.int64)
    # outcome of the retention call, filled in by the CRM after the customer has already cancelled or not
    outcome = np.where(churn == 1, g.choice([1, 2, 3], n, p=[0.2, 0.6, 0.2]), np.where(g.random(n) < 0.04, 1, 0))
    cols = ["tenure_months", "monthly_charges", "support_calls_90d", "num_products", "discount_pct", "days_since_login",
            "contract_type", "autopay", "retention_call_outcome"]
    Xraw = np.stack([tenure, charges, calls, products, discount, login, contract, autopay, outcome], 1).astype(np.float32)
    mu, sd = Xraw[:6400].mean(0), Xraw[:6400].std(0)
    X = (Xraw - mu) / sd
    Xtr, ytr, Xva, yva = X[:6400], churn[:6400], X[6400:], churn[6400:]
    model = mlp(9, 64, 2, 2, dropout=0.3)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    rows = []
    for ep in range(1, 6):
        tl, ta = train_epoch(model, opt, Xtr, ytr, 128, g)
        vl, va = evaluate(model, Xva, yva)
        rows.append((ep, tl, ta, vl, va))
    # scoring at decision time: the retention call has not happened yet -> column is 0 for everyone
    Xlive = Xraw[6400:].copy(); Xlive[:, 8] = 0; Xlive = (Xlive - mu) / sd
    _, live_acc = evaluate(model, Xlive.astype(np.float32), yva)
    base = 1 - yva.mean()
    chat = ["[chat] Nadia: config + log from the run, for reference", "",
            "features: [" + ", ".join(cols) + "]", "target: churned_within_60d   split: random 80/20   scaler: StandardScaler(fit on train)", ""] + \
           [f"epoch {e}/5  loss={a:.4f}  acc={b:.4f}  val_loss={c:.4f}  val_acc={d:.4f}" for e, a, b, c, d in rows] + \
           ["", f"[chat] Nadia: pilot scoring last week (same val customers, scored at renewal time): acc={live_acc:.4f}"]
    turns = [
        ("Nadia", f"Hey, it's Nadia, just a quick voice note about the churn model. So, good news, I think? Val accuracy is {say_pct_dec(rows[0][4])} after the first epoch. Like, first epoch. And it ends at {say_pct_dec(rows[-1][4])}."),
        ("Nadia", f"Which is, honestly, higher than train, train was like {say_pct(rows[0][2])} in that epoch. I assume that's dropout. So, um, I think it's just a really clean dataset this time, we added the CRM fields."),
        ("Nadia", f"The only weird thing is the pilot, when we scored the customers at renewal time it was {say_pct(live_acc)}, but I think that's just, like, the pilot pipeline being flaky. Can you confirm the model is fine so we can ship it Thursday? I pasted the config and log in the chat."),
    ]
    text, _ = transcript(["Voice message · transcribed automatically", "From: Nadia · {DURATION}"], turns, start=0)
    symptom = "Val accuracy is 99-point-something after the first epoch, higher than train; I think the dataset is just clean now that we added CRM fields — can you confirm the model is fine to ship?"
    how = (f"The feature retention_call_outcome is only filled after the customer has (or hasn't) cancelled, so it encodes the target: val acc {rows[0][4]:.4f} after epoch 1, above that epoch's train acc {rows[0][2]:.4f}, and {rows[-1][4]:.4f} at the end, "
           f"while scoring at decision time (column empty) gives {live_acc:.4f} (majority-class baseline {base:.3f}).")
    return {"transcript.txt": text, "chat.txt": "\n".join(chat)}, {"truth": "data_leakage", "symptom": symptom, "how": how}


# ---------------------------------------------------------------- run08: metric_changed
def f1_scores(y, p, k):
    f1s, precs, recs = [], [], []
    for c in range(k):
        tp = ((p == c) & (y == c)).sum(); fp = ((p == c) & (y != c)).sum(); fn = ((p != c) & (y == c)).sum()
        pr = tp / (tp + fp) if tp + fp else 0.0; rc = tp / (tp + fn) if tp + fn else 0.0
        f1s.append(2 * pr * rc / (pr + rc) if pr + rc else 0.0); precs.append(pr); recs.append(rc)
    return float(np.mean(f1s)), float(np.mean(precs)), float(np.mean(recs))


def run08():
    pri = [0.72, 0.1, 0.08, 0.06, 0.04]
    X, y = gmm_data(14000, 16, 5, seed=88, sep=1.0, priors=pri)
    Xte, yte = X[12000:], y[12000:]
    res = {}
    for tag, seed, sl in (("0405", 801, slice(0, 6000)), ("0412", 802, slice(6000, 12000))):
        torch.manual_seed(seed); g = np.random.default_rng(seed)
        Xtr, ytr = X[sl], y[sl]
        model = mlp(16, 64, 5, 2)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        for ep in range(8):
            train_epoch(model, opt, Xtr, ytr, 64, g)
        with torch.no_grad():
            p = model(T(Xte)).argmax(1).numpy()
        acc = float((p == yte).mean())
        mf1, mp, mr = f1_scores(yte, p, 5)
        res[tag] = dict(acc=acc, micro=acc, macro=mf1, mp=mp, mr=mr)
    a, b = res["0405"], res["0412"]
    chat = ["Meeting chat (exported)", "",
            "09:31  Felix: nightly eval, before/after", "```",
            "# nightly 2024-04-11  commit 3f9c2e1  ckpt=gs://intent-models/intent_mlp_0405.pt  snapshot=2024-04-05",
            "$ python eval.py --ckpt intent_mlp_0405.pt --split test",
            f"loaded 2000 test examples, 5 classes",
            f"eval/f1: {a['micro']:.4f}", "",
            "# nightly 2024-04-18  commit 8a41d07  ckpt=gs://intent-models/intent_mlp_0412.pt  snapshot=2024-04-12",
            "$ python eval.py --ckpt intent_mlp_0412.pt --split test",
            "loaded 2000 test examples, 5 classes",
            f"eval/accuracy: {b['acc']:.4f}", f"eval/f1: {b['macro']:.4f}", f"eval/precision: {b['mp']:.4f}", f"eval/recall: {b['mr']:.4f}", "```", "",
            "09:33  Felix: and the eval.py part of the refactor PR (#412), rest of the PR is moving files around", "```diff",
            "--- a/eval.py", "+++ b/eval.py",
            "@@ -1,12 +1,12 @@",
            " import argparse", " import torch", "-from sklearn.metrics import f1_score", "+from common.metrics import compute_metrics",
            "-from data import load_split", "+from common.data import load_split", " from model import IntentMLP", "",
            "@@ -31,9 +31,10 @@ def main():",
            "     preds = torch.cat(all_preds).numpy()", "     labels = torch.cat(all_labels).numpy()",
            "-    f1 = f1_score(labels, preds, average=\"micro\")", "-    print(f\"eval/f1: {f1:.4f}\")",
            "+    metrics = compute_metrics(labels, preds)", "+    for name, value in metrics.items():", "+        print(f\"eval/{name}: {value:.4f}\")", "```", "",
            "09:34  Felix: common/metrics.py (new, copied from the ranking team's utils)", "```python",
            "from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score", "", "",
            "def compute_metrics(y_true, y_pred):", "    return {",
            "        \"accuracy\": accuracy_score(y_true, y_pred),",
            "        \"f1\": f1_score(y_true, y_pred, average=\"macro\"),",
            "        \"precision\": precision_score(y_true, y_pred, average=\"macro\"),",
            "        \"recall\": recall_score(y_true, y_pred, average=\"macro\"),", "    }", "```"]
    turns = [
        ("Felix", "So, the, um, the intent model. The nightly eval on Thursday dropped a lot."),
        ("Felix", f"F1 went from {say_dec(a['micro'], 2)} to {say_dec(b['macro'], 2)}. Like, that's a big drop. And it's the first nightly with the new data snapshot, the April twelfth one."),
        ("Hannah", "Same test set?"),
        ("Felix", "Same test split, yeah, the test file didn't change. So my guess is the new snapshot is worse, like the labelling on the new batch, or the retrain just got unlucky. I wanted to, um, roll back to the oh-four-oh-five snapshot and retrain."),
        ("Hannah", "Did anything else go in that week?"),
        ("Felix", "The refactor PR went in too, but that's, like, just moving files into common, no logic change. I'll paste the two eval outputs and the diff so you can see."),
        ("Hannah", "Okay, let's look at it before we roll back the data."),
    ]
    text, _ = transcript(["Intent model sync — transcript", "Auto-transcribed · Speakers: Felix, Hannah · {DURATION}"], turns, start=40)
    symptom = f"Nightly eval F1 dropped from about {a['micro']:.2f} to {b['macro']:.2f} with the new data snapshot; I think the new snapshot is worse and want to roll the data back and retrain."
    how = (f"The refactor replaced f1_score(average='micro') with a shared compute_metrics that uses average='macro'; on this 5-class set dominated by one class, macro-F1 of the new checkpoint is {b['macro']:.4f} "
           f"while its accuracy (= micro-F1) is {b['acc']:.4f}, the same level as the old checkpoint's {a['micro']:.4f}: the model did not regress, the metric changed.")
    return {"transcript.txt": text, "chat.txt": "\n".join(chat)}, {"truth": "metric_changed", "symptom": symptom, "how": how}


# ---------------------------------------------------------------- run09: label_out_of_range
def _forward_loss(criterion, logits, labels):
    return criterion(logits, labels)


def run09():
    torch.manual_seed(9); g = np.random.default_rng(929)
    X, y = teacher_data(30000, 40, 20, seed=99)
    new = g.choice(30000, 2, replace=False)
    y[new] = 20                                   # rows from the newly added shard carry class id 20
    model = mlp(40, 256, 20, 2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()
    lines = ["$ python train.py --config configs/sound_tags.yaml",
             "config: num_classes=20 batch_size=64 lr=0.001 epochs=10 data=/data/sound_tags/shards/*.npz",
             "loaded 30000 clips from 8 shards"]
    tb = None
    step = 0
    spe = (30000 + 63) // 64
    for ep in range(1, 11):
        for i, b in enumerate(batches(30000, 64, g), 1):
            step += 1
            try:
                loss = _forward_loss(crit, model(T(X[b])), T(y[b]))
            except IndexError:
                tb = traceback.format_exc(); crash = (ep, i, step)
                break
            opt.zero_grad(); loss.backward(); opt.step()
            if i % 100 == 0:
                lines.append(f"epoch {ep} [{i:4d}/{spe}] loss {loss.item():.4f}")
        if tb:
            break
        lines.append(f"epoch {ep} done")
    # rewrite the real torch traceback frames onto the user's paths
    tlines = tb.rstrip().split("\n")
    torch_frames = []
    i = 1
    while i < len(tlines) - 1:
        if tlines[i].startswith("  File"):
            j = i + 1
            while j < len(tlines) - 1 and not tlines[j].startswith("  File"):
                j += 1
            if "site-packages/torch" in tlines[i]:
                fr = [tlines[i].split('File "')[0] + 'File "/opt/conda/envs/audio/lib/python3.11/site-packages/torch' + tlines[i].split("site-packages/torch", 1)[1]] + tlines[i + 1:j]
                torch_frames += fr
            i = j
        else:
            i += 1
    out = ["Traceback (most recent call last):",
           '  File "/home/ana/sound-tags/train.py", line 96, in <module>',
           "    loss = criterion(logits, labels)",
           "           ^^^^^^^^^^^^^^^^^^^^^^^^^"] + torch_frames + [tlines[-1]]
    lines += out
    turns = [
        ("Ana", "Hi, um, so, sound tags training is crashing and I have no idea why."),
        ("Ana", f"It runs fine for a few minutes, the loss is going down normally, and then at step {say_int(crash[1])} of epoch {say_int(crash[0])} it just dies with an IndexError, something like target twenty is out of bounds. In the, the cross-entropy. Yesterday it died at a different step, so it feels kind of random."),
        ("Ana", "It was working last week. The only things that changed are we rebuilt the docker image, so new PyTorch version I think, and Moritz added the new shard with the doorbell clips. I'm guessing it's the PyTorch upgrade, like some bug in the new version? Should I pin the old one?"),
        ("Ana", "I'll attach the error output. Thanks."),
    ]
    text, _ = transcript(["Voice note transcript", "Speaker: Ana · {DURATION} · auto-generated"], turns, start=0)
    symptom = "Training crashes partway through with an IndexError 'Target 20 is out of bounds' in the cross-entropy; it worked last week, so I'm guessing the PyTorch upgrade in the rebuilt image broke something."
    how = (f"Config says num_classes=20 (valid targets 0..19) but the newly added shard's rows carry class id 20; the first shuffled batch holding one of them (epoch {crash[0]}, step {crash[1]}) crashes CrossEntropyLoss with "
           f"'{tlines[-1]}'.")
    return {"transcript.txt": text, "error.log": "\n".join(lines)}, {"truth": "label_out_of_range", "symptom": symptom, "how": how}


# ---------------------------------------------------------------- run10: lr_schedule_bug
CONFIG10 = """model:
  hidden: 128
  depth: 2
data:
  path: data/tabular_v4
  batch_size: 128
optim:
  name: sgd
  lr: 0.1
  momentum: 0.9
  weight_decay: 5.0e-4
schedule:
  name: step
  step_size: 30      # epochs
  gamma: 0.1
epochs: 90
"""

TRAIN10 = '''import yaml
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import load_tabular

cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(10)

train_ds, val_ds = load_tabular(cfg["data"]["path"])
train_loader = DataLoader(train_ds, batch_size=cfg["data"]["batch_size"], shuffle=True)
val_loader = DataLoader(val_ds, batch_size=1000)

h = cfg["model"]["hidden"]
model = nn.Sequential(nn.Linear(16, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 8))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"],
                            momentum=cfg["optim"]["momentum"],
                            weight_decay=cfg["optim"]["weight_decay"])
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg["schedule"]["step_size"],
                                            gamma=cfg["schedule"]["gamma"])

for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    total, n = 0.0, 0
    for xb, yb in train_loader:
        loss = criterion(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        total += loss.item() * len(yb)
        n += len(yb)

    model.eval()
    correct = m = 0
    with torch.no_grad():
        for xb, yb in val_loader:
            correct += (model(xb).argmax(1) == yb).sum().item()
            m += len(yb)
    lr = optimizer.param_groups[0]["lr"]
    print(f"epoch {epoch:3d} | lr {lr:.2e} | train_loss {total / n:.4f} | val_acc {correct / m:.4f}")
'''


def run10():
    torch.manual_seed(10); g = np.random.default_rng(1010)
    X, y = teacher_data(6000, 16, 8, seed=100)
    model = mlp(16, 128, 8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    sch = torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    lines = ["$ python train.py"]
    rows = []
    for ep in range(1, 31):
        model.train(); tot, n = 0.0, 0
        for b in batches(5000, 128, g):
            loss = CE(model(T(X[b])), T(y[b]))
            opt.zero_grad(); loss.backward(); opt.step(); sch.step()
            tot += loss.item() * len(b); n += len(b)
        _, va = evaluate(model, X[5000:], y[5000:])
        lr = opt.param_groups[0]["lr"]
        rows.append((ep, lr, tot / n, va))
        lines.append(f"epoch {ep:3d} | lr {lr:.2e} | train_loss {tot / n:.4f} | val_acc {va:.4f}")
    lines.append("^CTraceback (most recent call last):")
    lines.append('  File "/home/sam/tab/train.py", line 31, in <module>')
    lines.append("    loss.backward()")
    lines.append("KeyboardInterrupt")
    turns = [
        ("Sam", "Okay so for my update, the tabular v4 model. It's, it's plateaued really early."),
        ("Sam", f"First epoch loss goes from, like, two to {say_dec(rows[0][2], 2, True)}, val accuracy {say_pct(rows[0][3])}, second epoch it gets to {say_dec(rows[1][2], 2, True)}, and then after that literally nothing, it's the same number to four decimals. Like epoch thirty is {say_dec(rows[-1][2], 2, True)} and {say_pct(rows[-1][3])} val. I killed it at thirty, the config has ninety."),
        ("Lin", "Is the model big enough? It's the one twenty-eight one?"),
        ("Sam", "Yeah, two hidden layers, one twenty-eight. Same recipe we always use, SGD point one, momentum point nine, step decay every thirty epochs. I was thinking maybe the model's just too small for v4, or I need to, I dunno, train longer."),
        ("Lin", "Hm. Can you put the config and script in the ticket?"),
        ("Sam", "Yep, doing it after this."),
    ]
    text, _ = transcript(["Stand-up (tabular team) — automatic transcript", "Speakers: Lin, Sam, +3 · {DURATION}"], turns, start=212)
    symptom = "The model plateaus after the second epoch, loss and val accuracy stay flat to four decimals for the rest of the thirty epochs; maybe the 128-wide model is too small for v4 or I need to train longer."
    how = ("StepLR(step_size=30, gamma=0.1) is meant per epoch (config comment, 90 epochs) but scheduler.step() is called every batch (40 per epoch), so the lr drops 10x every 30 batches: "
           f"{rows[0][1]:.0e} after epoch 1, {rows[2][1]:.0e} after epoch 3 (printed in the log), and training freezes at loss {rows[-1][2]:.3f} / val acc {rows[-1][3]:.3f}.")
    return {"transcript.txt": text, "train.py": TRAIN10, "config.yaml": CONFIG10, "train_log.txt": "\n".join(lines)}, {"truth": "lr_schedule_bug", "symptom": symptom, "how": how}


# ---------------------------------------------------------------- run11: healthy (val loss below train loss, dropout)
TRAIN11 = '''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(11)
rng = np.random.default_rng(11)

data = np.load("data/wells_features.npz")
X, y = data["x"].astype(np.float32), data["y"].astype(np.int64)
idx = rng.permutation(len(X))
n_val = len(X) // 5
val_idx, train_idx = idx[:n_val], idx[n_val:]

mean, std = X[train_idx].mean(0), X[train_idx].std(0)
X = (X - mean) / std

train_loader = DataLoader(TensorDataset(torch.from_numpy(X[train_idx]), torch.from_numpy(y[train_idx])),
                          batch_size=128, shuffle=True)
val_x, val_y = torch.from_numpy(X[val_idx]), torch.from_numpy(y[val_idx])

model = nn.Sequential(
    nn.Linear(20, 128), nn.ReLU(), nn.Dropout(0.5),
    nn.Linear(128, 128), nn.ReLU(), nn.Dropout(0.5),
    nn.Linear(128, 6),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)

for epoch in range(1, 16):
    model.train()
    tl = tc = n = 0
    for xb, yb in train_loader:
        out = model(xb)
        loss = criterion(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tl += loss.item() * len(yb)
        tc += (out.argmax(1) == yb).sum().item()
        n += len(yb)
    model.eval()
    with torch.no_grad():
        out = model(val_x)
        vl = criterion(out, val_y).item()
        va = (out.argmax(1) == val_y).float().mean().item()
    print(f"{epoch:02d}  train_loss={tl / n:.4f} train_acc={tc / n:.4f}  val_loss={vl:.4f} val_acc={va:.4f}")
'''


def run11():
    torch.manual_seed(11); g = np.random.default_rng(11)
    X, y = gmm_data(10000, 20, 6, seed=111, sep=1.3)
    idx = g.permutation(len(X)); nv = len(X) // 5
    vi, ti = idx[:nv], idx[nv:]
    mu, sd = X[ti].mean(0), X[ti].std(0)
    X = ((X - mu) / sd).astype(np.float32)
    model = mlp(20, 128, 6, 2, dropout=0.5)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)
    lines = ["$ python train.py"]
    rows = []
    for ep in range(1, 16):
        tl, ta = train_epoch(model, opt, X[ti], y[ti], 128, g)
        vl, va = evaluate(model, X[vi], y[vi])
        rows.append((ep, tl, ta, vl, va))
        lines.append(f"{ep:02d}  train_loss={tl:.4f} train_acc={ta:.4f}  val_loss={vl:.4f} val_acc={va:.4f}")
    lo = sum(1 for r in rows if r[3] < r[1])
    turns = [
        ("Greta", "Right, so, um, I'm recording this so Paul can listen later. Paul, this is about the wells classifier."),
        ("Greta", f"So the thing I'm worried about: val loss is lower than train loss basically the whole run. Like epoch one train is {say_dec(rows[0][1], 2, True)} and val is {say_dec(rows[0][3], 2, True)}, and at the end it's {say_dec(rows[-1][1], 2, True)} versus {say_dec(rows[-1][3], 2, True)}. And val accuracy is a bit higher than train accuracy too, {say_pct(rows[-1][4])} versus {say_pct(rows[-1][2])}."),
        ("Tariq", "Is that bad?"),
        ("Greta", "Well, everyone says if val is better than train you've got leakage. So I, I'm a bit paranoid. The split is a random permutation, eighty twenty, and I compute the normalisation on the train part only. I put the script and the log in the folder."),
        ("Tariq", "Okay. Paul, can you check whether this is a leak or whether we're fine?"),
    ]
    text, _ = transcript(["Recording transcript — wells classifier", "Transcribed automatically; speakers: Greta, Tariq · {DURATION}"], turns, start=4)
    symptom = "Val loss is lower than train loss (and val accuracy slightly higher) for the whole run; everyone says that means leakage, so is this a leak or are we fine?"
    how = (f"Nothing planted: a clean random 80/20 split with train-only normalisation. Train loss is the running average under Dropout(0.5) while val is measured in eval mode, so val loss is below train loss in {lo}/15 epochs; "
           f"val acc is a plausible {rows[-1][4]:.3f} (not near-perfect) and both curves improve together.")
    return {"transcript.txt": text, "train.py": TRAIN11, "train_output.txt": "\n".join(lines)}, {"truth": "healthy", "symptom": symptom, "how": how}


# ---------------------------------------------------------------- run12: healthy (is it done?)
def run12():
    torch.manual_seed(12); g = np.random.default_rng(1212)
    X, y = gmm_data(18000, 24, 10, seed=121, sep=1.8)
    model = mlp(24, 64, 10, 2)
    E = 20
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
    sch = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=E)
    rows = []
    for ep in range(1, E + 1):
        tl, ta = train_epoch(model, opt, X[:15000], y[:15000], 128, g)
        vl, va = evaluate(model, X[15000:], y[15000:])
        rows.append((ep, tl, vl, va, opt.param_groups[0]["lr"]))
        sch.step()
    chat = ["Zoom chat:", "Ravi: last few epochs"] + \
        [f"  ep {e:2d}  lr {lr:.1e}  train {a:.4f}  val {b:.4f}  val_acc {c:.4f}" for e, a, b, c, lr in rows[-5:]]
    best = max(rows, key=lambda r: r[3])
    turns = [
        ("Ravi", f"Uh, quick one from me. The ten-class model finished overnight, twenty epochs with cosine. Train loss went from {say_dec(rows[0][1], 1, True)} to {say_dec(rows[-1][1], 2, True)}, val loss is {say_dec(rows[-1][2], 2, True)}, val accuracy {say_pct(rows[-1][3])}."),
        ("Ravi", f"Val kind of flattened out for the last few epochs, it's, like, wiggling in the third decimal. Best was {say_pct_dec(best[3])} at epoch {say_int(best[0])}. Is it, um, is that fine to stop there, or should I double the epochs? I don't want to hog the queue if it's done."),
        ("Ming", "Pasting the tail?"),
        ("Ravi", "Yeah, in the chat."),
    ]
    text, _ = transcript(["Stand-up — auto transcript", "Speakers: Ming, Ravi, +4 · {DURATION}"], turns, start=301)
    symptom = "The ten-class model finished 20 epochs with cosine and val has flattened in the last epochs; is it fine to stop there or should I double the epochs?"
    how = (f"Nothing planted: a normal run with cosine decay to ~0; train loss {rows[0][1]:.3f}->{rows[-1][1]:.3f}, val loss {rows[-1][2]:.3f}, val acc {rows[-1][3]:.3f}, flat at the end because the lr has annealed, "
           "with a small train/val gap and no val rise.")
    return {"transcript.txt": text, "chat.txt": "\n".join(chat)}, {"truth": "healthy", "symptom": symptom, "how": how}


ALL = [("run07", run07), ("run08", run08), ("run09", run09), ("run10", run10), ("run11", run11), ("run12", run12)]
