import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

np.random.seed(12)
torch.manual_seed(12)
torch.set_num_threads(1)


def maak_dataset(n=9000, n_kenmerken=16, n_klassen=3):
    centra = np.random.normal(0, 1.5, (n_klassen, n_kenmerken))
    klasse = np.random.randint(0, n_klassen, n)
    X = centra[klasse] + np.random.normal(0, 1.0, (n, n_kenmerken))
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(n_kenmerken)])
    df["klasse"] = klasse
    return df


df = maak_dataset()
kenmerken = [c for c in df.columns if c != "klasse"]

X = df[kenmerken].sample(frac=1, random_state=42).to_numpy(dtype=np.float32)
y = df["klasse"].sample(frac=1).to_numpy()

X = (X - X.mean(axis=0)) / X.std(axis=0)
split = int(0.8 * len(X))
train_dl = DataLoader(TensorDataset(torch.tensor(X[:split]), torch.tensor(y[:split])),
                      batch_size=64, shuffle=True)
X_val, y_val = torch.tensor(X[split:]), torch.tensor(y[split:])

model = nn.Sequential(
    nn.Linear(16, 32), nn.ReLU(),
    nn.Linear(32, 32), nn.ReLU(),
    nn.Linear(32, 3),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

EPOCHS = 15
for epoch in range(EPOCHS):
    model.train()
    losses, correct, seen = [], 0, 0
    for xb, yb in train_dl:
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        correct += (out.argmax(1) == yb).sum().item()
        seen += len(yb)
    model.eval()
    with torch.no_grad():
        vout = model(X_val)
        val_loss = criterion(vout, y_val).item()
        val_acc = (vout.argmax(1) == y_val).float().mean().item()
    print(f"Epoch {epoch + 1}/{EPOCHS} - loss: {np.mean(losses):.4f} - accuracy: {correct / seen:.4f}"
          f" - val_loss: {val_loss:.4f} - val_accuracy: {val_acc:.4f}")
