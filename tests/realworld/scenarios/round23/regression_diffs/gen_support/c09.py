"""case c09: a new init_weights() draws every Linear weight from N(0, 1) in a deep ReLU MLP."""
import os

import numpy as np

from common import apply_edits, git_diff, make_task, run_script, save, write_project

MODEL_BEFORE = '''import torch.nn as nn


class ResidualFreeMLP(nn.Module):
    """Plain deep MLP used as the tabular baseline."""

    def __init__(self, d_in, n_classes, width=256, depth=6):
        super().__init__()
        layers, d = [], d_in
        for _ in range(depth):
            layers += [nn.Linear(d, width), nn.ReLU()]
            d = width
        self.body = nn.Sequential(*layers)
        self.out = nn.Linear(width, n_classes)

    def forward(self, x):
        return self.out(self.body(x))
'''

EDITS = [
    ("model.py", '''        self.out = nn.Linear(width, n_classes)

    def forward''', '''        self.out = nn.Linear(width, n_classes)
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(m):
        # explicit init so results don't depend on torch's default (which changed between versions)
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, mean=0.0, std=1.0)
            nn.init.zeros_(m.bias)

    def forward'''),
]

TRAIN = '''import json
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from model import ResidualFreeMLP

torch.manual_seed(2024)
cfg = {"lr": 5e-4, "epochs": 6, "batch_size": 128, "width": 256, "depth": 6, "log_every": 20}
print(json.dumps(cfg))

d = np.load("data/churn.npz")
tr = DataLoader(TensorDataset(torch.tensor(d["xtr"]), torch.tensor(d["ytr"])), batch_size=cfg["batch_size"], shuffle=True)
va = DataLoader(TensorDataset(torch.tensor(d["xva"]), torch.tensor(d["yva"])), batch_size=1024)
model = ResidualFreeMLP(d["xtr"].shape[1], 4, cfg["width"], cfg["depth"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
step = 0
for epoch in range(cfg["epochs"]):
    model.train()
    for x, y in tr:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
        opt.step()
        if step % cfg["log_every"] == 0:
            print({"step": step, "loss": round(loss.item(), 4), "grad_norm": float(f"{gn:.4g}"),
                   "lr": cfg["lr"], "epoch": round(step / len(tr), 2)})
        step += 1
    model.eval()
    with torch.no_grad():
        tot = n = correct = 0
        for x, y in va:
            out = model(x)
            tot += nn.functional.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(1) == y).sum().item()
            n += len(y)
    print({"eval_loss": round(tot / n, 4), "eval_acc": round(correct / n, 4), "epoch": epoch + 1})
'''


def build(out):
    x, y = make_task(909, 7000, d=20, k=4, sep=1.2, latent=10)
    data = dict(xtr=x[:6000], ytr=y[:6000], xva=x[6000:], yva=y[6000:])
    before = {"model.py": MODEL_BEFORE, "train.py": TRAIN}
    after = apply_edits(before, EDITS)
    logs = {}
    for tag, files in [("before", before), ("after", after)]:
        wd = write_project("c09_" + tag, files)
        os.makedirs(os.path.join(wd, "data"))
        np.savez(os.path.join(wd, "data/churn.npz"), **data)
        text, exc = run_script(wd, "train.py")
        assert exc is None, exc
        logs[tag] = text
    show = ('commit c07e51a9b3d24f8e6a1b5c9d0e2f7a3b4c8d6e10\n'
            'Author: R. Iyer <riyer@analytics.internal>\n'
            'Date:   Wed Jan 17 10:22:51 2024 +0530\n\n'
            '    model: explicit weight init for reproducibility across torch versions\n\n'
            + git_diff(before, after, paths=["model.py"]))
    import ast
    first = lambda t: ast.literal_eval([l for l in t.splitlines() if l.startswith("{'step': 0,")][0])["loss"]
    last_acc = lambda t: ast.literal_eval([l for l in t.splitlines() if l.startswith("{'eval_loss'")][-1])["eval_acc"]
    issue = f'''**[bug] churn baseline: loss enormous after model.py change, accuracy way down**

Since c07e51a the tabular baseline trains terribly. Step-0 loss is {first(logs["after"]):.3g} instead of {first(logs["before"]):.2f}
and it never gets anywhere near where it was; final eval accuracy {last_acc(logs["after"])} vs {last_acc(logs["before"])} before. Same data, same seed,
same config. Logs: `logs/before_c07e51a.txt` and `logs/after_c07e51a.txt`. Commit is in `c07e51a.show`.

Not sure where to look, the commit looked harmless to me.
'''
    save(out, {
        "issue.md": issue,
        "c07e51a.show": show,
        "logs/before_c07e51a.txt": "$ python train.py\n" + logs["before"],
        "logs/after_c07e51a.txt": "$ python train.py\n" + logs["after"],
    })
    return {
        "truth": "bad_initialization",
        "symptom": "Since the model.py change the step-0 loss is in the millions and eval accuracy is far below the "
                   "previous run; not sure where to look.",
        "how": "The commit adds _init_weights drawing every Linear weight from N(0, 1) in a 6-layer width-256 ReLU "
               "MLP, so activations grow ~sqrt(width/2) per layer: the loss is huge from step 0 with huge grad norms "
               "and stays far above the default-init run.",
    }, logs
