import argparse
import math
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split
from tqdm import tqdm


def parse():
    ap = argparse.ArgumentParser(description="GRU sequence classifier")
    ap.add_argument("--data", default="data/sequences.npz")
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.008)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--clip", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=9)
    return ap.parse_args()


class SeqClassifier(nn.Module):
    def __init__(self, vocab=10, emb=16, hidden=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.gru = nn.GRU(emb, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, 2)

    def forward(self, x):
        _, h = self.gru(self.emb(x))
        return self.fc(h[-1])


def evaluate(model, loader, crit):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            tot += crit(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            n += len(y)
    model.train()
    return tot / n, correct / n


def main():
    args = parse()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    d = np.load(args.data)
    ds = TensorDataset(torch.from_numpy(d["X"]), torch.from_numpy(d["y"]))
    train_ds, val_ds = random_split(ds, [5000, 2000], generator=torch.Generator().manual_seed(args.seed))
    train_dl = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)
    val_dl = DataLoader(val_ds, batch_size=200)

    model = SeqClassifier(hidden=args.hidden)
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)

    best = 0.0
    for epoch in range(args.epochs):
        bar = tqdm(train_dl, desc=f"epoch {epoch + 1:02d}/{args.epochs}", leave=True)
        for i, (x, y) in enumerate(bar):
            loss = crit(model(x), y)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            opt.step()
            if i % 5 == 0:
                bar.set_postfix(loss=round(loss.item(), 4), lr=sched.get_last_lr()[0], refresh=False)
        sched.step()
        vl, va = evaluate(model, val_dl, crit)
        tl, ta = evaluate(model, train_dl, crit)
        flag = ""
        if va > best:
            best = va
            torch.save(model.state_dict(), "best.pt")
            flag = "  *saved*"
        print(f"  train loss {tl:.4f} acc {ta:.3f} | val loss {vl:.4f} acc {va:.3f}{flag}")
    print(f"best val acc {best:.3f}")


if __name__ == "__main__":
    main()
