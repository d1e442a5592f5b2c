import numpy as np
import torch
from torch import nn
from torch.utils.tensorboard import SummaryWriter

SEED = 7
torch.manual_seed(SEED)
torch.set_num_threads(1)
rng = np.random.default_rng(SEED)

# --- data: 6 overlapping gaussian blobs, 2 per class-pair, in 24-d ---
N_CLASSES, DIM = 6, 24
centers = rng.normal(0, 1.0, size=(N_CLASSES * 2, DIM))

def sample(n):
    comp = rng.integers(0, N_CLASSES * 2, n)
    x = centers[comp] + rng.normal(0, 1.9, size=(n, DIM))
    y = comp % N_CLASSES
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)

x_train, y_train = sample(8000)
x_val, y_val = sample(1500)
mu, sd = x_train.mean(0), x_train.std(0)
x_train, x_val = (x_train - mu) / sd, (x_val - mu) / sd

net = nn.Sequential(
    nn.Linear(DIM, 64), nn.ReLU(), nn.Dropout(0.3),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, N_CLASSES),
)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.002, momentum=0.9)
BATCH = 16
EPOCHS = 30

tb = SummaryWriter("tb")
it = 0
for ep in range(1, EPOCHS + 1):
    net.train()
    order = torch.randperm(len(x_train))
    correct = 0
    for s in range(0, len(order), BATCH):
        idx = order[s:s + BATCH]
        logits = net(x_train[idx])
        loss = loss_fn(logits, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        correct += (logits.argmax(1) == y_train[idx]).sum().item()
        it += 1
        if it % 25 == 0:
            tb.add_scalar("Loss/train", loss.item(), it)
    net.eval()
    with torch.no_grad():
        logits = net(x_val)
        val_loss = loss_fn(logits, y_val).item()
        val_acc = (logits.argmax(1) == y_val).float().mean().item()
    train_acc = correct / len(x_train)
    tb.add_scalar("Accuracy/train", train_acc, ep)
    tb.add_scalar("Loss/val", val_loss, ep)
    tb.add_scalar("Accuracy/val", val_acc, ep)
    print(f"[{ep:02d}] loss={loss.item():.3f} train_acc={train_acc:.3f} val_loss={val_loss:.3f} val_acc={val_acc:.3f}")
tb.close()
