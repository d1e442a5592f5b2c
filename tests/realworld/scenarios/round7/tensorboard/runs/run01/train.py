import numpy as np
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(1)
torch.set_num_threads(1)
rng = np.random.default_rng(1)

# 8x8 "digits": 10 prototype strokes, random jitter, pixel noise
protos = rng.random((10, 8, 8)) ** 3 * 16.0

def make_digits(n):
    labels = rng.integers(0, 10, n)
    imgs = protos[labels] * rng.uniform(0.6, 1.4, (n, 1, 1)) + rng.normal(0, 10.0, (n, 8, 8))
    return imgs.reshape(n, 64).astype(np.float32), labels

X_train, y_train = make_digits(3000)
X_val, y_val = make_digits(800)
mean, std = X_train.mean(0), X_train.std(0) + 1e-6
X_train = torch.tensor((X_train - mean) / std)
X_val = torch.tensor((X_val - mean) / std)
y_train, y_val = torch.tensor(y_train), torch.tensor(y_val)

model = nn.Sequential(
    nn.Linear(64, 128), nn.ReLU(),
    nn.Linear(128, 64), nn.ReLU(),
    nn.Linear(64, 10),
)

num_epochs = 40
batch_size = 64
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scheduler = StepLR(optimizer, step_size=10, gamma=0.5)
criterion = nn.CrossEntropyLoss()
writer = SummaryWriter("tb")

for epoch in range(num_epochs):
    model.train()
    perm = torch.randperm(len(X_train))
    epoch_loss = 0.0
    for i in range(0, len(X_train), batch_size):
        idx = perm[i:i + batch_size]
        optimizer.zero_grad()
        loss = criterion(model(X_train[idx]), y_train[idx])
        loss.backward()
        optimizer.step()
        scheduler.step()
        epoch_loss += loss.item() * len(idx)
    epoch_loss /= len(X_train)

    model.eval()
    with torch.no_grad():
        out = model(X_val)
        val_loss = criterion(out, y_val).item()
        val_acc = (out.argmax(1) == y_val).float().mean().item()
    lr_now = optimizer.param_groups[0]["lr"]
    writer.add_scalar("loss/train", epoch_loss, epoch)
    writer.add_scalar("loss/val", val_loss, epoch)
    writer.add_scalar("acc/val", val_acc, epoch)
    writer.add_scalar("lr", lr_now, epoch)
    print(f"epoch {epoch+1:3d} | lr {lr_now:.3e} | train {epoch_loss:.4f} | val {val_loss:.4f} | acc {val_acc:.4f}")

writer.close()
