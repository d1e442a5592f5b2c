import argparse
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.fc1 = nn.Linear(n_in, 128)
        self.bn1 = nn.BatchNorm1d(128)
        self.fc2 = nn.Linear(128, 64)
        self.bn2 = nn.BatchNorm1d(64)
        self.drop = nn.Dropout(0.5)
        self.fc3 = nn.Linear(64, n_out)

    def forward(self, x):
        x = self.drop(F.relu(self.bn1(self.fc1(x))))
        x = self.drop(F.relu(self.bn2(self.fc2(x))))
        return self.fc3(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/grades.npz")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--out", default="artifacts/grader.pt")
    args = ap.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(11)
    d = np.load(args.data)
    mu, sd = d["X_train"].mean(0), d["X_train"].std(0)
    Xtr = torch.tensor((d["X_train"] - mu) / sd, dtype=torch.float32)
    Xva = torch.tensor((d["X_val"] - mu) / sd, dtype=torch.float32)
    ytr, yva = torch.tensor(d["y_train"]), torch.tensor(d["y_val"])

    model = Net(Xtr.shape[1], 3)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
    for ep in range(args.epochs):
        model.train()
        perm = torch.randperm(len(Xtr))
        tl = 0.0
        for i in range(0, len(Xtr), 64):
            idx = perm[i:i + 64]
            loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            vl = F.cross_entropy(out, yva).item()
            va = (out.argmax(1) == yva).float().mean().item()
        print(f"ep {ep + 1:02d} train_loss {tl / len(Xtr):.4f} val_loss {vl:.4f} val_acc {va:.4f}", flush=True)

    torch.save({"state_dict": model.state_dict(), "mu": mu, "sd": sd}, args.out)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
