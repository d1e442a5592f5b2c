import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sacred import Experiment
from sacred.observers import FileStorageObserver

ex = Experiment("glyphs_mlp")
ex.observers.append(FileStorageObserver("runs"))


@ex.config
def cfg():
    n_train = 3000
    n_val = 800
    hidden = [256, 256, 128]
    bias_init = -1.0
    lr = 1e-3
    batch_size = 64
    epochs = 30
    seed = 8


def glyphs(n, rng, templates=None):
    if templates is None:
        templates = (rng.rand(10, 8, 8) < 0.35).astype(np.float32) * 16
    y = rng.randint(0, 10, n)
    X = templates[y] + rng.normal(0, 4.0, (n, 8, 8))
    shift = rng.randint(-1, 2, n)
    X = np.stack([np.roll(x, s, axis=1) for x, s in zip(X, shift)])
    X = np.clip(X, 0, 16).reshape(n, 64) / 16.0
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y), templates


class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])])

    def forward(self, x, return_acts=False):
        acts = []
        for layer in self.layers[:-1]:
            x = F.relu(layer(x))
            acts.append(x)
        out = self.layers[-1](x)
        return (out, acts) if return_acts else out


def init_weights(model, bias_init):
    for m in model.modules():
        if isinstance(m, nn.Linear):
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            nn.init.constant_(m.bias, bias_init)


@ex.automain
def main(_run, n_train, n_val, hidden, bias_init, lr, batch_size, epochs, seed):
    rng = np.random.RandomState(seed)
    Xtr, ytr, T = glyphs(n_train, rng)
    Xva, yva, _ = glyphs(n_val, rng, T)
    model = MLP([64] + hidden + [10])
    init_weights(model, bias_init)
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(n_train)
        tot, gn = 0.0, np.zeros(len(model.layers))
        nb = 0
        for i in range(0, n_train, batch_size):
            idx = perm[i:i + batch_size]
            loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            gn += [l.weight.grad.norm().item() for l in model.layers]
            opt.step()
            tot += loss.item() * len(idx)
            nb += 1
        model.eval()
        with torch.no_grad():
            out, acts = model(Xva, return_acts=True)
            val_loss = F.cross_entropy(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        _run.log_scalar("loss", tot / n_train)
        _run.log_scalar("val_loss", val_loss)
        _run.log_scalar("val_accuracy", val_acc)
        for j, a in enumerate(acts):
            _run.log_scalar(f"act_zero_frac.fc{j + 1}", (a.sum(0) == 0).float().mean().item())
        for j, g in enumerate(gn / nb):
            _run.log_scalar(f"grad_norm.fc{j + 1}", g)
        print(f"Epoch {epoch + 1}/{epochs} - loss: {tot / n_train:.4f} - val_loss: {val_loss:.4f} - val_accuracy: {val_acc:.4f}")
    return val_acc
