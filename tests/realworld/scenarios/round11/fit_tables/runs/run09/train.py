import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(13)
rng = np.random.default_rng(13)

SEQ_LEN, N_CLASSES = 30, 4


def make_sequences(n):
    # each class is a sine burst with its own frequency, placed at a random offset, in noise
    freqs = [0.15, 0.3, 0.45, 0.6]
    y = rng.integers(0, N_CLASSES, n)
    t = np.arange(SEQ_LEN)
    X = rng.normal(0, 0.5, (n, SEQ_LEN))
    for i in range(n):
        start = rng.integers(0, SEQ_LEN - 16)
        X[i, start:start + 16] += 1.5 * np.sin(2 * np.pi * freqs[y[i]] * t[:16] + rng.uniform(0, 6.28))
    return torch.tensor(X[..., None], dtype=torch.float32), torch.tensor(y)


x_train, y_train = make_sequences(4000)
x_val, y_val = make_sequences(800)
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=32, shuffle=True)
val_loader = DataLoader(TensorDataset(x_val, y_val), batch_size=200)


class GRUClassifier(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.out = nn.Linear(hidden, N_CLASSES)

    def forward(self, x):
        _, h = self.gru(x)
        return self.out(h[-1])


model = GRUClassifier()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
criterion = nn.CrossEntropyLoss()

for epoch in range(1, 9):
    model.train()
    for it, (x, y) in enumerate(train_loader, 1):
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        if it % 25 == 0:
            print("Epoch[{}] Iteration[{}/{}] Loss: {:.2f}".format(epoch, it, len(train_loader), loss.item()))
    model.eval()
    correct, total, val_loss = 0, 0, 0.0
    with torch.no_grad():
        for x, y in val_loader:
            logits = model(x)
            val_loss += criterion(logits, y).item() * len(y)
            correct += (logits.argmax(1) == y).sum().item()
            total += len(y)
    print("Validation Results - Epoch: {}  Avg accuracy: {:.2f} Avg loss: {:.2f}".format(epoch, correct / total, val_loss / total), flush=True)
