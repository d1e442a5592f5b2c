import numpy as np, torch, torch.nn as nn, time, math


def mlp(i, o, h=256, depth=2, dropout=0.0):
    layers, d = [], i
    for _ in range(depth):
        layers += [nn.Linear(d, h), nn.ReLU()]
        if dropout > 0:
            layers.append(nn.Dropout(dropout))
        d = h
    layers.append(nn.Linear(d, o))
    return nn.Sequential(*layers)


def stack(eps):
    return (np.concatenate([e["obs"] for e in eps]).astype(np.float32),
            np.concatenate([e["action"] for e in eps]).astype(np.float32))


def grad_norm(model):
    tot = 0.0
    for p in model.parameters():
        if p.grad is not None:
            tot += float(p.grad.detach().pow(2).sum())
    return math.sqrt(tot)


class Norm:
    def __init__(self, x):
        self.mean = x.mean(0); self.std = x.std(0) + 1e-6
        self.min = x.min(0); self.max = x.max(0)

    def n(self, x):
        return (x - self.mean) / self.std

    def u(self, x):
        return x * self.std + self.mean


def make_policy(model, on, an, obs_tf=None):
    def pol(o):
        x = on.n(o) if obs_tf is None else obs_tf(o)
        with torch.no_grad():
            y = model(torch.as_tensor(x, dtype=torch.float32)).numpy()
        return an.u(y) if an is not None else y
    return pol


def mse_eval(model, X, Y, bs=1024):
    was = model.training
    model.eval()
    with torch.no_grad():
        l = float(nn.functional.mse_loss(model(torch.as_tensor(X)), torch.as_tensor(Y)))
    model.train(was)
    return l
