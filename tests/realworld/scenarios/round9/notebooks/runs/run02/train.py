import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

torch.manual_seed(42)
torch.set_num_threads(1)


digits = load_digits()
X = digits.images.astype(np.float32) / 16.0
y = digits.target
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=42, stratify=y)
X_train, X_val, y_train, y_val = train_test_split(X_train, y_train, test_size=0.15, random_state=42, stratify=y_train)

def to_ds(a, b):
    return TensorDataset(torch.from_numpy(a).unsqueeze(1), torch.from_numpy(b).long())

train_dl = DataLoader(to_ds(X_train, y_train), batch_size=64, shuffle=True)
val_dl = DataLoader(to_ds(X_val, y_val), batch_size=256)
test_dl = DataLoader(to_ds(X_test, y_test), batch_size=256)
print(len(X_train), len(X_val), len(X_test))


class SmallCNN(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, n_classes)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)

model = SmallCNN()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
print(sum(p.numel() for p in model.parameters()), "params")


@torch.no_grad()
def evaluate(dl):
    model.eval()
    loss, correct, n = 0.0, 0, 0
    for xb, yb in dl:
        out = model(xb)
        loss += criterion(out, yb).item() * len(yb)
        correct += (out.argmax(1) == yb).sum().item()
        n += len(yb)
    return loss / n, correct / n

EPOCHS = 20
history = []
for epoch in range(EPOCHS):
    model.train()
    run_loss, run_correct, seen = 0.0, 0, 0
    for xb, yb in train_dl:
        opt.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        opt.step()
        run_loss += loss.item() * len(yb)
        run_correct += (out.argmax(1) == yb).sum().item()
        seen += len(yb)
    val_loss, val_acc = evaluate(val_dl)
    history.append((run_loss / seen, run_correct / seen, val_loss, val_acc))
    print(f"Epoch {epoch + 1}/{EPOCHS} - loss: {run_loss / seen:.4f} - acc: {run_correct / seen:.4f}"
          f" - val_loss: {val_loss:.4f} - val_acc: {val_acc:.4f}")


test_loss, test_acc = evaluate(test_dl)
print(f"test_loss={test_loss:.4f} test_acc={test_acc:.4f}")
torch.save(model.state_dict(), "digits_cnn.pt")
