import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(6)
rng = np.random.default_rng(6)

K, D = 10, 32
means = rng.normal(0, 1.0, size=(K, D))
labels = rng.integers(0, K, size=6000)
feats = means[labels] + rng.normal(0, 2.0, size=(6000, D))

x = torch.tensor(feats, dtype=torch.float32)
t = torch.tensor(labels, dtype=torch.long)
train_ds = TensorDataset(x[:5000], t[:5000])
x_test, t_test = x[5000:], t[5000:]
loader = DataLoader(train_ds, batch_size=128, shuffle=True)

model = nn.Sequential(
    nn.Linear(D, 128),
    nn.ReLU(),
    nn.Linear(128, 64),
    nn.ReLU(),
    nn.Linear(64, K),
    nn.Softmax(dim=1),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for epoch in range(40):
    model.train()
    tot, correct, seen = 0.0, 0, 0
    for xb, tb in loader:
        out = model(xb)
        loss = criterion(out, tb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(tb)
        correct += (out.argmax(1) == tb).sum().item()
        seen += len(tb)
    model.eval()
    with torch.no_grad():
        test_acc = (model(x_test).argmax(1) == t_test).float().mean().item()
    print(f"epoch {epoch + 1}  loss {tot / seen:.4f}  acc {correct / seen:.4f}  test_acc {test_acc:.4f}")
