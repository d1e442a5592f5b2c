import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from data import load_features

CFG = {
    "epochs": 15,
    "batch_size": 64,
    "lr": 3e-3,
    "step_size": 5,      # decay every 5
    "gamma": 0.1,
    "hidden": 128,
}


def evaluate(model, loader, crit):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            out = model(xb)
            tot += crit(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    return tot / n, correct / n


def main():
    torch.manual_seed(0)
    Xtr, ytr, Xva, yva = load_features()
    train_loader = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)),
                              batch_size=CFG["batch_size"], shuffle=True)
    val_loader = DataLoader(TensorDataset(torch.from_numpy(Xva), torch.from_numpy(yva)), batch_size=256)

    h = CFG["hidden"]
    model = nn.Sequential(nn.Linear(Xtr.shape[1], h), nn.ReLU(),
                          nn.Linear(h, h), nn.ReLU(),
                          nn.Linear(h, int(ytr.max()) + 1))
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=CFG["step_size"], gamma=CFG["gamma"])

    print(f"train={len(ytr)} val={len(yva)} classes={int(ytr.max()) + 1} params={sum(p.numel() for p in model.parameters())}")
    for epoch in range(CFG["epochs"]):
        model.train()
        run, n = 0.0, 0
        for xb, yb in train_loader:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
            sched.step()
            run += loss.item() * len(yb)
            n += len(yb)
        vl, va = evaluate(model, val_loader, crit)
        print(f"epoch {epoch + 1:02d} | train_loss {run / n:.4f} | val_loss {vl:.4f} | val_acc {va:.4f} | lr {opt.param_groups[0]['lr']:.2e}")
    torch.save(model.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
