import argparse
import math
import torch
import torch.nn as nn
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--bs", type=int, default=50)
parser.add_argument("--seed", type=int, default=3)
args = parser.parse_args()
torch.manual_seed(args.seed)

X, y = make_classification(n_samples=2500, n_features=30, n_informative=15, n_classes=3,
                           n_clusters_per_class=2, random_state=args.seed)
X = (X - X.mean(0)) / X.std(0)
Xtr, Xval, ytr, yval = train_test_split(X, y, test_size=0.2, random_state=args.seed)
to_t = lambda a, dt: torch.tensor(a, dtype=dt)
train_dl = DataLoader(TensorDataset(to_t(Xtr, torch.float32), to_t(ytr, torch.long)),
                      batch_size=args.bs, shuffle=True)
Xval, yval = to_t(Xval, torch.float32), to_t(yval, torch.long)


class MLP(nn.Module):
    def __init__(self, d_in, d_hidden, n_out):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(d_in, d_hidden), nn.ReLU(),
            nn.Linear(d_hidden, d_hidden), nn.ReLU(),
        )
        self.out = nn.Linear(d_hidden, n_out)

    def forward(self, x):
        return self.out(self.body(x))


model = MLP(30, 64, 3)
opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.0)
criterion = nn.CrossEntropyLoss()

for epoch in range(1, args.epochs + 1):
    model.train()
    tot_loss, tot_gn, nb = 0.0, 0.0, 0
    for xb, yb in train_dl:
        loss = criterion(model(xb), yb)
        loss.backward()
        gn = math.sqrt(sum(p.grad.pow(2).sum().item() for p in model.parameters()))
        opt.step()
        tot_loss += loss.item()
        tot_gn += gn
        nb += 1
    model.eval()
    with torch.no_grad():
        logits = model(Xval)
        val_loss = criterion(logits, yval).item()
        val_acc = (logits.argmax(1) == yval).float().mean().item()
    print(f"epoch={epoch} train_loss={tot_loss / nb:.4f} grad_norm={tot_gn / nb:.3f} "
          f"val_loss={val_loss:.4f} val_acc={val_acc:.3f}", flush=True)
