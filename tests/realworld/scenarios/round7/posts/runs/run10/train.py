import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

torch.set_num_threads(1)
torch.manual_seed(17)

X, y = make_classification(n_samples=4000, n_features=12, n_informative=8, class_sep=2.0,
                           flip_y=0.0, random_state=17)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=17)
sc = StandardScaler().fit(X_tr)
X_tr = torch.tensor(sc.transform(X_tr), dtype=torch.float32)
X_te = torch.tensor(sc.transform(X_te), dtype=torch.float32)
y_tr = torch.tensor(y_tr, dtype=torch.float32)
y_te = torch.tensor(y_te, dtype=torch.float32)


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, 1)

    def forward(self, x):
        return self.head(self.body(x)).squeeze(-1)


def bce(logits, target):
    p = torch.sigmoid(logits)
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


model = Scorer()
lr = 3e-3
optimizer = torch.optim.Adam(model.parameters(), lr=lr)
batch_size = 128
it = 0
for epoch in range(16):
    perm = torch.randperm(len(X_tr))
    for s in range(0, len(perm), batch_size):
        idx = perm[s:s + batch_size]
        loss = bce(model(X_tr[idx]), y_tr[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        it += 1
        if it % 20 == 0:
            print(f"iter {it} | loss {loss.item():.4f} | lr {lr:.0e}")
    with torch.no_grad():
        acc = ((model(X_te) > 0).float() == y_te).float().mean().item()
    print(f"epoch {epoch + 1} | test acc {acc:.4f}")
