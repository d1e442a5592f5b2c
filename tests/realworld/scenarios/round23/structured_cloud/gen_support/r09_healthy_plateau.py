"""Thin run: a question with 8 structlog lines pasted from `kubectl logs`. Healthy: cosine schedule decays the
lr to ~0, so the loss flattens in the last epochs; val tracks train and does not rise."""
import datetime as dt

import numpy as np
import torch
import torch.nn as nn

from .common import Clock, r, seed_all, write, jdump
from .r01_overfit import make_data

ARGS = dict(epochs=14, lr=2e-3, batch_size=128, weight_decay=0.01)


def make(out):
    seed_all(909)
    X, y = make_data(41, 12000, 20, 4)
    Xt, yt = torch.tensor(X), torch.tensor(y)
    tr_x, tr_y, va_x, va_y = Xt[:10000], yt[:10000], Xt[10000:], yt[10000:]
    model = nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 4))
    opt = torch.optim.AdamW(model.parameters(), lr=ARGS["lr"], weight_decay=ARGS["weight_decay"])
    total = ARGS["epochs"] * ((len(tr_x) + ARGS["batch_size"] - 1) // ARGS["batch_size"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total)
    clk = Clock(dt.datetime(2025, 1, 16, 3, 12, 40, 118000))
    lines = []
    hist = []
    step = 0
    for ep in range(1, ARGS["epochs"] + 1):
        model.train()
        perm = torch.randperm(len(tr_x))
        tl = 0.0
        for i in range(0, len(tr_x), ARGS["batch_size"]):
            b = perm[i:i + ARGS["batch_size"]]
            loss = nn.functional.cross_entropy(model(tr_x[b]), tr_y[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            tl += loss.item() * len(b)
        model.eval()
        with torch.no_grad():
            o = model(va_x)
            vl = nn.functional.cross_entropy(o, va_y).item()
            va = (o.argmax(1) == va_y).float().mean().item()
        t = clk.now()
        rec = {"epoch": ep, "step": step, "train_loss": r(tl / len(tr_x)), "val_loss": r(vl), "val_acc": r(va),
               "lr": float(f"{opt.param_groups[0]['lr']:.3e}"), "event": "epoch_end", "level": "info",
               "timestamp": t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}Z"}
        lines.append(jdump(rec))
        hist.append((ep, tl / len(tr_x), vl, va, opt.param_groups[0]["lr"]))
    shown = lines[-8:]
    write(f"{out}/question.md", f"""Is my run stuck? Loss has basically stopped moving for the last several epochs. This is the tail of
`kubectl logs risk-clf-train-worker-0 -n ml` (AdamW lr {ARGS['lr']}, cosine schedule, {ARGS['epochs']} epochs, bs {ARGS['batch_size']}):

```
""" + "\n".join(shown) + """
```

Should I restart with a higher lr or a bigger model, or is something broken?
""")
    return {
        "truth": "healthy",
        "symptom": "Is my run stuck? The loss has basically stopped moving for the last several epochs. Should I restart with a higher lr or a bigger model, or is something broken?",
        "how": f"Nothing planted: AdamW with a per-step cosine schedule to 0 over {ARGS['epochs']} epochs; the flat tail (train {hist[-1][1]:.4f}, "
               f"val {hist[-1][2]:.4f}, val_acc {hist[-1][3]:.3f}) is the schedule annealing (lr {hist[-1][4]:.1e} at the end); val loss does not rise.",
        "_hist": hist,
    }
