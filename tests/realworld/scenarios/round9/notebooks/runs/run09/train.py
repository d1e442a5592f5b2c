import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

torch.manual_seed(9)
torch.set_num_threads(1)


X, y = make_classification(n_samples=2082, n_features=12, n_informative=6, n_classes=2,
                           weights=[0.7, 0.3], random_state=9)
X = X * np.array([1, 10, 100, 0.1, 5, 50, 1, 2, 1000, 3, 0.5, 20]) + 7.0
sensors = pd.DataFrame(X, columns=[f"s{i:02d}" for i in range(12)])
sensors["alarm"] = y
print(sensors.shape)
X_tr, X_va, y_tr, y_va = train_test_split(sensors.drop(columns="alarm").values, sensors["alarm"].values,
                                          test_size=0.2, random_state=9)
train_dl = DataLoader(TensorDataset(torch.tensor(X_tr, dtype=torch.float32), torch.tensor(y_tr)),
                      batch_size=64, shuffle=True)
val_dl = DataLoader(TensorDataset(torch.tensor(X_va, dtype=torch.float32), torch.tensor(y_va)),
                    batch_size=128)
print(len(train_dl.dataset), "train rows,", len(val_dl.dataset), "val rows")


class BatchStandardize(nn.Module):
    def forward(self, x):
        return (x - x.mean(dim=0, keepdim=True)) / (x.std(dim=0, keepdim=True) + 1e-6)

model = nn.Sequential(BatchStandardize(), nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 2))
optim = torch.optim.Adam(model.parameters(), lr=1e-2)
crit = nn.CrossEntropyLoss()


gstep = 0
for epoch in range(6):
    model.train()
    epoch_loss = []
    for xb, yb in train_dl:
        optim.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        optim.step()
        epoch_loss.append(loss.item())
        gstep += 1
        if gstep % 10 == 0:
            print(f"  step {gstep:3d} loss {loss.item():.4f}")
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in val_dl:
            correct += (model(xb).argmax(1) == yb).sum().item()
    print(f"epoch {epoch}: mean_train_loss={np.mean(epoch_loss):.4f} val_acc={correct / len(val_dl.dataset):.4f}")
