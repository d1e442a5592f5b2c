"""Train the intent classifier on pre-computed sentence embeddings."""
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
        # return calibrated probabilities so the serving side gets scores in [0, 1]
        self.head = nn.Sequential(nn.Linear(hidden, n_intents), nn.Softmax(dim=-1))

    def forward(self, x):
        return self.head(self.body(x))

    @torch.no_grad()
    def predict_proba(self, x):
        self.eval()
        return self.forward(x)


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
