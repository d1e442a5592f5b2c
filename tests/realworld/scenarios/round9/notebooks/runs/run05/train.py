import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

torch.manual_seed(5)
torch.set_num_threads(1)

digits = load_digits()
X_all, y_all = digits.data, digits.target
X_dev, X_holdout, y_dev, y_holdout = train_test_split(X_all, y_all, test_size=300, random_state=5)
X_train, X_val, y_train, y_val = train_test_split(X_dev, y_dev, test_size=0.2, random_state=5)

scaler = StandardScaler().fit(X_train)
Xtr = torch.tensor(scaler.transform(X_train), dtype=torch.float32)
Xva = torch.tensor(scaler.transform(X_val), dtype=torch.float32)
ytr, yva = torch.tensor(y_train), torch.tensor(y_val)


net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
ce = nn.CrossEntropyLoss()

for ep in range(25):
    net.train()
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(perm), 32):
        b = perm[i:i + 32]
        opt.zero_grad()
        loss = ce(net(Xtr[b]), ytr[b])
        loss.backward()
        opt.step()
    net.eval()
    with torch.no_grad():
        tr_loss = ce(net(Xtr), ytr).item()
        va_out = net(Xva)
        va_loss = ce(va_out, yva).item()
        va_acc = (va_out.argmax(1) == yva).float().mean().item()
    print(f"ep {ep:2d} train_loss {tr_loss:.4f} val_loss {va_loss:.4f} val_acc {va_acc:.3f}")

torch.save(net.state_dict(), "digits_mlp.pt")
