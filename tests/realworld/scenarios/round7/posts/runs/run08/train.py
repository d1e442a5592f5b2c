import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
torch.manual_seed(0)
np.random.seed(0)

digits = load_digits()
X = digits.images.astype(np.float32) / 16.0
y = digits.target
X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.2, random_state=42, stratify=y)
X_tr = torch.tensor(X_tr).unsqueeze(1)
X_va = torch.tensor(X_va).unsqueeze(1)
y_tr = torch.tensor(y_tr)
y_va = torch.tensor(y_va)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 2 * 2, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.flatten(1)
        return self.fc2(F.relu(self.fc1(x)))


model = SmallCNN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
EPOCHS = 15
BATCH_SIZE = 64

for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(X_tr))
    running_loss, correct = 0.0, 0
    for i in range(0, len(perm), BATCH_SIZE):
        idx = perm[i:i + BATCH_SIZE]
        xb, yb = X_tr[idx], y_tr[idx]
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * len(idx)
        correct += (out.argmax(1) == yb).sum().item()

    model.eval()
    with torch.no_grad():
        out = model(X_va)
        val_loss = criterion(out, y_va).item()
        val_acc = (out.argmax(1) == y_va).float().mean().item()
    print(f"Epoch {epoch + 1}/{EPOCHS} - loss: {running_loss / len(X_tr):.4f} - acc: {correct / len(X_tr):.4f}"
          f" - val_loss: {val_loss:.4f} - val_acc: {val_acc:.4f}")

torch.save(model.state_dict(), "digits_cnn.pt")
