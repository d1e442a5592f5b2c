import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)


def zahl(x, n=4):
    s = f"{x:,.{n}f}"
    return s.replace(",", "_").replace(".", ",").replace("_", ".")


def make_moons(n, noise, rng):
    n1 = n // 2
    n2 = n - n1
    t1 = rng.uniform(0, np.pi, n1)
    t2 = rng.uniform(0, np.pi, n2)
    a = np.stack([np.cos(t1), np.sin(t1)], 1)
    b = np.stack([1 - np.cos(t2), 0.5 - np.sin(t2)], 1)
    X = np.concatenate([a, b]) + rng.normal(0, noise, (n, 2))
    y = np.concatenate([np.zeros(n1), np.ones(n2)])
    return X.astype(np.float32), y.astype(np.int64)


rng = np.random.default_rng(42)
X, y = make_moons(6000, 0.2, rng)
perm = rng.permutation(len(X))
X, y = X[perm], y[perm]
X = (X - X.mean(0)) / X.std(0)
X_train, y_train = torch.from_numpy(X[:5000]), torch.from_numpy(y[:5000])
X_val, y_val = torch.from_numpy(X[5000:]), torch.from_numpy(y[5000:])

model = nn.Sequential(
    nn.Linear(2, 64), nn.Tanh(),
    nn.Linear(64, 64), nn.Tanh(),
    nn.Linear(64, 2),
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.002, momentum=0.9)
criterion = nn.CrossEntropyLoss()

batch_size = 50
epochs = 12
step = 0
log = open("train_log.txt", "w")

for epoch in range(1, epochs + 1):
    model.train()
    idx = torch.randperm(len(X_train))
    summe, n = 0.0, 0
    for i in range(0, len(X_train), batch_size):
        b = idx[i:i + batch_size]
        out = model(X_train[b])
        loss = criterion(out, y_train[b])
        loss.backward()
        gnorm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
        optimizer.step()
        step += 1
        summe += loss.item() * len(b)
        n += len(b)
        if step % 25 == 0:
            zeile = f"Schritt {step:,}".replace(",", ".") + f" | Verlust {zahl(loss.item())} | Gradientennorm {zahl(gnorm, 2)}"
            log.write(zeile + "\n")
    model.eval()
    with torch.no_grad():
        out = model(X_val)
        vloss = criterion(out, y_val).item()
        vacc = (out.argmax(1) == y_val).float().mean().item() * 100
    zeile = (f"Epoche {epoch}/{epochs} - Verlust: {zahl(summe / n)} - Val-Verlust: {zahl(vloss)}"
             f" - Val-Genauigkeit: {zahl(vacc, 1)} % - Gradientennorm: {zahl(gnorm, 2)}")
    print(zeile)
    log.write(zeile + "\n")
log.close()
