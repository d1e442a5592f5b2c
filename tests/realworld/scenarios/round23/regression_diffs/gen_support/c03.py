"""case c03: a PR makes the model head end in nn.Softmax while training keeps CrossEntropyLoss."""
import os

import numpy as np

from common import apply_edits, diffstat, git_diff, install_fake_wandb, make_task, run_script, save, wandb_csv, write_project

TRAIN_BEFORE = '''"""Train the intent classifier on pre-computed sentence embeddings."""
import argparse

import numpy as np
import torch
import torch.nn as nn
import wandb
from torch.utils.data import DataLoader, TensorDataset


class IntentClassifier(nn.Module):
    def __init__(self, emb_dim, n_intents, hidden=128, p_drop=0.1):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(emb_dim, hidden), nn.ReLU(), nn.Dropout(p_drop),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(p_drop),
        )
        self.head = nn.Linear(hidden, n_intents)

    def forward(self, x):
        return self.head(self.body(x))


def run_epoch(model, loader, criterion, optimizer=None):
    train = optimizer is not None
    model.train(train)
    tot, correct, n = 0.0, 0, 0
    with torch.set_grad_enabled(train):
        for emb, label in loader:
            out = model(emb)
            loss = criterion(out, label)
            if train:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            tot += loss.item() * len(label)
            correct += (out.argmax(1) == label).sum().item()
            n += len(label)
    return tot / n, correct / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", default=None)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--bs", type=int, default=64)
    args = ap.parse_args()
    torch.manual_seed(0)

    d = np.load("data/intents_emb.npz")
    train = TensorDataset(torch.from_numpy(d["train_x"]), torch.from_numpy(d["train_y"]))
    val = TensorDataset(torch.from_numpy(d["val_x"]), torch.from_numpy(d["val_y"]))
    train_dl = DataLoader(train, batch_size=args.bs, shuffle=True)
    val_dl = DataLoader(val, batch_size=256)

    model = IntentClassifier(d["train_x"].shape[1], int(d["n_intents"]))
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    wandb.init(project="intent-clf", name=args.name, config=vars(args))

    for epoch in range(args.epochs):
        tr_loss, tr_acc = run_epoch(model, train_dl, criterion, optimizer)
        va_loss, va_acc = run_epoch(model, val_dl, criterion)
        wandb.log({"train/loss": tr_loss, "train/acc": tr_acc, "val/loss": va_loss, "val/acc": va_acc,
                   "epoch": epoch})
        print(f"epoch {epoch:2d}  train {tr_loss:.4f} / {tr_acc:.3f}   val {va_loss:.4f} / {va_acc:.3f}")
    torch.save(model.state_dict(), "intent_clf.pt")
    wandb.finish()


if __name__ == "__main__":
    main()
'''

EDITS = [
    ("train.py", '''        self.head = nn.Linear(hidden, n_intents)

    def forward(self, x):
        return self.head(self.body(x))
''', '''        # return calibrated probabilities so the serving side gets scores in [0, 1]
        self.head = nn.Sequential(nn.Linear(hidden, n_intents), nn.Softmax(dim=-1))

    def forward(self, x):
        return self.head(self.body(x))

    @torch.no_grad()
    def predict_proba(self, x):
        self.eval()
        return self.forward(x)
'''),
]


def build(out):
    x, y = make_task(303, 6000, d=48, k=12, sep=1.1, latent=16)
    data = dict(train_x=x[:5000], train_y=y[:5000], val_x=x[5000:], val_y=y[5000:], n_intents=12)
    before = {"train.py": TRAIN_BEFORE}
    after = apply_edits(before, EDITS)
    wb = install_fake_wandb()
    logs = {}
    for tag, files, name in [("before", before, "main-0412"), ("after", after, "pr57-probs")]:
        wd = write_project("c03_" + tag, files)
        os.makedirs(os.path.join(wd, "data"))
        np.savez(os.path.join(wd, "data/intents_emb.npz"), **data)
        text, exc = run_script(wd, "train.py", ["--name", name])
        assert exc is None, exc
        logs[tag] = text
    runs = wb.runs[-2:]
    csvs = {k: wandb_csv(runs, [k]) for k in ["train/loss", "val/loss", "val/acc"]}
    patch = ('From 8b7e0c4d2a9f1e3b6c5d7a8e9f0b1c2d3e4f5a6b Mon Sep 17 00:00:00 2001\n'
             'From: Dana Okafor <dana.okafor@example.org>\n'
             'Date: Mon, 15 Apr 2024 09:12:44 +0000\n'
             'Subject: [PATCH] model: output probabilities, add predict_proba()\n\n'
             'Serving was applying its own softmax and the API team asked for probabilities\n'
             'straight out of the model. Training code unchanged.\n'
             '---\n' + diffstat(before, after) + '\n'
             + git_diff(before, after) + '--\n2.44.0\n')
    fb = wb.runs[-2].summary
    fa = wb.runs[-1].summary
    issue = f'''### Intent classifier: training much worse since PR #57

After #57 got merged our nightly retrain of the intent classifier got clearly worse.
Before: train loss goes down to ~{fb["train/loss"]:.2f}, val acc ~{fb["val/acc"]:.3f}.
After: train loss crawls and stalls around ~{fa["train/loss"]:.2f}, val acc {fa["val/acc"]:.3f}.

#57 was only supposed to change what the model *returns* (probabilities for the API), training code is
untouched: same data snapshot, same seed, same lr, same number of epochs. Patch is attached
(`0001-model-output-probabilities-add-predict_proba.patch`) and `train.py` is the current main.

W&B panels exported as CSV are in `wandb/` (runs `main-0412` = last nightly before the merge,
`pr57-probs` = after). Is this some seed/luck thing or did we change something real?
'''
    save(out, {
        "issue.md": issue,
        "0001-model-output-probabilities-add-predict_proba.patch": patch,
        "train.py": after["train.py"],
        "wandb/train_loss.csv": csvs["train/loss"],
        "wandb/val_loss.csv": csvs["val/loss"],
        "wandb/val_acc.csv": csvs["val/acc"],
    })
    return {
        "truth": "double_softmax",
        "symptom": "Since the PR that makes the model return probabilities, the nightly retrain stalls at a much higher "
                   "loss and val accuracy dropped; training code is unchanged. Luck, or something real?",
        "how": "The PR appends nn.Softmax(dim=-1) to the head while training still uses nn.CrossEntropyLoss on the "
               "output, so the loss is computed on log-softmax of probabilities: train loss floors far above the "
               "old run's and val accuracy drops.",
    }, logs
