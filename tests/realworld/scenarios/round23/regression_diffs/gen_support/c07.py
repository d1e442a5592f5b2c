"""case c07: f1_score() rewritten with a confusion matrix; pooled (micro) became per-class mean (macro)."""
import datetime as dt
import hashlib
import os
import shutil

import numpy as np

from common import apply_edits, git_diff, make_task, retime, run_script, save, write_project

METRICS_BEFORE = '''import torch


def accuracy(preds: torch.Tensor, targets: torch.Tensor) -> float:
    return (preds == targets).float().mean().item()


def f1_score(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> float:
    """F1 over the whole eval set (TP/FP/FN pooled over classes)."""
    tp = fp = fn = 0
    for c in range(num_classes):
        p = preds == c
        t = targets == c
        tp += (p & t).sum().item()
        fp += (p & ~t).sum().item()
        fn += (~p & t).sum().item()
    return 2 * tp / max(2 * tp + fp + fn, 1)
'''

EDITS = [
    ("metrics.py", '''def f1_score(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> float:
    """F1 over the whole eval set (TP/FP/FN pooled over classes)."""
    tp = fp = fn = 0
    for c in range(num_classes):
        p = preds == c
        t = targets == c
        tp += (p & t).sum().item()
        fp += (p & ~t).sum().item()
        fn += (~p & t).sum().item()
    return 2 * tp / max(2 * tp + fp + fn, 1)
''', '''def confusion_matrix(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> torch.Tensor:
    idx = targets * num_classes + preds
    return torch.bincount(idx, minlength=num_classes ** 2).reshape(num_classes, num_classes)


def f1_score(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> float:
    """F1 over the whole eval set, vectorised via the confusion matrix."""
    cm = confusion_matrix(preds, targets, num_classes).float()
    tp = cm.diag()
    fp = cm.sum(0) - tp
    fn = cm.sum(1) - tp
    f1 = 2 * tp / (2 * tp + fp + fn).clamp(min=1)
    return f1.mean().item()
'''),
]

TRAIN = '''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(11)
d = np.load("data/tickets_train.npz")
dl = DataLoader(TensorDataset(torch.tensor(d["x"]), torch.tensor(d["y"])), batch_size=64, shuffle=True)
model = nn.Sequential(nn.Linear(d["x"].shape[1], 96), nn.ReLU(), nn.Linear(96, 96), nn.ReLU(), nn.Linear(96, 7))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(6):
    for x, y in dl:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
torch.save(model.state_dict(), "ckpt/router_v14.pt")
'''

EVAL = '''import argparse
import hashlib
import logging

import numpy as np
import torch
import torch.nn as nn

from metrics import accuracy, f1_score

logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(message)s")
log = logging.getLogger("nightly_eval")

ap = argparse.ArgumentParser()
ap.add_argument("--ckpt", default="ckpt/router_v14.pt")
ap.add_argument("--data", default="data/tickets_holdout.npz")
args = ap.parse_args()

sha = hashlib.sha256(open(args.ckpt, "rb").read()).hexdigest()[:12]
d = np.load(args.data)
x, y = torch.tensor(d["x"]), torch.tensor(d["y"])
model = nn.Sequential(nn.Linear(x.shape[1], 96), nn.ReLU(), nn.Linear(96, 96), nn.ReLU(), nn.Linear(96, 7))
model.load_state_dict(torch.load(args.ckpt))
model.eval()
log.info("checkpoint %s (sha256 %s)", args.ckpt, sha)
log.info("holdout %s: %d tickets, label counts %s", args.data, len(y), np.bincount(d["y"], minlength=7).tolist())
with torch.no_grad():
    logits = model(x)
loss = nn.functional.cross_entropy(logits, y).item()
preds = logits.argmax(1)
log.info("holdout loss %.4f", loss)
log.info("holdout f1 %.4f", f1_score(preds, y, 7))
log.info("prediction counts %s", torch.bincount(preds, minlength=7).tolist())
'''


def build(out):
    probs = [0.55, 0.2, 0.1, 0.06, 0.04, 0.03, 0.02]
    x, y = make_task(707, 9000, d=30, k=7, sep=0.75, latent=12, class_probs=probs)
    before = {"metrics.py": METRICS_BEFORE, "evaluate.py": EVAL, "train.py": TRAIN}
    after = apply_edits(before, EDITS)
    # one real training run produces the checkpoint both evaluations use
    wd = write_project("c07_train", before)
    os.makedirs(os.path.join(wd, "data"))
    os.makedirs(os.path.join(wd, "ckpt"))
    np.savez(os.path.join(wd, "data/tickets_train.npz"), x=x[:6500], y=y[:6500])
    np.savez(os.path.join(wd, "data/tickets_holdout.npz"), x=x[6500:], y=y[6500:])
    text, exc = run_script(wd, "train.py")
    assert exc is None, exc
    logs = {}
    for tag, files in [("before", before), ("after", after)]:
        wd2 = write_project("c07_" + tag, files)
        shutil.copytree(os.path.join(wd, "data"), os.path.join(wd2, "data"))
        shutil.copytree(os.path.join(wd, "ckpt"), os.path.join(wd2, "ckpt"))
        text, exc = run_script(wd2, "evaluate.py")
        assert exc is None, exc
        logs[tag] = text
    show = ('commit 5d2a7f90e1c84b3a6f0e9d7c2b1a08f4e6d3c9b1\n'
            'Author: Sam Whitfield <sam.w@helpdesk-ml.io>\n'
            'Date:   Mon Jun 3 16:47:02 2024 -0700\n\n'
            '    metrics: vectorise f1_score with a confusion matrix (#412)\n\n'
            '    ~40x faster on the full holdout.\n\n'
            + git_diff(before, after))
    f1b = float(logs["before"].split("holdout f1 ")[1].split()[0])
    f1a = float(logs["after"].split("holdout f1 ")[1].split()[0])
    issue = f'''# Nightly eval: holdout F1 dropped {f1b:.2f} -> {f1a:.2f} overnight

The nightly eval of the ticket router (`router_v14`) went from **{f1b:.4f}** (Jun 3) to **{f1a:.4f}** (Jun 4).
Nobody retrained or redeployed anything that I know of. The only merge between the two runs was #412
(`sw/faster-metrics`, `git show` in `pr412.txt`).

Logs of both nightly runs are attached (`nightly/2024-06-03.log`, `nightly/2024-06-04.log`).

Did the model actually get worse? I can't tell from the logs what changed.

cc @sam-w @ml-oncall
'''
    save(out, {
        "issue.md": issue,
        "pr412.txt": show,
        "nightly/2024-06-03.log": "+ python evaluate.py --ckpt ckpt/router_v14.pt\n"
                                  + retime(logs["before"], dt.datetime(2024, 6, 3, 2, 0, 14)),
        "nightly/2024-06-04.log": "+ python evaluate.py --ckpt ckpt/router_v14.pt\n"
                                  + retime(logs["after"], dt.datetime(2024, 6, 4, 2, 0, 9)),
    })
    return {
        "truth": "metric_changed",
        "symptom": "The nightly holdout F1 of the ticket router dropped sharply overnight although nobody retrained "
                   "or redeployed; did the model actually get worse?",
        "how": "PR #412 rewrote f1_score with a confusion matrix and now returns the mean of per-class F1 (macro) "
               "instead of the pooled (micro) F1; on the imbalanced holdout the same checkpoint (same sha, same loss, "
               "same prediction counts) scores much lower.",
    }, logs
