"""case c06: validation refactored into evaluate() which never switches the model to eval mode."""
import os

import numpy as np

from common import apply_edits, git_diff, make_task, run_script, save, write_project

TRAIN_BEFORE = '''import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 7
EPOCHS = 14
BATCH = 64
LR = 2e-3

torch.manual_seed(SEED)


class Net(nn.Module):
    def __init__(self, d_in, n_cls):
        super().__init__()
        self.features = nn.Sequential(
            nn.Linear(d_in, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(256, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
        )
        self.classifier = nn.Linear(256, n_cls)

    def forward(self, x):
        return self.classifier(self.features(x))


data = np.load("data/spectra.npz")
train_dl = DataLoader(TensorDataset(torch.tensor(data["xtr"]), torch.tensor(data["ytr"])),
                      batch_size=BATCH, shuffle=True, drop_last=True)
val_dl = DataLoader(TensorDataset(torch.tensor(data["xva"]), torch.tensor(data["yva"])), batch_size=32)

model = Net(data["xtr"].shape[1], int(data["ytr"].max()) + 1)
opt = torch.optim.Adam(model.parameters(), lr=LR)
crit = nn.CrossEntropyLoss()
best = 0.0

for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    model.train()
    tot, n = 0.0, 0
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
        tot += loss.item() * len(yb)
        n += len(yb)
    train_loss = tot / n

    model.eval()
    vl, correct, m = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in val_dl:
            out = model(xb)
            vl += crit(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            m += len(yb)
    val_loss, val_acc = vl / m, correct / m

    if val_acc > best:
        best = val_acc
        torch.save(model.state_dict(), "best.pt")
    print(f"Epoch {epoch:02d}/{EPOCHS} - {time.time() - t0:.1f}s - loss: {train_loss:.4f} - "
          f"val_loss: {val_loss:.4f} - val_acc: {val_acc:.4f}" + (" *" if best == val_acc else ""))

print(f"best val_acc {best:.4f}")
'''

EDITS = [
    ("train.py", '''data = np.load("data/spectra.npz")''', '''@torch.no_grad()
def evaluate(model, loader, crit):
    total_loss, correct, count = 0.0, 0, 0
    for xb, yb in loader:
        out = model(xb)
        total_loss += crit(out, yb).item() * len(yb)
        correct += (out.argmax(1) == yb).sum().item()
        count += len(yb)
    return total_loss / count, correct / count


data = np.load("data/spectra.npz")'''),
    ("train.py", '''
    model.eval()
    vl, correct, m = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in val_dl:
            out = model(xb)
            vl += crit(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            m += len(yb)
    val_loss, val_acc = vl / m, correct / m
''', '''
    val_loss, val_acc = evaluate(model, val_dl, crit)
'''),
]


def build(out):
    x, y = make_task(606, 6000, d=40, k=7, sep=1.1, latent=14)
    data = dict(xtr=x[:5000], ytr=y[:5000], xva=x[5000:], yva=y[5000:])
    before = {"train.py": TRAIN_BEFORE}
    after = apply_edits(before, EDITS)
    logs = {}
    for tag, files in [("before", before), ("after", after)]:
        wd = write_project("c06_" + tag, files)
        os.makedirs(os.path.join(wd, "data"))
        np.savez(os.path.join(wd, "data/spectra.npz"), **data)
        text, exc = run_script(wd, "train.py")
        assert exc is None, exc
        logs[tag] = text
    diff = git_diff(before, after)
    best_b = logs["before"].strip().splitlines()[-1].split()[-1]
    best_a = logs["after"].strip().splitlines()[-1].split()[-1]
    chat = f'''[Discord · #help-pytorch]

kuba — Today at 14:03
hey, I cleaned up my training script a bit (pulled the validation into an evaluate() function, diff is in
cleanup.diff) and now val accuracy is worse and jumps around a lot from epoch to epoch, best went from
{best_b} to {best_a}. train loss looks basically the same as before. logs: before.log / after.log

kuba — Today at 14:04
with dropout 0.5 already in there I didn't expect overfitting but that's what it looks like?? should I
bump dropout to 0.6 or add weight decay?

mo_n — Today at 14:10
can you post the full script

kuba — Today at 14:11
train.py attached, that's the current one
'''
    save(out, {
        "chat.txt": chat,
        "cleanup.diff": diff,
        "train.py": after["train.py"],
        "before.log": "$ python train.py\n" + logs["before"],
        "after.log": "$ python train.py\n" + logs["after"],
    })
    return {
        "truth": "eval_mode_forgotten",
        "symptom": "After pulling validation into an evaluate() function val accuracy is lower and jumps around "
                   "between epochs while train loss looks the same; looks like overfitting, should I raise dropout?",
        "how": "The new evaluate() runs under no_grad but model.eval() was dropped, so validation runs with "
               "Dropout(0.5) active and BatchNorm using batch-of-32 statistics: val_loss/val_acc are worse and "
               "noisy from the first epoch while the training loss matches the before run.",
    }, logs
