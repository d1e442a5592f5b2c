"""run06: Hebrew GitHub issue; hand-written BCE with log(sigmoid) / log(1 - sigmoid)."""
import numpy as np, torch, torch.nn as nn
from .common import *

RUN = "run06"

TRAIN_PY = dedent('''
import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import f1_score

torch.manual_seed(0)
EPOCHS, BS, LR = 10, 64, 5e-4
TAGS = ["politics", "economy", "security", "sport", "culture", "health", "tech", "local"]

d = np.load("data/articles_emb_he.npz")          # sentence embeddings (32-d, PCA) + 8 binary tags
X, Y = torch.from_numpy(d["X"]), torch.from_numpy(d["Y"]).float()
Xv, Yv = torch.from_numpy(d["Xv"]), torch.from_numpy(d["Yv"]).float()

pos_frac = Y.mean(0)
pos_weight = ((1 - pos_frac) / pos_frac).clamp(max=3.0)   # tags are imbalanced


def weighted_bce(logits, targets):
    probs = torch.sigmoid(logits)
    loss = -(pos_weight * targets * torch.log(probs) + (1 - targets) * torch.log(1 - probs))
    return loss.mean()


model = nn.Sequential(
    nn.Linear(X.shape[1], 256), nn.ReLU(),
    nn.Linear(256, 256), nn.ReLU(),
    nn.Linear(256, len(TAGS)),
)
opt = torch.optim.Adam(model.parameters(), lr=LR)

step = 0
for epoch in range(1, EPOCHS + 1):
    perm = torch.randperm(len(X))
    for i in range(0, len(X), BS):
        idx = perm[i:i + BS]
        loss = weighted_bce(model(X[idx]), Y[idx])
        opt.zero_grad()
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        opt.step()
        step += 1
        if step % 10 == 0:
            print(f"epoch {epoch} step {step:4d} loss {loss.item():.4f} grad_norm {gnorm.item():.3f}")
    with torch.no_grad():
        pv = (torch.sigmoid(model(Xv)) > 0.5).float()
    f1 = f1_score(Yv.numpy(), pv.numpy(), average="micro", zero_division=0)
    print(f"== epoch {epoch} done | val micro-F1 {f1:.4f}")
''')


def micro_f1(y, p):
    tp = (y * p).sum(); fp = ((1 - y) * p).sum(); fn = (y * (1 - p)).sum()
    return float(2 * tp / max(1e-12, 2 * tp + fp + fn))


def gen():
    rng = seed_all(606)
    L, d, n, nv = 8, 32, 4000, 1000
    W = rng.normal(0, 1, (d, L))
    def mk(m):
        X = rng.normal(0, 1, (m, d)).astype(np.float32)
        Z = X @ W + 1.5 * np.sin(2 * X[:, :L])
        return X, Z
    X, Z = mk(n); Xv, Zv = mk(nv)
    thr = np.quantile(Z, 0.75, axis=0)
    Y = (Z > thr).astype(np.float32); Yv = (Zv > thr).astype(np.float32)
    X, Y, Xv, Yv = map(torch.from_numpy, (X, Y, Xv, Yv))
    torch.manual_seed(0)
    pos_frac = Y.mean(0)
    pos_weight = ((1 - pos_frac) / pos_frac).clamp(max=3.0)

    def weighted_bce(logits, targets):
        probs = torch.sigmoid(logits)
        loss = -(pos_weight * targets * torch.log(probs) + (1 - targets) * torch.log(1 - probs))
        return loss.mean()

    model = nn.Sequential(nn.Linear(d, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, L))
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    out = ["(venv) noa@lab-ws3:~/tagger$ python train.py"]
    step, first_bad, maxlogit_before = 0, None, 0.0
    for ep in range(1, 11):
        perm = torch.randperm(n)
        for i in range(0, n, 64):
            idx = perm[i:i + 64]
            logits = model(X[idx])
            loss = weighted_bce(logits, Y[idx])
            opt.zero_grad(); loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
            opt.step(); step += 1
            if first_bad is None:
                if torch.isfinite(loss):
                    maxlogit_before = max(maxlogit_before, logits.abs().max().item())
                else:
                    first_bad = (ep, step, loss.item(), logits.abs().max().item())
            if step % 10 == 0:
                out.append(f"epoch {ep} step {step:4d} loss {loss.item():.4f} grad_norm {gn.item():.3f}")
        with torch.no_grad():
            pv = (torch.sigmoid(model(Xv)) > 0.5).float()
        out.append(f"== epoch {ep} done | val micro-F1 {micro_f1(Yv, pv):.4f}")
    assert first_bad is not None and first_bad[0] >= 3, first_bad
    write(RUN, "train_output.log", "\n".join(out))
    write(RUN, "train.py", TRAIN_PY)
    chk = dedent(f'''
    >>> d = np.load("data/articles_emb_he.npz")
    >>> for k in ["X", "Y", "Xv", "Yv"]:
    ...     a = d[k]; print(k, a.shape, a.dtype, np.isnan(a).sum(), np.isinf(a).sum(), float(np.abs(a).max()))
    ...
    X {tuple(X.shape)} float32 0 0 {float(X.abs().max()):.4f}
    Y {tuple(Y.shape)} float32 0 0 1.0
    Xv {tuple(Xv.shape)} float32 0 0 {float(Xv.abs().max()):.4f}
    Yv {tuple(Yv.shape)} float32 0 0 1.0
    ''')
    # locate the last finite line before the first nan for the issue text
    lines = [l for l in out if l.startswith("epoch ")]
    bad_i = next(i for i, l in enumerate(lines) if "nan" in l or "inf" in l)
    ep_bad = first_bad[0]
    f1s = [l for l in out if l.startswith("== epoch")]
    issue = "\n".join([
        "# Loss נהיה nan פתאום באמצע epoch " + str(ep_bad) + " (multi-label tagger)  #54",
        "",
        "**noa-levi** opened this issue · 0 comments",
        "",
        "היי,",
        "",
        f"אני מאמנת tagger רב-תוויתי (8 תגיות) על embeddings של כתבות. ה-epochs הראשונים נראים מצוין, ה-loss יורד יפה וה-F1 עולה:",
        "",
        "```",
        *[l for l in f1s[:ep_bad - 1]],
        "```",
        "",
        f"ואז באמצע epoch {ep_bad} ה-loss פשוט הופך ל-nan ונשאר ככה עד הסוף:",
        "",
        "```",
        *lines[max(0, bad_i - 3):bad_i + 2],
        "```",
        "",
        "ה-grad_norm לא מתפוצץ לפני זה, ויש לי כבר clip_grad_norm_ עם max_norm=5, אז זה לא נראה לי כמו gradients שמתפוצצים.",
        "החשד שלי הוא שיש דוגמה מקולקלת בדאטה (אולי embedding שנשמר לא טוב) שנופלת בבאץ' הזה. בדקתי את הקובץ ולא מצאתי nan/inf:",
        "",
        "```",
        chk.rstrip(),
        "```",
        "",
        "אבל אולי יש משהו שאני לא רואה? איך מוצאים איזו דוגמה גורמת לזה? מצורפים `train.py` והלוג המלא (`train_output.log`).",
        "",
        "torch 2.13.0, Python 3.11, CPU",
    ])
    write(RUN, "issue.md", issue)
    symptom = ("ה-loss נהיה nan פתאום באמצע epoch " + str(ep_bad) + " אחרי שירד יפה; אני חושדת שיש דוגמה מקולקלת בדאטה, "
               "אבל לא מצאתי nan/inf בקובץ.")
    how = ("The hand-written weighted BCE takes torch.log(sigmoid(z)) and torch.log(1 - sigmoid(z)); once the model is confident "
           f"(|logit| > ~17, 1 - sigmoid rounds to 0 in fp32) log(0) gives inf/0*inf=nan at step {first_bad[1]} (epoch {ep_bad}) with no "
           "grad-norm growth beforehand and clean data; BCEWithLogitsLoss(pos_weight=...) would be stable.")
    return dict(truth="numerical_instability", symptom=symptom, how=how)
