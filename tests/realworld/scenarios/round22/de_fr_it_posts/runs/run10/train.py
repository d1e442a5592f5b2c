import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(10)
torch.set_num_threads(1)
rng = np.random.default_rng(10)

KLASSEN = 5
GROESSE = 12


def erzeuge_bilder(n):
    y = rng.integers(0, KLASSEN, n)
    yy, xx = np.mgrid[0:GROESSE, 0:GROESSE]
    bilder = []
    for k in y:
        winkel = k * np.pi / KLASSEN + rng.normal(0, 0.08)
        frequenz = 0.9 + 0.15 * rng.normal()
        muster = np.sin(frequenz * (np.cos(winkel) * xx + np.sin(winkel) * yy) + rng.uniform(0, 2 * np.pi))
        bilder.append(muster + rng.normal(0, 0.5, muster.shape))
    return torch.tensor(np.stack(bilder)[:, None], dtype=torch.float32), torch.tensor(y)


X_train, y_train = erzeuge_bilder(2000)
X_val, y_val = erzeuge_bilder(500)


class TexturNetz(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.classifier = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, KLASSEN))

    def forward(self, x):
        return self.classifier(self.features(x))


model = TexturNetz()
for name, param in model.named_parameters():
    if not name.startswith("fc"):
        param.requires_grad = False

optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()


def grad_norm(m):
    total = 0.0
    for p in m.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return total ** 0.5


EPOCHS = 20
for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(y_train))
    running, correct = 0.0, 0
    for i in range(0, len(perm), 50):
        idx = perm[i:i + 50]
        optimizer.zero_grad()
        out = model(X_train[idx])
        loss = criterion(out, y_train[idx])
        loss.requires_grad_(True)
        loss.backward()
        optimizer.step()
        running += loss.item() * len(idx)
        correct += (out.argmax(1) == y_train[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        vout = model(X_val)
        val_loss = criterion(vout, y_val).item()
        val_acc = (vout.argmax(1) == y_val).float().mean().item()
    print(f"Epoch [{epoch + 1}/{EPOCHS}] loss: {running / len(perm):.4f} acc: {correct / len(perm):.4f}"
          f" val_loss: {val_loss:.4f} val_acc: {val_acc:.4f} grad_norm: {grad_norm(model):.4f}")
