"""Predict high vs low expression from promoter sequence (-200..0 around TSS) using 5-mer profiles."""
import argparse

import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import roc_auc_score, average_precision_score
from sklearn.model_selection import train_test_split

K = 5
NT = {"A": 0, "C": 1, "G": 2, "T": 3}
POW = 4 ** np.arange(K - 1, -1, -1)


def read_fasta(path):
    names, seqs = [], []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                names.append(line[1:])
                seqs.append("")
            elif line:
                seqs[-1] += line.upper()
    return names, seqs


def kmer_profile(seq):
    codes = np.array([NT.get(c, -1) for c in seq])
    win = np.lib.stride_tricks.sliding_window_view(codes, K)
    win = win[(win >= 0).all(1)]
    v = np.bincount(win @ POW, minlength=4 ** K).astype(np.float32)
    return v / max(v.sum(), 1.0)


def load(fasta, labels_tsv):
    lab = {}
    with open(labels_tsv) as f:
        next(f)
        for line in f:
            gene, y = line.rstrip("\n").split("\t")
            lab[gene] = int(y)
    names, seqs = read_fasta(fasta)
    X = np.stack([kmer_profile(s) for s in seqs])
    y = np.array([lab[n.split("|")[0]] for n in names], dtype=np.float32)
    return X, y


class MLP(nn.Module):
    def __init__(self, d_in, h=128, p=0.2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, h), nn.ReLU(), nn.Dropout(p), nn.Linear(h, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


@torch.no_grad()
def predict(model, X):
    model.eval()
    return torch.sigmoid(model(torch.from_numpy(X))).numpy()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fasta", default="data/promoters_primates.fa")
    ap.add_argument("--labels", default="data/gene_labels.tsv")
    ap.add_argument("--external", default=None)
    ap.add_argument("--external_labels", default=None)
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--lr", type=float, default=1e-3)
    args = ap.parse_args()
    torch.manual_seed(42)

    X, y = load(args.fasta, args.labels)
    X = X * 4 ** K  # counts per 1024 positions, keeps values O(1)
    Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.2, random_state=42)
    print(f"{len(X)} promoters, {X.shape[1]} features | train {len(Xtr)} | val {len(Xva)} | pos frac {y.mean():.3f}")

    model = MLP(X.shape[1])
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=1e-5)
    lossf = nn.BCEWithLogitsLoss()
    Xt, yt = torch.from_numpy(Xtr), torch.from_numpy(ytr)
    for epoch in range(1, args.epochs + 1):
        model.train()
        perm = torch.randperm(len(Xt))
        tot = 0.0
        for i in range(0, len(Xt), 64):
            idx = perm[i:i + 64]
            opt.zero_grad()
            loss = lossf(model(Xt[idx]), yt[idx])
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
        ptr, pva = predict(model, Xtr), predict(model, Xva)
        vloss = lossf(torch.logit(torch.from_numpy(pva).clamp(1e-6, 1 - 1e-6)), torch.from_numpy(yva)).item()
        print(f"epoch {epoch:02d} | train loss {tot / len(Xt):.4f} auroc {roc_auc_score(ytr, ptr):.4f} | "
              f"val loss {vloss:.4f} auroc {roc_auc_score(yva, pva):.4f} auprc {average_precision_score(yva, pva):.4f}")
    torch.save(model.state_dict(), "promoter_mlp.pt")

    if args.external:
        Xe, ye = load(args.external, args.external_labels)
        pe = predict(model, Xe * 4 ** K)
        print(f"external set: {len(Xe)} promoters | auroc {roc_auc_score(ye, pe):.4f} "
              f"auprc {average_precision_score(ye, pe):.4f}")


if __name__ == "__main__":
    main()
