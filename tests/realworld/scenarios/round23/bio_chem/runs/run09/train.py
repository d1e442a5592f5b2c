"""CTCF ChIP-seq peak classifier: 101 bp one-hot -> 1D CNN. chr8 = validation, chr9 = test."""
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
