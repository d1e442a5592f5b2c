import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

torch.set_num_threads(1)
torch.manual_seed(21)
np.random.seed(21)

X, y = make_classification(n_samples=5000, n_features=30, n_informative=15, n_redundant=5,
                           n_classes=4, n_clusters_per_class=1, class_sep=1.2, random_state=21)
X_tmp, X_test, y_tmp, y_test = train_test_split(X, y, test_size=0.2, random_state=21)
X_train, X_val, y_train, y_val = train_test_split(X_tmp, y_tmp, test_size=0.2, random_state=21)
sc = StandardScaler().fit(X_train)


def to_loader(X, y, bs, shuffle):
    ds = TensorDataset(torch.tensor(sc.transform(X), dtype=torch.float32), torch.tensor(y))
    return DataLoader(ds, batch_size=bs, shuffle=shuffle)


train_loader = to_loader(X_train, y_train, 64, True)
val_loader = to_loader(X_val, y_val, 16, False)
test_loader = to_loader(X_test, y_test, 16, False)


class Classifier(nn.Module):
    def __init__(self, d_in, n_out, hidden=256, p=0.5):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, n_out),
        )

    def forward(self, x):
        return self.net(x)


def evaluate(model, loader):
    correct, total, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for xb, yb in loader:
            out = model(xb)
            loss_sum += nn.functional.cross_entropy(out, yb, reduction="sum").item()
            correct += (out.argmax(1) == yb).sum().item()
            total += len(yb)
    return loss_sum / total, correct / total


model = Classifier(30, 4)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
best_acc = 0.0

for epoch in range(1, 21):
    model.train()
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
    tr_loss, tr_acc = evaluate(model, train_loader)
    val_loss, val_acc = evaluate(model, val_loader)
    if val_acc > best_acc:
        best_acc = val_acc
        torch.save(model.state_dict(), "best.pt")
    print(f"epoch {epoch:2d}  train_loss={tr_loss:.4f} train_acc={tr_acc:.4f}  "
          f"val_loss={val_loss:.4f} val_acc={val_acc:.4f}")

model = Classifier(30, 4)
model.load_state_dict(torch.load("best.pt"))
for trial in range(3):
    test_loss, test_acc = evaluate(model, test_loader)
    print(f"[best.pt] test_loss={test_loss:.4f} test_acc={test_acc:.4f}")
