"""run04: Hindi GitHub issue; per-batch std over a last batch of size 1."""
import warnings
import numpy as np, torch, torch.nn as nn
from .common import *

RUN = "run04"
USER_PATH = "/home/aarav/kampan-clf/train.py"

TRAIN_PY = dedent('''
import argparse
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class SensorNet(nn.Module):
    def __init__(self, n_feat, n_cls):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_feat, 64), nn.ReLU(),
            nn.Linear(64, 64), nn.ReLU(),
            nn.Linear(64, n_cls),
        )

    def forward(self, x):
        # sensors have very different ranges (mm/s, g, degC) -> standardise every batch
        x = (x - x.mean(dim=0)) / x.std(dim=0)
        return self.net(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--bs", type=int, default=64)
    args = ap.parse_args()
    torch.manual_seed(0)

    tr = np.load("data/kampan_train.npz")
    va = np.load("data/kampan_val.npz")
    train_ds = TensorDataset(torch.tensor(tr["X"]), torch.tensor(tr["y"]))
    Xv, yv = torch.tensor(va["X"]), torch.tensor(va["y"])
    loader = DataLoader(train_ds, batch_size=args.bs, shuffle=True)
    print(f"train samples: {len(train_ds)}  val samples: {len(Xv)}  batches/epoch: {len(loader)}")

    model = SensorNet(tr["X"].shape[1], 3)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    crit = nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        model.train()
        total = 0.0
        for i, (xb, yb) in enumerate(loader):
            loss = crit(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            if (i + 1) % 4 == 0 or i + 1 == len(loader):
                print(f"Epoch [{epoch + 1}/{args.epochs}] Step [{i + 1}/{len(loader)}] Loss: {loss.item():.4f}")
        model.eval()
        with torch.no_grad():
            acc = (model(Xv).argmax(1) == yv).float().mean().item()
        print(f"Epoch {epoch + 1} avg loss: {total / len(loader):.4f} | val acc: {acc:.4f}")


if __name__ == "__main__":
    main()
''')


class SensorNet(nn.Module):
    def __init__(self, n_feat, n_cls):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_feat, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, n_cls))

    def forward(self, x):
        x = (x - x.mean(dim=0)) / x.std(dim=0)
        return self.net(x)


def train(X, y, Xv, yv, lr, epochs, bs=64):
    torch.manual_seed(0)
    model = SensorNet(X.shape[1], 3)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    crit = nn.CrossEntropyLoss()
    nb = (len(X) + bs - 1) // bs
    out, warned, first_nan = [], None, None
    out.append(f"train samples: {len(X)}  val samples: {len(Xv)}  batches/epoch: {nb}")
    for ep in range(epochs):
        model.train(); total = 0.0
        perm = torch.randperm(len(X))
        for i in range(nb):
            b = perm[i * bs:(i + 1) * bs]
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                loss = crit(model(X[b]), y[b])
            if w and warned is None:
                warned = w[0]
                out.append(("WARN", str(w[0].message), w[0].category.__name__))
            opt.zero_grad(); loss.backward(); opt.step()
            total += loss.item()
            if first_nan is None and not torch.isfinite(loss):
                first_nan = (ep + 1, i + 1, len(b))
            if (i + 1) % 4 == 0 or i + 1 == nb:
                out.append(f"Epoch [{ep + 1}/{epochs}] Step [{i + 1}/{nb}] Loss: {loss.item():.4f}")
        model.eval()
        with torch.no_grad():
            acc = (model(Xv).argmax(1) == yv).float().mean().item()
        out.append(f"Epoch {ep + 1} avg loss: {total / nb:.4f} | val acc: {acc:.4f}")
    return out, first_nan


def render(out, lr):
    lineno, src = line_of(TRAIN_PY, "x = (x - x.mean(dim=0)) / x.std(dim=0)")
    res = [f"(kampan) aarav@ws-02:~/kampan-clf$ python train.py --lr {lr:g} 2>&1 | tee logs/run_lr{lr:g}.log"]
    for o in out:
        if isinstance(o, tuple):
            res.append(f"{USER_PATH}:{lineno}: {o[2]}: {o[1]}")
            res.append(f"  {src}")
        else:
            res.append(o)
    return "\n".join(res)


def gen():
    rng = seed_all(404)
    d, k = 18, 3
    X, y, cents = make_clf(rng, 1025, d, k, sep=0.8, sub=2)
    Xv, yv = sample_from(rng, cents, 300)
    scale = np.exp(rng.uniform(-2, 4, d)).astype(np.float32)  # raw sensor units
    off = rng.normal(0, 20, d).astype(np.float32)
    X = X * scale + off; Xv = Xv * scale + off
    X, y, Xv, yv = map(torch.from_numpy, (X, y, Xv, yv))
    out1, nan1 = train(X, y, Xv, yv, 1e-3, 20)
    out2, nan2 = train(X, y, Xv, yv, 1e-4, 3)
    assert nan1 == (1, 17, 1) and nan2 == (1, 17, 1), (nan1, nan2)
    log1 = render(out1, 1e-3)
    write(RUN, "logs/run_lr0.001.log", log1)
    write(RUN, "train.py", TRAIN_PY)
    ep1 = [o for o in out1 if isinstance(o, str)]
    good = [o for o in ep1 if o.startswith("Epoch [1/20] Step [16/17]")][0]
    bad = [o for o in out2 if isinstance(o, str) and o.startswith("Epoch 1 avg")][0]
    issue = "\n".join([
        "## पहले epoch के आख़िरी step पर loss `nan` हो जाता है, lr कम करने से भी फ़र्क़ नहीं पड़ा  #27",
        "",
        "**aarav-iitk** opened this issue on Apr 2, 2024 · 0 comments",
        "",
        "नमस्ते 🙏",
        "",
        "मैं अपने repo में vibration sensors (18 features, 3 classes: healthy / imbalance / bearing) का classifier train कर रहा हूँ।",
        "पहला epoch ठीक चलता है, loss घटता है:",
        "",
        "```",
        good,
        "```",
        "",
        "लेकिन ठीक उसी epoch के आख़िरी step पर loss `nan` हो जाता है और उसके बाद सब कुछ `nan` रहता है, val acc भी अटक जाती है।",
        "मुझे लगा learning rate ज़्यादा है और gradients explode हो रहे हैं, इसलिए `--lr 1e-4` भी try किया — वही हाल, फिर से",
        "epoch 1 के आख़िरी step पर nan:",
        "",
        "```",
        bad,
        "```",
        "",
        "क्या gradient clipping लगाना पड़ेगा? या Adam की जगह SGD लूँ? पूरा log (`logs/run_lr0.001.log`) और `train.py` attach कर रहा हूँ।",
        "",
        "**Environment:** Ubuntu 22.04, Python 3.11, torch 2.13.0 (CPU)",
    ])
    write(RUN, "issue.md", issue)
    symptom = ("पहले epoch के आख़िरी step पर loss nan हो जाता है; मुझे लगा learning rate ज़्यादा है, पर lr कम करने से भी फ़र्क़ नहीं पड़ा।")
    how = ("SensorNet.forward standardises each batch with x.std(dim=0); 1025 samples with batch 64 leave a last batch of 1 sample, "
           "whose std is NaN ('std(): degrees of freedom is <= 0' warning), so the loss turns NaN at step 17/17 of epoch 1 and the weights stay NaN, independent of lr.")
    return dict(truth="zero_variance_statistic", symptom=symptom, how=how)
