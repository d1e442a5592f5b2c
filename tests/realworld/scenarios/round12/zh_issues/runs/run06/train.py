import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)
torch.set_num_threads(1)

CLASSES = ["normal", "inner_race", "outer_race"]


def load_split(split):
    xs, ys = [], []
    for label, name in enumerate(CLASSES):
        feat = np.load(f"data/{split}/{name}.npy")
        xs.append(feat)
        ys.append(np.full(len(feat), label))
    x = np.concatenate(xs).astype(np.float32)
    y = np.concatenate(ys).astype(np.int64)
    return torch.from_numpy(x), torch.from_numpy(y)


x_train, y_train = load_split("train")
x_val, y_val = load_split("val")
mu, sigma = x_train.mean(0), x_train.std(0)
x_train = (x_train - mu) / sigma
x_val = (x_val - mu) / sigma
print("train:", tuple(x_train.shape), "val:", tuple(x_val.shape))

train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=40)

model = nn.Sequential(nn.Linear(24, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
criterion = nn.CrossEntropyLoss()

step = 0
for epoch in range(8):
    model.train()
    for x, y in train_loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        if step % 2 == 0:
            print(f"step {step:4d}  loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        pred = model(x_val).argmax(1)
        acc = (pred == y_val).float().mean().item()
    print(f"==> epoch {epoch + 1} val_acc {acc:.4f}")

torch.save(model.state_dict(), "mlp_bearing.pt")
