"""run05: predict.py never calls model.eval(): BatchNorm uses batch stats, Dropout stays on."""
import random, datetime as dt
from common import *
from thread import GHIssue, code, details, when
import noise

MODEL_SRC = '''class Net(nn.Module):
    def __init__(self, d_in, n_cls, hidden=128, p=0.3):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
        )
        self.head = nn.Linear(hidden, n_cls)

    def forward(self, x):
        return self.head(self.body(x))
'''

TRAIN_PY = '''import json, joblib
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.preprocessing import StandardScaler
from torch.utils.data import DataLoader, TensorDataset

from model import Net

torch.manual_seed(0)
FEATS = [f"ch{i}" for i in range(16)]
tr = pd.read_csv("data/train.csv"); va = pd.read_csv("data/val.csv")
scaler = StandardScaler().fit(tr[FEATS].values)
joblib.dump(scaler, "artifacts/scaler.joblib")
Xtr = torch.tensor(scaler.transform(tr[FEATS].values), dtype=torch.float32)
Xva = torch.tensor(scaler.transform(va[FEATS].values), dtype=torch.float32)
ytr = torch.tensor(tr["activity"].values); yva = torch.tensor(va["activity"].values)

model = Net(16, 6)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-2)
dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True, drop_last=True)

best = 0.0
for epoch in range(1, 13):
    model.train()
    tot = 0.0
    for xb, yb in dl:
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        tot += loss.item()
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        val_loss = F.cross_entropy(out, yva).item()
        val_acc = (out.argmax(1) == yva).float().mean().item()
    print(f"epoch {epoch:02d} train_loss {tot / len(dl):.4f} val_loss {val_loss:.4f} val_acc {val_acc:.4f}")
    if val_acc > best:
        best = val_acc
        torch.save(model.state_dict(), "artifacts/best.pt")
        print(f"  saved artifacts/best.pt (val_acc {val_acc:.4f})")
'''

PREDICT_PY = '''import argparse, joblib
import numpy as np
import pandas as pd
import torch

from model import Net

p = argparse.ArgumentParser()
p.add_argument("csv")
p.add_argument("--ckpt", default="artifacts/best.pt")
p.add_argument("--bs", type=int, default=16)
p.add_argument("--out", default="preds.csv")
args = p.parse_args()

FEATS = [f"ch{i}" for i in range(16)]
df = pd.read_csv(args.csv)
scaler = joblib.load("artifacts/scaler.joblib")
X = torch.tensor(scaler.transform(df[FEATS].values), dtype=torch.float32)

model = Net(16, 6)
print(model.load_state_dict(torch.load(args.ckpt, map_location="cpu")))

preds = []
with torch.no_grad():
    for i in range(0, len(X), args.bs):
        preds.append(model(X[i:i + args.bs]).argmax(1))
preds = torch.cat(preds).numpy()
df["pred"] = preds
df[["id", "pred"]].to_csv(args.out, index=False)
if "activity" in df:
    print(f"accuracy: {(preds == df['activity'].values).mean():.4f}  (n={len(df)})")
'''


class Net(nn.Module):
    def __init__(self, d_in, n_cls, hidden=128, p=0.3):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p))
        self.head = nn.Linear(hidden, n_cls)

    def forward(self, x):
        return self.head(self.body(x))


def predict(model, X, bs):
    preds = []
    with torch.no_grad():
        for i in range(0, len(X), bs):
            preds.append(model(X[i:i + bs]).argmax(1))
    return torch.cat(preds).numpy()


def build(out):
    r = random.Random(505)
    task = Mixture(16, 6, 81, blobs=3, sigma=0.95)
    Xr, y = task.sample(6000, 82); Xvr, yv = task.sample(1200, 83)
    # raw sensor units (what the CSV holds); the scripts standardise with a scaler fit on train
    rs = np.random.default_rng(84)
    scale, off = rs.uniform(0.2, 40, 16), rs.uniform(-50, 300, 16)
    raw_tr, raw_va = Xr * scale + off, Xvr * scale + off
    mu, sd = raw_tr.mean(0), raw_tr.std(0)
    X = torch.tensor(((raw_tr - mu) / sd).astype(np.float32)); Xv = torch.tensor(((raw_va - mu) / sd).astype(np.float32))
    y, yv = torch.tensor(y), torch.tensor(yv)

    torch.manual_seed(0)
    model = Net(16, 6)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-2)
    g = torch.Generator().manual_seed(0)
    lines, best, best_sd = [], 0.0, None
    for epoch in range(1, 13):
        model.train()
        tot, nb = 0.0, 0
        for xb, yb in batches(X, y, 64, True, g, drop_last=True):
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            tot += loss.item(); nb += 1
        vl, va = evaluate(model, Xv, yv)
        lines.append(f"epoch {epoch:02d} train_loss {tot / nb:.4f} val_loss {vl:.4f} val_acc {va:.4f}")
        if va > best:
            best, best_ep = va, epoch
            best_sd = {k: v.clone() for k, v in model.state_dict().items()}
            lines.append(f"  saved artifacts/best.pt (val_acc {va:.4f})")
    keys = list(best_sd.keys())

    def fresh():
        m = Net(16, 6)
        msg = str(m.load_state_dict({k: v.clone() for k, v in best_sd.items()}))
        return m, msg

    runs = []
    for s in (1234, 98765, 555):
        torch.manual_seed(s)          # unseeded script -> different dropout masks per invocation
        m, msg = fresh()
        runs.append(predict(m, Xv, 16))
    acc = [(p == yv.numpy()).mean() for p in runs]
    diff01 = int((runs[0] != runs[1]).sum())
    # the reporter's try: bigger batch
    torch.manual_seed(4321)
    m, _ = fresh()
    p256 = predict(m, Xv, 256); acc256 = (p256 == yv.numpy()).mean()
    # the reporter's try: float64 everywhere
    torch.manual_seed(2468)
    m, _ = fresh()
    m = m.double()
    p64 = predict(m, Xv.double(), 16); acc64 = (p64 == yv.numpy()).mean()
    # the reporter's try: single sample through the model -> BatchNorm error in train mode
    m, _ = fresh()
    try:
        with torch.no_grad():
            m(Xv[:1])
        bn_err = None
    except ValueError as e:
        bn_err = str(e)

    write(f"{out}/train.py", TRAIN_PY)
    write(f"{out}/model.py", "import torch.nn as nn\n\n\n" + MODEL_SRC)
    write(f"{out}/predict.py", PREDICT_PY)
    write(f"{out}/train_output.txt", "$ python train.py\n" + "\n".join(lines))

    base = dt.datetime(2024, 3, 18, 16, 2)
    iss = GHIssue("hartmann-lab/har-sensors", 31,
                  f"predict.py gives ~{min(acc) * 100:.0f}% on val.csv but training reported {best * 100:.1f}% — is best.pt saved wrong?",
                  "f-hartmann", base, labels=["bug"])
    iss.comment("f-hartmann", base, f"""(Opening this here for the team, but maybe someone outside has seen it.)

`train.py` reports **{best * 100:.2f}% val accuracy** at epoch {best_ep} and saves `artifacts/best.pt`. When I run `predict.py` on the *same* `data/val.csv` I get much less:

{code(f'''$ python predict.py data/val.csv
<All keys matched successfully>
accuracy: {acc[0]:.4f}  (n={len(yv)})''')}

So either the checkpoint that's saved isn't the best one, or something isn't saved (the BatchNorm buffers?). All three files are attached (`train.py`, `model.py`, `predict.py`) plus the training output.

📎 train.py 📎 model.py 📎 predict.py 📎 train_output.txt""")
    iss.comment("jkowal", when(base, hours=1), "torch.save(model.state_dict()) doesn't include the BN running stats unless "
                "you register them as buffers, that's probably it. Save the whole model with `torch.save(model, ...)`.")
    iss.comment("f-hartmann", when(base, hours=2), f"""They are in the state dict as far as I can see:

{code(">>> list(torch.load('artifacts/best.pt').keys())" + chr(10) + str(keys), 'python')}""")
    iss.comment("m-osei", when(base, hours=4), "Are you sure you use the same scaler in both? A different StandardScaler "
                "fit would do exactly that.")
    iss.comment("f-hartmann", when(base, hours=5), "Yes, `predict.py` loads the `scaler.joblib` that `train.py` wrote. "
                "Same file, I checked the mtime.")
    iss.comment("lucas-br", when(base, hours=7), "+1 we have something similar in our ECG repo, exported model scores lower "
                "than in training. Our env:\n\n" + details("collect_env", code(noise.collect_env(r))))
    iss.comment("f-hartmann", when(base, days=1, hours=1), f"""More weirdness: running the exact same command twice gives **different** predictions.

{code(f'''$ python predict.py data/val.csv --out preds_a.csv
<All keys matched successfully>
accuracy: {acc[0]:.4f}  (n={len(yv)})
$ python predict.py data/val.csv --out preds_b.csv
<All keys matched successfully>
accuracy: {acc[1]:.4f}  (n={len(yv)})
$ python -c "import pandas as pd; a=pd.read_csv('preds_a.csv'); b=pd.read_csv('preds_b.csv'); print((a.pred!=b.pred).sum())"
{diff01}''')}

Is `torch.load` non-deterministic somehow? Could this be a float64/float32 thing with the CSV?""")
    iss.comment("jkowal", when(base, days=1, hours=2), "Definitely smells like a dtype thing. Cast everything with `.double()` "
                "in both scripts and compare.")
    iss.comment("f-hartmann", when(base, days=1, hours=6), f"""Tried a few more things:

- `.double()` everywhere (model and inputs): accuracy {acc64:.4f}, so no real difference.
- `--bs 256`: accuracy {acc256:.4f}, better but still not {best * 100:.1f}.
- predicting one sample at a time (`--bs 1`) crashes:

{code(f'''Traceback (most recent call last):
  File "/home/fh/har-sensors/predict.py", line 26, in <module>
    preds.append(model(X[i:i + args.bs]).argmax(1))
  ...
ValueError: {bn_err}''')}

third run with default bs for good measure: {acc[2]:.4f}.""")
    iss.comment("anna-t", when(base, days=2), "Maybe your best.pt gets overwritten by a later epoch? The `if val_acc > best` "
                "looks right, but check the file timestamp against the log.")
    iss.comment("f-hartmann", when(base, days=2, hours=1), f"It was written at the end of epoch {best_ep}, matches the log.")
    iss.comment("lucas-br", when(base, days=3), "for us upgrading torch from 2.1 to 2.3 changed the numbers slightly, "
                "maybe try another version?\n\n" + details("pip freeze", code(noise.pip_freeze(r))))
    write(f"{out}/thread.md", iss.render())
    return {"truth": "eval_mode_forgotten",
            "symptom": f"predict.py gets ~{min(acc) * 100:.0f}% on the same val.csv where training reported {best * 100:.1f}%, "
                       "and running it twice gives different predictions.",
            "how": f"predict.py loads the checkpoint (all keys match) but never calls model.eval(), so BatchNorm uses "
                   f"16-sample batch statistics and Dropout(0.3) stays on: accuracy {acc[0]:.3f}/{acc[1]:.3f}/{acc[2]:.3f} "
                   f"over three calls vs {best:.3f} in train.py's eval-mode validation, {diff01} predictions differ "
                   f"between two calls, and bs=1 raises the BatchNorm training-mode error."}
