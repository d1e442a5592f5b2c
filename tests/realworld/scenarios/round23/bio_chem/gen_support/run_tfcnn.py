"""run09 (healthy): CNN for TF-binding (ChIP-seq peak vs background) on one-hot 101 bp windows, chromosome hold-out.
Validation loss sits below the (dropout-on, running-mean) training loss - benign."""
import os
import shutil

import numpy as np

from common import seed_all, write, rand_dna, run_user_script

TRAIN_PY = r'''"""CTCF ChIP-seq peak classifier: 101 bp one-hot -> 1D CNN. chr8 = validation, chr9 = test."""
import argparse
import csv

import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import roc_auc_score, average_precision_score

LUT = {"A": 0, "C": 1, "G": 2, "T": 3}
VAL_CHROMS, TEST_CHROMS = {"chr8"}, {"chr9"}


def one_hot(seq):
    x = np.zeros((4, len(seq)), dtype=np.float32)
    for i, c in enumerate(seq):
        if c in LUT:
            x[LUT[c], i] = 1.0
    return x


def load(path):
    parts = {"train": ([], []), "val": ([], []), "test": ([], [])}
    with open(path) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            key = "val" if row["chrom"] in VAL_CHROMS else "test" if row["chrom"] in TEST_CHROMS else "train"
            parts[key][0].append(one_hot(row["seq"]))
            parts[key][1].append(float(row["label"]))
    return {k: (torch.tensor(np.stack(x)), torch.tensor(y)) for k, (x, y) in parts.items()}


class CNN(nn.Module):
    def __init__(self, n_filters=32, k=15, hidden=32, p=0.5):
        super().__init__()
        self.conv = nn.Conv1d(4, n_filters, k)
        self.head = nn.Sequential(nn.Dropout(p), nn.Linear(n_filters, hidden), nn.ReLU(), nn.Dropout(p),
                                  nn.Linear(hidden, 1))

    def forward(self, x):
        h = torch.relu(self.conv(x)).max(dim=2).values
        return self.head(h).squeeze(-1)


@torch.no_grad()
def evaluate(model, X, y, lossf):
    model.eval()
    logits = model(X)
    p = torch.sigmoid(logits).numpy()
    return lossf(logits, y).item(), roc_auc_score(y.numpy(), p), average_precision_score(y.numpy(), p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/ctcf_gm12878_101bp.tsv")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--lr", type=float, default=1e-3)
    args = ap.parse_args()
    torch.manual_seed(1)
    d = load(args.data)
    for k, (X, y) in d.items():
        print(f"{k:5s}: {len(y):5d} windows, {int(y.sum()):5d} peaks")
    Xtr, ytr = d["train"]
    model = CNN()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    lossf = nn.BCEWithLogitsLoss()
    best = float("inf")
    for epoch in range(1, args.epochs + 1):
        model.train()
        perm = torch.randperm(len(ytr))
        tot, preds = 0.0, torch.empty(len(ytr))
        for i in range(0, len(ytr), 64):
            idx = perm[i:i + 64]
            opt.zero_grad()
            logits = model(Xtr[idx])
            loss = lossf(logits, ytr[idx])
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
            preds[idx] = logits.detach()
        vl, vauc, vprc = evaluate(model, *d["val"], lossf)
        print(f"Epoch {epoch:2d}/{args.epochs} - loss: {tot / len(ytr):.4f} - auroc: "
              f"{roc_auc_score(ytr.numpy(), preds.numpy()):.4f} - val_loss: {vl:.4f} - val_auroc: {vauc:.4f} "
              f"- val_auprc: {vprc:.4f}")
        if vl < best:
            best = vl
            torch.save(model.state_dict(), "ctcf_cnn_best.pt")
    model.load_state_dict(torch.load("ctcf_cnn_best.pt"))
    tl, tauc, tprc = evaluate(model, *d["test"], lossf)
    print(f"test (chr9): loss {tl:.4f} auroc {tauc:.4f} auprc {tprc:.4f}")


if __name__ == "__main__":
    main()
'''

PWM_CONS = "CCGCGAGGGGGCGC"


def _motif(rng):
    s = []
    for c in PWM_CONS:
        s.append(c if rng.random() < 0.78 else "ACGT"[int(rng.integers(4))])
    return "".join(s)


def run(outdir):
    seed_all(9)
    rng = np.random.default_rng(909)
    chroms = [f"chr{i}" for i in range(1, 23)] + ["chrX"]
    sizes = np.array([248, 242, 198, 190, 181, 171, 159, 145, 138, 134, 135, 133, 114, 107, 102, 90, 83, 80, 59,
                      64, 47, 51, 156], dtype=float)
    rows = []
    for i in range(5200):
        c = chroms[int(rng.choice(len(chroms), p=sizes / sizes.sum()))]
        lab = int(rng.random() < 0.45)
        seq = list(rand_dna(rng, 101, gc=0.46 if lab else 0.41))
        if lab and rng.random() < 0.9:
            m = _motif(rng)
            if rng.random() < 0.5:
                m = m[::-1].translate(str.maketrans("ACGT", "TGCA"))
            p = int(rng.integers(0, 101 - len(m)))
            seq[p:p + len(m)] = list(m)
        elif not lab and rng.random() < 0.08:  # unbound motif instances in background
            m = _motif(rng)
            p = int(rng.integers(0, 101 - len(m)))
            seq[p:p + len(m)] = list(m)
        rows.append((c, int(rng.integers(1, int(sizes[chroms.index(c)] * 1e6))), "".join(seq), lab))
    work = os.path.join(outdir, ".work", "run09")
    os.makedirs(os.path.join(work, "data"), exist_ok=True)
    with open(os.path.join(work, "data", "ctcf_gm12878_101bp.tsv"), "w") as f:
        f.write("chrom\tstart\tseq\tlabel\n" + "".join(f"{c}\t{s}\t{q}\t{l}\n" for c, s, q, l in rows))
    out, rc, el = run_user_script(TRAIN_PY, work, [], "/home/cdiallo/ctcf", "genomics")
    shutil.rmtree(work, ignore_errors=True)
    d = f"{outdir}/runs/run09"
    write(f"{d}/train.py", TRAIN_PY)
    write(f"{d}/log.txt", "$ python train.py\n" + out)
    ep = [l for l in out.splitlines() if l.startswith("Epoch")]
    lower = sum(float(l.split("val_loss: ")[1].split()[0]) < float(l.split("loss: ")[1].split()[0]) for l in ep)
    post = f"""**Validation loss lower than training loss for CTCF CNN -- data leakage?**

Tags: deep learning, chip-seq, pytorch

Training a small CNN on CTCF peaks vs background windows (GM12878, 101 bp). I hold out chr8 for validation and
chr9 for test. In {lower} of {len(ep)} epochs the val_loss is *lower* than the training loss, which everyone says
should not happen... Do I have leakage between chromosomes somewhere, or is something else off? Script + log attached.
"""
    write(f"{d}/post.md", post)
    return {
        "truth": "healthy",
        "symptom": ("My validation loss is lower than my training loss in most epochs - does that mean I have data "
                    "leakage between my chromosome splits?"),
        "how": ("No fault: chromosome hold-out is correct; the training loss is a running mean over the epoch with "
                "dropout 0.5 active while val loss is computed in eval mode at epoch end, so val < train is expected; "
                "val/test AUROC are good but not perfect and consistent."),
        "_stats": {"time": el, "rc": rc, "ep": ep, "test": out.splitlines()[-1]},
    }
