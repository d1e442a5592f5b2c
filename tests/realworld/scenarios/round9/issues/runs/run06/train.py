import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import make_classification
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(0)

BATCH_SIZE = 64
EPOCHS = 8
LR = 2e-3


class BatchStandardize(nn.Module):
    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        mu = x.mean(dim=0, keepdim=True)
        sd = x.std(dim=0, keepdim=True)
        return (x - mu) / (sd + self.eps)


class Classifier(nn.Module):
    def __init__(self, d_in, n_cls):
        super().__init__()
        self.norm = BatchStandardize()
        self.net = nn.Sequential(nn.Linear(d_in, 96), nn.Tanh(), nn.Linear(96, 48), nn.Tanh(),
                                 nn.Linear(48, n_cls))

    def forward(self, x):
        return self.net(self.norm(x))


X, y = make_classification(n_samples=1601, n_features=16, n_informative=10, n_classes=5,
                           random_state=42)
X = X * np.random.RandomState(42).uniform(0.5, 50.0, size=16)
X, y = torch.tensor(X, dtype=torch.float32), torch.tensor(y)
X_train, y_train, X_val, y_val = X[:1281], y[:1281], X[1281:], y[1281:]
loader = DataLoader(TensorDataset(X_train, y_train), batch_size=BATCH_SIZE, shuffle=True)

model = Classifier(16, 5)
opt = torch.optim.Adam(model.parameters(), lr=LR)
ce = nn.CrossEntropyLoss()

step = 0
for epoch in range(EPOCHS):
    model.train()
    ep_losses = []
    for xb, yb in loader:
        loss = ce(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        ep_losses.append(loss.item())
        if step % 5 == 0:
            print(f"  step {step:4d}  loss {loss.item():.4f}")
        step += 1
    model.eval()
    with torch.no_grad():
        out = model(X_val)
        vl = ce(out, y_val).item()
        va = (out.argmax(-1) == y_val).float().mean().item()
    print(f"epoch {epoch + 1}/{EPOCHS}  train_loss {np.mean(ep_losses):.4f}  val_loss {vl:.4f}  val_acc {va:.3f}")
