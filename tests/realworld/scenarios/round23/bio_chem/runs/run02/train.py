import argparse
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
