import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import wandb


class Classifier(nn.Module):
    def __init__(self, d_in, n_cls, width=256, p=0.5):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, width), nn.ReLU(), nn.Dropout(p),
            nn.Linear(width, width), nn.ReLU(), nn.Dropout(p),
            nn.Linear(width, n_cls))

    def forward(self, x):
        return self.net(x)


def run_epoch(model, dl, opt=None):
    train = opt is not None
    model.train(train)
    tot_loss, correct, n = 0.0, 0, 0
    with torch.set_grad_enabled(train):
        for x, y in dl:
            out = model(x)
            loss = F.cross_entropy(out, y)
            if train:
                opt.zero_grad()
                loss.backward()
                opt.step()
            tot_loss += loss.item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            n += len(y)
    return tot_loss / n, correct / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/audio_embeddings")
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--dropout", type=float, default=0.5)
    args = ap.parse_args()
    torch.manual_seed(0)

    tr = np.load(os.path.join(args.data, "train.npz"))
    va = np.load(os.path.join(args.data, "val.npz"))
    mu, sd = tr["x"].mean(0), tr["x"].std(0)
    mk = lambda d: torch.utils.data.TensorDataset(torch.from_numpy((d["x"] - mu) / sd), torch.from_numpy(d["y"]))
    train_dl = torch.utils.data.DataLoader(mk(tr), batch_size=args.batch_size, shuffle=True)
    val_dl = torch.utils.data.DataLoader(mk(va), batch_size=1024)

    model = Classifier(tr["x"].shape[1], int(tr["y"].max()) + 1, p=args.dropout)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    wandb.init(project="urban-sound", config=vars(args))
    for epoch in range(args.epochs):
        tr_loss, tr_acc = run_epoch(model, train_dl, opt)
        va_loss, va_acc = run_epoch(model, val_dl)
        wandb.log({"epoch": epoch, "train/loss": tr_loss, "train/acc": tr_acc, "val/loss": va_loss, "val/acc": va_acc})
        print(f"[{epoch:02d}] train {tr_loss:.4f}/{tr_acc:.3f}  val {va_loss:.4f}/{va_acc:.3f}")
    torch.save(model.state_dict(), "classifier.pt")
    wandb.finish()


if __name__ == "__main__":
    main()
