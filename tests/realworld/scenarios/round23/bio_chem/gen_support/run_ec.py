"""run02: EC top-level class CNN; the labels file contains EC 7 (translocases) while the head has 6 outputs."""
import os
import shutil

import numpy as np

from common import seed_all, write, rand_protein, run_user_script, AA

TRAIN_PY = r'''import argparse
import csv
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

AA = "ACDEFGHIKLMNPQRSTVWY"
AA_IDX = {a: i + 1 for i, a in enumerate(AA)}  # 0 = padding / unknown
# EC 1-6: oxidoreductases, transferases, hydrolases, lyases, isomerases, ligases
NUM_CLASSES = 6
MAX_LEN = 256


class ECDataset(Dataset):
    def __init__(self, path):
        self.ids, self.seqs, self.labels = [], [], []
        with open(path) as f:
            for row in csv.DictReader(f, delimiter="\t"):
                self.ids.append(row["entry"])
                self.seqs.append(row["sequence"][:MAX_LEN])
                self.labels.append(int(row["ec_number"].split(".")[0]) - 1)

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, i):
        return self.seqs[i], self.labels[i]


def collate(batch):
    seqs, labels = zip(*batch)
    L = max(len(s) for s in seqs)
    x = torch.zeros(len(seqs), L, dtype=torch.long)
    for i, s in enumerate(seqs):
        x[i, :len(s)] = torch.tensor([AA_IDX.get(a, 0) for a in s])
    return x, torch.tensor(labels)


class ECCNN(nn.Module):
    def __init__(self, n_classes, emb=16, ch=32, k=9):
        super().__init__()
        self.emb = nn.Embedding(len(AA) + 1, emb, padding_idx=0)
        self.conv = nn.Conv1d(emb, ch, k, padding=k // 2)
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(ch, n_classes)

    def forward(self, x):
        h = self.emb(x).transpose(1, 2)
        h = torch.relu(self.conv(h))
        h = h.masked_fill((x == 0).unsqueeze(1), -1e4).max(dim=2).values
        return self.fc(self.drop(h))


def train_epoch(model, loader, opt, criterion, epoch):
    model.train()
    running = 0.0
    for step, (x, y) in enumerate(loader, 1):
        opt.zero_grad()
        logits = model(x)
        loss = criterion(logits, y)
        loss.backward()
        opt.step()
        running += loss.item()
        if step % 5 == 0:
            print(f"epoch {epoch} step {step}/{len(loader)} loss {running / 5:.4f}")
            running = 0.0


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = n = 0
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum().item()
        n += len(y)
    return correct / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/ec_train.tsv")
    ap.add_argument("--val", default="data/ec_val.tsv")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    args = ap.parse_args()

    torch.manual_seed(0)
    np.random.seed(0)
    train_ds, val_ds = ECDataset(args.train), ECDataset(args.val)
    print(f"train: {len(train_ds)} sequences, val: {len(val_ds)} sequences")
    train_dl = DataLoader(train_ds, batch_size=args.bs, shuffle=True, collate_fn=collate)
    val_dl = DataLoader(val_ds, batch_size=128, collate_fn=collate)

    model = ECCNN(NUM_CLASSES)
    print(model)
    print(f"params: {sum(p.numel() for p in model.parameters()):,}")
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(1, args.epochs + 1):
        t0 = time.time()
        train_epoch(model, train_dl, opt, criterion, epoch)
        acc = evaluate(model, val_dl)
        print(f"epoch {epoch} done in {time.time() - t0:.1f}s  val_acc {acc:.4f}")
        torch.save(model.state_dict(), f"ec_cnn_epoch{epoch}.pt")


if __name__ == "__main__":
    main()
'''

MOTIFS = {1: "GAGGAG", 2: "HRDLKPEN", 3: "GHSMGG", 4: "KDEGRR", 5: "PCPTCG", 6: "SGGKDS", 7: "LLLVLAVW"}
CLASS_SHARE = {1: 0.23, 2: 0.31, 3: 0.24, 4: 0.08, 5: 0.05, 6: 0.084, 7: 0.006}


def _make(rng, n, n_ec7):
    rows = []
    classes = [c for c in range(1, 7)]
    share = np.array([CLASS_SHARE[c] for c in classes])
    share /= share.sum()
    labels = list(rng.choice(classes, size=n - n_ec7, p=share)) + [7] * n_ec7
    rng.shuffle(labels)
    for i, c in enumerate(labels):
        L = int(rng.integers(90, 420))
        s = list(rand_protein(rng, L))
        s[0] = "M"
        for _ in range(int(rng.integers(1, 3))):
            pos = int(rng.integers(5, L - 10))
            m = MOTIFS[int(c)]
            s[pos:pos + len(m)] = list(m)
        ec = f"{c}.{rng.integers(1, 12)}.{rng.integers(1, 30)}.{rng.integers(1, 200)}"
        acc = f"{'AOPQ'[rng.integers(4)]}{rng.integers(0, 10)}{''.join(rng.choice(list('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'), 3))}{rng.integers(0, 10)}"
        rows.append((acc, "".join(s)[:L], ec))
    return rows


def run(outdir):
    seed_all(2)
    rng = np.random.default_rng(202)
    train = _make(rng, 3200, 3)
    val = _make(rng, 400, 1)
    work = os.path.join(outdir, ".work", "run02")
    os.makedirs(os.path.join(work, "data"), exist_ok=True)
    for name, rows in (("ec_train.tsv", train), ("ec_val.tsv", val)):
        with open(os.path.join(work, "data", name), "w") as f:
            f.write("entry\tsequence\tec_number\n")
            for r in rows:
                f.write("\t".join(r) + "\n")
    out, rc, el = run_user_script(TRAIN_PY, work, ["--epochs", "10"], "/home/tnguyen/ec-predict", "prot")
    shutil.rmtree(work, ignore_errors=True)
    d = f"{outdir}/runs/run02"
    write(f"{d}/train.py", TRAIN_PY)
    console = "(prot) tnguyen@gpu-node03:~/ec-predict$ python train.py --epochs 10\n" + out
    write(f"{d}/console.txt", console)
    nsteps = [l for l in out.splitlines() if l.startswith("epoch ")]
    post = """**IndexError during training of a CNN for EC number prediction (variable length protein sequences)**

Tags: python, pytorch, protein, deep learning

I'm trying to train a small CNN to predict the first digit of the EC number from the sequence (UniProt
reviewed enzymes, I split them into train/val tsv files). It runs for a few steps and then dies with an
IndexError inside the loss. I have no idea what is wrong, the first batches train fine and the loss goes down.
Script and full console output attached.
"""
    write(f"{d}/post.md", post)
    return {
        "truth": "label_out_of_range",
        "symptom": ("My EC-number CNN trains fine for a few steps and then crashes with an IndexError inside the loss; "
                    "I have no idea why."),
        "how": ("train.py maps labels as int(ec.split('.')[0]) - 1 with NUM_CLASSES = 6, but the UniProt tsv holds a few "
                "EC 7 (translocase) entries, so label 6 hits CrossEntropyLoss and the run dies with "
                "'IndexError: Target 6 is out of bounds.' after the first batches train normally."),
        "_stats": {"rc": rc, "time": el, "log_lines": len(nsteps)},
    }
