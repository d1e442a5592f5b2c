import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

torch.set_num_threads(1)
torch.manual_seed(5)
np.random.seed(5)

X, y = make_classification(n_samples=6000, n_features=16, n_informative=10, n_redundant=2,
                           n_classes=5, class_sep=1.5, random_state=5)
X = ((X - X.mean(0)) / X.std(0)).astype(np.float32)

X_train, X_val = train_test_split(X, test_size=0.2, shuffle=True)
y_train, y_val = train_test_split(y, test_size=0.2, shuffle=True)

X_train, X_val = torch.from_numpy(X_train), torch.from_numpy(X_val)
y_train, y_val = torch.from_numpy(y_train), torch.from_numpy(y_val)

model = nn.Sequential(
    nn.Linear(16, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 5),
)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
loss_fn = nn.CrossEntropyLoss()

EPOCHS, BS = 25, 64
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(len(X_train))
    ep_loss, ep_correct = 0.0, 0
    for i in range(0, len(perm), BS):
        b = perm[i:i + BS]
        logits = model(X_train[b])
        loss = loss_fn(logits, y_train[b])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ep_loss += loss.item() * len(b)
        ep_correct += (logits.argmax(1) == y_train[b]).sum().item()
    model.eval()
    with torch.no_grad():
        vl = model(X_val)
        val_loss = loss_fn(vl, y_val).item()
        val_acc = (vl.argmax(1) == y_val).float().mean().item()
    if epoch <= 3 or epoch % 5 == 0:
        print(f"Epoch {epoch}/{EPOCHS} | train_loss {ep_loss / len(X_train):.4f} | "
              f"train_acc {ep_correct / len(X_train):.3f} | val_loss {val_loss:.4f} | val_acc {val_acc:.3f}")
