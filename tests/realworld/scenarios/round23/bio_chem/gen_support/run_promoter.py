"""run04: promoter expression classifier on 5-mer profiles; orthologous promoters of the same gene from 25
species end up on both sides of a per-sequence random split."""
import os
import shutil

import numpy as np

from common import seed_all, write, rand_dna, mutate, run_user_script

TRAIN_PY = r'''"""Predict high vs low expression from promoter sequence (-200..0 around TSS) using 5-mer profiles."""
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
'''

SPECIES = ["Homo_sapiens", "Pan_troglodytes", "Pan_paniscus", "Gorilla_gorilla", "Pongo_abelii",
           "Nomascus_leucogenys", "Macaca_mulatta", "Macaca_fascicularis", "Macaca_nemestrina",
           "Chlorocebus_sabaeus", "Papio_anubis", "Theropithecus_gelada", "Cercocebus_atys",
           "Mandrillus_leucophaeus", "Rhinopithecus_roxellana", "Rhinopithecus_bieti", "Piliocolobus_tephrosceles",
           "Colobus_angolensis", "Trachypithecus_francoisi", "Callithrix_jacchus", "Saimiri_boliviensis",
           "Cebus_imitator", "Aotus_nancymaae", "Carlito_syrichta", "Microcebus_murinus"]
MOTIFS = ["TATAAAAG", "GGGCGGGG", "CCAATCA"]


def _genes(rng, n_genes, start_id):
    recs, labels = [], []
    for g in range(n_genes):
        gid = f"ENSG{start_id + g * 137:011d}"
        y = int(rng.random() < 0.45)
        anc = list(rand_dna(rng, 200, gc=0.48))
        # weak, generalisable sequence signal: core-promoter motifs are more frequent in highly expressed genes
        for m in MOTIFS:
            if rng.random() < (0.62 if y else 0.32):
                p = int(rng.integers(20, 190 - len(m)))
                anc[p:p + len(m)] = list(m)
        anc = "".join(anc)
        labels.append((gid, y))
        for sp_i, sp in enumerate(SPECIES):
            div = 0.0 if sp_i == 0 else 0.03 + 0.14 * sp_i / len(SPECIES)
            recs.append((f"{gid}|{sp}", mutate(rng, anc, div, "ACGT")))
    return recs, labels


def _write_fa(path, recs):
    with open(path, "w") as f:
        for n, s in recs:
            f.write(f">{n}\n")
            for i in range(0, len(s), 60):
                f.write(s[i:i + 60] + "\n")


def run(outdir):
    seed_all(4)
    rng = np.random.default_rng(404)
    recs, labels = _genes(rng, 160, 100000)
    erecs, elabels = _genes(rng, 40, 300000)
    work = os.path.join(outdir, ".work", "run04")
    os.makedirs(os.path.join(work, "data"), exist_ok=True)
    _write_fa(os.path.join(work, "data", "promoters_primates.fa"), recs)
    _write_fa(os.path.join(work, "data", "collab_promoters.fa"), erecs)
    for name, lab in (("gene_labels.tsv", labels), ("collab_labels.tsv", elabels)):
        with open(os.path.join(work, "data", name), "w") as f:
            f.write("gene_id\thigh_expr\n" + "".join(f"{g}\t{y}\n" for g, y in lab))
    with open(os.path.join(work, "data", "promoters_primates.fa")) as f:
        head = "".join(f.readline() for _ in range(16))
    argv = ["--external", "data/collab_promoters.fa", "--external_labels", "data/collab_labels.tsv"]
    out, rc, el = run_user_script(TRAIN_PY, work, argv, "/home/asantos/promoter_ml", "dnaml")
    shutil.rmtree(work, ignore_errors=True)
    d = f"{outdir}/runs/run04"
    write(f"{d}/train.py", TRAIN_PY)
    write(f"{d}/train_log.txt", "$ python train.py --external data/collab_promoters.fa "
                                "--external_labels data/collab_labels.tsv\n" + out)
    write(f"{d}/head_promoters.txt", "$ head -16 data/promoters_primates.fa\n" + head)
    ep = [l for l in out.splitlines() if l.startswith("epoch")]
    ext = [l for l in out.splitlines() if l.startswith("external")][0]
    ext_auc = float(ext.split("auroc ")[1].split()[0])
    v1 = float(ep[1].split("val loss")[1].split("auroc ")[1].split()[0])
    post = f"""**Promoter model: val AUROC 0.99 but collaborator's data ~{ext_auc:.2f} -- batch effect between sequencing runs?**

I built a simple 5-mer profile + MLP classifier for high vs low expression from the promoter sequence
(-200..0 around the TSS). Training set: promoters of 160 genes pulled from 25 primate genome assemblies
(Ensembl), labels from our RNA-seq (gene-level high/low). Validation AUROC is {v1:.3f} already at epoch 2
and ends around 0.99, so I was pretty happy.

Then our collaborator sent promoters for 40 other genes (same species, same -200..0 window, labels from their
RNA-seq) and the model gets AUROC ~{ext_auc:.2f} on those. I suspect their assemblies / sequencing runs are
different from the Ensembl ones (batch effect?). How would I correct for that? train.py and the log are attached.
"""
    write(f"{d}/post.md", post)
    return {
        "truth": "data_leakage",
        "symptom": (f"Validation AUROC is ~0.99 from epoch 2 but only ~{ext_auc:.2f} on a collaborator's promoter set; "
                    "I think their sequencing/assemblies differ from ours (batch effect)."),
        "how": ("Each of 160 genes contributes 25 near-identical orthologous promoters (one per primate species) and "
                "train_test_split splits per sequence, so every validation gene is also in training: val AUROC is ~0.99 "
                f"from epoch 2 while genes never seen (collaborator set) give {ext_auc:.2f}."),
        "_stats": {"time": el, "rc": rc, "ep": ep[:3] + ep[-1:], "ext": ext},
    }
