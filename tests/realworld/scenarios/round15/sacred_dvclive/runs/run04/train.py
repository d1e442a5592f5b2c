import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sacred import Experiment
from sacred.observers import FileStorageObserver

ex = Experiment("spiral_deep_mlp")
ex.observers.append(FileStorageObserver("runs"))


@ex.config
def cfg():
    n_points = 1200
    n_classes = 3
    depth = 10
    width = 64
    activation = "sigmoid"
    lr = 0.05
    momentum = 0.9
    batch_size = 64
    epochs = 60
    seed = 42


def spirals(n, k, rng):
    per = n // k
    X, y = [], []
    for c in range(k):
        r = np.linspace(0.05, 1.0, per)
        t = np.linspace(c * 4.2, (c + 1) * 4.2, per) + rng.normal(0, 0.2, per)
        X.append(np.column_stack([r * np.sin(t), r * np.cos(t)]))
        y.append(np.full(per, c))
    return np.concatenate(X).astype(np.float32), np.concatenate(y)


class DeepMLP(nn.Module):
    def __init__(self, d_in, width, depth, n_out, activation):
        super().__init__()
        dims = [d_in] + [width] * depth
        self.hidden = nn.ModuleList([nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:])])
        self.out = nn.Linear(width, n_out)
        self.act = {"sigmoid": torch.sigmoid, "tanh": torch.tanh, "relu": F.relu}[activation]

    def forward(self, x):
        for layer in self.hidden:
            x = self.act(layer(x))
        return self.out(x)


@ex.automain
def run(_run, n_points, n_classes, depth, width, activation, lr, momentum, batch_size, epochs, seed):
    rng = np.random.RandomState(seed)
    X, y = spirals(n_points, n_classes, rng)
    perm = rng.permutation(len(X))
    X, y = torch.tensor(X[perm]), torch.tensor(y[perm])
    n_val = len(X) // 5
    Xva, yva, Xtr, ytr = X[:n_val], y[:n_val], X[n_val:], y[n_val:]

    model = DeepMLP(2, width, depth, n_classes, activation)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    layers = list(model.hidden) + [model.out]

    for epoch in range(epochs):
        order = torch.randperm(len(Xtr))
        tot, correct, nb = 0.0, 0, 0
        gsum = np.zeros(len(layers))
        for i in range(0, len(Xtr), batch_size):
            idx = order[i:i + batch_size]
            out = model(Xtr[idx])
            loss = F.cross_entropy(out, ytr[idx])
            opt.zero_grad()
            loss.backward()
            gsum += [l.weight.grad.norm().item() for l in layers]
            opt.step()
            tot += loss.item() * len(idx)
            correct += (out.argmax(1) == ytr[idx]).sum().item()
            nb += 1
        with torch.no_grad():
            val_acc = (model(Xva).argmax(1) == yva).float().mean().item()
        _run.log_scalar("loss", tot / len(Xtr), epoch)
        _run.log_scalar("accuracy", correct / len(Xtr), epoch)
        _run.log_scalar("val_accuracy", val_acc, epoch)
        for j, g in enumerate(gsum / nb):
            name = f"grad_norm.layer{j:02d}" if j < depth else "grad_norm.out"
            _run.log_scalar(name, g, epoch)
        if epoch % 5 == 0 or epoch == epochs - 1:
            print(f"[{epoch:03d}] loss={tot / len(Xtr):.4f} acc={correct / len(Xtr):.3f} val_acc={val_acc:.3f} "
                  f"|g| first={gsum[0] / nb:.2e} last={gsum[-1] / nb:.2e}")
    return val_acc
